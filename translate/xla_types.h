/*===- xla_types.h - XLA enums and MLIR types, both ways ----------------===*/
#ifndef THUNKY_TRANSLATE_XLA_TYPES_H
#define THUNKY_TRANSLATE_XLA_TYPES_H

#include "mlir-c/IR.h"

/* The MLIR element type of an xla.PrimitiveType (S32 -> i32, U8 -> ui8,
 * PRED -> i1, C64 -> complex<f32>, ...); a null type for TUPLE, TOKEN,
 * OPAQUE_TYPE and values the schema does not know. */
MlirType thunkyPrimitiveTypeToMlir(MlirContext ctx, int primitiveType);

/* The xla.PrimitiveType of an MLIR element type; 0 (INVALID) if none. */
int thunkyPrimitiveTypeFromMlir(MlirType type);

/* "sum", "prod", "min", "max" for xla.ReductionKindProto; NULL otherwise. */
const char *thunkyReductionKindName(int kind);
/* The xla.ReductionKindProto of a reduction_kind string ("product" too);
 * 0 if unknown. */
int thunkyReductionKindFromName(MlirStringRef name);

/* "cross_replica", ... for xla.CollectiveOpGroupMode; NULL otherwise. */
const char *thunkyGroupModeName(int mode);
/* The xla.CollectiveOpGroupMode of a group_mode string; -1 if unknown. */
int thunkyGroupModeFromName(MlirStringRef name);

#endif /* THUNKY_TRANSLATE_XLA_TYPES_H */
