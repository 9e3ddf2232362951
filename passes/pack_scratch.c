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
#include "scratch_groups.h"

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

enum { ALIGNMENT = 64 };
enum { OPTION_REPORT };

static MlirStringRef offsetName(void) { return mlirStringRefCreateFromCString("offset"); }

/* Lifetimes in entry-block op indices. */
static bool lifetimes(MlirBlock entry, MlirValue arg, ThunkyScratchGroups *p) {
  int64_t index = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(entry); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++index) {
    ThunkyAccesses a = {0};
    thunkyCollectAccesses(op, &a);
    if (a.outOfMemory)
      return false;
    for (int writes = 1; writes >= 0; --writes)
      for (size_t k = 0; k < a.count; ++k) {
        if (a.items[k].write != writes || !mlirValueEqual(a.items[k].bytes.root, arg))
          continue;
        int64_t from = a.items[k].bytes.offset;
        thunkyScratchGroupsTouch(p, from, from + a.items[k].bytes.size, index, index, writes);
      }
    thunkyAccessesClear(&a);
  }
  return true;
}

static int largestFirst(const void *x, const void *y) {
  const ThunkyScratchGroup *a = x, *b = y;
  int64_t sa = a->end - a->start, sb = b->end - b->start;
  return (sa < sb) - (sa > sb);
}

/* Places groups largest first at the lowest aligned offset that clashes
 * with no placed group live at the same time; returns the bytes used. */
static int64_t place(ThunkyScratchGroups *p) {
  qsort(p->items, p->count, sizeof *p->items, largestFirst);
  int64_t total = 0;
  for (size_t i = 0; i < p->count; ++i) {
    ThunkyScratchGroup *g = &p->items[i];
    int64_t size = g->end - g->start, at = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t j = 0; j < i; ++j) {
        ThunkyScratchGroup *h = &p->items[j];
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

static void rewrite(MlirValue arg, ThunkyScratchGroups *p, int64_t total) {
  MlirContext ctx = mlirValueGetContext(arg);
  thunkyScratchGroupsSortByStart(p);
  for (MlirOpOperand use = mlirValueGetFirstUse(arg); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation slice = mlirOpOperandGetOwner(use);
    int64_t offset = mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(slice, offsetName()));
    int64_t size = thunkyValueGetBufferSize(mlirOperationGetResult(slice, 0));
    size_t g = thunkyFirstGroupAfter(p, offset);
    /* An empty slice names no bytes; it only has to stay in bounds. */
    int64_t moved = size == 0 || g == p->count
                        ? 0
                        : offset - p->items[g].start + p->items[g].newStart;
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
  if (!thunkyIsFunction(func))
    return MlirWalkResultAdvance;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  bool changed = false;
  for (intptr_t i = 0; !mlirBlockIsNull(entry) && i < mlirBlockGetNumArguments(entry); ++i) {
    MlirValue arg = mlirBlockGetArgument(entry, i);
    int64_t before = thunkyValueGetBufferSize(arg);
    ThunkyScratchGroups p = {0};
    /* An argument no thunk slices is left alone: XLA may use it otherwise. */
    if (before > 0 && thunkyIsScratchArgument(arg) && thunkyGroupSlices(arg, &p) &&
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
    thunkyScratchGroupsClear(&p);
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
