/*===- thunky-c/runtime/Reduce.h - reductions over XLA's element types ------===*
 *
 * Collectives reduce over XLA's element types on both backends, as NCCL
 * does (small floats through float, rounded back after each step).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_REDUCE_H
#define THUNKY_C_REDUCE_H

#include "thunky-c/Export.h"

#include "thunky-c/runtime/Plan.h"
#include "thunky-c/base/ElementTypes.h"

/* Whether collectives can reduce `elementType` with `reduction`: PRED,
 * 8- to 64-bit integers, F16, BF16, F32, F64, F8E5M2, F8E4M3FN, and C64 and
 * C128 for sum and product. Otherwise false, with a message naming both. */
THUNKY_EXPORT bool thunkyElementCanReduce(int32_t elementType, ThunkyReduction reduction,
                                          ThunkyError *error);

/* acc[k] = acc[k] <reduction> in[k] for k < count, elements of
 * `elementType` (they may be unaligned). Integers wrap around; PRED's sum
 * and max are "or", product and min "and"; float min and max return NaN
 * when either operand is NaN (XLA's minimum/maximum); F16, BF16 and the F8
 * types are computed in float and rounded back to nearest even after each
 * step (as NCCL does), F8E4M3FN saturating at +-448 since it has no
 * infinity. False (nothing written) when thunkyElementCanReduce is. */
THUNKY_EXPORT bool thunkyElementReduce(int32_t elementType, ThunkyReduction reduction, void *acc,
                                       const void *in, uint64_t count, ThunkyError *error);

#endif /* THUNKY_C_REDUCE_H */
