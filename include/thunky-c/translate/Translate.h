/*===- thunky-c/translate/Translate.h - XLA:GPU executables <-> thunky modules ----===*
 *
 * Import reads an XLA:GPU executable into a thunky module: a serialized
 * xla.gpu.GpuExecutableProto in any container JAX or XLA writes around it
 * (split-proto, ExecutableAndOptionsProto, IFRT envelope; see
 * thunky-c/format/Container.h), or the xla.HumanReadableAotExecutable that wraps
 * XLA's golden files. Export writes a module back in the same layering. What the
 * dialect does not model is kept on the module, the arguments and the ops, so
 * export(import(x)) gives back x field for field. Errors are reported as
 * diagnostics at a location naming the input and, where known, the thunk.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_TRANSLATE_H
#define THUNKY_C_TRANSLATE_H

#include "thunky-c/base/Limits.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Imports `bytes` (named `bufferName` in diagnostics) into a new, verified
 * module in ctx, owned by the caller; returns a null operation after
 * reporting what is wrong. */
MLIR_CAPI_EXPORTED MlirOperation thunkyImportExecutable(MlirContext ctx,
                                                        MlirStringRef bytes,
                                                        MlirStringRef bufferName);
/* The same within `limits` (thunky-c/base/Limits.h); NULL takes the defaults. */
MLIR_CAPI_EXPORTED MlirOperation thunkyImportExecutableWithLimits(
    MlirContext ctx, MlirStringRef bytes, MlirStringRef bufferName,
    const ThunkyLimits *limits);

/* The same, except that the module's resources (kernel binaries, the
 * module binary, long bytes fields) point into `bytes` instead of holding
 * copies, where they lie there unchanged: `bytes` must stay valid and
 * unchanged for as long as ctx lives. thunky-translate imports its input
 * file this way; a 100 MB executable is mostly such bytes. */
MLIR_CAPI_EXPORTED MlirOperation thunkyImportExecutableBorrowing(
    MlirContext ctx, MlirStringRef bytes, MlirStringRef bufferName,
    const ThunkyLimits *limits);

/* What import may add beyond the executable, on request. */
typedef enum ThunkyImportFlag {
  /* thunkyImportExecutableBorrowing's resources. */
  THUNKY_IMPORT_BORROW = 1 << 0,
  /* Each thunky.launch that runs an instruction of the HLO module the
   * executable keeps gets THUNKY_ATTR_HLO (thunky-c/dialect/Dialect.h). */
  THUNKY_IMPORT_HLO_NAMES = 1 << 1,
} ThunkyImportFlag;

/* thunkyImportExecutableWithLimits with `flags`, ThunkyImportFlag values
 * or'ed together. */
MLIR_CAPI_EXPORTED MlirOperation thunkyImportExecutableWithFlags(
    MlirContext ctx, MlirStringRef bytes, MlirStringRef bufferName,
    const ThunkyLimits *limits, unsigned flags);

/* Exports `module` and hands the serialized bytes to `callback`, in order,
 * in one or more calls (a bare executable's device code is handed on as the
 * module holds it, not copied into one buffer), only once every check has
 * passed; otherwise reports what is wrong and returns failure without
 * calling it. */
MLIR_CAPI_EXPORTED MlirLogicalResult thunkyExportExecutable(
    MlirOperation module, MlirStringCallback callback, void *userData);

/* Like thunkyExportExecutable, but in the container layering named by
 * `layering` ("split", "ifrt+split-options", ...; see thunky-c/format/Container.h)
 * instead of the one the module was imported from; empty means that one. */
MLIR_CAPI_EXPORTED MlirLogicalResult thunkyExportExecutableAs(
    MlirOperation module, MlirStringRef layering, MlirStringCallback callback,
    void *userData);

/* Registers --import-thunky and --export-thunky with mlir-translate's
 * registry (thunky-translate calls it); safe to call more than once. */
MLIR_CAPI_EXPORTED void thunkyRegisterTranslations(void);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_TRANSLATE_H */
