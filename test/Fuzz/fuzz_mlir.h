/*===- fuzz_mlir.h - what the MLIR fuzz targets share --------------------===*/
#ifndef THUNKY_TEST_FUZZ_MLIR_H
#define THUNKY_TEST_FUZZ_MLIR_H

#include "thunky-c/format/Container.h"
#include "thunky-c/translate/Translate.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Diagnostics are the expected outcome for most inputs: printing them would
 * be most of the work. THUNKY_FUZZ_VERBOSE=1 shows them. */
static MlirLogicalResult thunkyFuzzQuiet(MlirDiagnostic diagnostic, void *userData) {
  (void)diagnostic, (void)userData;
  return mlirLogicalResultSuccess();
}

/* A context per input: uniqued attributes are never freed, so one shared
 * context would grow without bound across a run. */
static inline MlirContext thunkyFuzzContext(void) {
  MlirContext ctx = mlirContextCreateWithThreading(false);
  const char *verbose = getenv("THUNKY_FUZZ_VERBOSE");
  if (!verbose || *verbose != '1')
    mlirContextAttachDiagnosticHandler(ctx, thunkyFuzzQuiet, NULL, NULL);
  return ctx;
}

static inline MlirOperation thunkyFuzzImport(MlirContext ctx, const void *data, size_t size) {
  return thunkyImportExecutable(ctx, mlirStringRefCreate(data, size),
                                mlirStringRefCreateFromCString("fuzz.pb"));
}

static void thunkyFuzzAppend(MlirStringRef text, void *userData) {
  if (!thunkyBufferAppend(userData, text.data, text.length))
    abort();
}

static inline void thunkyFuzzPrint(MlirOperation op, ThunkyBuffer *out) {
  mlirOperationPrint(op, thunkyFuzzAppend, out);
}

static inline void thunkyFuzzIgnore(MlirStringRef text, void *userData) { (void)text, (void)userData; }

/* Runs `pipeline` on the module; false when it fails. */
static inline bool thunkyFuzzRunPipeline(MlirContext ctx, MlirOperation module,
                                         const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  bool ok = mlirLogicalResultIsSuccess(
                mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                      mlirStringRefCreateFromCString(pipeline), thunkyFuzzIgnore,
                                      NULL)) &&
            mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, module));
  mlirPassManagerDestroy(pm);
  return ok;
}

/* A broken promise: say which, show the module, and crash so the fuzzer
 * keeps the input. */
static inline void thunkyFuzzFail(const char *what, MlirOperation module) {
  fprintf(stderr, "thunky fuzz: %s\n", what);
  if (!mlirOperationIsNull(module)) {
    ThunkyBuffer text = {0};
    thunkyFuzzPrint(module, &text);
    fprintf(stderr, "%.*s\n", (int)text.size, (const char *)text.data);
    thunkyBufferDestroy(&text);
  }
  abort();
}

#endif /* THUNKY_TEST_FUZZ_MLIR_H */
