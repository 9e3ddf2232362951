//===- ThunkyOps.td - thunky operations -------------------*- tablegen -*-===//
//
// Operations of the thunky dialect. Operands, attributes, regions and assembly
// formats are those of upstream JAX's thunky dialect; `thunky.sequential` is
// ours. Every op with something to check has a verifier (written in C, see
// verify.c), and every op declares its memory effects so that MLIR's own
// CSE, DCE and canonicalization can reason about it.
//
//===----------------------------------------------------------------------===//

#ifndef THUNKY_OPS_TD
#define THUNKY_OPS_TD

include "ThunkyBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

// Every op's verifier is thunkyVerifyOp (verify.c), which checks the rules
// of the ops that have some: one list of ops (Ops.h's), not a second one of
// those with rules.
class Thunky_Op<string mnemonic, list<Trait> traits = []>
    : Op<Thunky_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
}

// Ops whose format has a `prop-dict`. They print it as upstream's newest
// printer does (`<name = value, ...>`, stripped values in declaration order)
// and parse that, MLIR 22's `<{...}>` dictionary, and the older upstream
// spelling that put these attributes into the trailing attribute dictionary.
class Thunky_PropOp<string mnemonic, list<Trait> traits = []>
    : Thunky_Op<mnemonic, traits> {
  // Argument names in declaration order: MLIR sorts property names, but
  // upstream prints them in the order the op declares them.
  string declarationOrder = !interleave(
      !foreach(i, !range(!size(arguments)), "\"" # !getdagname(arguments, i) # "\""),
      ", ");
  let extraClassDeclaration = [{
    static ::llvm::ArrayRef<::llvm::StringRef> getDeclarationOrder() {
      static const ::llvm::StringRef names[] = {}] # declarationOrder # [{};
      return names;
    }
    static ::mlir::ParseResult parseProperties(::mlir::OpAsmParser &parser,
                                               ::mlir::OperationState &result) {
      ::mlir::DictionaryAttr dict;
      if (::mlir::thunky::parsePropertyDict(parser, dict))
        return ::mlir::failure();
      // Absent: the older spelling may still give them in the attr-dict,
      // and MLIR moves inherent attributes from there into properties.
      if (!dict)
        return ::mlir::success();
      return setPropertiesFromParsedAttr(
          result.getOrAddProperties<Properties>(), dict, [&]() {
            return ::mlir::emitError(result.location)
                   << "invalid properties for '" << result.name << "': ";
          });
    }
    template <typename T>
    static void printProperties(::mlir::MLIRContext *ctx,
                                ::mlir::OpAsmPrinter &p, const T &props,
                                ::llvm::ArrayRef<::llvm::StringRef> elided = {}) {
      ::mlir::thunky::printPropertyDict(
          p,
          [&](::llvm::StringRef name) {
            return getInherentAttr(ctx, props, name).value_or(::mlir::Attribute());
          },
          getDeclarationOrder(), elided);
    }
  }];
}

def Thunky_BufferRead : Arg<Thunky_Buffer, "", [MemRead]>;
def Thunky_BufferWrite : Arg<Thunky_Buffer, "", [MemWrite]>;
def Thunky_BufferReadWrite : Arg<Variadic<Thunky_Buffer>, "", [MemRead, MemWrite]>;

//===----------------------------------------------------------------------===//
// Buffers and data movement
//===----------------------------------------------------------------------===//

def Thunky_SliceBufferOp : Thunky_Op<"slice_buffer", [Pure]> {
  let summary = "Creates a sub-slice view of an existing GPU buffer";
  let description = [{
    `%r = thunky.slice_buffer %b offset = K : <N> -> <M>` names the bytes
    `[K, K + M)` of `%b`. It allocates nothing; the slice must lie within its
    parent.
  }];
  let arguments = (ins Thunky_Buffer:$buffer, I64Attr:$offset);
  let results = (outs Thunky_Buffer:$result);
  let assemblyFormat = "$buffer `offset` `=` $offset attr-dict `:` type($buffer) `->` type($result)";
}

def Thunky_MemzeroOp : Thunky_Op<"memzero"> {
  let summary = "Zeroes out a device buffer";
  let arguments = (ins Thunky_BufferWrite:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
}

def Thunky_Memset32Op : Thunky_Op<"memset32"> {
  let summary = "Fills a device buffer with a 32-bit pattern";
  let description = [{
    Writes the 32-bit `value` into every 4-byte word of the buffer, whose size
    must be a multiple of 4.
  }];
  let arguments = (ins Thunky_BufferWrite:$buffer, I32Attr:$value);
  let assemblyFormat = "$buffer `,` $value attr-dict `:` type($buffer)";
}

def Thunky_CopyOp : Thunky_Op<"copy"> {
  let summary = "Copies device-to-device memory from source to destination";
  let arguments = (ins Thunky_BufferRead:$src, Thunky_BufferWrite:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasCanonicalizeMethod = 1;
}

def Thunky_ConstantOp : Thunky_PropOp<"constant", [Pure]> {
  let summary = "Materializes a constant device buffer initialized with raw bytes";
  let description = [{
    `value` holds exactly as many bytes as the result buffer, as a string or
    as a byte resource (`dense_resource<NAME> : tensor<Nxi8>`). `name`,
    thunky's own, is the constant's symbol in XLA's constant table.
  }];
  let arguments = (ins AnyAttr:$value, OptionalAttr<StrAttr>:$name);
  let results = (outs Thunky_Buffer:$result);
  let assemblyFormat = "prop-dict attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Kernels and calls
//===----------------------------------------------------------------------===//

def Thunky_CallThunkProtoOp : Thunky_PropOp<"call_thunk_proto",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Executes a serialized XLA ThunkProto on buffer slices";
  let description = [{
    `thunk_proto` is an `xla.gpu.ThunkProto` whose buffer slices index into
    `buffers` instead of the executable's allocations: a dictionary with one
    entry per field present, as import writes it, or serialized in a string,
    as upstream does. `asm_text`
    and `binary` carry the PTX and cubin its kernels come from. `written`,
    thunky's own, says which buffers the thunk may write (import fills it
    from what the thunk kind writes); without it, it may write them all.
  }];
  let arguments = (ins Variadic<Thunky_Buffer>:$buffers, StrAttr:$kernel_name,
                       AnyAttr:$thunk_proto, StrAttr:$asm_text, StrAttr:$binary,
                       OptionalAttr<DenseBoolArrayAttr>:$written);
  let assemblyFormat = "($buffers^ `:` type($buffers))? `name` `=` $kernel_name prop-dict attr-dict";
}

def Thunky_PtxKernelOp : Thunky_PropOp<"ptx_kernel"> {
  let summary = "Executes a GPU kernel from PTX assembly on buffer slices";
  let description = [{
    Launches `kernel_name` from `ptx` on a `grid_dim` x `block_dim` grid with
    `shmem_bytes` of dynamic shared memory; `written[i]` says whether the
    kernel writes `buffers[i]`.
  }];
  let arguments = (ins Thunky_BufferReadWrite:$buffers, StrAttr:$kernel_name,
                       StrAttr:$ptx, DenseI64ArrayAttr:$grid_dim,
                       DenseI64ArrayAttr:$block_dim, DenseBoolArrayAttr:$written,
                       I64Attr:$shmem_bytes);
  let assemblyFormat = "($buffers^ `:` type($buffers))? `name` `=` $kernel_name prop-dict attr-dict";
}

//===----------------------------------------------------------------------===//
// thunky's own ops for the kinds real executables are made of. Upstream
// keeps them as call_thunk_proto; here their fields read and edit as text,
// and their memory effects say exactly which buffers they read and write.
//===----------------------------------------------------------------------===//

def Thunky_KernelBinaryOp : Thunky_Op<"kernel_binary",
    [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A kernel's compiled code, cubin or PTX, for launches to name";
  let description = [{
    The code of a CustomKernelThunk: `cubin` or `ptx`, a string or (as
    import writes it) a byte resource. Launches name it by symbol
    (`binary = @name`); one op per distinct binary, each on its own line.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, OptionalAttr<AnyAttr>:$cubin,
                       OptionalAttr<AnyAttr>:$ptx);
  let assemblyFormat = "$sym_name (`cubin` `=` $cubin^)? (`ptx` `=` $ptx^)? attr-dict";
}

def Thunky_LaunchOp : Thunky_PropOp<"launch",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Launches a compiled kernel (XLA's KernelThunk or CustomKernelThunk)";
  let description = [{
    Runs `kernel_name` on a `grid` of `block`-sized thread blocks (x, y, z),
    in clusters of `cluster` blocks when given, with `shmem_bytes` of dynamic
    shared memory. `written[i]` says whether the kernel writes `buffers[i]`
    (it may read it too); it reads every buffer.

    Without `binary` the kernel comes from the executable's own module (a
    KernelThunk). With it, this is a CustomKernelThunk whose cubin or PTX is
    the `thunky.kernel_binary` of that name, so a binary launched a thousand
    times is held and printed once.
  }];
  let arguments = (ins Variadic<Thunky_Buffer>:$buffers, StrAttr:$kernel_name,
                       DenseI64ArrayAttr:$grid, DenseI64ArrayAttr:$block,
                       DenseBoolArrayAttr:$written,
                       OptionalAttr<DenseI64ArrayAttr>:$cluster,
                       DefaultValuedAttr<I64Attr, "0">:$shmem_bytes,
                       OptionalAttr<FlatSymbolRefAttr>:$binary);
  let assemblyFormat = "$kernel_name `(` ($buffers^ `:` type($buffers))? `)` prop-dict attr-dict";
}

def Thunky_GemmOp : Thunky_PropOp<"gemm",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A matrix multiplication through cuBLAS (XLA's GemmThunk)";
  let description = [{
    `output = alpha * lhs x rhs + beta * output`, shaped by `config`, XLA's
    GemmConfigProto as a dictionary (`lhs_layout`, `rhs_layout`, `c_layout`,
    `output_layout` with their rows, columns, batch and strides; `alpha_real`,
    `alpha_imag`, `beta`, `precision_algorithm`, `compute_type`, ...).
    It reads `output` only when `beta` is nonzero; cuBLAS may use all of
    `workspace`.
  }];
  let arguments = (ins Thunky_Buffer:$lhs, Thunky_Buffer:$rhs,
                       Thunky_Buffer:$output, Optional<Thunky_Buffer>:$workspace,
                       DictionaryAttr:$config, OptionalAttr<BoolAttr>:$deterministic);
  let assemblyFormat = [{
    $lhs `,` $rhs `->` $output (`workspace` `(` $workspace^ `:` type($workspace) `)`)?
    `:` type($lhs) `,` type($rhs) `->` type($output) prop-dict attr-dict
  }];
}

def Thunky_CublasLtMatmulOp : Thunky_PropOp<"cublaslt_matmul",
    [AttrSizedOperandSegments, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A matrix multiplication with epilogue through cuBLASLt (XLA's CublasLtMatmulThunk)";
  let description = [{
    `d = epilogue(alpha * a x b + beta * c [+ bias])`, shaped by `config` (as
    for thunky.gemm). `epilogue` is XLA's BlasLtEpilogueProto name; the bias
    epilogues need `bias`, the `_WITH_AUX` ones write `aux`. The fp8 scales
    are read, `d_amax` and `workspace` written.
  }];
  let arguments = (ins Thunky_Buffer:$a, Thunky_Buffer:$b, Thunky_Buffer:$c,
                       Thunky_Buffer:$d, Optional<Thunky_Buffer>:$bias,
                       Optional<Thunky_Buffer>:$aux, Optional<Thunky_Buffer>:$a_scale,
                       Optional<Thunky_Buffer>:$b_scale, Optional<Thunky_Buffer>:$c_scale,
                       Optional<Thunky_Buffer>:$d_scale, Optional<Thunky_Buffer>:$d_amax,
                       Optional<Thunky_Buffer>:$workspace,
                       DictionaryAttr:$config, OptionalAttr<StrAttr>:$epilogue,
                       OptionalAttr<I64Attr>:$algorithm_idx,
                       OptionalAttr<I64Attr>:$autotune_workspace_size);
  let assemblyFormat = [{
    $a `,` $b `,` $c `->` $d
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`aux` `(` $aux^ `:` type($aux) `)`)?
    (`a_scale` `(` $a_scale^ `:` type($a_scale) `)`)?
    (`b_scale` `(` $b_scale^ `:` type($b_scale) `)`)?
    (`c_scale` `(` $c_scale^ `:` type($c_scale) `)`)?
    (`d_scale` `(` $d_scale^ `:` type($d_scale) `)`)?
    (`d_amax` `(` $d_amax^ `:` type($d_amax) `)`)?
    (`workspace` `(` $workspace^ `:` type($workspace) `)`)?
    `:` type($a) `,` type($b) `,` type($c) `->` type($d) prop-dict attr-dict
  }];
}

def Thunky_ReplicaIdOp : Thunky_Op<"replica_id"> {
  let summary = "Writes the running device's replica id as a u32 (XLA's ReplicaIdThunk)";
  let arguments = (ins Thunky_BufferWrite:$dst);
  let assemblyFormat = "$dst attr-dict `:` type($dst)";
}

def Thunky_PartitionIdOp : Thunky_Op<"partition_id"> {
  let summary = "Writes the running device's partition id as a u32 (XLA's PartitionIdThunk)";
  let arguments = (ins Thunky_BufferWrite:$dst);
  let assemblyFormat = "$dst attr-dict `:` type($dst)";
}

def Thunky_CustomCallOp : Thunky_PropOp<"custom_call"> {
  let summary = "Executes an XLA FFI CustomCallThunk";
  let description = [{
    `buffers` holds the `num_operands` operands first, then the `num_results`
    results. `operand_shapes` and `result_shapes`, when present, give one
    type (a tensor or a scalar type) per operand and per result.
  }];
  let arguments = (ins Thunky_BufferReadWrite:$buffers, I64Attr:$num_operands,
                       I64Attr:$num_results, StrAttr:$target_name,
                       DictionaryAttr:$backend_config,
                       OptionalAttr<ArrayAttr>:$operand_shapes,
                       OptionalAttr<ArrayAttr>:$result_shapes);
  let assemblyFormat = "($buffers^ `:` type($buffers))? `target` `=` $target_name prop-dict attr-dict";
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Thunky_YieldOp : Thunky_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["CondOp", "WhileOp", "AsyncStartOp", "CollectiveGroupOp",
                 "SequentialOp"]>]> {
  let summary = "Terminator for thunky control flow regions";
  let assemblyFormat = "attr-dict";
}

def Thunky_CondOp : Thunky_Op<"cond", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Executes branches[branch_index] (or branch 0 if true / branch 1 if false for bool predicate)";
  let description = [{
    A 1-byte (bool) predicate selects branch 0 when true and branch 1 when
    false, so it needs exactly two branches. A 4-byte (s32) index selects that
    branch; an index out of range runs the last branch, as XLA does.
  }];
  let arguments = (ins Thunky_BufferRead:$branch_index);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let assemblyFormat = "$branch_index `:` type($branch_index) $branches attr-dict";
}

def Thunky_WhileOp : Thunky_Op<"while", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Executes cond_region, and while condition_buffer is true, executes body_region";
  let description = [{
    Runs `cond_region`, which leaves the loop condition in `condition_buffer`
    (a 1-byte bool, or a 4-byte s32 where nonzero means true), then
    `body_region` as long as the condition holds.
  }];
  let arguments = (ins Thunky_BufferRead:$condition_buffer);
  let regions = (region SizedRegion<1>:$cond_region, SizedRegion<1>:$body_region);
  let assemblyFormat = "$condition_buffer `:` type($condition_buffer) `cond` $cond_region `body` $body_region attr-dict";
}

def Thunky_SequentialOp : Thunky_Op<"sequential", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Runs its body in order, as XLA's SequentialThunk";
  let description = [{
    Keeps the grouping of an XLA `SequentialThunk`. It has no semantics of its
    own beyond running its body in order; `thunky-flatten-sequential` inlines
    it into the parent block.
  }];
  let regions = (region SizedRegion<1>:$body_region);
  let assemblyFormat = "$body_region attr-dict";
}

//===----------------------------------------------------------------------===//
// Asynchronous execution
//===----------------------------------------------------------------------===//

def Thunky_AsyncStartOp : Thunky_PropOp<"async_start", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Launches a nested thunk region asynchronously on a computation or communication stream";
  let arguments = (ins I64Attr:$stream_id,
                       DefaultValuedAttr<BoolAttr, "false">:$is_communication);
  let results = (outs Thunky_Token:$token);
  let regions = (region SizedRegion<1>:$body_region);
  // Upstream's format is
  //   `stream` `=` $stream_id $body_region prop-dict attr-dict `:` type($token)
  // but MLIR 22's generated printer leaves a stray space where the whole
  // prop-dict is elided (the common case here), so it is written by hand.
  let hasCustomAssemblyFormat = 1;
}

def Thunky_AsyncDoneOp : Thunky_Op<"async_done"> {
  let summary = "Waits for an asynchronous execution scope to complete on the current stream";
  let description = [{
    The token must come from a `thunky.async_start`. Waiting makes the async
    region's reads and writes visible, so this op keeps MLIR's default of
    unknown memory effects.
  }];
  let arguments = (ins Thunky_Token:$token);
  let assemblyFormat = "$token `:` type($token) attr-dict";
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

class Thunky_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Thunky_PropOp<mnemonic, traits> {
  let assemblyFormat = "$src `,` $dst prop-dict attr-dict `:` type($src) `,` type($dst)";
}

// all_reduce, all_gather and reduce_scatter move one or more source and
// destination pairs in one thunk, as XLA does. One pair reads as upstream's
// `%src, %dst <...> : <N>, <M>`; more read as all_to_all's lists,
// `(%s0, %s1), (%d0, %d1) <...> : (...), (...)`. `element_type` is one type
// for every pair, or a list with one per pair (XLA's operand_element_type)
// when they differ.
class Thunky_PairedCollectiveOp<string mnemonic, dag attrs>
    : Thunky_CollectiveOp<mnemonic, [SameVariadicOperandSize]> {
  let arguments = !con((ins Arg<Variadic<Thunky_Buffer>, "", [MemRead]>:$src,
                            Arg<Variadic<Thunky_Buffer>, "", [MemWrite]>:$dst),
                       attrs);
  let assemblyFormat = "custom<Pairs>($src, $dst) prop-dict attr-dict `:` custom<PairTypes>(type($src), type($dst))";
}

def Thunky_AllReduceOp : Thunky_PairedCollectiveOp<"all_reduce",
    (ins StrAttr:$reduction_kind, AnyAttr:$element_type,
         ArrayAttr:$replica_groups, StrAttr:$group_mode)> {
  let summary = "Executes an XLA:GPU AllReduceThunk across participating devices";
}

def Thunky_AllGatherOp : Thunky_PairedCollectiveOp<"all_gather",
    (ins AnyAttr:$element_type, ArrayAttr:$replica_groups, StrAttr:$group_mode)> {
  let summary = "Executes an XLA:GPU AllGatherThunk across participating devices";
}

def Thunky_ReduceScatterOp : Thunky_PairedCollectiveOp<"reduce_scatter",
    (ins StrAttr:$reduction_kind, AnyAttr:$element_type,
         ArrayAttr:$replica_groups, StrAttr:$group_mode)> {
  let summary = "Executes an XLA:GPU ReduceScatterThunk across participating devices";
}

def Thunky_AllToAllOp : Thunky_CollectiveOp<"all_to_all", [SameVariadicOperandSize]> {
  let summary = "Executes an XLA:GPU AllToAllThunk across participating devices";
  let description = [{
    The operand list is split in two equal halves: sources, then
    destinations. With `has_split_dimension`, every buffer is cut into one
    chunk per participant; without it, there is one buffer per participant.
  }];
  let arguments = (ins Arg<Variadic<Thunky_Buffer>, "", [MemRead]>:$src,
                       Arg<Variadic<Thunky_Buffer>, "", [MemWrite]>:$dst,
                       TypeAttr:$element_type, ArrayAttr:$replica_groups,
                       StrAttr:$group_mode, BoolAttr:$has_split_dimension);
  // Upstream's format, except that the destination list is parsed knowing
  // the source list: with only SameVariadicOperandSize, `(%a, %b), (%c)`
  // would silently re-split into (%a), (%b).
  let assemblyFormat = "`(` $src `)` `,` `(` custom<SameCount>($dst, ref($src)) `)` prop-dict attr-dict `:` `(` type($src) `)` `,` `(` type($dst) `)`";
}

def Thunky_CollectivePermuteOp : Thunky_CollectiveOp<"collective_permute"> {
  let summary = "Executes an XLA:GPU CollectivePermuteThunk across participating devices";
  let arguments = (ins Thunky_BufferRead:$src, Thunky_BufferWrite:$dst,
                       TypeAttr:$element_type, ArrayAttr:$source_target_pairs,
                       StrAttr:$group_mode, OptionalAttr<ArrayAttr>:$replica_groups);
}

def Thunky_CollectiveGroupOp : Thunky_Op<"collective_group", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Fuses nested collective or copy thunks into a single NCCL group dispatch (CollectiveGroupThunk)";
  let regions = (region SizedRegion<1>:$body_region);
  let assemblyFormat = "$body_region attr-dict";
}

#endif // THUNKY_OPS_TD
