/*===- element_types.h - XLA's element types: sizes, names, reductions ---===*
 *
 * Collectives reduce over every XLA type, thunky-run prints them, and the
 * host GEMM reads them; one table serves all three.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_ELEMENT_TYPES_H
#define THUNKY_RUNTIME_ELEMENT_TYPES_H

#include "plan.h"

/* xla.PrimitiveType numbers, as the plan carries them. */
typedef enum ThunkyElementType {
  THUNKY_TYPE_INVALID = 0,
  THUNKY_TYPE_PRED = 1,
  THUNKY_TYPE_S8 = 2,
  THUNKY_TYPE_S16 = 3,
  THUNKY_TYPE_S32 = 4,
  THUNKY_TYPE_S64 = 5,
  THUNKY_TYPE_U8 = 6,
  THUNKY_TYPE_U16 = 7,
  THUNKY_TYPE_U32 = 8,
  THUNKY_TYPE_U64 = 9,
  THUNKY_TYPE_F16 = 10,
  THUNKY_TYPE_F32 = 11,
  THUNKY_TYPE_F64 = 12,
  THUNKY_TYPE_TUPLE = 13,
  THUNKY_TYPE_OPAQUE = 14,
  THUNKY_TYPE_C64 = 15,
  THUNKY_TYPE_BF16 = 16,
  THUNKY_TYPE_TOKEN = 17,
  THUNKY_TYPE_C128 = 18,
  THUNKY_TYPE_F8E5M2 = 19,
  THUNKY_TYPE_F8E4M3FN = 20,
  THUNKY_TYPE_S4 = 21,
  THUNKY_TYPE_U4 = 22,
  THUNKY_TYPE_F8E4M3B11FNUZ = 23,
  THUNKY_TYPE_F8E5M2FNUZ = 24,
  THUNKY_TYPE_F8E4M3FNUZ = 25,
  THUNKY_TYPE_S2 = 26,
  THUNKY_TYPE_U2 = 27,
  THUNKY_TYPE_F8E4M3 = 28,
  THUNKY_TYPE_F8E3M4 = 29,
  THUNKY_TYPE_S1 = 30,
  THUNKY_TYPE_U1 = 31,
  THUNKY_TYPE_F4E2M1FN = 32,
  THUNKY_TYPE_F8E8M0FNU = 33,
  THUNKY_TYPE_BUFFER = 34,
  THUNKY_TYPE_F6E3M2FN = 35,
  THUNKY_TYPE_F6E2M3FN = 36,
} ThunkyElementType;

/* XLA's lowercase name of a type ("f32", "f8e4m3fn"); NULL for a number
 * the schema does not have. */
const char *thunkyElementTypeName(int32_t elementType);

/* Whether collectives can reduce `elementType` with `reduction`: PRED,
 * 8- to 64-bit integers, F16, BF16, F32, F64, F8E5M2, F8E4M3FN, and C64 and
 * C128 for sum and product. Otherwise false, with a message naming both. */
bool thunkyElementCanReduce(int32_t elementType, ThunkyReduction reduction,
                            ThunkyError *error);

/* acc[k] = acc[k] <reduction> in[k] for k < count, elements of
 * `elementType` (they may be unaligned). Integers wrap around; PRED's sum
 * and max are "or", product and min "and"; float min and max return NaN
 * when either operand is NaN (XLA's minimum/maximum); F16, BF16 and the F8
 * types are computed in float and rounded back to nearest even after each
 * step (as NCCL does), F8E4M3FN saturating at +-448 since it has no
 * infinity. False (nothing written) when thunkyElementCanReduce is. */
bool thunkyElementReduce(int32_t elementType, ThunkyReduction reduction, void *acc,
                         const void *in, uint64_t count, ThunkyError *error);

/* The small floats F16, BF16, F8E5M2 and F8E4M3FN to and from float: exact
 * one way, round to nearest even the other (overflow is infinity, or the
 * largest finite value for F8E4M3FN; NaN stays NaN). Other types decode to
 * NaN and encode to 0. */
float thunkySmallFloatDecode(int32_t elementType, uint32_t bits);
uint32_t thunkySmallFloatEncode(int32_t elementType, float value);

#endif /* THUNKY_RUNTIME_ELEMENT_TYPES_H */
