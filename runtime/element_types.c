/*===- element_types.c - sizes and reductions of XLA element types ------===*
 *
 * One table row per xla.PrimitiveType says how big an element is and how
 * it is reduced. Reductions run one typed loop per class of type (integers
 * by width, native floats, small floats through float, complex), all
 * generated from the same loop macro, so every type gets the same handling
 * of alignment and the same operator table.
 *
 *===--------------------------------------------------------------------===*/
#include "element_types.h"

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

/* A binary float format narrower than float, described by its fields. */
typedef struct SmallFloat {
  uint8_t exponentBits, mantissaBits;
  int16_t bias;
  /* IEEE-style infinities and NaNs. Without them (F8E4M3FN), all-ones is
   * NaN and overflow saturates at the largest finite value. */
  bool hasInfinity;
} SmallFloat;

static const SmallFloat f16Format = {5, 10, 15, true};
static const SmallFloat bf16Format = {8, 7, 127, true};
static const SmallFloat f8e5m2Format = {5, 2, 15, true};
static const SmallFloat f8e4m3fnFormat = {4, 3, 7, false};

typedef struct ElementInfo {
  const char *name;         /* XLA's lowercase name */
  uint8_t bytes;            /* 0: no whole-byte size */
  uint8_t elementClass;     /* ElementClass */
  const SmallFloat *format; /* CLASS_SMALL */
} ElementInfo;

static const ElementInfo elements[] = {
    [THUNKY_TYPE_INVALID] = {"invalid", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_PRED] = {"pred", 1, CLASS_PRED, NULL},
    [THUNKY_TYPE_S8] = {"s8", 1, CLASS_SIGNED, NULL},
    [THUNKY_TYPE_S16] = {"s16", 2, CLASS_SIGNED, NULL},
    [THUNKY_TYPE_S32] = {"s32", 4, CLASS_SIGNED, NULL},
    [THUNKY_TYPE_S64] = {"s64", 8, CLASS_SIGNED, NULL},
    [THUNKY_TYPE_U8] = {"u8", 1, CLASS_UNSIGNED, NULL},
    [THUNKY_TYPE_U16] = {"u16", 2, CLASS_UNSIGNED, NULL},
    [THUNKY_TYPE_U32] = {"u32", 4, CLASS_UNSIGNED, NULL},
    [THUNKY_TYPE_U64] = {"u64", 8, CLASS_UNSIGNED, NULL},
    [THUNKY_TYPE_F16] = {"f16", 2, CLASS_SMALL, &f16Format},
    [THUNKY_TYPE_F32] = {"f32", 4, CLASS_FLOAT, NULL},
    [THUNKY_TYPE_F64] = {"f64", 8, CLASS_FLOAT, NULL},
    [THUNKY_TYPE_TUPLE] = {"tuple", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_OPAQUE] = {"opaque", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_C64] = {"c64", 8, CLASS_COMPLEX, NULL},
    [THUNKY_TYPE_BF16] = {"bf16", 2, CLASS_SMALL, &bf16Format},
    [THUNKY_TYPE_TOKEN] = {"token", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_C128] = {"c128", 16, CLASS_COMPLEX, NULL},
    [THUNKY_TYPE_F8E5M2] = {"f8e5m2", 1, CLASS_SMALL, &f8e5m2Format},
    [THUNKY_TYPE_F8E4M3FN] = {"f8e4m3fn", 1, CLASS_SMALL, &f8e4m3fnFormat},
    [THUNKY_TYPE_S4] = {"s4", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_U4] = {"u4", 0, CLASS_NONE, NULL},
    /* The other 8-bit floats move as bytes; XLA's collectives (NCCL) do not
     * reduce them. */
    [THUNKY_TYPE_F8E4M3B11FNUZ] = {"f8e4m3b11fnuz", 1, CLASS_NONE, NULL},
    [THUNKY_TYPE_F8E5M2FNUZ] = {"f8e5m2fnuz", 1, CLASS_NONE, NULL},
    [THUNKY_TYPE_F8E4M3FNUZ] = {"f8e4m3fnuz", 1, CLASS_NONE, NULL},
    [THUNKY_TYPE_S2] = {"s2", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_U2] = {"u2", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_F8E4M3] = {"f8e4m3", 1, CLASS_NONE, NULL},
    [THUNKY_TYPE_F8E3M4] = {"f8e3m4", 1, CLASS_NONE, NULL},
    [THUNKY_TYPE_S1] = {"s1", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_U1] = {"u1", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_F4E2M1FN] = {"f4e2m1fn", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_F8E8M0FNU] = {"f8e8m0fnu", 1, CLASS_NONE, NULL},
    [THUNKY_TYPE_BUFFER] = {"buffer", 0, CLASS_NONE, NULL},
    /* Six bits: sub-byte, like the 4-bit float. */
    [THUNKY_TYPE_F6E3M2FN] = {"f6e3m2fn", 0, CLASS_NONE, NULL},
    [THUNKY_TYPE_F6E2M3FN] = {"f6e2m3fn", 0, CLASS_NONE, NULL},
};

static const ElementInfo *info(int32_t elementType) {
  if (elementType < 0 || (size_t)elementType >= sizeof elements / sizeof elements[0])
    return NULL;
  return &elements[elementType];
}

uint32_t thunkyElementBytes(int32_t elementType) {
  const ElementInfo *e = info(elementType);
  return e ? e->bytes : 0;
}

const char *thunkyElementTypeName(int32_t elementType) {
  const ElementInfo *e = info(elementType);
  return e ? e->name : NULL;
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
  const ElementInfo *e = info(elementType);
  if (!reductionName(reduction))
    return thunkyErrorf(error, "unknown reduction %d", (int)reduction);
  if (!e)
    return thunkyErrorf(error, "unknown element type %d", (int)elementType);
  if (e->elementClass == CLASS_NONE)
    return thunkyErrorf(error, "element type %s cannot be reduced", e->name);
  if (e->elementClass == CLASS_COMPLEX &&
      (reduction == THUNKY_REDUCE_MIN || reduction == THUNKY_REDUCE_MAX))
    return thunkyErrorf(error, "%s of complex element type %s is not defined",
                        reductionName(reduction), e->name);
  return true;
}

/*--- Small floats ------------------------------------------------------------*/

static uint32_t floatBits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static float bitsFloat(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static float decodeSmall(const SmallFloat *f, uint32_t bits) {
  uint32_t mantissaBits = f->mantissaBits, allOnes = (1u << f->exponentBits) - 1;
  uint32_t mantissaMask = (1u << mantissaBits) - 1;
  uint32_t exponent = bits >> mantissaBits & allOnes, mantissa = bits & mantissaMask;
  bool negative = bits >> (f->exponentBits + mantissaBits) & 1;
  float magnitude;
  if (exponent == allOnes && f->hasInfinity)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == allOnes && mantissa == mantissaMask)
    magnitude = NAN;
  else if (exponent == 0) /* subnormal: exact in float, whose range is wider */
    magnitude = ldexpf((float)mantissa, 1 - f->bias - (int)mantissaBits);
  else
    magnitude =
        bitsFloat((exponent - f->bias + 127) << 23 | mantissa << (23 - mantissaBits));
  return negative ? -magnitude : magnitude;
}

/* value / 2^shift, rounded to nearest, ties to even. */
static uint32_t shiftRoundEven(uint32_t value, uint32_t shift) {
  if (shift == 0)
    return value;
  if (shift >= 32) /* value < 2^24: far below one half */
    return 0;
  uint32_t quotient = value >> shift, rest = value & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  return quotient + (rest > half || (rest == half && (quotient & 1)));
}

/* Rounds `value` into the format in one step. The significand is shifted
 * right by what the format lacks, plus the distance below its smallest
 * normal exponent for subnormal results; adding the rounded significand to
 * the biased exponent lets a carry move into the exponent field, up to
 * infinity, as IEEE rounding does. */
static uint32_t encodeSmall(const SmallFloat *f, float value) {
  uint32_t x = floatBits(value), mantissaBits = f->mantissaBits;
  uint32_t sign = (x >> 31) << (f->exponentBits + mantissaBits);
  uint32_t infinity = ((1u << f->exponentBits) - 1) << mantissaBits;
  uint32_t nan = f->hasInfinity ? infinity | 1u << (mantissaBits - 1)
                                : infinity | ((1u << mantissaBits) - 1);
  uint32_t maxFinite = (f->hasInfinity ? infinity : nan) - 1;
  uint32_t floatExponent = x >> 23 & 0xff, floatMantissa = x & 0x7fffff;
  if (floatExponent == 0xff)
    return sign | (floatMantissa ? nan : f->hasInfinity ? infinity : maxFinite);

  int exponent = floatExponent ? (int)floatExponent - 127 : -126;
  uint32_t significand = floatExponent ? floatMantissa | 1u << 23 : floatMantissa;
  int minExponent = 1 - f->bias;
  int target = exponent > minExponent ? exponent : minExponent;
  uint32_t shift = (uint32_t)(23 - (int)mantissaBits + (target - exponent));
  uint32_t bits = ((uint32_t)(target + f->bias - 1) << mantissaBits) +
                  shiftRoundEven(significand, shift);
  if (bits > maxFinite)
    bits = f->hasInfinity ? infinity : maxFinite;
  return sign | bits;
}

static const SmallFloat *smallFormat(int32_t elementType) {
  const ElementInfo *e = info(elementType);
  return e && e->elementClass == CLASS_SMALL ? e->format : NULL;
}

float thunkySmallFloatDecode(int32_t elementType, uint32_t bits) {
  const SmallFloat *f = smallFormat(elementType);
  return f ? decodeSmall(f, bits) : NAN;
}

uint32_t thunkySmallFloatEncode(int32_t elementType, float value) {
  const SmallFloat *f = smallFormat(elementType);
  return f ? encodeSmall(f, value) : 0;
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

/* Small floats: one loop per storage width; `format` says which one. */
#define DECODE(x) decodeSmall(format, (x))
#define DEFINE_SMALL_REDUCE(BITS)                                                        \
  static void reduceSmall##BITS(const SmallFloat *format, ThunkyReduction reduction,     \
                                uint8_t *acc, const uint8_t *in, uint64_t count) {       \
    REDUCE_BY_KIND(uint##BITS##_t, float, DECODE, ENCODE##BITS, ADD, MULTIPLY,           \
                   FLOAT_MIN, FLOAT_MAX)                                                 \
  }
#define ENCODE8(x) ((uint8_t)encodeSmall(format, (x)))
#define ENCODE16(x) ((uint16_t)encodeSmall(format, (x)))
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
  const ElementInfo *e = info(elementType);
  uint8_t *acc = accBytes;
  const uint8_t *in = inBytes;
  switch ((ElementClass)e->elementClass) {
  case CLASS_PRED:
    reducePred(reduction, acc, in, count);
    break;
  case CLASS_SIGNED:
  case CLASS_UNSIGNED:
    integerReduce(e->elementClass == CLASS_SIGNED, e->bytes)(reduction, acc, in, count);
    break;
  case CLASS_FLOAT:
    (e->bytes == 4 ? reduceF32 : reduceF64)(reduction, acc, in, count);
    break;
  case CLASS_SMALL:
    if (e->bytes == 1)
      reduceSmall8(e->format, reduction, acc, in, count);
    else
      reduceSmall16(e->format, reduction, acc, in, count);
    break;
  case CLASS_COMPLEX:
    (e->bytes == 8 ? reduceComplex64 : reduceComplex128)(reduction, acc, in, count);
    break;
  case CLASS_NONE:
    break;
  }
  return true;
}
