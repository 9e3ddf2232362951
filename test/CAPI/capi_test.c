/* A pure C client of the thunky C API: it links only libThunkyPlugin.so.
 *
 * RUN: thunky-capi-test 2>&1 | FileCheck %s
 */
#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"
#include "thunky-c/dialect/Roles.h"
#include "thunky-c/translate/Translate.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Roles have one reader: the older text form, as import wrote it. */
static void testRoles(void) {
  ThunkyAllocation a = thunkyAllocationEmpty();
  bool read = thunkyRoleTextParse(mlirStringRefCreateFromCString("parameter 2, output {1}"), &a);
  printf("role read=%d parameter %lld output {%lld} role=%d\n", read, (long long)a.parameter,
         (long long)a.outputIndex[0], (int)thunkyAllocationRole(&a));
  ThunkyAllocation b = thunkyAllocationEmpty();
  printf("role read=%d\n", thunkyRoleTextParse(mlirStringRefCreateFromCString("outputs"), &b));
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
  /* Typed accessors and the builder: a second slice, 2 bytes at offset 6,
   * then moved to 10, verifies as a slice_buffer op. */
  MlirOperation made = thunkySliceBufferCreate(mlirOperationGetLocation(slice),
                                               mlirBlockGetArgument(entry, 0), 6, 2);
  mlirBlockInsertOwnedOperationAfter(entry, slice, made);
  thunkySliceBufferSetOffset(made, 10);
  printf("built %s offset=%lld size=%lld verifies=%d\n",
         thunkyOpKindGetMnemonic(thunkyOpGetKind(made)),
         (long long)thunkySliceBufferGetOffset(made),
         (long long)thunkyValueGetBufferSize(mlirOperationGetResult(made, 0)),
         mlirOperationVerify(made));
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  // CHECK-LABEL: kind 0 - collective=0
  // CHECK-NEXT: kind 0 - collective=0
  // CHECK-NEXT: kind 1 slice_buffer collective=0
  // CHECK-NEXT: kind 4 copy collective=0
  // CHECK-NEXT: kind 20 all_reduce collective=1
  // CHECK-NEXT: kind 0 - collective=0
  // CHECK-NEXT: slice result size=8 arg size=16
  // CHECK-NEXT: built slice_buffer offset=10 size=2 verifies=1
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic d, void *userData) {
  printf("diagnostic: ");
  mlirDiagnosticPrint(d, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

/* A pass written with the kit: counts copies, and fails on more than
 * `max-copies` of them with an error at the copy that is one too many. */
static const ThunkyPassOption countOptions[] = {
    {"max-copies", "the most copies allowed", THUNKY_OPTION_INT, 1},
};

static void countCopies(MlirOperation root, ThunkyPassState *state) {
  ThunkyOpList copies = {0};
  thunkyCollectOps(root, THUNKY_OP_COPY, MlirWalkPreOrder, &copies);
  printf("copies %zu, max %lld\n", copies.count, (long long)thunkyPassGetOption(state, 0));
  if ((int64_t)copies.count > thunkyPassGetOption(state, 0)) {
    thunkyEmitOpError(copies.ops[thunkyPassGetOption(state, 0)], "copy %zu of %zu is one too many",
                      (size_t)thunkyPassGetOption(state, 0) + 1, copies.count);
    thunkyPassSignalFailure(state);
  }
  thunkyPassMarkUnchanged(state); /* an analysis: MLIR need not verify again */
  thunkyOpListClear(&copies);
}

static const ThunkyPassInfo countInfo = {"CountCopies", "count-copies", "counts thunky.copy",
                                         countCopies, countOptions, 1};

/* thunky's passes and one of the kit's run in a pass manager from C. */
static void testPasses(void) {
  MlirContext ctx = mlirContextCreate();
  thunkyContextLoadDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  const char *text = "func.func @main(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>) {\n"
                     "  thunky.sequential {\n"
                     "    thunky.copy %a, %b : <16>, <16>\n"
                     "  }\n"
                     "  thunky.copy %b, %a : <16>, <16>\n"
                     "  return\n"
                     "}\n";
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager func =
      mlirPassManagerGetNestedUnder(pm, mlirStringRefCreateFromCString("func.func"));
  mlirOpPassManagerAddOwnedPass(func, thunkyCreateFlattenSequentialPass());
  mlirPassManagerAddOwnedPass(pm, thunkyCreateCheckRacesPass()); /* no async region: clean */
  mlirPassManagerAddOwnedPass(pm, thunkyPassCreate(&countInfo));
  MlirLogicalResult result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  printf("pipeline %s\n", mlirLogicalResultIsSuccess(result) ? "succeeded" : "failed");
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  // CHECK-LABEL: copies 2, max 1
  // CHECK-NEXT: diagnostic: 'thunky.copy' op copy 2 of 2 is one too many
  // CHECK-NEXT: pipeline failed
  // CHECK-NOT: thunky.sequential
  // CHECK: thunky.copy
  // CHECK-NEXT: thunky.copy
}

/* A kit pass made of stages: count-copies twice, with its default
 * max-copies (1). A stage that fails stops the pass. */
static void countTwice(MlirOperation root, ThunkyPassState *state) {
  bool changed = false;
  for (int i = 0; i < 2; ++i)
    if (!thunkyPassRunStage(&countInfo, root, state, &changed))
      return;
  printf("stages changed %d\n", changed);
}

static const ThunkyPassInfo countTwiceInfo = {"CountTwice", "count-twice",
                                              "count-copies as two stages", countTwice, NULL, 0};

static void testStages(const char *body) {
  MlirContext ctx = mlirContextCreate();
  thunkyContextLoadDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  char text[512];
  snprintf(text, sizeof text,
           "func.func @main(%%a: !thunky.buffer<16>, %%b: !thunky.buffer<16>) {\n%s  return\n}\n",
           body);
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, thunkyPassCreate(&countTwiceInfo));
  MlirLogicalResult result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  printf("stages %s\n", mlirLogicalResultIsSuccess(result) ? "succeeded" : "failed");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
}

static MlirLogicalResult printSeverity(MlirDiagnostic d, void *userData) {
  static const char *const names[] = {"error", "warning", "note", "remark"};
  printf("%s: ", names[mlirDiagnosticGetSeverity(d)]);
  mlirDiagnosticPrint(d, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

/* A C pass reports warnings and remarks as well as errors, at a location
 * or at an op, formatted or as they are. */
static void testSeverities(void) {
  MlirContext ctx = mlirContextCreate();
  thunkyContextLoadDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printSeverity, NULL, NULL);
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString("func.func @main(%a: !thunky.buffer<4>) {\n"
                                          "  thunky.memzero %a : <4>\n  return\n}\n"));
  MlirOperation memzero = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(
      mlirOperationGetRegion(mlirBlockGetFirstOperation(mlirModuleGetBody(module)), 0)));
  MlirLocation loc = mlirOperationGetLocation(memzero);
  thunkyEmitWarning(loc, "%d bytes", 4);
  thunkyEmitOpWarning(memzero, "%s", "may be dropped");
  thunkyEmitRemark(loc, "seen %s", "once");
  thunkyEmitOpRemark(memzero, "kept");
  thunkyEmitMessage(loc, MlirDiagnosticNote, "100% as it is");
  thunkyEmitError(loc, "failed");
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
}

typedef struct Bytes {
  char *data;
  size_t size;
} Bytes;

static void appendBytes(MlirStringRef s, void *userData) {
  Bytes *out = userData;
  out->data = realloc(out->data, out->size + s.length);
  memcpy(out->data + out->size, s.data, s.length);
  out->size += s.length;
}

/* The module's kernel binary, imported from `exe`. */
static MlirStringRef importedBinary(MlirContext ctx, MlirStringRef exe, bool borrow,
                                    MlirModule *module) {
  MlirStringRef name = mlirStringRefCreateFromCString("exe.pb");
  MlirOperation op = borrow ? thunkyImportExecutableBorrowing(ctx, exe, name, NULL)
                            : thunkyImportExecutable(ctx, exe, name);
  *module = mlirModuleFromOperation(op);
  MlirOperation binary = mlirBlockGetFirstOperation(mlirModuleGetBody(*module));
  MlirAttribute k =
      mlirOperationGetInherentAttributeByName(binary, mlirStringRefCreateFromCString("cubin"));
  MlirStringRef bytes = {NULL, 0};
  thunkyAttributeGetBytes(k, &bytes);
  return bytes;
}

/* A borrowing import leaves a long kernel binary in the input; the plain
 * one copies it. */
static void testBorrowingImport(void) {
  MlirContext ctx = mlirContextCreate();
  thunkyContextLoadDialects(ctx);
  char cubin[2001];
  memset(cubin, 'c', 2000);
  cubin[2000] = 0;
  char text[4096];
  snprintf(text, sizeof text,
           "module {\nthunky.kernel_binary @k cubin = \"%s\"\n"
           "func.func @main(%%a: !thunky.buffer<16> {thunky.role = \"parameter 0\"}, "
           "%%b: !thunky.buffer<16> {thunky.role = \"output {}\"}) {\n"
           "  thunky.launch \"k\"(%%a, %%b : !thunky.buffer<16>, !thunky.buffer<16>) "
           "<grid = [1, 1, 1], block = [32, 1, 1], written = [false, true], binary = @k>\n"
           "  return\n}\n}\n",
           cubin);
  MlirModule source = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  Bytes written = {NULL, 0};
  thunkyExportExecutable(mlirModuleGetOperation(source), appendBytes, &written);
  MlirStringRef exe = mlirStringRefCreate(written.data, written.size);
  MlirModule borrowed, copied;
  MlirStringRef in = importedBinary(ctx, exe, true, &borrowed);
  MlirStringRef out = importedBinary(ctx, exe, false, &copied);
  printf("borrowed: %zu bytes, in the input: %d\n", in.length,
         in.data >= exe.data && in.data + in.length <= exe.data + exe.length);
  printf("copied: %zu bytes, in the input: %d, same: %d\n", out.length,
         out.data >= exe.data && out.data + out.length <= exe.data + exe.length,
         out.length == 2000 && memcmp(out.data, cubin, 2000) == 0);
  mlirModuleDestroy(source);
  mlirModuleDestroy(borrowed);
  mlirModuleDestroy(copied);
  mlirContextDestroy(ctx);
  free(written.data);
}

int main(void) {
  testTypes();
  testOpKinds();
  testPasses();
  testStages("  thunky.copy %a, %b : <16>, <16>\n");
  // CHECK-LABEL: copies 1, max 1
  // CHECK-NEXT: copies 1, max 1
  // CHECK-NEXT: stages changed 0
  // CHECK-NEXT: stages succeeded
  testStages("  thunky.copy %a, %b : <16>, <16>\n  thunky.copy %b, %a : <16>, <16>\n");
  // CHECK-NEXT: copies 2, max 1
  // CHECK-NEXT: diagnostic: 'thunky.copy' op copy 2 of 2 is one too many
  // CHECK-NEXT: stages failed
  testSeverities();
  // CHECK-NEXT: warning: 4 bytes
  // CHECK-NEXT: warning: 'thunky.memzero' op may be dropped
  // CHECK-NEXT: remark: seen once
  // CHECK-NEXT: remark: 'thunky.memzero' op kept
  // CHECK-NEXT: note: 100% as it is
  // CHECK-NEXT: error: failed
  testBorrowingImport();
  // CHECK-NEXT: borrowed: 2000 bytes, in the input: 1
  // CHECK-NEXT: copied: 2000 bytes, in the input: 0, same: 1
  testRoles();
  // CHECK-NEXT: role read=1 parameter 2 output {1} role=2
  // CHECK-NEXT: role read=0
  return 0;
}
