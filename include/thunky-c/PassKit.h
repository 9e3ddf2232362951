/*===- thunky-c/PassKit.h - writing a thunky pass in C ------------------===*
 *
 * A pass is a static ThunkyPassInfo and a run function:
 *
 *   static void run(MlirOperation root, MlirExternalPass pass) { ... }
 *   static const ThunkyPassInfo info = {"MyPass", "my-pass", "what it does", run};
 *   MlirPass createMyPass(void) { return thunkyPassCreate(&info); }
 *   ... thunkyRegisterPass(createMyPass);
 *
 * The pass runs on any op (usually the module) and may rewrite anything in
 * it. To fail, emit a diagnostic (thunky-c/Diagnostics.h) and call
 * mlirExternalPassSignalFailure(pass). docs/writing-a-pass.md walks through
 * a complete example built as its own plugin.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_PASSKIT_H
#define THUNKY_C_PASSKIT_H

#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*ThunkyPassRun)(MlirOperation root, MlirExternalPass pass);

typedef struct ThunkyPassInfo {
  const char *name;        /* C++-style class name, e.g. "ThunkyFoldSlices" */
  const char *argument;    /* the flag, e.g. "thunky-fold-slices" */
  const char *description; /* one line for --help */
  ThunkyPassRun run;
} ThunkyPassInfo;

/* A new instance of the pass `info` describes. `info` must outlive every
 * instance (make it static): its address is the pass's identity. */
MLIR_CAPI_EXPORTED MlirPass thunkyPassCreate(const ThunkyPassInfo *info);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_PASSKIT_H */
