/*===- export_sequential.c - sequentials import flattened ---------------===*
 *
 * Import flattens a sequential_thunk whose async_start_thunk is awaited
 * after it (import_flatten.c); the ops that were in it carry the group in
 * THUNKY_ATTR_IN_SEQUENTIAL. Export wraps each group's thunks back into one
 * sequential_thunk built from the recorded residual, so an unchanged module
 * gives back the same bytes.
 *
 * Passes may have moved or deleted ops since. A group is rebuilt from the
 * thunks still in it when they are consecutive among the thunks of one
 * block, all with the same groups around it; otherwise (thunks separated,
 * moved into another block, nested differently) the group is dropped and
 * its thunks are written where they are, unwrapped. Either way the result
 * is a valid executable: the sequence of thunks is that of the ops.
 *
 *===--------------------------------------------------------------------===*/
#include "export.h"

#include "proto_attr.h"
#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Dialect.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct ExportGroup {
  MlirBlock block;        /* the first block with one of its thunks */
  MlirAttribute residual; /* the sequential's THUNKY_ATTR_THUNK, or null */
  MlirAttribute info;     /* its THUNKY_ATTR_INFO, or null */
  MlirOperation at;       /* the first op naming it, for errors */
  bool broken;            /* in several blocks, or separated: written unwrapped */
  /* In the block being written: */
  size_t first, last, count; /* its thunks' positions and number */
  const uint32_t *prefix;    /* the groups around it where first seen */
  size_t depth;
  Thunk *thunk; /* while open: its sequential_thunk */
  List thunks;
} Group;

static bool malformed(MlirOperation op) {
  return opError(op, THUNKY_ATTR_IN_SEQUENTIAL
                 " must be an array of {group = <integer>, thunk = <dictionary>}");
}

static MlirAttribute pathOf(MlirOperation op) { return discardable(op, THUNKY_ATTR_IN_SEQUENTIAL); }

/* Checks `op`'s path and notes each group in it, with the block it is in. */
static bool scanOp(Exporter *ex, MlirOperation op, MlirAttribute path) {
  if (!mlirAttributeIsAArray(path))
    return malformed(op);
  MlirBlock block = mlirOperationGetBlock(op);
  intptr_t n = mlirArrayAttrGetNumElements(path);
  for (intptr_t i = 0; i < n; ++i) {
    MlirAttribute g = mlirArrayAttrGetElement(path, i);
    MlirAttribute number =
        mlirAttributeIsADictionary(g) ? mlirDictionaryAttrGetElementByName(g, str("group"))
                                      : mlirAttributeGetNull();
    MlirAttribute residual = mlirAttributeIsADictionary(g)
                                 ? mlirDictionaryAttrGetElementByName(g, str("thunk"))
                                 : mlirAttributeGetNull();
    if (mlirAttributeIsNull(number) || !mlirAttributeIsAInteger(number) ||
        (mlirTypeIsAInteger(mlirAttributeGetType(number)) &&
         mlirIntegerTypeGetWidth(mlirAttributeGetType(number)) > 64) ||
        (!mlirAttributeIsNull(residual) && !mlirAttributeIsADictionary(residual)))
      return malformed(op);
    uint64_t key = (uint64_t)mlirIntegerAttrGetValueInt(number);
    uint32_t slot;
    if (thunkyHashMapGet(&ex->groupOf, key, &slot)) {
      Group *known = &ex->groups[slot];
      known->broken |= !mlirBlockEqual(known->block, block);
      continue;
    }
    if (ex->numGroups >= UINT32_MAX ||
        !thunkyArrayGrow((void **)&ex->groups, &ex->groupCapacity, ex->numGroups,
                         sizeof *ex->groups))
      return opError(op, "out of memory");
    if (!thunkyHashMapPut(&ex->groupOf, key, (uint32_t)ex->numGroups))
      return opError(op, "out of memory");
    ex->groups[ex->numGroups++] =
        (Group){.block = block,
                .residual = residual,
                .info = mlirDictionaryAttrGetElementByName(g, str("info")),
                .at = op};
  }
  return true;
}

typedef struct Scan {
  Exporter *ex;
  bool ok;
} Scan;

static MlirWalkResult scanWalk(MlirOperation op, void *userData) {
  Scan *s = userData;
  MlirAttribute path = pathOf(op);
  if (!mlirAttributeIsNull(path) && !scanOp(s->ex, op, path)) {
    s->ok = false;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

bool thunkyExportScanGroups(Exporter *ex, MlirOperation main) {
  Scan s = {ex, true};
  mlirOperationWalk(main, scanWalk, &s, MlirWalkPreOrder);
  return s.ok;
}

/*--- one block -----------------------------------------------------------*/

typedef struct Entry {
  Thunk *thunk;
  MlirOperation op;
  uint32_t *path; /* group slots, outermost first */
  size_t depth;
} Entry;

/* The group's sequential_thunk, from its residual, with no thunks yet. */
static Thunk *openGroup(Exporter *ex, Group *g) {
  Thunk *t = mlirAttributeIsNull(g->residual)
                 ? thunkyExportNewMessage(ex, &xla__gpu__thunk_proto__descriptor)
                 : (Thunk *)thunkyAttrToProto(g->residual, &xla__gpu__thunk_proto__descriptor,
                                              ex->arena, mlirOperationGetLocation(g->at),
                                              THUNKY_ATTR_IN_SEQUENTIAL);
  if (!t || !thunkyExportThunkInfo(ex, g->at, g->info, t))
    return NULL;
  if (t->impl_case != XLA__GPU__THUNK_PROTO__IMPL__NOT_SET &&
      t->impl_case != XLA__GPU__THUNK_PROTO__IMPL_SEQUENTIAL_THUNK) {
    opError(g->at, THUNKY_ATTR_IN_SEQUENTIAL " holds a thunk that is not a sequential_thunk");
    return NULL;
  }
  if (!t->sequential_thunk &&
      !(t->sequential_thunk =
            thunkyExportNewMessage(ex, &xla__gpu__sequential_thunk_proto__descriptor))) {
    opError(g->at, "out of memory");
    return NULL;
  }
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_SEQUENTIAL_THUNK;
  g->thunks = (List){0};
  return t;
}

/* Notes entry `e` (at position `i`) in each group of its path. */
static void measure(Group *groups, const Entry *e, size_t i) {
  for (size_t d = 0; d < e->depth; ++d) {
    Group *g = &groups[e->path[d]];
    if (g->count++ == 0) {
      g->first = i, g->prefix = e->path, g->depth = d;
    } else if (g->depth != d || (d && memcmp(g->prefix, e->path, d * sizeof *e->path) != 0)) {
      g->broken = true; /* other groups around it than before */
    }
    g->last = i;
  }
}

bool thunkyExportGroupedBlock(Exporter *ex, MlirBlock block, List *out,
                              bool (*exportOp)(Exporter *, MlirOperation, List *)) {
  Group *groups = ex->groups;
  List thunks = {0};
  size_t numEntries = 0, capacity = 0, maxDepth = 0;
  Entry *entries = NULL;
  bool ok = true;
  /* Every op's thunk first, in order (a done needs its start written). */
  for (MlirOperation op = mlirBlockGetFirstOperation(block); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    size_t before = thunks.count;
    if (!exportOp(ex, op, &thunks)) {
      ok = false;
      break;
    }
    if (thunks.count == before)
      continue;
    if (numEntries == capacity) {
      capacity = capacity ? 2 * capacity : 16;
      Entry *grown = thunkyArenaAlloc(ex->arena, capacity * sizeof *grown);
      if (!grown) {
        ok = opError(op, "out of memory");
        break;
      }
      if (numEntries)
        memcpy(grown, entries, numEntries * sizeof *grown);
      entries = grown;
    }
    Entry *e = &entries[numEntries++];
    *e = (Entry){thunks.items[before], op, NULL, 0};
    MlirAttribute path = pathOf(op);
    size_t n = mlirAttributeIsNull(path) ? 0 : (size_t)mlirArrayAttrGetNumElements(path);
    if (n && !(e->path = thunkyArenaAlloc(ex->arena, n * sizeof *e->path))) {
      ok = opError(op, "out of memory");
      break;
    }
    for (size_t d = 0; d < n; ++d) {
      MlirAttribute number = mlirDictionaryAttrGetElementByName(
          mlirArrayAttrGetElement(path, (intptr_t)d), str("group"));
      thunkyHashMapGet(&ex->groupOf, (uint64_t)mlirIntegerAttrGetValueInt(number),
                       &e->path[d]); /* the scan saw every path */
    }
    e->depth = n;
    maxDepth = n > maxDepth ? n : maxDepth;
  }
  if (!ok)
    return false;

  for (size_t i = 0; i < numEntries; ++i)
    for (size_t d = 0; d < entries[i].depth; ++d)
      groups[entries[i].path[d]].count = 0;
  for (size_t i = 0; i < numEntries; ++i)
    measure(groups, &entries[i], i);
  for (size_t i = 0; i < numEntries; ++i)
    for (size_t d = 0; d < entries[i].depth; ++d) {
      Group *g = &groups[entries[i].path[d]];
      g->broken |= g->last - g->first + 1 != g->count; /* separated, or named twice */
    }

  /* The groups open around the current thunk, outermost first, and those
   * kept around the next one (a valid group is in a path once, so neither
   * is deeper than the deepest path). */
  uint32_t *open = thunkyArenaAlloc(ex->arena, (maxDepth + 1) * sizeof *open);
  uint32_t *wanted = thunkyArenaAlloc(ex->arena, (maxDepth + 1) * sizeof *wanted);
  size_t numOpen = 0;
  if (!open || !wanted)
    return opError(mlirBlockGetParentOperation(block), "out of memory");
  for (size_t i = 0; ok && i <= numEntries; ++i) {
    const Entry *e = i < numEntries ? &entries[i] : NULL;
    size_t keep = 0, depth = e ? e->depth : 0, common = 0;
    for (size_t d = 0; d < depth; ++d)
      if (!groups[e->path[d]].broken)
        wanted[keep++] = e->path[d];
    while (common < numOpen && common < keep && open[common] == wanted[common])
      ++common;
    while (ok && numOpen > common) {
      Group *g = &groups[open[--numOpen]];
      g->thunk->sequential_thunk->n_thunks = g->thunks.count;
      g->thunk->sequential_thunk->thunks = (Thunk **)g->thunks.items;
      List *parent = numOpen ? &groups[open[numOpen - 1]].thunks : out;
      ok = thunkyExportAppend(ex, parent, g->thunk) || opError(g->at, "out of memory");
    }
    if (!e)
      break;
    for (; ok && numOpen < keep; ++numOpen) {
      Group *g = &groups[wanted[numOpen]];
      ok = (g->thunk = openGroup(ex, g)) != NULL;
      open[numOpen] = wanted[numOpen];
    }
    List *into = numOpen ? &groups[open[numOpen - 1]].thunks : out;
    ok = ok && (thunkyExportAppend(ex, into, e->thunk) || opError(e->op, "out of memory"));
  }
  return ok;
}
