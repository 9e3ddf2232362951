/*===- pack_scratch.c - scratch bytes shared across lifetimes -----------===*
 *
 * A scratch argument (import marks them with thunky.role) is carved into
 * slices. Two slices that are never live at the same time can use the same
 * bytes: this pass gives each group of overlapping slices new bytes, greedily
 * and largest first, so that groups whose lifetimes overlap never share a
 * byte, and shrinks the argument to what is used. A lifetime runs from the
 * first to the last op of the function's entry block that touches the group
 * (an op with regions touches what its regions touch; an async region counts
 * until its async_done, a host computation or transfer until its done
 * thunk, or to the end when none comes). A group read before anything wrote it, also inside
 * an op with regions (a loop body that reads, then writes; a read after a
 * write in one branch), holds what scratch started with: live from the
 * start. A scratch buffer used whole, or through slices of
 * slices (run thunky-fold-slices first), is left as it is, and so is one the
 * packing would not shrink. A slice keeps its offset modulo 64: one
 * 64-byte aligned stays so.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/passes/Access.h"
#include "thunky-c/base/Arena.h"
#include "scratch_groups.h"
#include "stages.h"
#include "thunk_info.h"

#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

enum { ALIGNMENT = 64 };
enum { OPTION_REPORT };

/* The scratch arguments being packed, indexed by argument number (a count
 * of 0: not packed), and the entry-block op being visited. */
typedef struct Packing {
  MlirBlock entry;
  ThunkyScratchGroups *groups;
  int64_t step;
  /* Inside an op with regions, visited op by op in program order: per
   * argument and group, whether it was written whole earlier in the op,
   * and the marks set so far, in order: a mark is set only where none was,
   * and those a branch or loop region set are cleared when it ends, since
   * it may not have run. */
  uint8_t **written;
  uint8_t **undo;
  size_t numUndo, undoCapacity;
  /* Host pairs' starts in the entry block, each kept live until its done
   * (NULL once it came), and where each pair's key last started. */
  MlirOperation *starts;
  size_t numStarts, startsCapacity;
  ThunkyOpMap startOf;
  bool ordered, outOfMemory;
} Packing;

static void touchArgument(ThunkyByteRange b, bool write, void *userData) {
  Packing *p = userData;
  if (!mlirValueIsABlockArgument(b.root) ||
      !mlirBlockEqual(mlirBlockArgumentGetOwner(b.root), p->entry))
    return;
  intptr_t arg = mlirBlockArgumentGetArgNumber(b.root);
  ThunkyScratchGroups *g = &p->groups[arg];
  int64_t from = b.offset, to = b.offset + b.size;
  if (!g->count)
    return;
  if (!p->ordered) {
    thunkyScratchGroupsTouch(g, from, to, p->step, p->step, write);
    return;
  }
  /* A read of a group no earlier op touched, and nothing earlier in this
   * one wrote whole, reads the bytes scratch starts with (a loop body that
   * reads before it writes): the group is live from the start. */
  for (size_t k = thunkyFirstGroupAfter(g, from); k < g->count && g->items[k].start < to; ++k) {
    ThunkyScratchGroup *grp = &g->items[k];
    bool fresh = grp->first > grp->last || grp->first >= p->step;
    int64_t first = !write && fresh && !p->written[arg][k] ? 0 : p->step;
    thunkyScratchGroupsTouch(g, grp->start, grp->end, first, p->step, write);
    if (!write || p->written[arg][k] || from > grp->start || to < grp->end)
      continue;
    if (!thunkyArrayGrow((void **)&p->undo, &p->undoCapacity, p->numUndo, sizeof *p->undo)) {
      p->outOfMemory = true;
      return;
    }
    p->undo[p->numUndo++] = &p->written[arg][k];
    p->written[arg][k] = 1;
  }
}

static void readOperands(Packing *p, MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (thunkyValueGetBufferSize(v) >= 0)
      touchArgument(thunkyResolveBytes(v), false, p);
  }
}

/* The ops of an op with regions, each in program order, their writes before
 * their reads. What a cond's branch or a while's regions write may not
 * have happened (another branch, no iteration, XLA's known trip count,
 * which skips the condition), so their marks end with them. */
static bool visitOrdered(Packing *p, MlirOperation op) {
  if (!mlirOperationGetNumRegions(op))
    return thunkyVisitAccesses(op, touchArgument, p) && !p->outOfMemory;
  ThunkyOpKind kind = thunkyOpGetKind(op);
  bool maybe = kind == THUNKY_OP_COND || kind == THUNKY_OP_WHILE;
  /* The op's own operands it reads: a cond's index before its branches, a
   * while's predicate after its condition wrote it (below). */
  if (kind == THUNKY_OP_COND)
    readOperands(p, op);
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r) {
    size_t undoFrom = p->numUndo;
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o))
        if (!visitOrdered(p, o))
          return false;
    if (kind == THUNKY_OP_WHILE && r == 0)
      readOperands(p, op); /* before the condition's marks end */
    for (; maybe && p->numUndo > undoFrom; --p->numUndo)
      *p->undo[p->numUndo - 1] = 0;
  }
  return !p->outOfMemory;
}

static void touchUntilNow(ThunkyByteRange b, bool write, void *userData) {
  (void)write;
  touchArgument(b, false, userData);
}

/* A host computation or transfer reads and writes what its start names
 * until its done: its start's bytes stay live to the done, or to the end
 * of the block where none comes. */
static bool pairs(Packing *p, MlirOperation op) {
  ThunkyOpMapKey key;
  ThunkyHostPairing paired = thunkyHostPairing(op, &key);
  if (paired == THUNKY_PAIR_START) {
    if (!thunkyArrayGrow((void **)&p->starts, &p->startsCapacity, p->numStarts,
                         sizeof *p->starts) ||
        (key.b >= 0 &&
         !thunkyOpMapPut(&p->startOf, key, (void *)(uintptr_t)(p->numStarts + 1))))
      return false;
    p->starts[p->numStarts++] = op;
  }
  uintptr_t at = paired == THUNKY_PAIR_DONE && key.b >= 0
                     ? (uintptr_t)thunkyOpMapGet(&p->startOf, key)
                     : 0;
  if (at && !mlirOperationIsNull(p->starts[at - 1])) {
    p->ordered = false;
    if (!thunkyVisitAccesses(p->starts[at - 1], touchUntilNow, p))
      return false;
    p->starts[at - 1] = (MlirOperation){NULL};
  }
  return true;
}

/* Lifetimes in entry-block op indices, of every packed argument in one walk
 * (one walk per argument would cost arguments times ops). */
static bool lifetimes(Packing *p) {
  p->step = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(p->entry); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++p->step) {
    if (!pairs(p, op))
      return false;
    p->ordered = mlirOperationGetNumRegions(op) > 0;
    if (!p->ordered) {
      if (!thunkyVisitAccesses(op, touchArgument, p))
        return false;
      continue;
    }
    if (!visitOrdered(p, op))
      return false;
    for (; p->numUndo; --p->numUndo)
      *p->undo[p->numUndo - 1] = 0;
  }
  p->step--, p->ordered = false;
  for (size_t i = 0; i < p->numStarts; i++)
    if (!mlirOperationIsNull(p->starts[i]) &&
        !thunkyVisitAccesses(p->starts[i], touchUntilNow, p))
      return false;
  return true;
}

static int largestFirst(const void *x, const void *y) {
  const ThunkyScratchGroup *a = x, *b = y;
  int64_t sa = a->end - a->start, sb = b->end - b->start;
  return (sa < sb) - (sa > sb);
}

/* Places groups largest first at the lowest offset that clashes with no
 * placed group live at the same time, and lies where the group did modulo
 * the alignment: a group moves by a multiple of it, so every slice in it
 * keeps the alignment it had (a group may start anywhere, its slices at 64
 * bytes past it). Returns the bytes used. */
static int64_t place(ThunkyScratchGroups *p) {
  qsort(p->items, p->count, sizeof *p->items, largestFirst);
  int64_t total = 0;
  for (size_t i = 0; i < p->count; ++i) {
    ThunkyScratchGroup *g = &p->items[i];
    int64_t size = g->end - g->start, residue = g->start % ALIGNMENT, at = residue;
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t j = 0; j < i; ++j) {
        ThunkyScratchGroup *h = &p->items[j];
        bool together = g->first <= h->last && h->first <= g->last;
        int64_t hs = h->newStart, he = h->newStart + (h->end - h->start);
        if (together && at < he && hs < at + size) {
          at = (he - residue + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT + residue;
          moved = true;
        }
      }
    }
    g->newStart = at;
    if (at + size > total)
      total = at + size;
  }
  return total;
}

static void rewrite(MlirValue arg, ThunkyScratchGroups *p, int64_t total) {
  MlirContext ctx = mlirValueGetContext(arg);
  thunkyScratchGroupsSortByStart(p);
  for (MlirOpOperand use = mlirValueGetFirstUse(arg); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation slice = mlirOpOperandGetOwner(use);
    int64_t offset = thunkySliceBufferGetOffset(slice);
    int64_t size = thunkyValueGetBufferSize(mlirOperationGetResult(slice, 0));
    size_t g = thunkyFirstGroupAfter(p, offset);
    /* An empty slice names no bytes; it only has to stay in bounds. */
    int64_t moved = size == 0 || g == p->count
                        ? 0
                        : offset - p->items[g].start + p->items[g].newStart;
    thunkySliceBufferSetOffset(slice, moved);
  }
  mlirValueSetType(arg, thunkyBufferTypeGet(ctx, total));
}

/* The function's type follows its entry block's arguments. */
static void updateFunctionType(MlirOperation func, MlirBlock entry) {
  intptr_t n = mlirBlockGetNumArguments(entry);
  MlirType *inputs = malloc((size_t)(n + 1) * sizeof *inputs);
  if (!inputs)
    return;
  for (intptr_t i = 0; i < n; ++i)
    inputs[i] = mlirValueGetType(mlirBlockGetArgument(entry, i));
  MlirAttribute old = mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("function_type"));
  MlirType fn = mlirTypeAttrGetValue(old);
  intptr_t nResults = mlirFunctionTypeGetNumResults(fn);
  MlirType *results = malloc((size_t)(nResults + 1) * sizeof *results);
  if (results) {
    for (intptr_t i = 0; i < nResults; ++i)
      results[i] = mlirFunctionTypeGetResult(fn, i);
    mlirOperationSetAttributeByName(
        func, mlirStringRefCreateFromCString("function_type"),
        mlirTypeAttrGet(mlirFunctionTypeGet(mlirOperationGetContext(func), n, inputs,
                                            nResults, results)));
  }
  free(inputs), free(results);
}

static MlirWalkResult outOfMemory(MlirOperation func, ThunkyPassState *state) {
  thunkyEmitOpError(func, "thunky-pack-scratch: out of memory");
  thunkyPassSignalFailure(state);
  return MlirWalkResultInterrupt;
}

static MlirWalkResult packFunction(MlirOperation func, void *userData) {
  ThunkyPassState *state = userData;
  if (!thunkyIsFunction(func))
    return MlirWalkResultAdvance;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t n = mlirBlockIsNull(entry) ? 0 : mlirBlockGetNumArguments(entry);
  Packing p = {.entry = entry, .groups = calloc((size_t)n + 1, sizeof *p.groups),
               .written = calloc((size_t)n + 1, sizeof *p.written)};
  if (!p.groups || !p.written) {
    free(p.groups), free(p.written);
    return outOfMemory(func, state);
  }
  bool any = false, ok = true;
  for (intptr_t i = 0; ok && i < n; ++i) {
    MlirValue arg = mlirBlockGetArgument(entry, i);
    bool grouped = false;
    /* An argument no thunk slices is left alone: XLA may use it otherwise. */
    if (thunkyValueGetBufferSize(arg) > 0 && thunkyIsScratchArgument(arg))
      ok = thunkyGroupSlices(arg, &p.groups[i], &grouped);
    if (grouped && p.groups[i].count > 0)
      any = true, ok = (p.written[i] = calloc(p.groups[i].count, 1)) != NULL;
    else
      thunkyScratchGroupsClear(&p.groups[i]);
  }
  bool changed = false;
  ok = ok && (!any || lifetimes(&p));
  if (any && ok)
    for (intptr_t i = 0; i < n; ++i) {
      if (!p.groups[i].count)
        continue;
      MlirValue arg = mlirBlockGetArgument(entry, i);
      int64_t before = thunkyValueGetBufferSize(arg), after = place(&p.groups[i]);
      if (after < before) {
        rewrite(arg, &p.groups[i], after);
        changed = true;
        if (thunkyPassGetOption(state, OPTION_REPORT))
          fprintf(stderr, "thunky-pack-scratch: argument %" PRIdPTR ": %" PRId64
                          " -> %" PRId64 " bytes\n", i, before, after);
      }
    }
  for (intptr_t i = 0; i < n; ++i)
    thunkyScratchGroupsClear(&p.groups[i]), free(p.written[i]);
  free(p.groups), free(p.written), free(p.undo), free(p.starts);
  thunkyOpMapClear(&p.startOf);
  if (!ok)
    return outOfMemory(func, state);
  if (changed)
    updateFunctionType(func, entry);
  return MlirWalkResultSkip;
}

static void run(MlirOperation root, ThunkyPassState *state) {
  mlirOperationWalk(root, packFunction, state, MlirWalkPreOrder);
}

static const ThunkyPassOption options[] = {
    [OPTION_REPORT] = {"report", "Print each packed argument's bytes before and after",
                       THUNKY_OPTION_BOOL, 0},
};
const ThunkyPassInfo thunkyPackScratchInfo = {
    "ThunkyPackScratch", "thunky-pack-scratch",
    "Let scratch slices with disjoint lifetimes share bytes, shrinking scratch",
    run, options, 1};

MlirPass thunkyCreatePackScratchPass(void) { return thunkyPassCreate(&thunkyPackScratchInfo); }
