/*===- cuda_state.h - what the CUDA backend holds, shared by its files -----===*
 *
 * One process drives `ranks` local GPUs, one host thread per rank while
 * running (cuda_ranks.c), because XLA's control flow reads predicates back
 * to the host: a rank waiting for its predicate must not stop the other
 * ranks from reaching the collective the predicate depends on. Several
 * processes make one world of ranks * processCount ranks; a rank's place in
 * it is processRank * ranks + its local index.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_CUDA_STATE_H
#define THUNKY_RUNTIME_CUDA_STATE_H

#include "thunky-c/runtime/Runtime.h"
#include "thunky-c/runtime/CommandBuffers.h"
#include "registry.h"
#include "cuda_api.h"

#include <stdatomic.h>

/* A communicator of one rank, with its size and the rank's place in it. */
typedef struct ThunkyCudaComm {
  ncclComm_t comm;
  int size, rank;
} ThunkyCudaComm;

/* Where a world rank stands in one grouping of the world: its group's
 * color (the group's smallest rank), its place in the group, and the
 * group's size. */
typedef struct ThunkyCudaPlace {
  int32_t color, key, size;
} ThunkyCudaPlace;

/* One gemm as cuBLASLt runs it on one rank's device. */
typedef struct ThunkyCudaGemm {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, c, d;
  cublasLtMatmulAlgo_t algo;
  bool swapped; /* A is the rhs and B the lhs: the output is stored transposed */
  /* In the scale type (up to a c128); a complex's imaginary part second. */
  _Alignas(8) unsigned char alpha[16], beta[16];
} ThunkyCudaGemm;

/* Marks around thunks in flight on the device pass: marks 2i and 2i+1 are
 * recorded before and after marked[i]. */
enum { THUNKY_CUDA_MARKS = 512 };
typedef struct ThunkyCudaMarked {
  uint32_t thunk, stream;
} ThunkyCudaMarked;

/* The device pass under CUPTI (cuda_cupti.c): each thunk issued, or each
 * graph launched, is a traced entry, the external correlation id of the
 * device work it enqueues; a graph's nodes belong to the thunks whose
 * capture made them, its owners. */
typedef struct ThunkyCudaTraced {
  uint32_t thunk, stream;
  uint32_t graph; /* the config graph it launched, or UINT32_MAX */
} ThunkyCudaTraced;
typedef struct ThunkyCudaOwner {
  uint32_t thunk, stream;
} ThunkyCudaOwner;

typedef struct ThunkyCudaRank {
  uint32_t index, global;  /* local index; rank in the world */
  CUdevice device;
  CUcontext context;       /* the device's primary context, retained */
  CUdeviceptr *memory;     /* per allocation, then per fusion window; 0 for an empty one */
  CUdeviceptr *slices;     /* per plan slice: its address */
  void **params;           /* per plan slice: &slices[i], as cuLaunchKernel takes them */
  void **packed;           /* per plan param: its constant bytes, or &slices[its slice] */
  CUtensorMap *maps;       /* per plan TMA descriptor: the map launches pass in place of
                              its argument's address (params, packed point here) */
  bool *isGlobal;          /* per allocation: memory[a] is a module's global, not ours */
  void **pointers;         /* per plan slice: its address, NULL when empty (custom calls) */
  CUmodule *modules;       /* per plan binary */
  CUfunction *functions;   /* per plan kernel; NULL when no command launches it */
  CUstream main;
  CUstream *streams;       /* per execution stream of plan->streams */
  CUevent *started, *done; /* per async slot */
  /* A timeline's two passes (cuda_exec.c, "timing"): the host's issue of
   * each thunk, then the device's time for each with the stream held. */
  uint64_t hostOrigin;      /* issue pass: the host clock when it began */
  uint64_t accountedNs;     /* issue pass: host time already given to a thunk or a wait */
  CUevent origin;           /* device pass: recorded where it began */
  CUevent *marks;           /* device pass: THUNKY_CUDA_MARKS events, two per thunk */
  ThunkyCudaMarked *marked; /* per pair of marks: its thunk and stream */
  uint32_t numMarked;
  CUdeviceptr gate;        /* device pass: the word the main stream waits on */
  uint32_t gateValue;      /* the value that opened the latest segment */
  bool gated;              /* the main stream waits for the gate */
  CUstream releaser;       /* writes the gate, so that a driver's clock sees when */
  uint64_t traceOrigin;    /* CUPTI's device pass: CUPTI's clock when it began */
  ThunkyCudaTraced *traced; /* CUPTI's device pass: what this run issued, in order */
  uint32_t numTraced, tracedCapacity;
  ThunkyCudaOwner *owners; /* CUPTI: the owners of each graph's nodes, graph after graph */
  uint32_t numOwners, ownersCapacity;
  uint32_t *graphOwners;   /* CUPTI: per config graph and one more, where its owners begin */
  uint8_t *pinned;         /* a page-locked word for reading predicates and offsets back */
  cublasLtHandle_t lt;
  ThunkyCudaGemm *gemms;   /* per plan gemm */
  ThunkyCudaComm *comms;   /* per grouping; comms[0] is the world */
  CUgraphExec *graphs;     /* per config graph: captured, or NULL where it runs eagerly */
  uint32_t lastThunk;      /* the last thunk enqueued: what a wait for the end waits on */
  atomic_bool finished;    /* its thread has done the current job (for timeout messages) */
  ThunkyError error;       /* what this rank's thread failed with */
} ThunkyCudaRank;

typedef struct ThunkyCudaState {
  const ThunkyPlan *plan;
  ThunkyRunConfig config;
  uint32_t ranks, world, partitions;
  ThunkyCudaDriver cu;
  ThunkyNccl nccl;         /* loaded when the plan has collectives */
  ThunkyCublasLt lt;       /* loaded when the plan has gemms */
  bool hasNccl, hasCublasLt;
  struct ThunkyCudaTracer *tracer; /* a timeline's device times by CUPTI; NULL: by the gate */
  ThunkyCudaRank *rank;    /* per local rank */

  uint64_t *sliceSizes;    /* per plan slice, as custom calls take them */
  const ThunkyRegistryEntry **calls; /* per plan custom call */
  char **callTargets;      /* per plan custom call: its target, NUL-terminated */

  /* A grouping splits the world into the groups of a collective, a place
   * per world rank. Collectives that split the world alike share
   * communicators; grouping 0 is the whole world in rank order. */
  ThunkyCudaPlace *groupings; /* numGroupings * world */
  uint32_t numGroupings;
  uint32_t *collectiveGrouping; /* per plan collective */

  uint64_t (*hostClock)(void); /* the driver's own (a simulation's), else CLOCK_MONOTONIC */
  char deviceName[64];         /* rank 0's device, for a timeline */
  bool *capturable;        /* per config graph: stream capture can record it */
  uint32_t *graphStarting; /* per plan command: the config graph it starts, or UINT32_MAX */

  ncclUniqueId ncclId;     /* the world's, while communicators are made */
  atomic_bool stop;        /* a rank failed: the others stop at their next command */
  atomic_uint failed;      /* the first rank that failed, or UINT32_MAX */
  atomic_bool timedOut;    /* a wait passed its deadline: work may never end */
  uint64_t timeoutNs;      /* the longest one wait may take */
  bool broken;             /* comms may wait for peers that never come: abort them */
} ThunkyCudaState;

#define THUNKY_CUDA_NO_THUNK UINT32_MAX

/*--- cuda_ranks.c ----------------------------------------------------------*/

/* True for CUDA_SUCCESS; otherwise the error names the call, the driver's
 * words for `result` and the thunk (unless THUNKY_CUDA_NO_THUNK). */
bool thunkyCudaCheck(const ThunkyCudaState *state, CUresult result, const char *call,
                     uint32_t thunk, ThunkyError *error);

/* Calls the driver's `fn` on `args`, in parentheses, and checks its result
 * as thunkyCudaCheck does, the call named once:
 * THUNKY_CU(s, cuStreamCreate, (&stream, 0), thunk, error). */
#define THUNKY_CU(state, fn, args, thunk, error)                                                   \
  thunkyCudaCheck((state), (state)->cu.fn args, #fn, (thunk), (error))

/* Writes "thunk 7 (fusion)" for messages; "" for THUNKY_CUDA_NO_THUNK. */
void thunkyCudaThunkName(const ThunkyCudaState *state, uint32_t thunk, char *out,
                         size_t size);

/* A job for every local rank; on failure it leaves its error in
 * rank->error. */
typedef bool (*ThunkyCudaRankJob)(ThunkyCudaState *state, ThunkyCudaRank *rank);

/* Runs job on every local rank, each in its own thread with its context
 * current (inline for a single rank); false with the first failing rank's
 * error, prefixed by "rank N: " in a world of several ranks. */
bool thunkyCudaForEachRank(ThunkyCudaState *state, ThunkyCudaRankJob job, ThunkyError *error);

/* The default of config.timeoutSeconds. */
#define THUNKY_CUDA_DEFAULT_TIMEOUT_S 300

/* Waits until `stream` has done all its work (thunk: the one waited on, or
 * THUNKY_CUDA_NO_THUNK for all the rank enqueued), polling the stream and
 * the rank's communicators; gives up when another rank failed, when NCCL
 * reports an error, or (with the error naming the thunk and the ranks not
 * finished) when the wait takes longer than the deadline. */
bool thunkyCudaWait(ThunkyCudaState *state, ThunkyCudaRank *rank, CUstream stream,
                    uint32_t thunk);

/* Finishes an NCCL call on `comm`, a non-blocking communicator: `result`
 * is what the call returned; ncclInProgress is polled with
 * ncclCommGetAsyncError until it settles, against the same deadline. */
bool thunkyCudaNcclWait(ThunkyCudaState *state, ThunkyCudaRank *rank, ncclResult_t result,
                        ncclComm_t comm, const char *call, uint32_t thunk);

/*--- cuda_exec.c -----------------------------------------------------------*/

/* The address of a slice on a rank; 0 when its allocation is empty. */
static inline CUdeviceptr thunkyCudaAddress(const ThunkyCudaRank *rank, ThunkyPlanSlice s) {
  CUdeviceptr base = rank->memory[s.allocation];
  return base ? base + s.offset : 0;
}

/* The addresses of plan slices `slices` (r->slices, r->pointers), from
 * r->memory: once, and again for a fusion's when it moves its windows.
 * Launch parameters point at r->slices, so they follow. */
void thunkyCudaPlaceSlices(const ThunkyPlan *plan, ThunkyCudaRank *rank, ThunkyRange slices);

/* Rank jobs: run the entry list once, launching the captured graphs, and
 * wait for it; capture each graph that can be (config.graphs). */
bool thunkyCudaRunRank(ThunkyCudaState *state, ThunkyCudaRank *rank);
bool thunkyCudaCaptureRank(ThunkyCudaState *state, ThunkyCudaRank *rank);
/* With a timeline a run is two rank jobs, each a whole step: the issue
 * pass, the host's issue of each thunk and the step on the host's clock;
 * then the device pass, each thunk's time on the device, traced by CUPTI
 * (state->tracer) or gated (docs/runtime.md, "Timing"). */
bool thunkyCudaIssueRank(ThunkyCudaState *state, ThunkyCudaRank *rank);
bool thunkyCudaTimeRank(ThunkyCudaState *state, ThunkyCudaRank *rank);

/* Which of config.graphs stream capture can record (state->capturable),
 * and where each starts (state->graphStarting):
 * not those holding control flow, which XLA records as conditional graph
 * nodes, or a custom call; false when graphs and a timeline are both asked
 * for. */
bool thunkyCudaPlanGraphs(ThunkyCudaState *state, ThunkyError *error);

/*--- cuda_cupti.c ----------------------------------------------------------*/

/* With a timeline: loads CUPTI and subscribes to graph nodes' creation, so
 * that a run's device pass is timed by its activity records (s->tracer);
 * leaves s->tracer NULL where the gate is asked for, or where CUPTI is not
 * found (or another state of this process traces) and nothing was asked. */
bool thunkyCudaTracerCreate(ThunkyCudaState *s, ThunkyError *error);
void thunkyCudaTracerDestroy(ThunkyCudaState *s);
/* What the trace says of how the device was timed. */
const char *thunkyCudaTracerMethod(const ThunkyCudaState *s);
/* Around a run's device pass: records on, then off, flushed and turned
 * into the timeline's device events, each thunk once per time it ran. */
bool thunkyCudaTracerStart(ThunkyCudaState *s, ThunkyError *error);
bool thunkyCudaTracerFinish(ThunkyCudaState *s, ThunkyError *error);
/* A rank job: CUPTI's clock now, where the rank's device events begin. */
bool thunkyCudaTraceOrigin(ThunkyCudaState *s, ThunkyCudaRank *rank);
/* Around enqueueing one thunk, or launching graph `graph` (UINT32_MAX: none),
 * in the device pass; TraceEnd runs even when enqueueing failed. */
bool thunkyCudaTraceBegin(ThunkyCudaState *s, ThunkyCudaRank *rank, uint32_t thunk,
                          uint32_t stream, uint32_t graph);
bool thunkyCudaTraceEnd(ThunkyCudaState *s, ThunkyCudaRank *rank);
/* While a rank captures graphs on this thread (from CaptureBegin to
 * CaptureEnd), the nodes made are those of the thunk last named by
 * CaptureOwner, which appends it to rank->owners. */
void thunkyCudaCaptureBegin(ThunkyCudaState *s, ThunkyCudaRank *rank);
bool thunkyCudaCaptureOwner(ThunkyCudaState *s, ThunkyCudaRank *rank, uint32_t thunk,
                            uint32_t stream);
void thunkyCudaCaptureEnd(ThunkyCudaState *s, ThunkyCudaRank *rank);

/*--- cuda_collectives.c ----------------------------------------------------*/

/* Checks every collective against the world and finds its grouping. */
bool thunkyCudaPlanCollectives(ThunkyCudaState *state, ThunkyError *error);
/* Rank jobs: make the rank's communicators; free them (or abort them when
 * a run failed with work in flight). */
bool thunkyCudaInitComms(ThunkyCudaState *state, ThunkyCudaRank *rank);
bool thunkyCudaFreeComms(ThunkyCudaState *state, ThunkyCudaRank *rank);
/* True for ncclSuccess; otherwise the rank's error names the call, NCCL's
 * words and the thunk. */
bool thunkyCudaNcclCheck(const ThunkyCudaState *state, ThunkyCudaRank *rank,
                         ncclResult_t result, ncclComm_t comm, const char *call,
                         uint32_t thunk);
/* Enqueues collective `index` on `stream` of the rank. */
bool thunkyCudaCollective(ThunkyCudaState *state, ThunkyCudaRank *rank, uint32_t index,
                          CUstream stream, uint32_t thunk);

/*--- nccl_id.c -------------------------------------------------------------*/

/* NCCL's id for the world: made here for one process; with several, made
 * by process 0 and passed through config->ncclIdFile. */
bool thunkyCudaShareNcclId(const ThunkyCudaState *state, ncclUniqueId *id, ThunkyError *error);
/* Process 0 removes the file once every rank has joined, so a later
 * launch never reads a stale id. */
void thunkyCudaRetireNcclId(const ThunkyCudaState *state);

/*--- cuda_gemm.c -----------------------------------------------------------*/

/* Makes the rank's cuBLASLt handle and describes every gemm for its
 * device; the rank's context must be current. */
bool thunkyCudaInitGemms(ThunkyCudaState *state, ThunkyCudaRank *rank, ThunkyError *error);
void thunkyCudaFreeGemms(ThunkyCudaState *state, ThunkyCudaRank *rank);
/* Enqueues gemm `index` on `stream` of the rank. */
bool thunkyCudaGemm(ThunkyCudaState *state, ThunkyCudaRank *rank, uint32_t index,
                    CUstream stream, uint32_t thunk);

#endif /* THUNKY_RUNTIME_CUDA_STATE_H */
