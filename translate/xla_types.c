/*===- xla_types.c - XLA enums and MLIR types, both ways ----------------===*/
#include "xla_types.h"

#include "xla/xla_data.pb-c.h"
#include "xla/core/collectives/reduction_kind.pb-c.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdbool.h>
#include <string.h>

/* Floating-point and complex types, by getter: one row each. */
typedef struct FloatRow {
  int primitive;
  MlirType (*get)(MlirContext);
} FloatRow;

static MlirType complexF32(MlirContext ctx) {
  return mlirComplexTypeGet(mlirF32TypeGet(ctx));
}
static MlirType complexF64(MlirContext ctx) {
  return mlirComplexTypeGet(mlirF64TypeGet(ctx));
}

static const FloatRow floatRows[] = {
    {XLA__PRIMITIVE_TYPE__F16, mlirF16TypeGet},
    {XLA__PRIMITIVE_TYPE__BF16, mlirBF16TypeGet},
    {XLA__PRIMITIVE_TYPE__F32, mlirF32TypeGet},
    {XLA__PRIMITIVE_TYPE__F64, mlirF64TypeGet},
    {XLA__PRIMITIVE_TYPE__F8E5M2, mlirFloat8E5M2TypeGet},
    {XLA__PRIMITIVE_TYPE__F8E4M3, mlirFloat8E4M3TypeGet},
    {XLA__PRIMITIVE_TYPE__F8E4M3FN, mlirFloat8E4M3FNTypeGet},
    {XLA__PRIMITIVE_TYPE__F8E4M3B11FNUZ, mlirFloat8E4M3B11FNUZTypeGet},
    {XLA__PRIMITIVE_TYPE__F8E3M4, mlirFloat8E3M4TypeGet},
    {XLA__PRIMITIVE_TYPE__F8E5M2FNUZ, mlirFloat8E5M2FNUZTypeGet},
    {XLA__PRIMITIVE_TYPE__F8E4M3FNUZ, mlirFloat8E4M3FNUZTypeGet},
    {XLA__PRIMITIVE_TYPE__F4E2M1FN, mlirFloat4E2M1FNTypeGet},
    {XLA__PRIMITIVE_TYPE__F8E8M0FNU, mlirFloat8E8M0FNUTypeGet},
    {XLA__PRIMITIVE_TYPE__F6E3M2FN, mlirFloat6E3M2FNTypeGet},
    {XLA__PRIMITIVE_TYPE__F6E2M3FN, mlirFloat6E2M3FNTypeGet},
    {XLA__PRIMITIVE_TYPE__C64, complexF32},
    {XLA__PRIMITIVE_TYPE__C128, complexF64},
};

/* Integer types: XLA's signed integers are MLIR's signless ones. */
typedef struct IntRow {
  int primitive;
  unsigned width;
  bool isUnsigned;
} IntRow;

static const IntRow intRows[] = {
    {XLA__PRIMITIVE_TYPE__PRED, 1, false}, {XLA__PRIMITIVE_TYPE__S1, 1, false},
    {XLA__PRIMITIVE_TYPE__S2, 2, false},   {XLA__PRIMITIVE_TYPE__S4, 4, false},
    {XLA__PRIMITIVE_TYPE__S8, 8, false},   {XLA__PRIMITIVE_TYPE__S16, 16, false},
    {XLA__PRIMITIVE_TYPE__S32, 32, false}, {XLA__PRIMITIVE_TYPE__S64, 64, false},
    {XLA__PRIMITIVE_TYPE__U1, 1, true},    {XLA__PRIMITIVE_TYPE__U2, 2, true},
    {XLA__PRIMITIVE_TYPE__U4, 4, true},    {XLA__PRIMITIVE_TYPE__U8, 8, true},
    {XLA__PRIMITIVE_TYPE__U16, 16, true},  {XLA__PRIMITIVE_TYPE__U32, 32, true},
    {XLA__PRIMITIVE_TYPE__U64, 64, true},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

MlirType thunkyPrimitiveTypeToMlir(MlirContext ctx, int primitiveType) {
  for (size_t i = 0; i < COUNT(intRows); ++i)
    if (intRows[i].primitive == primitiveType)
      return intRows[i].isUnsigned
                 ? mlirIntegerTypeUnsignedGet(ctx, intRows[i].width)
                 : mlirIntegerTypeGet(ctx, intRows[i].width);
  for (size_t i = 0; i < COUNT(floatRows); ++i)
    if (floatRows[i].primitive == primitiveType)
      return floatRows[i].get(ctx);
  return (MlirType){NULL};
}

int thunkyPrimitiveTypeFromMlir(MlirType type) {
  if (mlirTypeIsAInteger(type)) {
    unsigned width = mlirIntegerTypeGetWidth(type);
    bool isUnsigned = mlirIntegerTypeIsUnsigned(type);
    /* i1 is PRED, the first row of its width. */
    for (size_t i = 0; i < COUNT(intRows); ++i)
      if (intRows[i].width == width && intRows[i].isUnsigned == isUnsigned)
        return intRows[i].primitive;
    return 0;
  }
  MlirContext ctx = mlirTypeGetContext(type);
  for (size_t i = 0; i < COUNT(floatRows); ++i)
    if (mlirTypeEqual(floatRows[i].get(ctx), type))
      return floatRows[i].primitive;
  return 0;
}

static bool equals(MlirStringRef s, const char *literal) {
  return s.length == strlen(literal) && memcmp(s.data, literal, s.length) == 0;
}

static const char *const reductionNames[] = {
    [XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_SUM] = "sum",
    [XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_PRODUCT] = "prod",
    [XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_MIN] = "min",
    [XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_MAX] = "max",
};

const char *thunkyReductionKindName(int kind) {
  return kind > 0 && (size_t)kind < COUNT(reductionNames) ? reductionNames[kind]
                                                          : NULL;
}

int thunkyReductionKindFromName(MlirStringRef name) {
  if (equals(name, "product"))
    return XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_PRODUCT;
  for (size_t k = 1; k < COUNT(reductionNames); ++k)
    if (equals(name, reductionNames[k]))
      return (int)k;
  return 0;
}

static const char *const groupModeNames[] = {
    [XLA__COLLECTIVE_OP_GROUP_MODE__COLLECTIVE_OP_GROUP_MODE_CROSS_REPLICA] =
        "cross_replica",
    [XLA__COLLECTIVE_OP_GROUP_MODE__COLLECTIVE_OP_GROUP_MODE_CROSS_PARTITION] =
        "cross_partition",
    [XLA__COLLECTIVE_OP_GROUP_MODE__COLLECTIVE_OP_GROUP_MODE_CROSS_REPLICA_AND_PARTITION] =
        "cross_replica_and_partition",
    [XLA__COLLECTIVE_OP_GROUP_MODE__COLLECTIVE_OP_GROUP_MODE_FLATTENED_ID] =
        "flattened_id",
};

const char *thunkyGroupModeName(int mode) {
  return mode >= 0 && (size_t)mode < COUNT(groupModeNames) ? groupModeNames[mode]
                                                           : NULL;
}

int thunkyGroupModeFromName(MlirStringRef name) {
  for (size_t m = 0; m < COUNT(groupModeNames); ++m)
    if (equals(name, groupModeNames[m]))
      return (int)m;
  return -1;
}
