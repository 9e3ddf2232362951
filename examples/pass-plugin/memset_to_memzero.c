/* An example thunky pass, built as its own mlir-opt plugin: it turns
 * `thunky.memset32 %b, 0` into `thunky.memzero %b`, which XLA runs as a
 * cheaper memset. docs/writing-a-pass.md explains each part. */
#include "thunky-c/Diagnostics.h"
#include "thunky-c/Ops.h"
#include "thunky-c/PassKit.h"
#include "thunky-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdint.h>

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
  static const ThunkyPassInfo info = {
      "ExampleMemsetToMemzero", "example-memset-to-memzero",
      "Turn memset32 of 0 into memzero (an example thunky pass)", run, NULL, 0};
  return thunkyPassCreate(&info);
}

/* mlir-opt --load-pass-plugin=libExamplePass.so calls this. */
typedef struct {
  uint32_t apiVersion;
  const char *pluginName, *pluginVersion;
  void (*registerPasses)(void);
} PassPluginInfo;

static void registerPasses(void) { thunkyRegisterPass(createPass); }

__attribute__((visibility("default"))) PassPluginInfo mlirGetPassPluginInfo(void) {
  return (PassPluginInfo){1, "example-memset-to-memzero", "0.1", registerPasses};
}
