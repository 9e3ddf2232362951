//===- Bytecode.cpp - thunky's attributes in MLIR bytecode ----*- C++ -*-===//
//
// The attributes an imported module holds one of per thunk or allocation,
// #thunky.info and #thunky.allocation, as fields instead of text. Without
// this, MLIR's bytecode writer prints each of them (an AsmState apiece) and
// the reader parses it back: a tenth of importing 80,000 parameters to
// bytecode. Anything else of the dialect keeps the textual fallback, and
// bytecode written that way still reads.
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"

#include "mlir/Bytecode/BytecodeImplementation.h"

using namespace mlir;
using namespace mlir::thunky;

namespace {
// The first varint of an attribute's encoding. Append only: bytecode
// already written keeps its meaning.
enum AttributeCode : uint64_t { kThunkInfo = 0, kAllocation = 1 };

struct ThunkyBytecodeInterface : public BytecodeDialectInterface {
  explicit ThunkyBytecodeInterface(Dialect *dialect) : BytecodeDialectInterface(dialect) {}

  LogicalResult writeAttribute(Attribute attr, DialectBytecodeWriter &writer) const final {
    if (auto info = dyn_cast<ThunkInfoAttr>(attr)) {
      writer.writeVarInt(kThunkInfo);
      writer.writeSignedVarInt(info.getId());
      writer.writeOwnedString(info.getAnnotation());
      writer.writeSignedVarInt(info.getConcurrentRegion());
      return success();
    }
    if (auto a = dyn_cast<AllocationAttr>(attr)) {
      writer.writeVarInt(kAllocation);
      writer.writeSignedVarInt(a.getIndex());
      writer.writeSignedVarInt(a.getParameter());
      writer.writeOwnedString(a.getName());
      writer.writeVarInt(a.getFlags());
      writer.writeSignedVarInts(a.getOutputIndex());
      writer.writeVarInt(a.getShape() ? 1 : 0);
      if (a.getShape())
        writer.writeType(a.getShape());
      writer.writeSignedVarInt(a.getColor());
      writer.writeSignedVarInts(a.getParameterShapeIndex());
      writer.writeList(a.getAssigned(), [&](const ThunkyAllocationAssigned &b) {
        writer.writeSignedVarInt(b.logicalBuffer);
        writer.writeSignedVarInt(b.offset);
        writer.writeSignedVarInt(b.size);
        writer.writeSignedVarInt(b.elementType);
      });
      return success();
    }
    return failure();
  }

  Attribute readAttribute(DialectBytecodeReader &reader) const final {
    uint64_t code;
    if (failed(reader.readVarInt(code)))
      return {};
    MLIRContext *ctx = getContext();
    if (code == kThunkInfo) {
      int64_t id, region;
      StringRef annotation;
      if (failed(reader.readSignedVarInt(id)) || failed(reader.readString(annotation)) ||
          failed(reader.readSignedVarInt(region)))
        return {};
      return ThunkInfoAttr::get(ctx, id, annotation, region);
    }
    if (code == kAllocation) {
      int64_t index, parameter, color;
      StringRef name;
      uint64_t flags, hasShape;
      SmallVector<int64_t> outputIndex, parameterShapeIndex;
      Type shape;
      SmallVector<ThunkyAllocationAssigned> assigned;
      auto readAssigned = [&](ThunkyAllocationAssigned &b) -> LogicalResult {
        int64_t elementType;
        if (failed(reader.readSignedVarInt(b.logicalBuffer)) ||
            failed(reader.readSignedVarInt(b.offset)) || failed(reader.readSignedVarInt(b.size)) ||
            failed(reader.readSignedVarInt(elementType)))
          return failure();
        if (elementType < INT32_MIN || elementType > INT32_MAX)
          return reader.emitError() << "#thunky.allocation: element type " << elementType
                                    << " out of range";
        b.elementType = (int32_t)elementType;
        return success();
      };
      if (failed(reader.readSignedVarInt(index)) || failed(reader.readSignedVarInt(parameter)) ||
          failed(reader.readString(name)) || failed(reader.readVarInt(flags)) ||
          failed(reader.readSignedVarInts(outputIndex)) || failed(reader.readVarInt(hasShape)) ||
          (hasShape && failed(reader.readType(shape))) ||
          failed(reader.readSignedVarInt(color)) ||
          failed(reader.readSignedVarInts(parameterShapeIndex)) ||
          failed(reader.readList(assigned, readAssigned)))
        return {};
      if (flags > UINT32_MAX)
        return reader.emitError() << "#thunky.allocation: flags " << flags << " out of range",
               Attribute();
      // ArrayRefs as declared, so that the generated getChecked is chosen
      // over StorageUserBase's template, which needs the storage class.
      return AllocationAttr::getChecked(
          [&] { return reader.emitError(); }, ctx, index, parameter, name, (uint32_t)flags,
          ArrayRef<int64_t>(outputIndex), shape, color, ArrayRef<int64_t>(parameterShapeIndex),
          ArrayRef<ThunkyAllocationAssigned>(assigned));
    }
    reader.emitError() << "unknown thunky attribute code " << code;
    return {};
  }
};
} // namespace

void mlir::thunky::registerBytecode(ThunkyDialect *dialect) {
  dialect->addInterfaces<ThunkyBytecodeInterface>();
}
