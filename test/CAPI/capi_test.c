/* A pure C client of the thunky C API: it links only libThunkyPlugin.so.
 *
 * RUN: thunky-capi-test 2>&1 | FileCheck %s
 */
#include "thunky-c/Dialect.h"
#include "thunky-c/Ops.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>

static void printToStdout(MlirStringRef s, void *userData) {
  fwrite(s.data, 1, s.length, stdout);
}

/* Types are usable on a fresh context: the getters load the dialect. */
static void testTypes(void) {
  MlirContext ctx = mlirContextCreate();
  MlirType buffer = thunkyBufferTypeGet(ctx, 64);
  MlirType token = thunkyTokenTypeGet(ctx);
  mlirTypePrint(buffer, printToStdout, NULL);
  printf(" size=%lld isBuffer=%d isToken=%d\n",
         (long long)thunkyBufferTypeGetSize(buffer), thunkyTypeIsABuffer(buffer),
         thunkyTypeIsAToken(buffer));
  mlirTypePrint(token, printToStdout, NULL);
  printf(" isBuffer=%d isToken=%d\n", thunkyTypeIsABuffer(token),
         thunkyTypeIsAToken(token));
  printf("f32 isBuffer=%d\n", thunkyTypeIsABuffer(mlirF32TypeGet(ctx)));
  printf("typeid matches=%d\n",
         mlirTypeIDEqual(mlirTypeGetTypeID(buffer), thunkyBufferTypeGetTypeID()));
  mlirContextDestroy(ctx);
  // CHECK-LABEL: !thunky.buffer<64> size=64 isBuffer=1 isToken=0
  // CHECK-NEXT: !thunky.token isBuffer=0 isToken=1
  // CHECK-NEXT: f32 isBuffer=0
  // CHECK-NEXT: typeid matches=1
}

static MlirWalkResult printKind(MlirOperation op, void *userData) {
  ThunkyOpKind kind = thunkyOpGetKind(op);
  const char *mnemonic = thunkyOpKindGetMnemonic(kind);
  printf("kind %d %s collective=%d\n", (int)kind, mnemonic ? mnemonic : "-",
         thunkyOpKindIsCollective(kind));
  return MlirWalkResultAdvance;
}

/* Ops are recognised by kind, and buffer sizes read from values. */
static void testOpKinds(void) {
  MlirContext ctx = mlirContextCreate();
  thunkyContextLoadDialects(ctx);
  const char *text =
      "func.func @main(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>) {\n"
      "  %s = thunky.slice_buffer %a offset = 4 : <16> -> <8>\n"
      "  thunky.copy %a, %b : <16>, <16>\n"
      "  thunky.all_reduce %a, %b <{element_type = f32, group_mode = "
      "\"cross_replica\", reduction_kind = \"sum\", replica_groups = []}> : "
      "<16>, <16>\n"
      "  return\n"
      "}\n";
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return;
  }
  mlirOperationWalk(mlirModuleGetOperation(module), printKind, NULL,
                    MlirWalkPreOrder);
  MlirOperation func =
      mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation slice = mlirBlockGetFirstOperation(entry);
  printf("slice result size=%lld arg size=%lld\n",
         (long long)thunkyValueGetBufferSize(mlirOperationGetResult(slice, 0)),
         (long long)thunkyValueGetBufferSize(mlirBlockGetArgument(entry, 0)));
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  // CHECK-LABEL: kind 0 - collective=0
  // CHECK-NEXT: kind 0 - collective=0
  // CHECK-NEXT: kind 1 slice_buffer collective=0
  // CHECK-NEXT: kind 4 copy collective=0
  // CHECK-NEXT: kind 15 all_reduce collective=1
  // CHECK-NEXT: kind 0 - collective=0
  // CHECK-NEXT: slice result size=8 arg size=16
}

int main(void) {
  testTypes();
  testOpKinds();
  return 0;
}
