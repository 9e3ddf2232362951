//===- ThunkyDialect.cpp - thunky dialect registration --------*- C++ -*-===//
//
// Registers ops, types, the allocation attribute (AllocationAttr.cpp), the
// inliner and bytecode (Bytecode.cpp) interfaces and the diagnostic handler
// that names thunks (ThunkNames.cpp), and forwards every op verifier to C
// (verify.c). Beyond MLIR's own symbol lookup, nothing here decides what
// is valid.
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"
#include "verify.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::thunky;

#include "ThunkyOpsDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "ThunkyOpsTypes.cpp.inc"
#define GET_OP_CLASSES
#include "ThunkyOps.cpp.inc"

namespace {
/// Thunky regions hold no symbols or block arguments, so anything may be
/// inlined into them; upstream's front end splices callees with `inline`.
struct ThunkyInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void ThunkyDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ThunkyOpsTypes.cpp.inc"
      >();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "ThunkyOps.cpp.inc"
      >();
  addInterfaces<ThunkyInlinerInterface>();
  registerBytecode(this);
  // Before the names: handlers run newest first, so a cut diagnostic
  // already names its thunk.
  registerSourceLineCuts(getContext());
  registerThunkNames(getContext());
}

// #thunky.info<id = 5, "annotation", concurrent_region = 2>: only the id
// is required; the annotation, when present, comes before the region.
Attribute ThunkInfoAttr::parse(AsmParser &parser, Type) {
  int64_t id = 0, region = 0;
  std::string annotation;
  if (parser.parseLess() || parser.parseKeyword("id") || parser.parseEqual() ||
      parser.parseInteger(id))
    return {};
  bool comma = succeeded(parser.parseOptionalComma());
  if (comma && succeeded(parser.parseOptionalString(&annotation))) {
    if (annotation.empty())
      return parser.emitError(parser.getCurrentLocation(),
                              "a thunk's annotation is absent or not empty"),
             Attribute();
    comma = succeeded(parser.parseOptionalComma());
  }
  if (comma && (parser.parseKeyword("concurrent_region") || parser.parseEqual() ||
                parser.parseInteger(region)))
    return {};
  if (parser.parseGreater())
    return {};
  return ThunkInfoAttr::get(parser.getContext(), id, annotation, region);
}

void ThunkInfoAttr::print(AsmPrinter &printer) const {
  printer << "<id = " << getId();
  if (!getAnnotation().empty()) {
    printer << ", ";
    printer.printString(getAnnotation());
  }
  if (getConcurrentRegion())
    printer << ", concurrent_region = " << getConcurrentRegion();
  printer << ">";
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t size) {
  if (size < 0)
    return emitError() << "buffer size must be >= 0, got " << size;
  return success();
}

// A custom kernel's code is a thunky.kernel_binary of the module; MLIR's
// symbol tables find it once per module, not once per launch.
LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FlatSymbolRefAttr binary = getBinaryAttr();
  if (!binary || symbols.lookupNearestSymbolFrom<KernelBinaryOp>(*this, binary))
    return success();
  return emitOpError() << "binary " << binary << " is no thunky.kernel_binary of the module";
}

// Upstream's one canonicalization: a copy of a value onto itself does nothing.
LogicalResult CopyOp::canonicalize(CopyOp op, PatternRewriter &rewriter) {
  if (op.getSrc() != op.getDst())
    return failure();
  rewriter.eraseOp(op);
  return success();
}

#define THUNKY_FORWARD_VERIFIER(E, C, N)                                       \
  LogicalResult C::verify() {                                                  \
    return unwrap(thunkyVerifyOp(wrap(getOperation()), THUNKY_OP_##E));        \
  }
THUNKY_FOR_EACH_OP(THUNKY_FORWARD_VERIFIER)

// Ops whose effects depend on their attributes say so through the one C
// table (effects.c), operand by operand.
static void operandEffects(
    Operation *op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    bool reads, writes;
    thunkyOpGetOperandEffects(wrap(op), operand.getOperandNumber(), &reads, &writes);
    if (reads)
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    if (writes)
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

#define THUNKY_FORWARD_EFFECTS(C)                                              \
  void C::getEffects(                                                          \
      SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>      \
          &effects) {                                                          \
    operandEffects(getOperation(), effects);                                   \
  }
THUNKY_FORWARD_EFFECTS(LaunchOp)
THUNKY_FORWARD_EFFECTS(GemmOp)
THUNKY_FORWARD_EFFECTS(CublasLtMatmulOp)

// An opaque thunk may also do what no buffer shows (send, outfeed, a host
// callback), so it is never dead code, whatever its written flags say.
void CallThunkProtoOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  operandEffects(getOperation(), effects);
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}
