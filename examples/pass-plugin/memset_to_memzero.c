/* An example thunky pass, built as its own mlir-opt plugin: it turns
 * `thunky.memset32 %b, 0` into `thunky.memzero %b`, which XLA runs as a
 * cheaper memset. docs/writing-a-pass.md explains each part. */
#include "thunky-c/Ops.h"
#include "thunky-c/PassKit.h"
#include "thunky-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdint.h>

/* Collect first, rewrite after: a walk must not erase what it visits. */
typedef struct Found {
  MlirOperation ops[256];
  int count;
} Found;

static MlirWalkResult findZeroMemsets(MlirOperation op, void *userData) {
  Found *found = userData;
  if (thunkyOpGetKind(op) != THUNKY_OP_MEMSET32)
    return MlirWalkResultAdvance;
  MlirAttribute value =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
  if (mlirIntegerAttrGetValueInt(value) != 0)
    return MlirWalkResultAdvance;
  found->ops[found->count++] = op;
  return found->count < 256 ? MlirWalkResultAdvance : MlirWalkResultInterrupt;
}

static void run(MlirOperation root, ThunkyPassState *state) {
  Found found;
  do {
    found.count = 0;
    mlirOperationWalk(root, findZeroMemsets, &found, MlirWalkPreOrder);
    for (int i = 0; i < found.count; ++i) {
      MlirOperation memset = found.ops[i];
      MlirValue buffer = mlirOperationGetOperand(memset, 0);
      MlirOperationState memzero = mlirOperationStateGet(
          mlirStringRefCreateFromCString("thunky.memzero"),
          mlirOperationGetLocation(memset));
      mlirOperationStateAddOperands(&memzero, 1, &buffer);
      mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(memset), memset,
                                          mlirOperationCreate(&memzero));
      mlirOperationDestroy(memset);
    }
  } while (found.count == 256);
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
