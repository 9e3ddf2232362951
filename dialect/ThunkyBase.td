//===- ThunkyBase.td - thunky dialect and types -----------*- tablegen -*-===//
//
// The dialect, its two types and its one attribute. Names, parameters and assembly formats match
// upstream JAX's thunky dialect so that text printed by either parses in both.
//
//===----------------------------------------------------------------------===//

#ifndef THUNKY_BASE_TD
#define THUNKY_BASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Thunky_Dialect : Dialect {
  let name = "thunky";
  let cppNamespace = "::mlir::thunky";
  let summary = "XLA:GPU thunk sequences over buffer allocations";
  let description = [{
    The thunk level of an XLA:GPU executable: device buffers (`!thunky.buffer<N>`)
    and the thunks that read and write them (memsets, copies, kernel launches,
    custom calls, collectives), with structured control flow (`cond`, `while`),
    asynchronous regions (`async_start`/`async_done`) and sequential blocks.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // In AllocationAttr.cpp, where the attributes' storage is defined.
  let extraClassDeclaration = [{ void registerAttributes(); }];
}

class Thunky_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Thunky_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Thunky_Buffer : Thunky_Type<"Buffer", "buffer"> {
  let summary = "Device buffer slice of a fixed byte size";
  let parameters = (ins "int64_t":$size);
  let assemblyFormat = "`<` $size `>`";
  let genVerifyDecl = 1;
}

def Thunky_Token : Thunky_Type<"Token", "token"> {
  let summary = "Token representing an in-flight asynchronous execution scope";
}

// What an @main argument or a thunky.constant is: its role and logical type,
// and the BufferAllocationProto it came from less its size (the buffer type
// has it). One uniqued object with plain fields, where a dictionary per
// allocation cost five (docs/formats.md gives the syntax). Only the
// C++ storage lives here; C reads and builds it through
// thunkyAllocationAttrGet/GetValue (thunky-c/dialect/Dialect.h).
def Thunky_Allocation : AttrDef<Thunky_Dialect, "Allocation"> {
  let mnemonic = "allocation";
  let summary = "An allocation's role, logical type and recorded fields";
  let parameters = (ins
    "int64_t":$index,     // -1: not recorded (written by hand, or stripped)
    "int64_t":$parameter, // -1: no entry parameter
    StringRefParameter<"the parameter's name", "\"\"">:$name,
    "uint32_t":$flags,    // ThunkyAllocationFlag bits
    ArrayRefParameter<"int64_t">:$outputIndex,
    OptionalParameter<"Type">:$shape,
    "int64_t":$color,
    ArrayRefParameter<"int64_t">:$parameterShapeIndex,
    ArrayRefParameter<"ThunkyAllocationAssigned">:$assigned
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// What an op says of the thunk it came from
//===----------------------------------------------------------------------===//

def Thunky_ThunkInfoAttr : AttrDef<Thunky_Dialect, "ThunkInfo"> {
  let mnemonic = "info";
  let summary = "XLA's ThunkInfoProto: the thunk's id, profile annotation and concurrent region";
  let description = [{
    `#thunky.info<id = 5, "loop_broadcast_fusion">`, with
    `, concurrent_region = N` when XLA gave one. Zero is absent, as in XLA's
    proto3; an absent annotation is an empty one.
  }];
  let parameters = (ins "int64_t":$id, StringRefParameter<"", "\"\"">:$annotation,
                        DefaultValuedParameter<"int64_t", "0">:$concurrent_region);
  let hasCustomAssemblyFormat = 1;
}

#endif // THUNKY_BASE_TD
