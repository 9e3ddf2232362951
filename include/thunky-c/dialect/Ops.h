/*===- thunky-c/dialect/Ops.h - recognising thunky ops from C -------------------===*
 *
 * One enumerator per op, so that C code switches on an op's kind instead of
 * comparing names. The kind is found by TypeID, not by string.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_OPS_H
#define THUNKY_C_OPS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(ENUM, CppClass, "mnemonic") for every op of the dialect; new ones go
 * last, so that the numbers stay. */
#define THUNKY_FOR_EACH_OP(X)                                                 \
  X(SLICE_BUFFER, SliceBufferOp, "slice_buffer")                              \
  X(MEMZERO, MemzeroOp, "memzero")                                            \
  X(MEMSET32, Memset32Op, "memset32")                                         \
  X(COPY, CopyOp, "copy")                                                     \
  X(CONSTANT, ConstantOp, "constant")                                         \
  X(CALL_THUNK_PROTO, CallThunkProtoOp, "call_thunk_proto")                   \
  X(PTX_KERNEL, PtxKernelOp, "ptx_kernel")                                    \
  X(CUSTOM_CALL, CustomCallOp, "custom_call")                                 \
  X(LAUNCH, LaunchOp, "launch")                                               \
  X(GEMM, GemmOp, "gemm")                                                     \
  X(CUBLASLT_MATMUL, CublasLtMatmulOp, "cublaslt_matmul")                     \
  X(REPLICA_ID, ReplicaIdOp, "replica_id")                                    \
  X(PARTITION_ID, PartitionIdOp, "partition_id")                              \
  X(YIELD, YieldOp, "yield")                                                  \
  X(COND, CondOp, "cond")                                                     \
  X(WHILE, WhileOp, "while")                                                  \
  X(SEQUENTIAL, SequentialOp, "sequential")                                   \
  X(ASYNC_START, AsyncStartOp, "async_start")                                 \
  X(ASYNC_DONE, AsyncDoneOp, "async_done")                                    \
  X(ALL_REDUCE, AllReduceOp, "all_reduce")                                    \
  X(ALL_GATHER, AllGatherOp, "all_gather")                                    \
  X(REDUCE_SCATTER, ReduceScatterOp, "reduce_scatter")                        \
  X(ALL_TO_ALL, AllToAllOp, "all_to_all")                                     \
  X(COLLECTIVE_PERMUTE, CollectivePermuteOp, "collective_permute")            \
  X(COLLECTIVE_GROUP, CollectiveGroupOp, "collective_group")                 \
  X(KERNEL_BINARY, KernelBinaryOp, "kernel_binary")

typedef enum ThunkyOpKind {
  THUNKY_OP_NONE = 0, /* not a thunky op */
#define THUNKY_OP_ENUM(E, C, N) THUNKY_OP_##E,
  THUNKY_FOR_EACH_OP(THUNKY_OP_ENUM)
#undef THUNKY_OP_ENUM
  THUNKY_OP_COUNT
} ThunkyOpKind;

/* The kind of `op`, or THUNKY_OP_NONE for ops of other dialects. */
MLIR_CAPI_EXPORTED ThunkyOpKind thunkyOpGetKind(MlirOperation op);

/* The op's mnemonic without the dialect prefix ("copy"), or NULL. */
MLIR_CAPI_EXPORTED const char *thunkyOpKindGetMnemonic(ThunkyOpKind kind);

/* Whether `kind` is one of the five collectives (all_reduce ... permute). */
MLIR_CAPI_EXPORTED bool thunkyOpKindIsCollective(ThunkyOpKind kind);

/* Whether `op` itself (not its regions) reads / writes its operand `i`, as
 * its MemoryEffectOpInterface declares: a launch writes what `written`
 * marks, a gemm reads its output only when beta is nonzero, ... An op with
 * regions reports its branch or condition operand only; unknown ops both. */
MLIR_CAPI_EXPORTED void thunkyOpGetOperandEffects(MlirOperation op, intptr_t i, bool *reads,
                                                  bool *writes);

/* Whether an op of `kind` is a thunk of the executable: every thunky op
 * but slice_buffer, constant, kernel_binary and yield, which are views,
 * data, code and syntax. */
MLIR_CAPI_EXPORTED bool thunkyOpKindIsThunk(ThunkyOpKind kind);

/* Which optional operands a cublaslt_matmul with XLA epilogue `epilogue`
 * (a BlasLtEpilogueProto name) needs: the EPILOGUE_BIAS* ones a bias, the
 * *_WITH_AUX ones an aux. The verifier's rule, for import to check first. */
MLIR_CAPI_EXPORTED void thunkyEpilogueOperands(MlirStringRef epilogue, bool *bias, bool *aux);

/* Bytes per element of a collective's element_type: 1 for i1 (PRED, one
 * byte), 1..8 for 8/16/32/64-bit integers and floats, 8 or 16 for
 * complex<f32>/complex<f64>; 0 for types collectives do not take. */
MLIR_CAPI_EXPORTED int thunkyCollectiveElementBytes(MlirType type);

/* The element type of a collective's source/destination pair `pair`: its
 * element_type, or entry `pair` of it when it is a list (all_reduce,
 * all_gather and reduce_scatter whose pairs differ); a null type when the
 * attribute gives none for that pair. */
MLIR_CAPI_EXPORTED MlirType thunkyCollectivePairElementType(MlirOperation op, intptr_t pair);

/* A thunky.slice_buffer's byte offset into its source. */
MLIR_CAPI_EXPORTED int64_t thunkySliceBufferGetOffset(MlirOperation op);
/* Moves a thunky.slice_buffer to byte `offset` of its source. */
MLIR_CAPI_EXPORTED void thunkySliceBufferSetOffset(MlirOperation op, int64_t offset);
/* A new thunky.slice_buffer at `loc`: `size` bytes at byte `offset` of
 * `source`. Owned by the caller until inserted into a block. */
MLIR_CAPI_EXPORTED MlirOperation thunkySliceBufferCreate(MlirLocation loc, MlirValue source,
                                                         int64_t offset, int64_t size);

/* The execution stream a thunky.async_start runs its region on: its id (0
 * when it names none), and in *communication whether it is a communication
 * stream rather than a computation one (XLA keeps the two apart). */
MLIR_CAPI_EXPORTED int64_t thunkyAsyncStartGetStream(MlirOperation op, bool *communication);

/* The kernel `op` (a ptx_kernel or call_thunk_proto) launches, or an empty
 * string: import names a call_thunk_proto of any other thunk "thunk". */
MLIR_CAPI_EXPORTED MlirStringRef thunkyKernelName(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_OPS_H */
