/*===- verify.h - op verifiers, written in C ----------------------------===*/
#ifndef THUNKY_DIALECT_VERIFY_H
#define THUNKY_DIALECT_VERIFY_H

#include "thunky-c/dialect/Ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the rules of `kind` on `op` beyond what ODS checks; reports each
 * broken rule as an error at the op. Every op's verifier (a kind with no
 * rules passes). */
MlirLogicalResult thunkyVerifyOp(MlirOperation op, ThunkyOpKind kind);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_DIALECT_VERIFY_H */
