//===- ThunkyDialect.h - thunky dialect C++ declarations ------*- C++ -*-===//
//
// The C++ face of the dialect, which MLIR requires: generated op, type and
// attribute classes plus the two property-dictionary hooks they call. The dialect's
// logic (verifiers, passes) is C on the MLIR C API.
//
//===----------------------------------------------------------------------===//

#ifndef THUNKY_DIALECT_THUNKYDIALECT_H
#define THUNKY_DIALECT_THUNKYDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "thunky-c/dialect/Dialect.h"

#include "llvm/ADT/Hashing.h"

/// #thunky.allocation keeps its assigned buffers as an array of the C
/// struct, which storage uniquing hashes and compares.
inline llvm::hash_code hash_value(const ThunkyAllocationAssigned &a) {
  return llvm::hash_combine(a.logicalBuffer, a.offset, a.size, a.elementType);
}
inline bool operator==(const ThunkyAllocationAssigned &a, const ThunkyAllocationAssigned &b) {
  return a.logicalBuffer == b.logicalBuffer && a.offset == b.offset && a.size == b.size &&
         a.elementType == b.elementType;
}

namespace mlir::thunky {
/// Parses an optional prop-dict in either spelling: `<{dict}>` or upstream's
/// `<name = value, ...>` with stripped values. Absent: a null dictionary.
ParseResult parsePropertyDict(OpAsmParser &parser, DictionaryAttr &result);
/// Prints the properties as `<name = value, ...>` in `order`, skipping the
/// `elided` ones and absent ones (`get` gives null); prints nothing when none
/// remain. `get` reads each property where it is: building a dictionary of
/// them would unique one more attribute per printed op.
void printPropertyDict(OpAsmPrinter &p, function_ref<Attribute(StringRef)> get,
                       ArrayRef<StringRef> order, ArrayRef<StringRef> elided);
/// all_to_all's destination list: parsed knowing the sources, so that lists
/// of different lengths are refused instead of silently re-split.
ParseResult parseSameCount(OpAsmParser &parser,
                           SmallVectorImpl<OpAsmParser::UnresolvedOperand> &dst,
                           ArrayRef<OpAsmParser::UnresolvedOperand> src);
void printSameCount(OpAsmPrinter &p, Operation *op, OperandRange dst,
                    OperandRange src);
/// The buffers of all_reduce, all_gather and reduce_scatter: upstream's
/// `%src, %dst` for one pair, `(%s0, ...), (%d0, ...)` for more.
ParseResult parsePairs(OpAsmParser &parser,
                       SmallVectorImpl<OpAsmParser::UnresolvedOperand> &src,
                       SmallVectorImpl<OpAsmParser::UnresolvedOperand> &dst);
void printPairs(OpAsmPrinter &p, Operation *op, OperandRange src, OperandRange dst);
/// Their types, in the same shape: `<8>, <16>` (stripped, as upstream prints
/// a single buffer) or `(!thunky.buffer<8>, ...), (...)`.
ParseResult parsePairTypes(OpAsmParser &parser, SmallVectorImpl<Type> &src,
                           SmallVectorImpl<Type> &dst);
void printPairTypes(OpAsmPrinter &p, Operation *op, TypeRange src, TypeRange dst);
/// Makes diagnostics at an imported op's location ("thunk <id> <annotation>",
/// a NameLoc) name the thunk in their message (ThunkNames.cpp); the dialect
/// calls it for every context that loads it.
void registerThunkNames(MLIRContext *context);
/// Keeps diagnostics from echoing source lines longer than a few hundred
/// bytes whole (SourceLines.cpp); the dialect calls it for every context.
void registerSourceLineCuts(MLIRContext *context);
class ThunkyDialect;
/// Writes #thunky.info and #thunky.allocation to bytecode as fields, not
/// text (Bytecode.cpp).
void registerBytecode(ThunkyDialect *dialect);
} // namespace mlir::thunky

#include "ThunkyOpsDialect.h.inc"
#define GET_TYPEDEF_CLASSES
#include "ThunkyOpsTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "ThunkyOpsAttrs.h.inc"
#define GET_OP_CLASSES
#include "ThunkyOps.h.inc"

#endif // THUNKY_DIALECT_THUNKYDIALECT_H
