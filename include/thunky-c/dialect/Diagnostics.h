/*===- thunky-c/dialect/Diagnostics.h - reporting errors from C -----------------===*
 *
 * C code reports every failure as an MLIR diagnostic at the location of what
 * failed, so it shows up under --verify-diagnostics and in tools' output.
 * At an imported op, that location names its thunk ("thunk <id>
 * <annotation>", a NameLoc); the handler the dialect installs in each
 * context that loads it puts "in thunk <id> <annotation>: " in front of the
 * message, since MLIR's printers show only a NameLoc's file part; a
 * source line longer than 240 bytes is shown cut around the column.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_DIAGNOSTICS_H
#define THUNKY_C_DIAGNOSTICS_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Emits "'<op name>' op <message>" at op's location; returns failure. */
MLIR_CAPI_EXPORTED MlirLogicalResult thunkyEmitOpError(MlirOperation op,
                                                       const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Emits a printf-formatted error at `loc`; returns failure. */
MLIR_CAPI_EXPORTED MlirLogicalResult thunkyEmitError(MlirLocation loc,
                                                     const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Warnings and remarks, as the two above: a pass that emits only these
 * still succeeds, and --verify-diagnostics matches them with
 * expected-warning and expected-remark. */
MLIR_CAPI_EXPORTED void thunkyEmitOpWarning(MlirOperation op, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
MLIR_CAPI_EXPORTED void thunkyEmitWarning(MlirLocation loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
MLIR_CAPI_EXPORTED void thunkyEmitOpRemark(MlirOperation op, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
MLIR_CAPI_EXPORTED void thunkyEmitRemark(MlirLocation loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Emits `message` as it is (no formatting) at `loc` with `severity`
 * (MlirDiagnosticError, MlirDiagnosticWarning, MlirDiagnosticNote or
 * MlirDiagnosticRemark). */
MLIR_CAPI_EXPORTED void thunkyEmitMessage(MlirLocation loc, MlirDiagnosticSeverity severity,
                                          const char *message);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_DIAGNOSTICS_H */
