//===- PropertyDict.cpp - upstream's prop-dict spelling -------*- C++ -*-===//
//
// Upstream JAX prints properties as `<name = value, ...>`: declaration order,
// values stripped of their types (`0`, `[1, 1, 1]`, `[false, true]`, `f32`).
// MLIR 22 would print and parse only `<{name = value : type, ...}>`. These two
// hooks, called from every op with a prop-dict, print upstream's spelling and
// parse both.
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"

using namespace mlir;

namespace {
/// The stripped form of a dense array (`[1, 1, 1]`) reads as an ArrayAttr of
/// integers when parsed as a plain attribute, so these names are parsed with
/// the dense array's own parser.
Attribute parseStrippedValue(OpAsmParser &parser, StringRef name) {
  Attribute value;
  if (name == "grid_dim" || name == "block_dim") {
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
    p.printAttribute(value);
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

void mlir::thunky::printPropertyDict(OpAsmPrinter &p, Attribute props,
                                     ArrayRef<StringRef> order,
                                     ArrayRef<StringRef> elided) {
  auto dict = dyn_cast_or_null<DictionaryAttr>(props);
  if (!dict)
    return;
  SmallVector<NamedAttribute> shown;
  for (StringRef name : order)
    if (Attribute value = dict.get(name);
        value && !llvm::is_contained(elided, name))
      shown.emplace_back(StringAttr::get(dict.getContext(), name), value);
  if (shown.empty())
    return;
  p << '<';
  llvm::interleaveComma(shown, p, [&](NamedAttribute entry) {
    p << entry.getName().getValue() << " = ";
    printStrippedValue(p, entry.getValue());
  });
  p << '>';
}
