/*===- fold_slices.c - one slice per (buffer, offset, size) -------------===*
 *
 * Import makes a fresh slice right before each use, and rewrites nest them.
 * This pass gives every slice its root buffer (a slice of a slice becomes one
 * slice of the root; a slice of the whole root becomes the root), moves it to
 * just after the root is defined, so that every region sees it, and merges
 * identical ones; slices left unused go. Slices are views, so none of this
 * changes what runs.
 *
 *===--------------------------------------------------------------------===*/
#include "op_map.h"
#include "stages.h"

#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

/* Where slices of `root` go: after the last one placed there, else right
 * after its definition (or at the start of its block for an argument). */
static void hoist(MlirOperation slice, MlirValue root, ThunkyOpMap *cursors) {
  bool isArgument = mlirValueIsABlockArgument(root);
  const void *anchor = isArgument ? mlirBlockArgumentGetOwner(root).ptr
                                  : mlirOpResultGetOwner(root).ptr;
  ThunkyOpMapKey key = {anchor, 0, 0};
  void *last = thunkyOpMapGet(cursors, key);
  if (last)
    mlirOperationMoveAfter(slice, (MlirOperation){last});
  else if (isArgument)
    mlirOperationMoveBefore(slice, mlirBlockGetFirstOperation(mlirBlockArgumentGetOwner(root)));
  else
    mlirOperationMoveAfter(slice, mlirOpResultGetOwner(root));
  thunkyOpMapPut(cursors, key, slice.ptr);
}

static void run(MlirOperation root, ThunkyPassState *state) {
  ThunkyOpList slices = {0};
  ThunkyOpMap cursors = {0}, seen = {0};
  /* Pre-order: a slice's operand, defined before it, is folded before it. */
  bool ok = thunkyCollectOps(root, THUNKY_OP_SLICE_BUFFER, MlirWalkPreOrder, &slices);
  for (size_t i = 0; i < slices.count && ok; ++i) {
    MlirOperation slice = slices.ops[i];
    MlirValue parent = mlirOperationGetOperand(slice, 0);
    int64_t offset = thunkySliceBufferGetOffset(slice);
    if (!mlirValueIsABlockArgument(parent) &&
        thunkyOpGetKind(mlirOpResultGetOwner(parent)) == THUNKY_OP_SLICE_BUFFER) {
      MlirOperation outer = mlirOpResultGetOwner(parent);
      offset += thunkySliceBufferGetOffset(outer);
      parent = mlirOperationGetOperand(outer, 0);
      mlirOperationSetOperand(slice, 0, parent);
      thunkySliceBufferSetOffset(slice, offset);
    }
    MlirValue result = mlirOperationGetResult(slice, 0);
    int64_t size = thunkyValueGetBufferSize(result);
    ThunkyOpMapKey key = {parent.ptr, offset, size};
    void *same = thunkyOpMapGet(&seen, key);
    if (same || (offset == 0 && size == thunkyValueGetBufferSize(parent))) {
      mlirValueReplaceAllUsesOfWith(
          result, same ? mlirOperationGetResult((MlirOperation){same}, 0) : parent);
      mlirOperationDestroy(slice);
      slices.ops[i].ptr = NULL;
      continue;
    }
    hoist(slice, parent, &cursors);
    ok = thunkyOpMapPut(&seen, key, slice.ptr);
  }
  /* Backwards, so that a slice used only by a dead slice goes too. */
  for (size_t i = slices.count; i-- > 0 && ok;)
    if (slices.ops[i].ptr &&
        mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(slices.ops[i], 0))))
      mlirOperationDestroy(slices.ops[i]);
  if (!ok) {
    thunkyEmitOpError(root, "thunky-fold-slices: out of memory");
    thunkyPassSignalFailure(state);
  }
  thunkyOpListClear(&slices);
  thunkyOpMapClear(&cursors);
  thunkyOpMapClear(&seen);
}

const ThunkyPassInfo thunkyFoldSlicesInfo = {
    "ThunkyFoldSlices", "thunky-fold-slices",
    "Fold slices of slices, drop whole-buffer slices, hoist slices next to "
    "their buffer and merge identical ones",
    run, NULL, 0};

MlirPass thunkyCreateFoldSlicesPass(void) { return thunkyPassCreate(&thunkyFoldSlicesInfo); }
