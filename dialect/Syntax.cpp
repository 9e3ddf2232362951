//===- Syntax.cpp - upstream's syntax where ODS-generated code falls short ===//
//
// - Properties: upstream JAX prints them as `<name = value, ...>` in
//   declaration order with values stripped of their types (`0`, `[1, 1, 1]`,
//   `[false, true]`, `f32`); MLIR 22 would print and parse only
//   `<{name = value : type, ...}>`. The two prop-dict hooks, called from every
//   op with a prop-dict, print upstream's spelling and parse both.
// - all_to_all's two operand lists must have the same length, and so must
//   those of the paired collectives, which print one pair as upstream does.
// - async_start, whose elided prop-dict would leave a stray space.
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::thunky;

namespace {
/// The stripped form of a dense array (`[1, 1, 1]`) reads as an ArrayAttr of
/// integers when parsed as a plain attribute, so these names are parsed with
/// the dense array's own parser.
Attribute parseStrippedValue(OpAsmParser &parser, StringRef name) {
  Attribute value;
  if (name == "grid_dim" || name == "block_dim" || name == "grid" || name == "block" ||
      name == "cluster") {
    DenseI64ArrayAttr array;
    if (succeeded(parser.parseCustomAttributeWithFallback(array)))
      value = array;
  } else if (name == "written") {
    DenseBoolArrayAttr array;
    if (succeeded(parser.parseCustomAttributeWithFallback(array)))
      value = array;
  } else {
    (void)parser.parseAttribute(value);
  }
  return value;
}

// A dictionary, or an array of dictionaries or arrays, longer than this on
// one line prints one entry per line, nested ones in turn, so that a rich
// thunk (a GemmConfig, a conditional's branches, an FFI call's attributes)
// reads as a tree and no line outgrows a screen. An array of scalars stays
// on its line: one number a line would not read better. MLIR's parser reads
// both spellings alike.
constexpr int64_t kFoldWidth = 200;

/// Whether `value` prints in at most `budget` characters, give or take the
/// escapes of its strings; visits no more than about `budget` attributes, so
/// that deciding at every level of a deep tree stays linear.
bool fits(Attribute value, int64_t &budget) {
  auto spend = [&](int64_t n) { return (budget -= n) >= 0; };
  if (auto dict = dyn_cast<DictionaryAttr>(value)) {
    if (!spend(2))
      return false;
    for (NamedAttribute entry : dict)
      if (!spend(entry.getName().size() + 5) || !fits(entry.getValue(), budget))
        return false;
    return true;
  }
  if (auto array = dyn_cast<ArrayAttr>(value)) {
    if (!spend(2))
      return false;
    for (Attribute element : array)
      if (!spend(2) || !fits(element, budget))
        return false;
    return true;
  }
  if (auto string = dyn_cast<StringAttr>(value))
    return spend(string.size() + 2);
  if (auto dense = dyn_cast<DenseArrayAttr>(value))
    return spend(2 * dense.size() + 12);
  // A handle: `dense_resource<name> : tensor<Nxi8>`, however many bytes.
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return spend(resource.getRawHandle().getKey().size() + 40);
  if (auto elements = dyn_cast<ElementsAttr>(value))
    return spend(2 * elements.getNumElements() + 24);
  std::string text;
  llvm::raw_string_ostream os(text);
  value.print(os);
  return spend(text.size());
}

void printFolded(OpAsmPrinter &p, Attribute value) {
  auto dict = dyn_cast<DictionaryAttr>(value);
  auto array = dyn_cast<ArrayAttr>(value);
  if (array && llvm::none_of(array, llvm::IsaPred<DictionaryAttr, ArrayAttr>))
    array = nullptr;
  int64_t budget = kFoldWidth;
  if ((!dict && !array) || fits(value, budget)) {
    p.printAttribute(value);
    return;
  }
  p << (dict ? '{' : '[');
  p.increaseIndent();
  if (dict) {
    llvm::interleave(
        dict, [&](NamedAttribute entry) {
          p.printNewline();
          p.printKeywordOrString(entry.getName().getValue());
          if (!isa<UnitAttr>(entry.getValue())) {
            p << " = ";
            printFolded(p, entry.getValue());
          }
        },
        [&] { p << ','; });
  } else {
    llvm::interleave(
        array, [&](Attribute element) {
          p.printNewline();
          printFolded(p, element);
        },
        [&] { p << ','; });
  }
  p.decreaseIndent();
  p.printNewline();
  p << (dict ? '}' : ']');
}

void printStrippedValue(OpAsmPrinter &p, Attribute value) {
  if (auto integer = dyn_cast<IntegerAttr>(value);
      integer && integer.getType().isSignlessInteger(64))
    p << integer.getInt();
  else if (auto array = dyn_cast<DenseI64ArrayAttr>(value))
    p.printStrippedAttrOrType(array);
  else if (auto array = dyn_cast<DenseBoolArrayAttr>(value))
    p.printStrippedAttrOrType(array);
  else if (auto type = dyn_cast<TypeAttr>(value))
    p.printType(type.getValue());
  else
    printFolded(p, value);
}
} // namespace

ParseResult mlir::thunky::parsePropertyDict(OpAsmParser &parser,
                                            DictionaryAttr &result) {
  result = nullptr;
  if (failed(parser.parseOptionalLess()))
    return success();
  NamedAttrList entries;
  SMLoc start = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(entries))
    return failure();
  bool sawDictionary =
      parser.getCurrentLocation().getPointer() != start.getPointer();
  auto parseEntry = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef name;
    if (parser.parseKeyword(&name) || parser.parseEqual())
      return failure();
    if (entries.get(name))
      return parser.emitError(loc, "property '") << name << "' given twice";
    Attribute value = parseStrippedValue(parser, name);
    if (!value)
      return failure();
    entries.append(name, value);
    return success();
  };
  // `<{...}>` or `<>`, else upstream's `<name = value, ...>`.
  if (!sawDictionary && failed(parser.parseOptionalGreater()) &&
      (parser.parseCommaSeparatedList(parseEntry) || parser.parseGreater()))
    return failure();
  if (sawDictionary && parser.parseGreater())
    return failure();
  result = entries.getDictionary(parser.getContext());
  return success();
}

void mlir::thunky::printPropertyDict(OpAsmPrinter &p,
                                     function_ref<Attribute(StringRef)> get,
                                     ArrayRef<StringRef> order,
                                     ArrayRef<StringRef> elided) {
  SmallVector<std::pair<StringRef, Attribute>, 8> shown;
  for (StringRef name : order)
    if (Attribute value = get(name); value && !llvm::is_contained(elided, name))
      shown.emplace_back(name, value);
  if (shown.empty())
    return;
  p << '<';
  llvm::interleaveComma(shown, p, [&](const std::pair<StringRef, Attribute> &entry) {
    p << entry.first << " = ";
    printStrippedValue(p, entry.second);
  });
  p << '>';
}

ParseResult mlir::thunky::parseSameCount(
    OpAsmParser &parser, SmallVectorImpl<OpAsmParser::UnresolvedOperand> &dst,
    ArrayRef<OpAsmParser::UnresolvedOperand> src) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(dst))
    return failure();
  if (dst.size() != src.size())
    return parser.emitError(loc, "expected as many destination buffers as "
                                 "source buffers (")
           << src.size() << "), got " << dst.size();
  return success();
}

void mlir::thunky::printSameCount(OpAsmPrinter &p, Operation *,
                                  OperandRange dst, OperandRange) {
  p << dst;
}

ParseResult mlir::thunky::parsePairs(
    OpAsmParser &parser, SmallVectorImpl<OpAsmParser::UnresolvedOperand> &src,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &dst) {
  if (failed(parser.parseOptionalLParen())) {
    src.emplace_back(), dst.emplace_back();
    return failure(parser.parseOperand(src.back()) || parser.parseComma() ||
                   parser.parseOperand(dst.back()));
  }
  if (parser.parseOperandList(src) || parser.parseRParen() ||
      parser.parseComma() || parser.parseLParen())
    return failure();
  return failure(parseSameCount(parser, dst, src) || parser.parseRParen());
}

void mlir::thunky::printPairs(OpAsmPrinter &p, Operation *, OperandRange src,
                              OperandRange dst) {
  if (src.size() == 1)
    p << src << ", " << dst;
  else
    p << '(' << src << "), (" << dst << ')';
}

ParseResult mlir::thunky::parsePairTypes(OpAsmParser &parser,
                                         SmallVectorImpl<Type> &src,
                                         SmallVectorImpl<Type> &dst) {
  auto list = [&](SmallVectorImpl<Type> &types) {
    return parser.parseCommaSeparatedList(
        OpAsmParser::Delimiter::Paren,
        [&]() { return parser.parseType(types.emplace_back()); });
  };
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen()) &&
        (parser.parseTypeList(src) || parser.parseRParen()))
      return failure();
    return failure(parser.parseComma() || list(dst));
  }
  BufferType a, b;
  if (parser.parseCustomTypeWithFallback(a) || parser.parseComma() ||
      parser.parseCustomTypeWithFallback(b))
    return failure();
  src.push_back(a), dst.push_back(b);
  return success();
}

void mlir::thunky::printPairTypes(OpAsmPrinter &p, Operation *, TypeRange src,
                                  TypeRange dst) {
  if (src.size() != 1) {
    p << '(' << src << "), (" << dst << ')';
    return;
  }
  auto printOne = [&](Type t) {
    if (auto buffer = dyn_cast<BufferType>(t))
      p.printStrippedAttrOrType(buffer);
    else
      p << t;
  };
  printOne(src.front());
  p << ", ";
  printOne(dst.front());
}

// %t = thunky.async_start stream = N { ... } <is_communication = true> : !thunky.token
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
