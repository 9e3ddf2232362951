//===- AsyncStartFormat.cpp - thunky.async_start syntax -------*- C++ -*-===//
//
//   %t = thunky.async_start stream = N { ... } <is_communication = true> : !thunky.token
//
// Upstream's declarative format, written out so that an elided prop-dict
// leaves no stray space (MLIR 22's generated printer would print one).
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"

using namespace mlir;
using namespace mlir::thunky;

ParseResult AsyncStartOp::parse(OpAsmParser &parser, OperationState &result) {
  IntegerAttr streamId;
  Region *body = result.addRegion();
  DictionaryAttr props;
  Type tokenType;
  if (parser.parseKeyword("stream") || parser.parseEqual() ||
      parser.parseAttribute(streamId, parser.getBuilder().getI64Type()) ||
      parser.parseRegion(*body) || parsePropertyDict(parser, props) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(tokenType))
    return failure();
  ensureTerminator(*body, parser.getBuilder(), result.location);
  result.addTypes(tokenType);
  NamedAttrList entries(props ? props : DictionaryAttr());
  entries.set("stream_id", streamId);
  if (failed(setPropertiesFromParsedAttr(
          result.getOrAddProperties<Properties>(),
          entries.getDictionary(parser.getContext()), [&]() {
            return mlir::emitError(result.location)
                   << "invalid properties for '" << result.name << "': ";
          })))
    return failure();
  return success();
}

void AsyncStartOp::print(OpAsmPrinter &p) {
  p << " stream = " << getStreamId() << ' ';
  Operation *terminator = getBodyRegion().front().getTerminator();
  p.printRegion(getBodyRegion(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/!terminator->getAttrDictionary().empty());
  if (getIsCommunication()) {
    p << ' ';
    printProperties(getContext(), p, getProperties(), {"stream_id"});
  }
  p.printOptionalAttrDict(llvm::to_vector(getOperation()->getDiscardableAttrs()));
  p << " : ";
  p.printType(getToken().getType());
}
