/*===- verify.h - op verifiers, written in C ----------------------------===*/
#ifndef THUNKY_DIALECT_VERIFY_H
#define THUNKY_DIALECT_VERIFY_H

#include "thunky-c/dialect/Ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(ENUM, CppClass) for the ops whose ODS sets hasVerifier. */
#define THUNKY_FOR_EACH_VERIFIED_OP(X)                                        \
  X(SLICE_BUFFER, SliceBufferOp)                                              \
  X(MEMSET32, Memset32Op)                                                     \
  X(COPY, CopyOp)                                                             \
  X(CONSTANT, ConstantOp)                                                     \
  X(KERNEL_BINARY, KernelBinaryOp)                                            \
  X(CALL_THUNK_PROTO, CallThunkProtoOp)                                       \
  X(PTX_KERNEL, PtxKernelOp)                                                  \
  X(CUSTOM_CALL, CustomCallOp)                                                \
  X(LAUNCH, LaunchOp)                                                         \
  X(GEMM, GemmOp)                                                             \
  X(CUBLASLT_MATMUL, CublasLtMatmulOp)                                        \
  X(REPLICA_ID, ReplicaIdOp)                                                  \
  X(PARTITION_ID, PartitionIdOp)                                              \
  X(COND, CondOp)                                                             \
  X(WHILE, WhileOp)                                                           \
  X(ASYNC_START, AsyncStartOp)                                                \
  X(ASYNC_DONE, AsyncDoneOp)                                                  \
  X(ALL_REDUCE, AllReduceOp)                                                  \
  X(ALL_GATHER, AllGatherOp)                                                  \
  X(REDUCE_SCATTER, ReduceScatterOp)                                          \
  X(ALL_TO_ALL, AllToAllOp)                                                   \
  X(COLLECTIVE_PERMUTE, CollectivePermuteOp)                                  \
  X(COLLECTIVE_GROUP, CollectiveGroupOp)

/* Checks the rules of `kind` on `op` beyond what ODS checks; reports each
 * broken rule as an error at the op. */
MlirLogicalResult thunkyVerifyOp(MlirOperation op, ThunkyOpKind kind);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_DIALECT_VERIFY_H */
