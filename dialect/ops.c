/*===- ops.c - op kinds -------------------------------------------------===*/
#include "thunky-c/Ops.h"

#include "mlir-c/BuiltinTypes.h"

const char *thunkyOpKindGetMnemonic(ThunkyOpKind kind) {
  static const char *const names[THUNKY_OP_COUNT] = {
      NULL,
#define THUNKY_OP_MNEMONIC(E, C, N) N,
      THUNKY_FOR_EACH_OP(THUNKY_OP_MNEMONIC)
#undef THUNKY_OP_MNEMONIC
  };
  return kind > THUNKY_OP_NONE && kind < THUNKY_OP_COUNT ? names[kind] : NULL;
}

bool thunkyOpKindIsCollective(ThunkyOpKind kind) {
  switch (kind) {
  case THUNKY_OP_ALL_REDUCE:
  case THUNKY_OP_ALL_GATHER:
  case THUNKY_OP_REDUCE_SCATTER:
  case THUNKY_OP_ALL_TO_ALL:
  case THUNKY_OP_COLLECTIVE_PERMUTE:
    return true;
  default:
    return false;
  }
}

/* Bytes per element of the types XLA's collectives accept, 0 otherwise. */
int thunkyCollectiveElementBytes(MlirType type) {
  if (mlirTypeIsAInteger(type)) {
    unsigned width = mlirIntegerTypeGetWidth(type);
    if (width == 1)
      return 1; /* PRED is stored as a byte */
    return width == 8 || width == 16 || width == 32 || width == 64
               ? (int)(width / 8)
               : 0;
  }
  if (mlirTypeIsAFloat(type)) {
    unsigned width = mlirFloatTypeGetWidth(type);
    return width == 8 || width == 16 || width == 32 || width == 64
               ? (int)(width / 8)
               : 0;
  }
  if (mlirTypeIsAComplex(type)) {
    MlirType part = mlirComplexTypeGetElementType(type);
    if (mlirTypeIsAF32(part) || mlirTypeIsAF64(part))
      return 2 * (int)(mlirFloatTypeGetWidth(part) / 8);
  }
  return 0;
}

