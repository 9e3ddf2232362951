/*===- element_types.c - the one table of XLA's element types -----------===*/
#include "thunky-c/base/ElementTypes.h"

#include <math.h>
#include <string.h>

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

typedef struct Row {
  const char *name, *mlirName;
  uint8_t bits, bytes, kind;
  const SmallFloat *small; /* the floats narrower than float that thunky computes with */
} Row;

#define ROW(T, name, mlir, bits, bytes, kind, small) \
  [THUNKY_TYPE_##T] = {name, mlir, bits, bytes, THUNKY_KIND_##kind, small}

static const Row rows[THUNKY_TYPE_COUNT] = {
    ROW(INVALID, "invalid", NULL, 0, 0, NONE, NULL),
    ROW(PRED, "pred", "i1", 1, 1, PRED, NULL),
    ROW(S8, "s8", "i8", 8, 1, SIGNED, NULL),
    ROW(S16, "s16", "i16", 16, 2, SIGNED, NULL),
    ROW(S32, "s32", "i32", 32, 4, SIGNED, NULL),
    ROW(S64, "s64", "i64", 64, 8, SIGNED, NULL),
    ROW(U8, "u8", "ui8", 8, 1, UNSIGNED, NULL),
    ROW(U16, "u16", "ui16", 16, 2, UNSIGNED, NULL),
    ROW(U32, "u32", "ui32", 32, 4, UNSIGNED, NULL),
    ROW(U64, "u64", "ui64", 64, 8, UNSIGNED, NULL),
    ROW(F16, "f16", "f16", 16, 2, FLOAT, &f16Format),
    ROW(F32, "f32", "f32", 32, 4, FLOAT, NULL),
    ROW(F64, "f64", "f64", 64, 8, FLOAT, NULL),
    ROW(TUPLE, "tuple", NULL, 0, 0, NONE, NULL),
    ROW(OPAQUE, "opaque", NULL, 0, 0, NONE, NULL),
    ROW(C64, "c64", "complex<f32>", 64, 8, COMPLEX, NULL),
    ROW(BF16, "bf16", "bf16", 16, 2, FLOAT, &bf16Format),
    ROW(TOKEN, "token", NULL, 0, 0, NONE, NULL),
    ROW(C128, "c128", "complex<f64>", 128, 16, COMPLEX, NULL),
    ROW(F8E5M2, "f8e5m2", "f8E5M2", 8, 1, FLOAT, &f8e5m2Format),
    ROW(F8E4M3FN, "f8e4m3fn", "f8E4M3FN", 8, 1, FLOAT, &f8e4m3fnFormat),
    ROW(S4, "s4", "i4", 4, 0, SIGNED, NULL),
    ROW(U4, "u4", "ui4", 4, 0, UNSIGNED, NULL),
    ROW(F8E4M3B11FNUZ, "f8e4m3b11fnuz", "f8E4M3B11FNUZ", 8, 1, FLOAT, NULL),
    ROW(F8E5M2FNUZ, "f8e5m2fnuz", "f8E5M2FNUZ", 8, 1, FLOAT, NULL),
    ROW(F8E4M3FNUZ, "f8e4m3fnuz", "f8E4M3FNUZ", 8, 1, FLOAT, NULL),
    ROW(S2, "s2", "i2", 2, 0, SIGNED, NULL),
    ROW(U2, "u2", "ui2", 2, 0, UNSIGNED, NULL),
    ROW(F8E4M3, "f8e4m3", "f8E4M3", 8, 1, FLOAT, NULL),
    ROW(F8E3M4, "f8e3m4", "f8E3M4", 8, 1, FLOAT, NULL),
    /* S1 is i1 too; PRED, the lower number, is what i1 reads back as. */
    ROW(S1, "s1", "i1", 1, 0, SIGNED, NULL),
    ROW(U1, "u1", "ui1", 1, 0, UNSIGNED, NULL),
    ROW(F4E2M1FN, "f4e2m1fn", "f4E2M1FN", 4, 0, FLOAT, NULL),
    ROW(F8E8M0FNU, "f8e8m0fnu", "f8E8M0FNU", 8, 1, FLOAT, NULL),
    ROW(BUFFER, "buffer", NULL, 0, 0, NONE, NULL),
    ROW(F6E3M2FN, "f6e3m2fn", "f6E3M2FN", 6, 0, FLOAT, NULL),
    ROW(F6E2M3FN, "f6e2m3fn", "f6E2M3FN", 6, 0, FLOAT, NULL),
};

static const Row *row(int32_t t) {
  return t >= 0 && t < THUNKY_TYPE_COUNT && rows[t].name ? &rows[t] : NULL;
}

const char *thunkyElementTypeName(int32_t t) { return row(t) ? row(t)->name : NULL; }
uint32_t thunkyElementBytes(int32_t t) { return row(t) ? row(t)->bytes : 0; }
uint32_t thunkyElementBits(int32_t t) { return row(t) ? row(t)->bits : 0; }
ThunkyElementKind thunkyElementKind(int32_t t) {
  return row(t) ? (ThunkyElementKind)row(t)->kind : THUNKY_KIND_NONE;
}
const char *thunkyElementTypeMlirName(int32_t t) { return row(t) ? row(t)->mlirName : NULL; }

static bool named(const char *s, const char *name, size_t length) {
  return s && strlen(s) == length && memcmp(s, name, length) == 0;
}

int32_t thunkyElementTypeFromMlirName(const char *name, size_t length) {
  for (int32_t t = 1; t < THUNKY_TYPE_COUNT; t++)
    if (named(rows[t].mlirName, name, length))
      return t;
  return THUNKY_TYPE_INVALID;
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

static const SmallFloat *smallFormat(int32_t t) { return row(t) ? row(t)->small : NULL; }

bool thunkyElementIsSmallFloat(int32_t t) { return smallFormat(t) != NULL; }

float thunkySmallFloatDecode(int32_t elementType, uint32_t bits) {
  const SmallFloat *f = smallFormat(elementType);
  return f ? decodeSmall(f, bits) : NAN;
}

uint32_t thunkySmallFloatEncode(int32_t elementType, float value) {
  const SmallFloat *f = smallFormat(elementType);
  return f ? encodeSmall(f, value) : 0;
}
