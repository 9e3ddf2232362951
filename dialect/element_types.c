/*===- element_types.c - XLA's element types as MLIR's builtin types ----===*
 *
 * The table (thunky-c/base/ElementTypes.h) spells each type as MLIR does;
 * integers are built from their width, everything else is parsed from that
 * spelling, so no second list of types lives here.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/ElementTypes.h"

#include "mlir-c/BuiltinTypes.h"

#include <string.h>

MlirType thunkyElementTypeToMlir(MlirContext ctx, int32_t elementType) {
  const char *name = thunkyElementTypeMlirName(elementType);
  unsigned bits = thunkyElementBits(elementType);
  switch (thunkyElementKind(elementType)) {
  case THUNKY_KIND_PRED:
  case THUNKY_KIND_SIGNED:
    return mlirIntegerTypeGet(ctx, bits);
  case THUNKY_KIND_UNSIGNED:
    return mlirIntegerTypeUnsignedGet(ctx, bits);
  default:
    return name ? mlirTypeParseGet(ctx, mlirStringRefCreateFromCString(name)) : (MlirType){NULL};
  }
}

typedef struct Spelling {
  char text[32];
  size_t length;
} Spelling;

static void spell(MlirStringRef piece, void *userData) {
  Spelling *s = userData;
  size_t room = sizeof s->text - s->length;
  size_t n = piece.length < room ? piece.length : room;
  memcpy(s->text + s->length, piece.data, n);
  s->length += n;
}

int32_t thunkyElementTypeFromMlir(MlirType type) {
  if (mlirTypeIsAInteger(type)) {
    unsigned width = mlirIntegerTypeGetWidth(type);
    bool isUnsigned = mlirIntegerTypeIsUnsigned(type);
    /* Table order makes i1 PRED rather than S1. */
    for (int32_t t = 1; t < THUNKY_TYPE_COUNT; t++) {
      ThunkyElementKind kind = thunkyElementKind(t);
      bool integer = kind == THUNKY_KIND_PRED || kind == THUNKY_KIND_SIGNED ||
                     kind == THUNKY_KIND_UNSIGNED;
      if (integer && thunkyElementBits(t) == width &&
          (kind == THUNKY_KIND_UNSIGNED) == isUnsigned)
        return t;
    }
    return THUNKY_TYPE_INVALID;
  }
  /* The common floats without printing a type: import asks once a shape. */
  if (mlirTypeIsAF32(type))
    return THUNKY_TYPE_F32;
  if (mlirTypeIsABF16(type))
    return THUNKY_TYPE_BF16;
  if (mlirTypeIsAF16(type))
    return THUNKY_TYPE_F16;
  if (mlirTypeIsAF64(type))
    return THUNKY_TYPE_F64;
  if (!mlirTypeIsAFloat(type) && !mlirTypeIsAComplex(type))
    return THUNKY_TYPE_INVALID;
  Spelling s = {.length = 0};
  mlirTypePrint(type, spell, &s);
  return s.length < sizeof s.text ? thunkyElementTypeFromMlirName(s.text, s.length)
                                  : THUNKY_TYPE_INVALID;
}
