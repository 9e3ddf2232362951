/*===- thunky-c/runtime/Plan.h - the compact form of an executable backends run -===*
 *
 * Planning reads a GpuExecutableProto once: it checks every slice against
 * its allocation and every index against its table, flattens sequential
 * thunks, and writes what each thunk does into flat arrays of plain structs.
 * Backends then run the plan without parsing, string lookups or allocation.
 * Everything is referred to by index: a ThunkyRange names elements
 * [first, first + count) of one of the plan's arrays.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_PLAN_H
#define THUNKY_C_PLAN_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Bytes.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/base/Limits.h"
#include "thunky-c/base/Work.h"
#include "thunky-c/runtime/Npy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkyRange {
  uint32_t first, count;
} ThunkyRange;

/* Bytes [offset, offset + size) of allocation `allocation`; checked. */
typedef struct ThunkyPlanSlice {
  uint32_t allocation;
  uint64_t offset, size;
} ThunkyPlanSlice;

typedef enum ThunkyCommandKind {
  THUNKY_CMD_MEMZERO,
  THUNKY_CMD_MEMSET32,
  THUNKY_CMD_COPY,   /* device<->device, host<->device: the same on the host */
  THUNKY_CMD_KERNEL, /* kernel_thunk and custom_kernel_thunk */
  THUNKY_CMD_CUSTOM_CALL,
  THUNKY_CMD_GEMM, /* gemm_thunk and cublas_lt_matmul_thunk */
  THUNKY_CMD_CONDITIONAL,
  THUNKY_CMD_WHILE,
  THUNKY_CMD_ASYNC_START,
  THUNKY_CMD_ASYNC_DONE,
  THUNKY_CMD_COLLECTIVE, /* every collective but the group */
  THUNKY_CMD_COLLECTIVE_GROUP,
  THUNKY_CMD_REPLICA_ID,
  THUNKY_CMD_PARTITION_ID,
  THUNKY_CMD_OPAQUE, /* a kind no backend implements: only its reads and writes are known */
  THUNKY_CMD_DYNAMIC_SLICE_FUSION, /* its list over windows of its buffers (ThunkyPlanWindow):
                                      dynamic_slice_fusion_thunk and dynamic_slice_thunk */
  THUNKY_CMD_COUNT
} ThunkyCommandKind;

typedef enum ThunkyCopyDirection {
  THUNKY_COPY_DEVICE_TO_DEVICE,
  THUNKY_COPY_HOST_TO_DEVICE,
  THUNKY_COPY_DEVICE_TO_HOST,
} ThunkyCopyDirection;

typedef struct ThunkyCommand {
  uint8_t kind;   /* ThunkyCommandKind */
  uint32_t thunk; /* index into plan->thunks: names it in errors, profiles, traces */
  union {
    struct { ThunkyPlanSlice dst; } memzero;
    struct { ThunkyPlanSlice dst; uint32_t value; } memset32;
    /* A dynamic_memcpy_thunk is a copy whose bytes move by an offset pair
     * per index (plan->ids: source, destination, source, ...), the index
     * 0, or the innermost loop's iteration when dependsOnLoop; src and dst
     * are then the whole slices. thunkyPlanCopySlices says what moves. */
    struct {
      ThunkyPlanSlice src, dst;
      uint8_t direction;
      bool dependsOnLoop;
      uint64_t size;       /* a dynamic copy's bytes */
      ThunkyRange offsets; /* empty: a copy of src to dst */
    } copy;
    struct {
      uint32_t kernel;  /* plan->kernels */
      ThunkyRange args; /* plan->slices: the thunk's arguments, which XLA passes in
                           this order, one device pointer each, unless the
                           kernel packs its parameters (ThunkyPlanKernel) */
      uint32_t grid[3], block[3], sharedBytes;
    } kernel;
    struct {
      uint32_t call;    /* plan->customCalls */
      ThunkyRange operands, results; /* plan->slices; size 0 = a null operand */
    } customCall;
    struct { uint32_t gemm; } gemm; /* plan->gemms */
    struct {
      ThunkyPlanSlice index; /* 1 byte: a pred (true runs branch 0); 4: an s32 */
      ThunkyRange branches;  /* plan->ids, each a list index */
    } conditional;
    struct {
      ThunkyPlanSlice predicate; /* 1-byte pred the condition list writes */
      uint32_t condition, body;  /* plan->lists */
      int64_t tripCount;         /* known trip count, or -1 */
    } loop;
    struct {
      uint32_t slot;   /* dense index of the async execution id */
      uint32_t list;   /* plan->lists: the region */
      uint32_t stream; /* its execution stream id, of its kind */
      bool communication;
      uint32_t streamIndex; /* plan->streams: its execution stream */
    } asyncStart;
    struct { uint32_t slot; } asyncDone;
    struct { uint32_t collective; } collective; /* plan->collectives */
    struct { uint32_t list; } group;            /* plan->lists, run as one group */
    struct { ThunkyPlanSlice dst; } id;         /* replica or partition id, u32 */
    struct {
      uint32_t list;       /* plan->lists: its embedded thunks */
      ThunkyRange windows; /* plan->windows: its own allocations, in order */
      ThunkyRange slices;  /* plan->slices its list's commands take, which name windows */
      ThunkyRange params;  /* plan->params of its list's packed kernels */
      bool dependsOnLoop;  /* a window moves with a loop's iteration */
      bool readsDevice;    /* a window's start is read from the device when it runs */
    } fusion;
  };
} ThunkyCommand;

typedef enum ThunkyCollectiveKind {
  THUNKY_COLLECTIVE_ALL_REDUCE,
  THUNKY_COLLECTIVE_ALL_GATHER,
  THUNKY_COLLECTIVE_REDUCE_SCATTER,
  THUNKY_COLLECTIVE_ALL_TO_ALL,
  THUNKY_COLLECTIVE_PERMUTE,
  THUNKY_COLLECTIVE_BROADCAST,
} ThunkyCollectiveKind;

typedef enum ThunkyReduction {
  THUNKY_REDUCE_SUM = 1, /* XLA's ReductionKindProto numbers */
  THUNKY_REDUCE_PRODUCT = 2,
  THUNKY_REDUCE_MIN = 3,
  THUNKY_REDUCE_MAX = 4,
} ThunkyReduction;

/* One source/destination pair of a collective, as XLA lists them. */
typedef struct ThunkyCollectiveBuffer {
  ThunkyPlanSlice src, dst;
  uint64_t elementCount; /* elements of the source, as XLA records it */
  int32_t elementType;   /* xla.PrimitiveType */
} ThunkyCollectiveBuffer;

typedef struct ThunkyCollective {
  uint8_t kind;      /* ThunkyCollectiveKind */
  uint8_t reduction; /* ThunkyReduction, for reductions */
  uint8_t groupMode; /* xla.CollectiveOpGroupMode */
  bool splitDimension; /* all-to-all: one buffer, split in rank-sized chunks */
  ThunkyRange buffers; /* plan->collectiveBuffers */
  ThunkyRange groups;  /* plan->groups; empty: all ranks in one group */
  ThunkyRange pairs;   /* collective-permute: plan->ids, source, target, source, ... */
  int64_t root;        /* broadcast: the source rank within the group (0) */
} ThunkyCollective;

/* One parameter of a kernel whose custom kernel spec packs its arguments
 * (stream_executor's KernelArgsPackingSpecProto): either constant bytes
 * passed by value, or a relocation, the 8-byte device address of one of
 * the thunk's arguments. */
typedef struct ThunkyPlanParam {
  ThunkyBytes bytes; /* the constant; empty for a relocation */
  uint32_t slice;    /* a relocation: plan->slices, the argument whose address
                        it is; UINT32_MAX for a constant */
} ThunkyPlanParam;

/* A TMA descriptor of a kernel argument, as XLA's TmaDescriptor holds it
 * (stream_executor/gpu/tma_metadata.h), checked by its rules: the launch
 * passes the argument as the 128-byte CUtensorMap that
 * cuTensorMapEncodeTiled makes of it and the argument's address, by value.
 * The enums are CUDA's and the proto's alike. */
typedef struct ThunkyPlanTma {
  uint32_t arg;                             /* the kernel argument it describes */
  uint32_t elementSize;                     /* bytes: 1, 2, 4 or 8, as UINT8 .. UINT64 */
  uint32_t rank;                            /* 1 to 5 */
  uint64_t globalDims[5], globalStrides[4]; /* strides: rank - 1, in bytes */
  uint32_t boxDims[5], elementStrides[5];
  uint8_t interleave, swizzle, l2Promotion, floatOobFill;
} ThunkyPlanTma;

/* A kernel as one launch runs it: one per kernel command. */
typedef struct ThunkyPlanKernel {
  ThunkyBytes name;
  uint32_t binary;     /* plan->binaries; UINT32_MAX: none (no cubin nor PTX) */
  uint32_t cluster[3]; /* thread block cluster dims; 1, 1, 1: no cluster */
  bool packed;         /* parameters are plan->params[params], not the args */
  ThunkyRange params;  /* plan->params, in parameter order, when packed */
  ThunkyRange tmas;    /* plan->tmas: its arguments passed as tensor maps, by argument */
} ThunkyPlanKernel;

typedef struct ThunkyPlanBinary {
  ThunkyBytes bytes;
  bool isPtx;
} ThunkyPlanBinary;

typedef struct ThunkyPlanCustomCall {
  ThunkyBytes target;
  ThunkyBytes opaque;     /* legacy API's opaque string */
  ThunkyBytes attributes; /* serialized xla.ffi.AttributesMapProto, for FFI */
  int32_t apiVersion;
} ThunkyPlanCustomCall;

/* A matrix as XLA's GemmConfigProto.MatrixLayout describes one: `batch`
 * matrices of rows x cols, stored row- or column-major with the given
 * strides (in elements), used transposed when `transposed`. */
typedef struct ThunkyMatrixLayout {
  bool rowMajor, transposed;
  uint64_t rows, cols, batch, leadingStride, batchStride;
} ThunkyMatrixLayout;

/* How a gemm computes: xla.BlasComputationTypeProto's numbers, chosen as
 * XLA chooses them (runtime/plan/plan_gemm.c). The _AS_F32 kinds accumulate in
 * f32 but let the inputs be rounded down (TF32: 10-bit mantissas), which
 * is what XLA runs f32 and c64 gemms with at JAX's default precision. */
typedef enum ThunkyGemmCompute {
  THUNKY_GEMM_COMPUTE_F16 = 1,
  THUNKY_GEMM_COMPUTE_F32 = 2,
  THUNKY_GEMM_COMPUTE_F64 = 3,
  THUNKY_GEMM_COMPUTE_F16_AS_F32 = 5,
  THUNKY_GEMM_COMPUTE_BF16_AS_F32 = 6,
  THUNKY_GEMM_COMPUTE_TF32_AS_F32 = 7,
} ThunkyGemmCompute;

/* What a cuBLASLt epilogue applies to each element before it is stored
 * (ThunkyPlanGemm.activation). XLA's CUDA backend runs no SILU epilogue. */
typedef enum ThunkyGemmActivation {
  THUNKY_GEMM_ACTIVATION_NONE,
  THUNKY_GEMM_ACTIVATION_RELU, /* max(x, 0) */
  /* GELU in its tanh form, the one cuBLASLt computes and XLA fuses:
   * x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  THUNKY_GEMM_ACTIVATION_GELU,
} ThunkyGemmActivation;

/* out = alpha * op(lhs) x op(rhs) + beta * c, per batch; lhs is m x k and
 * rhs k x n once op (the layout's transpose) is applied. c is the output
 * itself for a gemm_thunk, cublas_lt_matmul_thunk's c otherwise (read
 * only when beta != 0). An operand of batch 1 against a batched output is
 * broadcast: the planner sets its batch stride to 0. Each operand has its
 * own element type: f16 x f16 or bf16 x bf16 into f32 (or their own type),
 * f32, f64, c64 and c128 into their own type. */
typedef struct ThunkyPlanGemm {
  ThunkyPlanSlice lhs, rhs, c, out, workspace;
  ThunkyMatrixLayout lhsLayout, rhsLayout, cLayout, outLayout;
  int32_t lhsType, rhsType, cType, outType; /* xla.PrimitiveType */
  int32_t compute;                          /* ThunkyGemmCompute */
  double alphaReal, alphaImag, beta;
  /* cuBLASLt's choice: the algorithm_idx-th of its heuristic's list for a
   * workspace of algorithmWorkspace bytes (XLA's autotune_workspace_size;
   * the workspace slice's size when the thunk gives none). */
  uint32_t algorithm;
  uint64_t algorithmWorkspace;
  /* A gemm_thunk's cuBLAS algorithm (cublasGemmAlgo_t), autotuned by XLA;
   * -1, the default, for a cublas_lt_matmul_thunk. cuBLAS ignores it from
   * sm_80 on, so only an older GPU runs something else for it. */
  int64_t cublasAlgorithm;
  /* A cublas_lt_matmul_thunk's epilogue (xla.BlasLtEpilogueProto), as
   * cublasLt.h's cublasLtEpilogue_t defines it: with hasBias, bias[i] is
   * added, i the element's index along the output's minor (stride-1)
   * dimension, one vector of the output's type for every batch; with
   * hasAux, that sum is stored to aux, laid out as the output; then the
   * activation is applied and the result stored to out. */
  bool hasBias, hasAux;
  int32_t activation; /* ThunkyGemmActivation */
  ThunkyPlanSlice bias, aux;
} ThunkyPlanGemm;

/* Bytes a thunk reads or writes, as the thunk kind table says
 * (thunky-c/format/Executable.h: thunkyForEachSlice). */
typedef struct ThunkyPlanAccess {
  ThunkyPlanSlice slice;
  uint8_t access; /* ThunkyAccess */
} ThunkyPlanAccess;

/* What a kernel's written arguments held before it ran is... */
typedef enum ThunkyWritten {
  /* ...read: the executable's HLO shows the kernel updating an operand in
   * place (or the thunk is no kernel, and its table says it reads them). */
  THUNKY_WRITTEN_UPDATED,
  /* ...not read: the HLO shows outputs that share no operand's buffer,
   * which a fusion writes whole. */
  THUNKY_WRITTEN_OUTPUTS,
  /* ...read where it is a parameter's, an output's or a constant's, and
   * not where it is scratch: no HLO names the kernel. */
  THUNKY_WRITTEN_UNKNOWN,
} ThunkyWritten;

/* A thunk of the executable, numbered depth first (sequential thunks too). */
typedef struct ThunkyPlanThunk {
  ThunkyBytes annotation; /* its profile annotation (may be empty) */
  int64_t id;             /* XLA's thunk_id (thunk_info), 0 when it has none */
  ThunkyRange accesses;   /* plan->accesses: what it reads and writes itself */
  const char *kind;       /* its ThunkProto field: "kernel_thunk" (static storage) */
  /* What it computes, for fingerprint runs: a hash of its kind and every
   * field but where its buffers are (slices count by size only) and its
   * thunk_info; a kernel_thunk's also covers the executable's binary. */
  uint64_t key;
  /* Whether what a kernel's written arguments held before it ran feeds
   * fingerprint and symbolic runs (docs/checking.md): a ThunkyWritten. */
  uint8_t written;
  /* Why a THUNKY_CMD_OPAQUE thunk of a kind the runtime otherwise runs is
   * one ("cublas_lt_matmul_thunk with a c_scale (fp8)"): what the
   * backends name when they refuse it; empty for a kind none runs. */
  ThunkyBytes unsupported;
  /* A THUNKY_CMD_OPAQUE thunk that moves bytes between ranks, or between
   * a rank and its host (send, recv, ragged all-to-all, collective
   * kernels, NVSHMEM, infeed, outfeed, host send and recv): what it reads
   * leaves the rank, what it writes comes from outside it; the checks run
   * it as an exchange (thunky-c/runtime/Check.h). */
  bool exchange;
  /* Of a collective's kind (its proto has a collective_config), run or
   * not: it moves bytes between ranks, which the schedule model prices on
   * the GPUs' links and counts as communication. */
  bool communicates;
  /* What the executable's HLO says a kernel's launch does, in plan->works
   * (thunky-c/format/HloWork.h); UINT32_MAX when it does not say. */
  uint32_t work;
} ThunkyPlanThunk;

typedef struct ThunkyPlanAllocation {
  uint64_t size;
  int64_t parameter;   /* entry parameter number, or -1 */
  /* isOutput: an array of the result lives in it (output_info_map), as
   * import says. An allocation XLA flags maybe_live_out that holds none (a
   * tuple's index table) is scratch: it starts undefined, and no caller
   * reads it. */
  bool isConstant, isOutput, isThreadLocal;
  ThunkyBytes constant; /* initial bytes of a constant allocation, may be empty */
  /* A constant's symbol_name (may be empty): on a GPU, XLA places the
   * constant in the executable module's global of that name. */
  ThunkyBytes symbol;
} ThunkyPlanAllocation;

/* A constant XLA placed in no allocation (allocation_index -1): only the
 * module's global of its symbol_name holds it, which XLA fills anyway, for
 * a kernel that reads the global by name. */
typedef struct ThunkyPlanGlobal {
  ThunkyBytes symbol; /* NUL-terminated */
  ThunkyBytes bytes;  /* empty in a plan for replay */
} ThunkyPlanGlobal;

/* An array the program takes or gives: where it lives and its type. */
typedef struct ThunkyPlanArray {
  ThunkyPlanSlice slice;
  int32_t elementType; /* xla.PrimitiveType; 0 when unknown (raw bytes) */
  uint32_t rank;
  int64_t dims[8];
} ThunkyPlanArray;

/* One of a dynamic-slice fusion's own allocations, as XLA's
 * DynamicSliceFusionV2Thunk and DynamicSliceThunk build them each time
 * they run: a window of one of the fusion's buffers. The slices of the
 * thunks it embeds name window w as allocation plan->numAllocations + w;
 * thunkyPlanWindowSlice says where that is when it runs. */
typedef struct ThunkyPlanWindow {
  ThunkyPlanSlice buffer; /* the parameter or result buffer (itself in a window when nested) */
  uint64_t size;          /* the window's bytes: the embedded allocation's size */
  bool sliced;            /* it moves; else it is the buffer's start */
  /* A fusion's (DynamicSliceConfig): byte_offset + byte_stride x the
   * iteration of the loop loopIndex counts outward (UINT32_MAX: none). */
  uint32_t loopIndex;
  int64_t byteOffset, byteStride;
  ThunkyRange starts; /* a dynamic_slice_thunk's: plan->windowStarts, one per dimension */
} ThunkyPlanWindow;

/* Where a dynamic_slice_thunk's window starts in one dimension: a constant
 * or an integer on the device, clamped to [0, last], times the dimension's
 * stride in the buffer's layout. */
typedef struct ThunkyPlanWindowStart {
  ThunkyPlanSlice scalar; /* the integer's bytes (1 to 8); size 0: `value` is the start */
  int64_t value;
  uint64_t last; /* the dimension's size less the window's */
  uint64_t byteStride;
} ThunkyPlanWindowStart;

/* An execution stream that async regions run on, besides the main one. As
 * XLA numbers them (xla/backends/gpu/runtime/execution_stream_id.h), a
 * computation stream and a communication stream of the same id are two
 * streams, and neither is the main stream. */
typedef struct ThunkyPlanStream {
  uint32_t id;
  bool communication;
} ThunkyPlanStream;

typedef struct ThunkyPlan {
  ThunkyPlanAllocation *allocations;
  uint32_t numAllocations;
  ThunkyPlanArray *parameters, *outputs;
  uint32_t numParameters, numOutputs;

  ThunkyCommand *commands;
  ThunkyRange *lists; /* each a range of commands; lists[0] is the entry */
  ThunkyPlanSlice *slices;
  ThunkyCollective *collectives;
  ThunkyCollectiveBuffer *collectiveBuffers;
  ThunkyRange *groups; /* each a range of plan->ids: one replica group */
  int64_t *ids;
  ThunkyPlanKernel *kernels;
  ThunkyPlanParam *params;
  ThunkyPlanBinary *binaries;
  ThunkyPlanCustomCall *customCalls;
  ThunkyPlanGemm *gemms;
  ThunkyPlanThunk *thunks;
  ThunkyPlanAccess *accesses;
  uint32_t numCommands, numLists, numSlices, numCollectives, numCollectiveBuffers,
      numGroups, numIds, numKernels, numParams, numBinaries, numCustomCalls, numGemms,
      numThunks, numAccesses;
  uint32_t numAsyncSlots;
  uint32_t maxDepth; /* deepest nesting of lists */
  /* The layout it was compiled for, as its HLO module's config records it:
   * replicas and partitions per replica; 0 where it records none. */
  uint32_t replicaCount, numPartitions;
  /* The executable's own module (its cubin, else its PTX) in plan->binaries,
   * where constants' globals live; UINT32_MAX when no kernel_thunk uses it. */
  uint32_t moduleBinary;

  void *storage; /* what the kept bytes (names, code, constants) live in */

  /* Constants of no allocation: every backend fills the module global of
   * each before the first thunk runs. */
  ThunkyPlanGlobal *globals;
  uint32_t numGlobals;

  /* The distinct execution streams of the async regions, computation
   * streams first, each kind by id. A backend gives each its own stream
   * (lane, timeline row) numbered 1 + its index; 0 is the main stream. */
  ThunkyPlanStream *streams;
  uint32_t numStreams;

  /* The windows of every dynamic-slice fusion (ThunkyPlanWindow). */
  ThunkyPlanWindow *windows;
  ThunkyPlanWindowStart *windowStarts;
  uint32_t numWindows, numWindowStarts;

  ThunkyPlanTma *tmas; /* every kernel's TMA descriptors (ThunkyPlanKernel.tmas) */
  uint32_t numTmas;

  ThunkyWork *works; /* ThunkyPlanThunk.work */
  uint32_t numWorks;
} ThunkyPlan;

/* Builds the plan of a GpuExecutableProto given in any container layering,
 * within `limits` (NULL: the defaults), through the executable model
 * (thunky-c/format/Executable.h); `data` must outlive the plan only while
 * thunkyPlanCreate runs (the plan copies what it keeps). The caller owns
 * *plan and frees it with thunkyPlanDestroy. */
THUNKY_EXPORT bool thunkyPlanCreate(const void *data, size_t size, const ThunkyLimits *limits,
                                    ThunkyPlan **plan, ThunkyError *error);
/* As thunkyPlanCreate, for a plan that is replayed and never run (the
 * schedule model, thunky-c/runtime/Schedule.h): it leaves out what only running
 * needs, so that it costs a fraction of an import: no thunk keys (0), no
 * kernel code (every kernel's binary is UINT32_MAX) and no constant bytes
 * (empty). A backend must not run it. */
THUNKY_EXPORT bool thunkyPlanCreateForReplay(const void *data, size_t size,
                                             const ThunkyLimits *limits, ThunkyPlan **plan,
                                             ThunkyError *error);
THUNKY_EXPORT void thunkyPlanDestroy(ThunkyPlan *plan);

/* The rank layout of a run that leaves it out, from what the plan records
 * (replicaCount, numPartitions): unless `partitionsGiven`, *ranks becomes
 * all its replicas times its partitions (kept when `ranksGiven`), and
 * *partitions its partitions where they divide *ranks. Where it records
 * none, or more than 4096 ranks, both stay as they are. */
THUNKY_EXPORT void thunkyPlanRecordedLayout(const ThunkyPlan *plan, bool ranksGiven,
                                            bool partitionsGiven, uint32_t *ranks,
                                            uint32_t *partitions);

/* How parameter or output `a` is held as an array (.npy files, sessions):
 * its type and dims, or, where the plan knows no type, `size` raw bytes
 * (elementType 0, rank 1). `data` is NULL: the caller fills it. */
THUNKY_EXPORT ThunkyNpyArray thunkyPlanArrayShape(const ThunkyPlanArray *a);

/* The branch conditional command `c` runs, by XLA's rule, given its
 * index's bytes (c->conditional.index.size of them: a pred's 1, an s32's 4,
 * little-endian): a true pred runs branch 0 and a false one branch 1; an
 * s32 outside [0, branches) runs the last branch. The plan holds no
 * conditional without branches, nor a pred with other than two. Every
 * backend asks this. */
THUNKY_EXPORT uint32_t thunkyPlanBranch(const ThunkyCommand *c, const uint8_t *index);

/* The k-th list (from 0) that command `c` runs inside its own span: a
 * conditional's branches, a loop's condition then body, an async region, a
 * group's members, a dynamic-slice fusion's embedded thunks; UINT32_MAX
 * past the last, and for a command that holds none. */
THUNKY_EXPORT uint32_t thunkyPlanHeldList(const ThunkyPlan *plan, const ThunkyCommand *c,
                                          uint32_t k);

/* Which thunks' times hold other thunks' times, so that adding them up
 * would count the same work twice, given which thunks a run timed
 * (timed[t]): an async done (a wait, where a backend may also run regions)
 * and a thunk holding lists in which any command, at any depth, was timed.
 * A group that CUDA times whole, its members untimed, is not one. Sets
 * spans[t]; both arrays have plan->numThunks entries. False only when out
 * of memory. */
THUNKY_EXPORT bool thunkyPlanMarkSpanning(const ThunkyPlan *plan, const bool *timed, bool *spans);

/* --max-iterations, the same in every backend: whether while command `c`
 * may run its body's iteration `iteration` (from 0) when a loop may run at
 * most `limit` iterations (0: any number). A known trip count past the limit
 * is refused at any iteration, so before the loop starts. False, with the
 * reason in *error ("the loop ran past --max-iterations (3)"), when not. */
THUNKY_EXPORT bool thunkyPlanLoopMayRun(const ThunkyCommand *c, uint64_t iteration, uint64_t limit,
                                        ThunkyError *error);

/* The while loops a backend's walk is inside, innermost first: each loop's
 * frame lives on the walk's stack while the loop runs (thunkyPlanRunLoop
 * pushes and pops it), so nesting costs no allocation. What a thunk that
 * follows a loop's iteration reads: a dynamic copy's offsets. */
typedef struct ThunkyLoopFrame {
  uint64_t iteration;                  /* of this loop, from 0 */
  const struct ThunkyLoopFrame *outer; /* the loop around it; NULL for the outermost */
} ThunkyLoopFrame;

/* The innermost loop's iteration; 0 outside loops. */
static inline uint64_t thunkyLoopIteration(const ThunkyLoopFrame *loops) {
  return loops ? loops->iteration : 0;
}

/* What a backend does for a loop: run one of the plan's command lists, and
 * read the predicate its condition list left (true: run the body again).
 * Each returns false after recording its own error. */
typedef struct ThunkyLoopWalk {
  bool (*runList)(void *context, uint32_t list);
  bool (*predicate)(void *context, bool *more);
  void *context;
} ThunkyLoopWalk;

/* Runs while command `c` as XLA's WhileThunk does, the same in every
 * backend: with a known trip count, the body that many times and never the
 * condition; else the condition, then the body while the predicate holds.
 * Each iteration is a frame pushed on *loops (popped on return) and is
 * checked against `limit` (thunkyPlanLoopMayRun). False when a callback
 * fails (limitError's message empty: the error is the backend's) or the
 * loop would run past the limit (the reason in *limitError). */
THUNKY_EXPORT bool thunkyPlanRunLoop(const ThunkyCommand *c, uint64_t limit,
                                     const ThunkyLoopFrame **loops, const ThunkyLoopWalk *walk,
                                     ThunkyError *limitError);

/* Reads a window start's integer on the device: the bytes of `scalar`
 * (1 to 8) into *bits, the rest zero, as XLA copies them into a 64-bit
 * value; false after recording its own error. */
typedef bool (*ThunkyWindowRead)(void *context, ThunkyPlanSlice scalar, uint64_t *bits);

/* Where window `window` lies, in *at, when its fusion runs inside `loops`,
 * as XLA places it. A fusion's window: at byte_offset + byte_stride times
 * the iteration of the loop loop_index counts outward from the innermost
 * (0 where there are fewer loops), clamped into its buffer. A
 * dynamic_slice_thunk's: each dimension's start, read through `read`
 * where it is on the device (NULL when no start of the plan is), clamped
 * to the dimension, times its stride. Unsliced: the buffer's start. The
 * slice names the buffer's allocation, itself a window of an enclosing
 * fusion's when nested. False when `read` fails. */
THUNKY_EXPORT bool thunkyPlanWindowSlice(const ThunkyPlan *plan, uint32_t window,
                                         const ThunkyLoopFrame *loops, ThunkyWindowRead read,
                                         void *context, ThunkyPlanSlice *at);

/* The executable allocation that `allocation` lies in: itself, or for a
 * window (plan->numAllocations and up), its buffer's, through every
 * fusion it is nested in. */
THUNKY_EXPORT uint32_t thunkyPlanAllocationOf(const ThunkyPlan *plan, uint32_t allocation);

/* The thunk's name for messages: "thunk 7 (loop_add_fusion, id 8)". */
THUNKY_EXPORT void thunkyPlanThunkName(const ThunkyPlan *plan, uint32_t thunk, char *out,
                                       size_t size);
/* The bytes copy command `c` moves, in *src and *dst (of one size), when
 * the innermost while loop around it runs iteration `iteration` (0 outside
 * loops: thunkyLoopIteration). False when a dynamic copy has no offsets for that iteration. */
THUNKY_EXPORT bool thunkyPlanCopySlices(const ThunkyPlan *plan, const ThunkyCommand *c,
                                        uint64_t iteration, ThunkyPlanSlice *src,
                                        ThunkyPlanSlice *dst);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_PLAN_H */
