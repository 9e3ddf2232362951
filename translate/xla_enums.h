/*===- xla_enums.h - XLA's collective enums by the names ops give them ---===*/
#ifndef THUNKY_TRANSLATE_XLA_ENUMS_H
#define THUNKY_TRANSLATE_XLA_ENUMS_H

#include "mlir-c/IR.h"

/* "sum", "prod", "min", "max" for xla.ReductionKindProto; NULL otherwise. */
const char *thunkyReductionKindName(int kind);
/* The xla.ReductionKindProto of a reduction_kind string ("product" too);
 * 0 if unknown. */
int thunkyReductionKindFromName(MlirStringRef name);

/* "cross_replica", ... for xla.CollectiveOpGroupMode; NULL otherwise. */
const char *thunkyGroupModeName(int mode);
/* The xla.CollectiveOpGroupMode of a group_mode string; -1 if unknown. */
int thunkyGroupModeFromName(MlirStringRef name);

#endif /* THUNKY_TRANSLATE_XLA_ENUMS_H */
