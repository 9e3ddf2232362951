/*===- ops.c - op kinds -------------------------------------------------===*/
#include "thunky-c/dialect/Ops.h"

#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/ElementTypes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

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

bool thunkyOpKindIsThunk(ThunkyOpKind kind) {
  return kind != THUNKY_OP_NONE && kind != THUNKY_OP_SLICE_BUFFER &&
         kind != THUNKY_OP_CONSTANT && kind != THUNKY_OP_KERNEL_BINARY &&
         kind != THUNKY_OP_YIELD && kind < THUNKY_OP_COUNT;
}

/* Bytes per element of the types XLA's collectives accept, 0 otherwise:
 * every type of a whole number of bytes (PRED takes one). */
int thunkyCollectiveElementBytes(MlirType type) {
  return (int)thunkyElementBytes(thunkyElementTypeFromMlir(type));
}

MlirType thunkyCollectivePairElementType(MlirOperation op, intptr_t pair) {
  MlirAttribute a =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("element_type"));
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAArray(a))
    a = pair >= 0 && pair < mlirArrayAttrGetNumElements(a) ? mlirArrayAttrGetElement(a, pair)
                                                           : mlirAttributeGetNull();
  return !mlirAttributeIsNull(a) && mlirAttributeIsAType(a) ? mlirTypeAttrGetValue(a)
                                                            : (MlirType){NULL};
}

void thunkyEpilogueOperands(MlirStringRef e, bool *bias, bool *aux) {
  *bias = e.length >= 13 && memcmp(e.data, "EPILOGUE_BIAS", 13) == 0;
  *aux = e.length >= 9 && memcmp(e.data + e.length - 9, "_WITH_AUX", 9) == 0;
}

MlirStringRef thunkyKernelName(MlirOperation op) {
  MlirAttribute name =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("kernel_name"));
  if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name))
    return mlirStringRefCreate("", 0);
  MlirStringRef s = mlirStringAttrGetValue(name);
  return s.length == 5 && memcmp(s.data, "thunk", 5) == 0 ? mlirStringRefCreate("", 0) : s;
}

int64_t thunkySliceBufferGetOffset(MlirOperation op) {
  return mlirIntegerAttrGetValueInt(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("offset")));
}

void thunkySliceBufferSetOffset(MlirOperation op, int64_t offset) {
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("offset"),
                                  mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), offset));
}

MlirOperation thunkySliceBufferCreate(MlirLocation loc, MlirValue source, int64_t offset,
                                      int64_t size) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType type = thunkyBufferTypeGet(ctx, size);
  MlirNamedAttribute attr =
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString("offset")),
                            mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), offset));
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("thunky.slice_buffer"), loc);
  mlirOperationStateAddOperands(&state, 1, &source);
  mlirOperationStateAddResults(&state, 1, &type);
  mlirOperationStateAddAttributes(&state, 1, &attr);
  return mlirOperationCreate(&state);
}

int64_t thunkyAsyncStartGetStream(MlirOperation op, bool *communication) {
  MlirAttribute id =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("stream_id"));
  MlirAttribute comm =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("is_communication"));
  *communication = !mlirAttributeIsNull(comm) && mlirBoolAttrGetValue(comm);
  return mlirAttributeIsNull(id) ? 0 : mlirIntegerAttrGetValueInt(id);
}
