/*===- thunky-c/base/ElementTypes.h - XLA's element types, tabled once ------===*
 *
 * One row per xla.PrimitiveType: its name, its MLIR spelling, its width and
 * its kind. Import and export map types through it, the dialect checks
 * collectives' types with it, the runtime sizes, prints and reduces
 * elements by it, and .npy and bench-gen size arrays with it.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_ELEMENT_TYPES_H
#define THUNKY_C_ELEMENT_TYPES_H

#include "thunky-c/Export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* xla.PrimitiveType numbers. */
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
  THUNKY_TYPE_COUNT
} ThunkyElementType;

typedef enum ThunkyElementKind {
  THUNKY_KIND_NONE,     /* no array element: invalid, tuple, opaque, token, buffer */
  THUNKY_KIND_PRED,
  THUNKY_KIND_SIGNED,
  THUNKY_KIND_UNSIGNED,
  THUNKY_KIND_FLOAT,
  THUNKY_KIND_COMPLEX,
} ThunkyElementKind;

/* XLA's lowercase name ("f32", "f8e4m3fn"); NULL for a number the schema
 * does not have. */
THUNKY_EXPORT const char *thunkyElementTypeName(int32_t elementType);
/* Bytes of one element; 0 for types without a whole-byte size (sub-byte,
 * tuple, token). PRED is one byte. */
THUNKY_EXPORT uint32_t thunkyElementBytes(int32_t elementType);
/* Bits of one element's value (1 for PRED, 4 for S4); 0 for no element. */
THUNKY_EXPORT uint32_t thunkyElementBits(int32_t elementType);
THUNKY_EXPORT ThunkyElementKind thunkyElementKind(int32_t elementType);
/* How MLIR's builtin types spell it ("f8E4M3FN", "ui8", "complex<f32>");
 * NULL when MLIR has no such type. XLA's signed integers are MLIR's
 * signless ones, and PRED is i1. */
THUNKY_EXPORT const char *thunkyElementTypeMlirName(int32_t elementType);
/* The type MLIR spells `name`; PRED for "i1". THUNKY_TYPE_INVALID if none. */
THUNKY_EXPORT int32_t thunkyElementTypeFromMlirName(const char *name, size_t length);

/* Whether the type is one of the small floats below. */
THUNKY_EXPORT bool thunkyElementIsSmallFloat(int32_t elementType);
/* The small floats F16, BF16, F8E5M2 and F8E4M3FN to and from float: exact
 * one way, round to nearest even the other (overflow is infinity, or the
 * largest finite value for F8E4M3FN; NaN stays NaN). Other types decode to
 * NaN and encode to 0. */
THUNKY_EXPORT float thunkySmallFloatDecode(int32_t elementType, uint32_t bits);
THUNKY_EXPORT uint32_t thunkySmallFloatEncode(int32_t elementType, float value);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_ELEMENT_TYPES_H */
