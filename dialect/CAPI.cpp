//===- CAPI.cpp - C API of the thunky dialect -----------------*- C++ -*-===//
//
// The C functions that need C++ to reach the dialect: registration, types,
// TypeID-based op recognition, and a resource's bytes in one piece (MLIR's
// C API reads a resource element by element).
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"
#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::thunky;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Thunky, thunky, ThunkyDialect)

// MLIR's C API emits errors only.
void thunkyEmitMessage(MlirLocation loc, MlirDiagnosticSeverity severity, const char *message) {
  Location where = unwrap(loc);
  switch (severity) {
  case MlirDiagnosticError:
    emitError(where) << message;
    break;
  case MlirDiagnosticWarning:
    emitWarning(where) << message;
    break;
  case MlirDiagnosticNote:
    where->getContext()->getDiagEngine().emit(where, DiagnosticSeverity::Note) << message;
    break;
  case MlirDiagnosticRemark:
    emitRemark(where) << message;
    break;
  }
}

void thunkyContextLoadDialects(MlirContext ctx) {
  unwrap(ctx)->loadDialect<ThunkyDialect, func::FuncDialect>();
}

// Getting a type of a dialect that is not loaded crashes in a release build,
// so the getters load it.
MlirType thunkyBufferTypeGet(MlirContext ctx, int64_t size) {
  unwrap(ctx)->getOrLoadDialect<ThunkyDialect>();
  return wrap(BufferType::get(unwrap(ctx), size));
}

bool thunkyTypeIsABuffer(MlirType type) { return isa<BufferType>(unwrap(type)); }

int64_t thunkyBufferTypeGetSize(MlirType type) {
  return cast<BufferType>(unwrap(type)).getSize();
}

MlirTypeID thunkyBufferTypeGetTypeID(void) {
  return wrap(TypeID::get<BufferType>());
}

MlirType thunkyTokenTypeGet(MlirContext ctx) {
  unwrap(ctx)->getOrLoadDialect<ThunkyDialect>();
  return wrap(TokenType::get(unwrap(ctx)));
}

bool thunkyTypeIsAToken(MlirType type) { return isa<TokenType>(unwrap(type)); }

MlirAttribute thunkyAllocationAttrGet(MlirContext ctx, MlirLocation loc,
                                      const ThunkyAllocation *a) {
  unwrap(ctx)->getOrLoadDialect<ThunkyDialect>();
  if (const char *why = thunkyAllocationVerify(a)) {
    emitError(unwrap(loc)) << "#thunky.allocation: " << why;
    return {nullptr};
  }
  // Checked above, in the terms of the C struct; get() skips a second pass.
  return wrap(AllocationAttr::get(
      unwrap(ctx), a->index, a->parameter, StringRef(a->name.data, a->name.length), a->flags,
      ArrayRef<int64_t>(a->outputIndex, a->outputDepth), unwrap(a->shape), a->color,
      ArrayRef<int64_t>(a->parameterShapeIndex, a->numParameterShapeIndex),
      ArrayRef<ThunkyAllocationAssigned>(a->assigned, a->numAssigned)));
}

bool thunkyAttributeIsAAllocation(MlirAttribute attr) {
  return isa<AllocationAttr>(unwrap(attr));
}

void thunkyAllocationAttrGetValue(MlirAttribute attr, ThunkyAllocation *out) {
  auto a = cast<AllocationAttr>(unwrap(attr));
  ArrayRef<int64_t> output = a.getOutputIndex(), shapeIndex = a.getParameterShapeIndex();
  *out = thunkyAllocationEmpty();
  out->index = a.getIndex(), out->parameter = a.getParameter(), out->flags = a.getFlags();
  out->name = mlirStringRefCreate(a.getName().data(), a.getName().size());
  out->outputDepth = output.size(); // at most THUNKY_MAX_OUTPUT_DEPTH, verified
  std::copy(output.begin(), output.end(), out->outputIndex);
  out->shape = wrap(a.getShape()), out->color = a.getColor();
  out->numParameterShapeIndex = shapeIndex.size(), out->parameterShapeIndex = shapeIndex.data();
  out->numAssigned = a.getAssigned().size(), out->assigned = a.getAssigned().data();
}

bool thunkyAttributeGetBytes(MlirAttribute attr, MlirStringRef *bytes) {
  Attribute a = unwrap(attr);
  if (auto s = dyn_cast<StringAttr>(a)) {
    *bytes = wrap(s.getValue());
    return true;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(a);
  if (!resource || !resource.getElementType().isInteger(8) || resource.getType().getRank() != 1)
    return false;
  const AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob || blob->getData().size() != static_cast<size_t>(resource.getNumElements()))
    return false;
  ArrayRef<char> data = blob->getData();
  *bytes = mlirStringRefCreate(data.data(), data.size());
  return true;
}

int64_t thunkyValueGetBufferSize(MlirValue value) {
  auto buffer = dyn_cast<BufferType>(unwrap(value).getType());
  return buffer ? buffer.getSize() : -1;
}

ThunkyOpKind thunkyOpGetKind(MlirOperation op) {
  static const TypeID ids[THUNKY_OP_COUNT] = {
      TypeID(),
#define THUNKY_OP_TYPEID(E, C, N) TypeID::get<C>(),
      THUNKY_FOR_EACH_OP(THUNKY_OP_TYPEID)
#undef THUNKY_OP_TYPEID
  };
  std::optional<RegisteredOperationName> name =
      unwrap(op)->getName().getRegisteredInfo();
  if (!name)
    return THUNKY_OP_NONE;
  TypeID id = name->getTypeID();
  for (int kind = 1; kind < THUNKY_OP_COUNT; ++kind)
    if (ids[kind] == id)
      return static_cast<ThunkyOpKind>(kind);
  return THUNKY_OP_NONE;
}

//===----------------------------------------------------------------------===//
// #thunky.info: what an op says of the thunk it came from
//===----------------------------------------------------------------------===//

MlirAttribute thunkyThunkInfoAttrGet(MlirContext ctx, int64_t id, MlirStringRef annotation,
                                     int64_t concurrentRegion) {
  return wrap(ThunkInfoAttr::get(unwrap(ctx), id, unwrap(annotation), concurrentRegion));
}

bool thunkyAttributeIsAThunkInfo(MlirAttribute attr) {
  return isa<ThunkInfoAttr>(unwrap(attr));
}

int64_t thunkyThunkInfoAttrGetId(MlirAttribute attr) {
  return cast<ThunkInfoAttr>(unwrap(attr)).getId();
}

MlirStringRef thunkyThunkInfoAttrGetAnnotation(MlirAttribute attr) {
  return wrap(cast<ThunkInfoAttr>(unwrap(attr)).getAnnotation());
}

int64_t thunkyThunkInfoAttrGetConcurrentRegion(MlirAttribute attr) {
  return cast<ThunkInfoAttr>(unwrap(attr)).getConcurrentRegion();
}
