/*===- reduce.c - reductions over XLA element types ---------------------===*
 *
 * The element type table (thunky-c/base/ElementTypes.h) says how big an element
 * is and of which kind; that decides how it is reduced. Reductions run one
 * typed loop per class of type (integers by width, native floats, small
 * floats through float, complex), all generated from the same loop macro,
 * so every type gets the same handling of alignment and the same operator
 * table.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Reduce.h"

#include <math.h>
#include <string.h>

/* How a type reduces. */
typedef enum ElementClass {
  CLASS_NONE, /* not reducible (sub-byte, other F8 variants, tuple, token) */
  CLASS_PRED,
  CLASS_SIGNED,
  CLASS_UNSIGNED,
  CLASS_FLOAT,   /* F32, F64: native arithmetic */
  CLASS_SMALL,   /* F16, BF16, F8E5M2, F8E4M3FN: through float */
  CLASS_COMPLEX, /* C64, C128: sum and product */
} ElementClass;

/* How a type reduces, from what the element type table says of it. */
static ElementClass classOf(int32_t elementType) {
  uint32_t bytes = thunkyElementBytes(elementType);
  switch (thunkyElementKind(elementType)) {
  case THUNKY_KIND_PRED:
    return CLASS_PRED;
  case THUNKY_KIND_SIGNED:
    return bytes ? CLASS_SIGNED : CLASS_NONE;
  case THUNKY_KIND_UNSIGNED:
    return bytes ? CLASS_UNSIGNED : CLASS_NONE;
  case THUNKY_KIND_COMPLEX:
    return CLASS_COMPLEX;
  case THUNKY_KIND_FLOAT:
    if (elementType == THUNKY_TYPE_F32 || elementType == THUNKY_TYPE_F64)
      return CLASS_FLOAT;
    /* The other 8-bit floats move as bytes; XLA's collectives (NCCL) do not
     * reduce them. */
    return thunkyElementIsSmallFloat(elementType) ? CLASS_SMALL : CLASS_NONE;
  case THUNKY_KIND_NONE:
    break;
  }
  return CLASS_NONE;
}

static const char *reductionName(ThunkyReduction reduction) {
  switch (reduction) {
  case THUNKY_REDUCE_SUM:
    return "sum";
  case THUNKY_REDUCE_PRODUCT:
    return "product";
  case THUNKY_REDUCE_MIN:
    return "min";
  case THUNKY_REDUCE_MAX:
    return "max";
  }
  return NULL;
}

bool thunkyElementCanReduce(int32_t elementType, ThunkyReduction reduction,
                            ThunkyError *error) {
  const char *name = thunkyElementTypeName(elementType);
  ElementClass c = classOf(elementType);
  if (!reductionName(reduction))
    return thunkyErrorf(error, "unknown reduction %d", (int)reduction);
  if (!name)
    return thunkyErrorf(error, "unknown element type %d", (int)elementType);
  if (c == CLASS_NONE)
    return thunkyErrorf(error, "element type %s cannot be reduced", name);
  if (c == CLASS_COMPLEX && (reduction == THUNKY_REDUCE_MIN || reduction == THUNKY_REDUCE_MAX))
    return thunkyErrorf(error, "%s of complex element type %s is not defined",
                        reductionName(reduction), name);
  return true;
}


/*--- Reduction loops ---------------------------------------------------------*/

/* acc[k] = COMBINE(acc[k], in[k]): elements stored as T (through memcpy,
 * since slices need not be aligned), computed as V; LOAD and STORE convert
 * between the two. */
#define REDUCE_LOOP(T, V, LOAD, STORE, COMBINE)                                          \
  for (uint64_t k = 0; k < count; k++) {                                                 \
    T stored, other;                                                                     \
    memcpy(&stored, acc + k * sizeof(T), sizeof(T));                                     \
    memcpy(&other, in + k * sizeof(T), sizeof(T));                                       \
    V a = LOAD(stored), b = LOAD(other);                                                 \
    stored = STORE(COMBINE(a, b));                                                       \
    memcpy(acc + k * sizeof(T), &stored, sizeof(T));                                     \
  }

#define REDUCE_BY_KIND(T, V, LOAD, STORE, SUM, PRODUCT, MIN, MAX)                        \
  switch (reduction) {                                                                   \
  case THUNKY_REDUCE_SUM:                                                                \
    REDUCE_LOOP(T, V, LOAD, STORE, SUM);                                                 \
    break;                                                                               \
  case THUNKY_REDUCE_PRODUCT:                                                            \
    REDUCE_LOOP(T, V, LOAD, STORE, PRODUCT);                                             \
    break;                                                                               \
  case THUNKY_REDUCE_MIN:                                                                \
    REDUCE_LOOP(T, V, LOAD, STORE, MIN);                                                 \
    break;                                                                               \
  case THUNKY_REDUCE_MAX:                                                                \
    REDUCE_LOOP(T, V, LOAD, STORE, MAX);                                                 \
    break;                                                                               \
  }

#define SAME(x) (x)
#define ADD(a, b) ((a) + (b))
#define MULTIPLY(a, b) ((a) * (b))
/* In 64 bits, so that narrow unsigned operands promoted to int cannot
 * overflow; the cast back to the element type wraps around. */
#define MULTIPLY_WRAP(a, b) ((uint64_t)(a) * (uint64_t)(b))
#define LESSER(a, b) ((a) < (b) ? (a) : (b))
#define GREATER(a, b) ((a) > (b) ? (a) : (b))
/* XLA's minimum and maximum: NaN when either operand is NaN. */
#define FLOAT_MIN(a, b) ((a) < (b) || (a) != (a) ? (a) : (b))
#define FLOAT_MAX(a, b) ((a) > (b) || (a) != (a) ? (a) : (b))
#define OR(a, b) ((a) || (b))
#define AND(a, b) ((a) && (b))

typedef void ReduceFn(ThunkyReduction reduction, uint8_t *acc, const uint8_t *in,
                      uint64_t count);

/* Signed sums and products wrap around like unsigned ones (two's
 * complement has the same bits), without C's signed overflow; only
 * comparisons need the sign. */
#define DEFINE_INTEGER_REDUCE(BITS)                                                      \
  static void reduceU##BITS(ThunkyReduction reduction, uint8_t *acc, const uint8_t *in,  \
                            uint64_t count) {                                            \
    REDUCE_BY_KIND(uint##BITS##_t, uint##BITS##_t, SAME, (uint##BITS##_t), ADD,          \
                   MULTIPLY_WRAP, LESSER, GREATER)                                       \
  }                                                                                      \
  static void reduceS##BITS(ThunkyReduction reduction, uint8_t *acc, const uint8_t *in,  \
                            uint64_t count) {                                            \
    if (reduction == THUNKY_REDUCE_MIN)                                                  \
      REDUCE_LOOP(int##BITS##_t, int##BITS##_t, SAME, SAME, LESSER)                      \
    else if (reduction == THUNKY_REDUCE_MAX)                                             \
      REDUCE_LOOP(int##BITS##_t, int##BITS##_t, SAME, SAME, GREATER)                     \
    else                                                                                 \
      reduceU##BITS(reduction, acc, in, count);                                          \
  }

DEFINE_INTEGER_REDUCE(8)
DEFINE_INTEGER_REDUCE(16)
DEFINE_INTEGER_REDUCE(32)
DEFINE_INTEGER_REDUCE(64)

static void reducePred(ThunkyReduction reduction, uint8_t *acc, const uint8_t *in,
                       uint64_t count) {
  REDUCE_BY_KIND(uint8_t, uint8_t, SAME, SAME, OR, AND, AND, OR)
}

static void reduceF32(ThunkyReduction reduction, uint8_t *acc, const uint8_t *in,
                      uint64_t count) {
  REDUCE_BY_KIND(float, float, SAME, SAME, ADD, MULTIPLY, FLOAT_MIN, FLOAT_MAX)
}

static void reduceF64(ThunkyReduction reduction, uint8_t *acc, const uint8_t *in,
                      uint64_t count) {
  REDUCE_BY_KIND(double, double, SAME, SAME, ADD, MULTIPLY, FLOAT_MIN, FLOAT_MAX)
}

/* Small floats: one loop per storage width; `type` says which format. */
#define DECODE(x) thunkySmallFloatDecode(type, (x))
#define DEFINE_SMALL_REDUCE(BITS)                                                        \
  static void reduceSmall##BITS(int32_t type, ThunkyReduction reduction,                 \
                                uint8_t *acc, const uint8_t *in, uint64_t count) {       \
    REDUCE_BY_KIND(uint##BITS##_t, float, DECODE, ENCODE##BITS, ADD, MULTIPLY,           \
                   FLOAT_MIN, FLOAT_MAX)                                                 \
  }
#define ENCODE8(x) ((uint8_t)thunkySmallFloatEncode(type, (x)))
#define ENCODE16(x) ((uint16_t)thunkySmallFloatEncode(type, (x)))
DEFINE_SMALL_REDUCE(8)
DEFINE_SMALL_REDUCE(16)

/* Complex numbers as (real, imaginary) pairs, XLA's layout. */
#define DEFINE_COMPLEX_REDUCE(NAME, R)                                                   \
  typedef struct NAME {                                                                  \
    R re, im;                                                                            \
  } NAME;                                                                                \
  static NAME add##NAME(NAME a, NAME b) { return (NAME){a.re + b.re, a.im + b.im}; }     \
  static NAME multiply##NAME(NAME a, NAME b) {                                           \
    return (NAME){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};                 \
  }                                                                                      \
  static void reduce##NAME(ThunkyReduction reduction, uint8_t *acc, const uint8_t *in,   \
                           uint64_t count) {                                             \
    if (reduction == THUNKY_REDUCE_SUM)                                                  \
      REDUCE_LOOP(NAME, NAME, SAME, SAME, add##NAME)                                     \
    else if (reduction == THUNKY_REDUCE_PRODUCT)                                         \
      REDUCE_LOOP(NAME, NAME, SAME, SAME, multiply##NAME)                                \
  }
DEFINE_COMPLEX_REDUCE(Complex64, float)
DEFINE_COMPLEX_REDUCE(Complex128, double)

static ReduceFn *integerReduce(bool isSigned, uint32_t bytes) {
  switch (bytes) {
  case 1:
    return isSigned ? reduceS8 : reduceU8;
  case 2:
    return isSigned ? reduceS16 : reduceU16;
  case 4:
    return isSigned ? reduceS32 : reduceU32;
  default:
    return isSigned ? reduceS64 : reduceU64;
  }
}

bool thunkyElementReduce(int32_t elementType, ThunkyReduction reduction, void *accBytes,
                         const void *inBytes, uint64_t count, ThunkyError *error) {
  if (!thunkyElementCanReduce(elementType, reduction, error))
    return false;
  ElementClass c = classOf(elementType);
  uint32_t bytes = thunkyElementBytes(elementType);
  uint8_t *acc = accBytes;
  const uint8_t *in = inBytes;
  switch (c) {
  case CLASS_PRED:
    reducePred(reduction, acc, in, count);
    break;
  case CLASS_SIGNED:
  case CLASS_UNSIGNED:
    integerReduce(c == CLASS_SIGNED, bytes)(reduction, acc, in, count);
    break;
  case CLASS_FLOAT:
    (bytes == 4 ? reduceF32 : reduceF64)(reduction, acc, in, count);
    break;
  case CLASS_SMALL:
    if (bytes == 1)
      reduceSmall8(elementType, reduction, acc, in, count);
    else
      reduceSmall16(elementType, reduction, acc, in, count);
    break;
  case CLASS_COMPLEX:
    (bytes == 8 ? reduceComplex64 : reduceComplex128)(reduction, acc, in, count);
    break;
  case CLASS_NONE:
    break;
  }
  return true;
}
