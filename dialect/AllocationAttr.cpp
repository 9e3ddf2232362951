//===- AllocationAttr.cpp - #thunky.allocation syntax ---------*- C++ -*-===//
//
// Prints and parses the allocation attribute, e.g.
//   #thunky.allocation<index = 1, parameter 0 "x", output {0}, tensor<4xf32>,
//                      live_out, assigned = [8 at 0 + 16 : f32]>
// (docs/formats.md). What is valid is decided in C (allocation.c), once for
// the parser, the C constructor and the generic verifier.
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"
#include "thunky-c/base/ElementTypes.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::thunky;

#define GET_ATTRDEF_CLASSES
#include "ThunkyOpsAttrs.cpp.inc"

void ThunkyDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ThunkyOpsAttrs.cpp.inc"
      >();
}

namespace {
/// The flags that print as one word each, in printing order; OUTPUT and
/// SCRATCH print as the role.
struct FlagWord {
  uint32_t flag;
  const char *word;
};
constexpr FlagWord flagWords[] = {
    {THUNKY_ALLOCATION_LIVE_OUT, "live_out"},
    {THUNKY_ALLOCATION_TUPLE, "tuple"},
    {THUNKY_ALLOCATION_CONSTANT, "constant"},
    {THUNKY_ALLOCATION_ALIASED, "aliased"},
    {THUNKY_ALLOCATION_THREAD_LOCAL, "thread_local"},
};
} // namespace

LogicalResult AllocationAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     int64_t index, int64_t parameter, StringRef name,
                                     uint32_t flags,
                                     ArrayRef<int64_t> outputIndex, Type shape, int64_t color,
                                     ArrayRef<int64_t> parameterShapeIndex,
                                     ArrayRef<ThunkyAllocationAssigned> assigned) {
  ThunkyAllocation a = thunkyAllocationEmpty();
  a.index = index, a.parameter = parameter, a.flags = flags, a.color = color;
  a.name = mlirStringRefCreate(name.data(), name.size());
  a.outputDepth = outputIndex.size();
  std::copy_n(outputIndex.begin(), std::min<size_t>(a.outputDepth, THUNKY_MAX_OUTPUT_DEPTH),
              a.outputIndex);
  a.numParameterShapeIndex = parameterShapeIndex.size();
  a.numAssigned = assigned.size();
  if (const char *why = thunkyAllocationVerify(&a))
    return emitError() << "#thunky.allocation: " << why;
  return success();
}

static void printIndices(AsmPrinter &p, ArrayRef<int64_t> indices, char open, char close) {
  p << open;
  llvm::interleaveComma(indices, p);
  p << close;
}

void AllocationAttr::print(AsmPrinter &p) const {
  llvm::ListSeparator comma;
  auto sep = [&]() -> StringRef { return comma; };
  uint32_t flags = getFlags();
  p << '<';
  if (getIndex() >= 0)
    p << sep() << "index = " << getIndex();
  if (getParameter() >= 0)
    p << sep() << "parameter " << getParameter();
  if (!getName().empty()) {
    p << ' ';
    p.printString(getName());
  }
  if (flags & THUNKY_ALLOCATION_OUTPUT) {
    p << sep() << "output ";
    printIndices(p, getOutputIndex(), '{', '}');
  }
  if (flags & THUNKY_ALLOCATION_SCRATCH)
    p << sep() << "scratch";
  if (getShape())
    p << sep() << getShape();
  for (const FlagWord &f : flagWords)
    if (flags & f.flag)
      p << sep() << f.word;
  if (getColor())
    p << sep() << "color = " << getColor();
  if (!getParameterShapeIndex().empty()) {
    p << sep() << "parameter_shape_index = ";
    printIndices(p, getParameterShapeIndex(), '[', ']');
  }
  if (!getAssigned().empty()) {
    p << sep() << "assigned = [";
    llvm::interleaveComma(getAssigned(), p, [&](const ThunkyAllocationAssigned &a) {
      p << a.logicalBuffer << " at " << a.offset << " + " << a.size;
      if (!a.elementType)
        return;
      p << " : ";
      if (const char *name = thunkyElementTypeName(a.elementType))
        p << name;
      else
        p << a.elementType;
    });
    p << ']';
  }
  p << '>';
}

/// `{i, ...}` or `[i, ...]`, possibly empty.
static ParseResult parseIndices(AsmParser &parser, AsmParser::Delimiter delimiter,
                                SmallVectorImpl<int64_t> &out) {
  return parser.parseCommaSeparatedList(delimiter, [&]() -> ParseResult {
    return parser.parseInteger(out.emplace_back());
  });
}

/// `ID at OFFSET + SIZE [: TYPE]`, TYPE an XLA element type name or number.
static ParseResult parseAssigned(AsmParser &parser, ThunkyAllocationAssigned &a) {
  a = {};
  if (parser.parseInteger(a.logicalBuffer) || parser.parseKeyword("at") ||
      parser.parseInteger(a.offset) || parser.parsePlus() || parser.parseInteger(a.size))
    return failure();
  if (failed(parser.parseOptionalColon()))
    return success();
  SMLoc at = parser.getCurrentLocation();
  OptionalParseResult number = parser.parseOptionalInteger(a.elementType);
  if (number.has_value())
    return *number;
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  for (int32_t t = 1; t < THUNKY_TYPE_COUNT; ++t)
    if (const char *known = thunkyElementTypeName(t); known && name == known) {
      a.elementType = t;
      return success();
    }
  return parser.emitError(at) << "unknown element type '" << name << "'";
}

Attribute AllocationAttr::parse(AsmParser &parser, Type) {
  int64_t index = -1, parameter = -1, color = 0;
  std::string name;
  uint32_t flags = 0;
  Type shape;
  SmallVector<int64_t> outputIndex, parameterShapeIndex;
  SmallVector<ThunkyAllocationAssigned> assigned;
  SMLoc start = parser.getCurrentLocation();
  uint32_t seen = 0; // which entries came already, by position in `words`
  static const StringRef words[] = {"index", "parameter", "output", "scratch", "color",
                                    "parameter_shape_index", "assigned", "live_out", "tuple",
                                    "constant", "aliased", "thread_local"};
  auto entry = [&]() -> ParseResult {
    SMLoc at = parser.getCurrentLocation();
    StringRef word;
    if (failed(parser.parseOptionalKeyword(&word, words))) {
      OptionalParseResult type = parser.parseOptionalType(shape);
      if (!type.has_value())
        return parser.emitError(at, "expected an allocation entry: index = N, parameter N, "
                                    "output {...}, scratch, a type, a flag, color = N, "
                                    "parameter_shape_index = [...] or assigned = [...]");
      if (failed(*type) || (seen & 1u << 31))
        return failed(*type) ? failure() : parser.emitError(at, "a second type");
      seen |= 1u << 31;
      return success();
    }
    uint32_t bit = 1u << (std::find(std::begin(words), std::end(words), word) - words);
    if (seen & bit)
      return parser.emitError(at) << "'" << word << "' given twice";
    seen |= bit;
    for (const FlagWord &f : flagWords)
      if (word == f.word) {
        flags |= f.flag;
        return success();
      }
    if (word == "scratch") {
      flags |= THUNKY_ALLOCATION_SCRATCH;
      return success();
    }
    if (word == "parameter") {
      if (parser.parseInteger(parameter))
        return failure();
      if (parameter < 0)
        return parser.emitError(at, "parameter number must be >= 0");
      SMLoc named = parser.getCurrentLocation();
      if (succeeded(parser.parseOptionalString(&name)) && name.empty())
        return parser.emitError(named, "a parameter's name is absent or not empty");
      return success();
    }
    if (word == "output") {
      flags |= THUNKY_ALLOCATION_OUTPUT;
      return parseIndices(parser, AsmParser::Delimiter::Braces, outputIndex);
    }
    if (parser.parseEqual())
      return failure();
    if (word == "index" || word == "color") {
      int64_t &value = word == "index" ? index : color;
      if (parser.parseInteger(value))
        return failure();
      if (word == "index" && value < 0)
        return parser.emitError(at, "index must be >= 0");
      return success();
    }
    if (word == "parameter_shape_index")
      return parseIndices(parser, AsmParser::Delimiter::Square, parameterShapeIndex);
    return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
      return parseAssigned(parser, assigned.emplace_back());
    });
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater, entry))
    return {};
  return parser.getChecked<AllocationAttr>(start, parser.getContext(), index, parameter, name,
                                           flags,
                                           outputIndex, shape, color, parameterShapeIndex,
                                           assigned);
}
