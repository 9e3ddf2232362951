/*===- pack_scratch.c - scratch bytes shared across lifetimes -----------===*
 *
 * A scratch argument (import marks them with thunky.role) is carved into
 * slices. Two slices that are never live at the same time can use the same
 * bytes: this pass gives each group of overlapping slices new bytes, greedily
 * and largest first, so that groups whose lifetimes overlap never share a
 * byte, and shrinks the argument to what is used. A lifetime runs from the
 * first to the last op of the function's entry block that touches the group
 * (an op with regions touches what its regions touch; an async region counts
 * until its async_done). A scratch buffer used whole, or through slices of
 * slices (run thunky-fold-slices first), is left as it is, and so is one the
 * packing would not shrink. New offsets keep 64-byte alignment.
 *
 *===--------------------------------------------------------------------===*/
#include "access.h"

#include "thunky-c/Diagnostics.h"
#include "thunky-c/Dialect.h"
#include "thunky-c/Ops.h"
#include "thunky-c/PassKit.h"
#include "thunky-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALIGNMENT = 64 };
enum { OPTION_REPORT };

typedef struct Group {
  int64_t start, end;       /* bytes [start, end) of the scratch buffer */
  int64_t first, last;      /* lifetime: entry-block op indices; first > last: unused */
  int64_t newStart;
} Group;

typedef struct Plan {
  Group *groups;
  size_t count, capacity;
} Plan;

static MlirStringRef offsetName(void) { return mlirStringRefCreateFromCString("offset"); }

static bool addRange(Plan *p, int64_t start, int64_t end) {
  if (start >= end)
    return true; /* an empty slice holds no bytes (rewrite keeps it at 0) */
  if (p->count == p->capacity) {
    size_t capacity = p->capacity ? 2 * p->capacity : 16;
    Group *grown = realloc(p->groups, capacity * sizeof *grown);
    if (!grown)
      return false;
    p->groups = grown, p->capacity = capacity;
  }
  p->groups[p->count++] = (Group){start, end, INT64_MAX, -1, 0};
  return true;
}

static int byStart(const void *x, const void *y) {
  const Group *a = x, *b = y;
  return (a->start > b->start) - (a->start < b->start);
}

/* Merges overlapping ranges into groups, sorted by start. */
static void mergeRanges(Plan *p) {
  if (p->count == 0)
    return;
  qsort(p->groups, p->count, sizeof *p->groups, byStart);
  size_t n = 0;
  for (size_t i = 0; i < p->count; ++i) {
    if (n && p->groups[i].start < p->groups[n - 1].end) {
      if (p->groups[i].end > p->groups[n - 1].end)
        p->groups[n - 1].end = p->groups[i].end;
    } else {
      p->groups[n++] = p->groups[i];
    }
  }
  p->count = n;
}

/* The first group ending after `offset` (groups are sorted and disjoint). */
static size_t firstGroupAfter(const Plan *p, int64_t offset) {
  size_t lo = 0, hi = p->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->groups[mid].end <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Groups from the slices of `arg`; false if it is used otherwise. */
static bool groupSlices(MlirValue arg, Plan *p) {
  for (MlirOpOperand use = mlirValueGetFirstUse(arg); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (thunkyOpGetKind(user) != THUNKY_OP_SLICE_BUFFER)
      return false;
    MlirValue result = mlirOperationGetResult(user, 0);
    for (MlirOpOperand inner = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(inner);
         inner = mlirOpOperandGetNextUse(inner))
      if (thunkyOpGetKind(mlirOpOperandGetOwner(inner)) == THUNKY_OP_SLICE_BUFFER)
        return false;
    int64_t offset = mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(user, offsetName()));
    if (!addRange(p, offset, offset + thunkyValueGetBufferSize(result)))
      return false;
  }
  mergeRanges(p);
  return true;
}

static bool lifetimes(MlirBlock entry, MlirValue arg, Plan *p) {
  int64_t index = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(entry); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++index) {
    ThunkyAccesses a = {0};
    thunkyCollectAccesses(op, &a);
    if (a.outOfMemory)
      return false;
    for (size_t k = 0; k < a.count; ++k) {
      if (!mlirValueEqual(a.items[k].bytes.root, arg))
        continue;
      int64_t from = a.items[k].bytes.offset, to = from + a.items[k].bytes.size;
      for (size_t g = firstGroupAfter(p, from); g < p->count && p->groups[g].start < to; ++g) {
        Group *grp = &p->groups[g];
        grp->first = index < grp->first ? index : grp->first;
        grp->last = index > grp->last ? index : grp->last;
      }
    }
    thunkyAccessesClear(&a);
  }
  return true;
}

static int largestFirst(const void *x, const void *y) {
  const Group *a = x, *b = y;
  int64_t sa = a->end - a->start, sb = b->end - b->start;
  return (sa < sb) - (sa > sb);
}

/* Places groups largest first at the lowest aligned offset that clashes
 * with no placed group live at the same time; returns the bytes used. */
static int64_t place(Plan *p) {
  qsort(p->groups, p->count, sizeof *p->groups, largestFirst);
  int64_t total = 0;
  for (size_t i = 0; i < p->count; ++i) {
    Group *g = &p->groups[i];
    int64_t size = g->end - g->start, at = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t j = 0; j < i; ++j) {
        Group *h = &p->groups[j];
        bool together = g->first <= h->last && h->first <= g->last;
        int64_t hs = h->newStart, he = h->newStart + (h->end - h->start);
        if (together && at < he && hs < at + size) {
          at = (he + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
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

static void rewrite(MlirValue arg, Plan *p, int64_t total) {
  MlirContext ctx = mlirValueGetContext(arg);
  qsort(p->groups, p->count, sizeof *p->groups, byStart);
  for (MlirOpOperand use = mlirValueGetFirstUse(arg); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation slice = mlirOpOperandGetOwner(use);
    int64_t offset = mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(slice, offsetName()));
    int64_t size = thunkyValueGetBufferSize(mlirOperationGetResult(slice, 0));
    size_t g = firstGroupAfter(p, offset);
    /* An empty slice names no bytes; it only has to stay in bounds. */
    int64_t moved = size == 0 || g == p->count
                        ? 0
                        : offset - p->groups[g].start + p->groups[g].newStart;
    mlirOperationSetAttributeByName(
        slice, offsetName(), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), moved));
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

static MlirWalkResult packFunction(MlirOperation func, void *userData) {
  ThunkyPassState *state = userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(func));
  if (name.length != 9 || memcmp(name.data, "func.func", 9) != 0)
    return MlirWalkResultAdvance;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  bool changed = false;
  for (intptr_t i = 0; !mlirBlockIsNull(entry) && i < mlirBlockGetNumArguments(entry); ++i) {
    MlirValue arg = mlirBlockGetArgument(entry, i);
    int64_t before = thunkyValueGetBufferSize(arg);
    Plan p = {0};
    /* An argument no thunk slices is left alone: XLA may use it otherwise. */
    if (before > 0 && thunkyIsScratchArgument(arg) && groupSlices(arg, &p) &&
        p.count > 0 && lifetimes(entry, arg, &p)) {
      int64_t after = place(&p);
      if (after < before) {
        rewrite(arg, &p, after);
        changed = true;
        if (thunkyPassGetOption(state, OPTION_REPORT))
          fprintf(stderr, "thunky-pack-scratch: argument %" PRIdPTR ": %" PRId64
                          " -> %" PRId64 " bytes\n", i, before, after);
      }
    }
    free(p.groups);
  }
  if (changed)
    updateFunctionType(func, entry);
  return MlirWalkResultSkip;
}

static void run(MlirOperation root, ThunkyPassState *state) {
  mlirOperationWalk(root, packFunction, state, MlirWalkPreOrder);
}

MlirPass thunkyCreatePackScratchPass(void) {
  static const ThunkyPassOption options[] = {
      [OPTION_REPORT] = {"report", "Print each packed argument's bytes before and after",
                             THUNKY_OPTION_BOOL, 0},
  };
  static const ThunkyPassInfo info = {
      "ThunkyPackScratch", "thunky-pack-scratch",
      "Let scratch slices with disjoint lifetimes share bytes, shrinking scratch",
      run, options, 1};
  return thunkyPassCreate(&info);
}
