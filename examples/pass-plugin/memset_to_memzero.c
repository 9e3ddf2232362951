/* An example thunky pass, built as its own mlir-opt plugin: it turns
 * `thunky.memset32 %b, 0` into `thunky.memzero %b`, which XLA runs as a
 * cheaper memset. docs/writing-a-pass.md explains each part. */
#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"
#include "thunky-c/plugin/Plugin.h"

#include "mlir-c/BuiltinAttributes.h"

enum { REPORT }; /* the index of the pass's one option */

static bool isZero(MlirOperation memset) {
  MlirAttribute value =
      mlirOperationGetAttributeByName(memset, mlirStringRefCreateFromCString("value"));
  return mlirIntegerAttrGetValueInt(value) == 0;
}

static void run(MlirOperation root, ThunkyPassState *state) {
  /* Collect first, rewrite after: a walk must not erase what it visits. */
  ThunkyOpList memsets = {0};
  if (!thunkyCollectOps(root, THUNKY_OP_MEMSET32, MlirWalkPreOrder, &memsets)) {
    thunkyEmitOpError(root, "example-memset-to-memzero: out of memory");
    thunkyPassSignalFailure(state);
  }
  for (size_t i = 0; i < memsets.count; ++i) {
    MlirOperation memset = memsets.ops[i];
    if (!isZero(memset))
      continue;
    if (thunkyPassGetOption(state, REPORT))
      thunkyEmitOpRemark(memset, "rewritten as thunky.memzero");
    MlirValue buffer = mlirOperationGetOperand(memset, 0);
    MlirOperationState memzero = mlirOperationStateGet(
        mlirStringRefCreateFromCString("thunky.memzero"), mlirOperationGetLocation(memset));
    mlirOperationStateAddOperands(&memzero, 1, &buffer);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(memset), memset,
                                        mlirOperationCreate(&memzero));
    mlirOperationDestroy(memset);
  }
  thunkyOpListClear(&memsets);
}

static MlirPass createPass(void) {
  static const ThunkyPassOption options[] = {
      [REPORT] = {"report", "emit a remark at each memset it rewrites", THUNKY_OPTION_BOOL, 0}};
  static const ThunkyPassInfo info = {
      "ExampleMemsetToMemzero", "example-memset-to-memzero",
      "Turn memset32 of 0 into memzero (an example thunky pass)", run, options, 1};
  return thunkyPassCreate(&info);
}

static void registerPasses(void) { thunkyRegisterPass(createPass); }

/* mlir-opt --load-pass-plugin=libExamplePass.so calls the function this
 * defines (thunky-c/plugin/Plugin.h). */
THUNKY_DEFINE_PASS_PLUGIN("example-memset-to-memzero", "0.1", registerPasses)
