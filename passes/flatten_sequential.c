/*===- flatten_sequential.c - inline thunky.sequential bodies -----------===*
 *
 * A thunky.sequential only groups thunks as XLA's SequentialThunk did; its
 * body runs in order, exactly as if it stood in the parent block. Inlining
 * it exposes its ops to passes that look at one block at a time.
 *
 *===--------------------------------------------------------------------===*/
#include "stages.h"

#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

/* Moves the body (all but the implicit yield) in front of `seq`, then
 * erases it. */
static void inlineSequential(MlirOperation seq) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(seq, 0));
  MlirOperation terminator = mlirBlockGetTerminator(body);
  MlirOperation inner = mlirBlockGetFirstOperation(body);
  while (!mlirOperationEqual(inner, terminator)) {
    MlirOperation next = mlirOperationGetNextInBlock(inner);
    mlirOperationMoveBefore(inner, seq);
    inner = next;
  }
  mlirOperationDestroy(seq);
}

static void run(MlirOperation root, ThunkyPassState *state) {
  ThunkyOpList list = {0};
  /* Post-order: an inner sequential is inlined into its parent's body before
   * the parent itself is inlined. */
  if (!thunkyCollectOps(root, THUNKY_OP_SEQUENTIAL, MlirWalkPostOrder, &list)) {
    thunkyEmitOpError(root, "thunky-flatten-sequential: out of memory");
    thunkyPassSignalFailure(state);
  } else {
    for (size_t i = 0; i < list.count; ++i)
      inlineSequential(list.ops[i]);
    if (list.count == 0)
      thunkyPassMarkUnchanged(state);
  }
  thunkyOpListClear(&list);
}

const ThunkyPassInfo thunkyFlattenSequentialInfo = {
    "ThunkyFlattenSequential", "thunky-flatten-sequential",
    "Inline thunky.sequential bodies into their parent block", run, NULL, 0};

MlirPass thunkyCreateFlattenSequentialPass(void) {
  return thunkyPassCreate(&thunkyFlattenSequentialInfo);
}
