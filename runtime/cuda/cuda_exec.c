/*===- cuda_exec.c - one rank's walk of the plan, eager or into a graph ----===*
 *
 * A walk enqueues each command on the stream of the list it is in: the
 * rank's main stream, or the stream of the async region around it. Only
 * control flow waits: a conditional or while loop copies its predicate to
 * page-locked memory and waits for the stream, as XLA does. With a
 * timeline, every command is bracketed by events and waited for, so each
 * event measures the command alone.
 *
 *===--------------------------------------------------------------------===*/
#include "cuda_state.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A run with a timeline takes two passes over the step (docs/runtime.md,
 * "Timing"): the issue pass times the host issuing each thunk, with
 * nothing added; the device pass times the device. Under CUPTI
 * (cuda_cupti.c) it is traced: each thunk's work is tied to it, and the
 * device's own clock times it. Without, it is gated: the main stream
 * waits at a gate while the host enqueues a segment with events around
 * each thunk, then opens it, so that the device runs the segment back to
 * back and the events time device work alone. */
typedef enum { PASS_NONE, PASS_ISSUE, PASS_DEVICE, PASS_TRACED } Pass;

typedef struct Walk {
  ThunkyCudaState *state;
  ThunkyCudaRank *rank;
  const ThunkyPlan *plan;
  Pass pass;      /* a timeline's, or none; none inside collective groups */
  bool capturing; /* recording a graph: its commands, not graphs, are enqueued */
  const ThunkyLoopFrame *loops; /* the while loops running, innermost first; NULL outside */
} Walk;

/* streamId is the timeline's: 0 for the main stream, an async region's
 * 1 + its index in plan->streams, as every backend numbers them. */
static bool runList(Walk *w, uint32_t list, CUstream stream, uint32_t streamId);

/*--- control flow ----------------------------------------------------------*/

static bool openGate(Walk *w);
static bool closeGate(Walk *w);
static void noteIssue(Walk *w, uint32_t thunk, uint64_t begin, uint64_t end);

/* Copies `slice` (8 bytes at most) to the rank's pinned words once the
 * stream has done what came before it. The issue pass counts the copy as
 * its command's issue and the wait as a wait; the device pass opens the
 * gate first, as the host is about to wait for what is behind it. */
static bool copyToHost(Walk *w, ThunkyPlanSlice slice, CUstream stream, uint32_t thunk) {
  ThunkyCudaState *state = w->state;
  if (w->pass == PASS_DEVICE && !openGate(w))
    return false;
  if (!THUNKY_CU(state, cuMemcpyDtoHAsync,
                 (w->rank->pinned, thunkyCudaAddress(w->rank, slice), slice.size, stream), thunk,
                 &w->rank->error))
    return false;
  uint64_t waiting = state->hostClock();
  if (!thunkyCudaWait(state, w->rank, stream, thunk))
    return false;
  if (w->pass == PASS_ISSUE)
    w->rank->accountedNs += state->hostClock() - waiting;
  return w->pass != PASS_DEVICE || closeGate(w);
}

/* Copies a 1-byte pred (as 0 or 1) or a 4-byte s32 to the host. */
static bool readBack(Walk *w, ThunkyPlanSlice slice, CUstream stream, uint32_t thunk,
                     int32_t *value) {
  if (slice.size != 1 && slice.size != 4) {
    char name[160];
    thunkyCudaThunkName(w->state, thunk, name, sizeof name);
    return thunkyErrorf(
        &w->rank->error,
        "cuda: the predicate of %s has %llu bytes; 1 (pred) or 4 (s32) expected", name,
        (unsigned long long)slice.size);
  }
  const uint8_t *host = w->rank->pinned;
  if (!copyToHost(w, slice, stream, thunk))
    return false;
  if (slice.size == 1) {
    *value = host[0] != 0;
  } else {
    memcpy(value, host, sizeof *value); /* both sides are little-endian */
  }
  return true;
}

static bool runConditional(Walk *w, const ThunkyCommand *c, CUstream stream,
                           uint32_t streamId) {
  int32_t index;
  if (!readBack(w, c->conditional.index, stream, c->thunk, &index))
    return false;
  uint8_t bytes[4]; /* as the device holds them: both sides are little-endian */
  memcpy(bytes, &index, 4);
  uint32_t branch = thunkyPlanBranch(c, bytes);
  return runList(w, (uint32_t)w->plan->ids[c->conditional.branches.first + branch], stream,
                 streamId);
}

/* A loop's lists run on the stream the loop runs on; its predicate is
 * read back from the device each iteration. */
typedef struct {
  Walk *walk;
  const ThunkyCommand *loop;
  CUstream stream;
  uint32_t streamId;
} LoopWalk;

static bool runLoopList(void *context, uint32_t list) {
  LoopWalk *l = context;
  return runList(l->walk, list, l->stream, l->streamId);
}

static bool readLoopPredicate(void *context, bool *more) {
  LoopWalk *l = context;
  int32_t value;
  if (!readBack(l->walk, l->loop->loop.predicate, l->stream, l->loop->thunk, &value))
    return false;
  *more = value != 0;
  return true;
}

static bool runWhile(Walk *w, const ThunkyCommand *c, CUstream stream, uint32_t streamId) {
  LoopWalk context = {w, c, stream, streamId};
  ThunkyLoopWalk walk = {runLoopList, readLoopPredicate, &context};
  ThunkyError why;
  if (thunkyPlanRunLoop(c, w->state->config.maxIterations, &w->loops, &walk, &why))
    return true;
  if (!why.message[0])
    return false; /* the list's own error */
  char name[160];
  thunkyCudaThunkName(w->state, c->thunk, name, sizeof name);
  return thunkyErrorf(&w->rank->error, "cuda: %s: %s", name, why.message);
}

static bool runAsyncStart(Walk *w, const ThunkyCommand *c, CUstream stream) {
  uint32_t slot = c->asyncStart.slot, index = c->asyncStart.streamIndex;
  CUstream async = w->rank->streams[index];
  CUevent started = w->rank->started[slot], done = w->rank->done[slot];
  /* The region sees all work before it, and async_done waits for the
   * region through `done`, recorded once the region is enqueued. */
  return THUNKY_CU(w->state, cuEventRecord, (started, stream), c->thunk, &w->rank->error) &&
         THUNKY_CU(w->state, cuStreamWaitEvent, (async, started, 0), c->thunk, &w->rank->error) &&
         runList(w, c->asyncStart.list, async, index + 1) &&
         THUNKY_CU(w->state, cuEventRecord, (done, async), c->thunk, &w->rank->error);
}

void thunkyCudaPlaceSlices(const ThunkyPlan *plan, ThunkyCudaRank *rank, ThunkyRange slices) {
  for (uint32_t i = slices.first; i < slices.first + slices.count; i++) {
    rank->slices[i] = thunkyCudaAddress(rank, plan->slices[i]);
    rank->pointers[i] = plan->slices[i].size ? (void *)(uintptr_t)rank->slices[i] : NULL;
  }
}

typedef struct StartRead {
  Walk *walk;
  CUstream stream;
  uint32_t thunk;
} StartRead;

/* A window start's integer, read once what came before on the stream is
 * done, as XLA's DynamicSliceThunk copies it and blocks. */
static bool readStart(void *context, ThunkyPlanSlice scalar, uint64_t *bits) {
  StartRead *r = context;
  *bits = 0;
  if (!copyToHost(r->walk, scalar, r->stream, r->thunk))
    return false;
  memcpy(bits, r->walk->rank->pinned, (size_t)scalar.size); /* both sides are little-endian */
  return true;
}

/* A dynamic-slice fusion: its windows where its loops and offsets put
 * them, then its thunks over them, as XLA's fusion and dynamic-slice
 * thunks do on the host before they enqueue them. */
static bool runFusion(Walk *w, const ThunkyCommand *c, CUstream stream, uint32_t streamId) {
  const ThunkyPlan *plan = w->plan;
  ThunkyCudaRank *rank = w->rank;
  StartRead read = {w, stream, c->thunk};
  for (uint32_t k = c->fusion.windows.first; k < c->fusion.windows.first + c->fusion.windows.count;
       k++) {
    ThunkyPlanSlice at;
    if (!thunkyPlanWindowSlice(plan, k, w->loops, readStart, &read, &at))
      return false;
    CUdeviceptr base = rank->memory[at.allocation];
    rank->memory[plan->numAllocations + k] = base ? base + at.offset : 0;
  }
  thunkyCudaPlaceSlices(plan, rank, c->fusion.slices);
  return runList(w, c->fusion.list, stream, streamId);
}

static bool runGroup(Walk *w, const ThunkyCommand *c, CUstream stream, uint32_t streamId) {
  const ThunkyNccl *nccl = &w->state->nccl;
  if (!w->state->hasNccl) /* a group of no collectives: NCCL was never loaded */
    return runList(w, c->group.list, stream, streamId);
  if (!thunkyCudaNcclCheck(w->state, w->rank, nccl->ncclGroupStart(), NULL, "ncclGroupStart",
                           c->thunk))
    return false;
  /* Inside a group NCCL enqueues nothing until the group ends, so events
   * around its members would time nothing. */
  Pass pass = w->pass;
  w->pass = PASS_NONE;
  bool ok = runList(w, c->group.list, stream, streamId);
  w->pass = pass;
  ncclResult_t ended = nccl->ncclGroupEnd(); /* always: the group must close */
  return ok && thunkyCudaNcclWait(w->state, w->rank, ended, NULL, "ncclGroupEnd", c->thunk);
}

/*--- commands --------------------------------------------------------------*/

static bool runCustomCall(Walk *w, const ThunkyCommand *c, CUstream stream) {
  const ThunkyCudaState *state = w->state;
  uint32_t index = c->customCall.call;
  const ThunkyRegistryEntry *entry = state->calls[index];
  const ThunkyPlanCustomCall *call = &w->plan->customCalls[index];
  ThunkyRange in = c->customCall.operands, out = c->customCall.results;
  ThunkyCustomCallArgs args = {
      .target = state->callTargets[index],
      .operands = w->rank->pointers + in.first,
      .results = w->rank->pointers + out.first,
      .operandSizes = state->sliceSizes + in.first,
      .resultSizes = state->sliceSizes + out.first,
      .numOperands = in.count,
      .numResults = out.count,
      .opaque = call->opaque,
      .attributes = call->attributes,
      .stream = stream,
      .rank = w->rank->global,
      .ranks = state->world,
  };
  ThunkyError failure = {{0}};
  if (entry->customCall(&args, entry->userData, &failure))
    return true;
  char name[160];
  thunkyCudaThunkName(state, c->thunk, name, sizeof name);
  return thunkyErrorf(&w->rank->error, "cuda: custom call '%s' failed in %s: %s", args.target,
                      name, failure.message[0] ? failure.message : "no message");
}

/* XLA's argument layout is each argument a device pointer by value; a
 * packing spec's parameters are its constant bytes and relocated
 * addresses. A cluster goes through cuLaunchKernelEx, as XLA launches one
 * (stream_executor/cuda/cuda_stream.cc: LaunchCudaKernel); a 1x1x1
 * cluster is no cluster, and takes the plain launch. */
/* The map of each TMA descriptor of kernel command `c`, from its
 * argument's address now, as XLA makes them before each launch
 * (CudaExecutor::CreateTensorMap): the data type from the element size
 * alone, the other enums as they are. */
static bool encodeMaps(Walk *w, const ThunkyCommand *c, const ThunkyPlanKernel *k) {
  static const CUtensorMapDataType byElementSize[] = {[1] = CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                                      [2] = CU_TENSOR_MAP_DATA_TYPE_UINT16,
                                                      [4] = CU_TENSOR_MAP_DATA_TYPE_UINT32,
                                                      [8] = CU_TENSOR_MAP_DATA_TYPE_UINT64};
  for (uint32_t i = k->tmas.first; i < k->tmas.first + k->tmas.count; i++) {
    const ThunkyPlanTma *t = &w->plan->tmas[i];
    CUdeviceptr address = w->rank->slices[c->kernel.args.first + t->arg];
    if (!THUNKY_CU(w->state, cuTensorMapEncodeTiled,
                   (&w->rank->maps[i], byElementSize[t->elementSize], t->rank,
                    (void *)(uintptr_t)address, t->globalDims, t->globalStrides, t->boxDims,
                    t->elementStrides, (CUtensorMapInterleave)t->interleave,
                    (CUtensorMapSwizzle)t->swizzle, (CUtensorMapL2promotion)t->l2Promotion,
                    (CUtensorMapFloatOOBfill)t->floatOobFill),
                   c->thunk, &w->rank->error))
      return false;
  }
  return true;
}

static bool runKernel(Walk *w, const ThunkyCommand *c, CUstream stream) {
  const ThunkyPlanKernel *k = &w->plan->kernels[c->kernel.kernel];
  ThunkyCudaRank *rank = w->rank;
  if (!encodeMaps(w, c, k))
    return false;
  const uint32_t *g = c->kernel.grid, *b = c->kernel.block, *cluster = k->cluster;
  ThunkyRange range = k->packed ? k->params : c->kernel.args;
  void **params = !range.count ? NULL
                  : k->packed  ? rank->packed + range.first
                               : rank->params + range.first;
  CUfunction f = rank->functions[c->kernel.kernel];
  if ((uint64_t)cluster[0] * cluster[1] * cluster[2] <= 1) /* zeros: a hand-made plan */
    return THUNKY_CU(
        w->state, cuLaunchKernel,
        (f, g[0], g[1], g[2], b[0], b[1], b[2], c->kernel.sharedBytes, stream, params, NULL),
        c->thunk, &w->rank->error);
  CUlaunchAttribute attribute = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
  attribute.value.clusterDim.x = cluster[0];
  attribute.value.clusterDim.y = cluster[1];
  attribute.value.clusterDim.z = cluster[2];
  CUlaunchConfig config = {.gridDimX = g[0], .gridDimY = g[1], .gridDimZ = g[2],
                           .blockDimX = b[0], .blockDimY = b[1], .blockDimZ = b[2],
                           .sharedMemBytes = c->kernel.sharedBytes, .hStream = stream,
                           .attrs = &attribute, .numAttrs = 1};
  return THUNKY_CU(w->state, cuLaunchKernelEx, (&config, f, params, NULL), c->thunk,
                   &w->rank->error);
}

static bool runCommand(Walk *w, const ThunkyCommand *c, CUstream stream, uint32_t streamId) {
  ThunkyCudaRank *rank = w->rank;
  uint32_t thunk = c->thunk;
  switch ((ThunkyCommandKind)c->kind) {
  case THUNKY_CMD_MEMZERO:
    return !c->memzero.dst.size ||
           THUNKY_CU(w->state, cuMemsetD8Async,
                     (thunkyCudaAddress(rank, c->memzero.dst), 0, c->memzero.dst.size, stream),
                     thunk, &w->rank->error);
  case THUNKY_CMD_MEMSET32:
    return c->memset32.dst.size < 4 ||
           THUNKY_CU(w->state, cuMemsetD32Async,
                     (thunkyCudaAddress(rank, c->memset32.dst), c->memset32.value,
                      c->memset32.dst.size / 4, stream),
                     thunk, &w->rank->error);
  case THUNKY_CMD_COPY: {
    /* Every allocation is device memory here, whatever XLA's direction. */
    ThunkyPlanSlice src, dst;
    if (!thunkyPlanCopySlices(w->plan, c, thunkyLoopIteration(w->loops), &src, &dst)) {
      char name[160];
      thunkyCudaThunkName(w->state, thunk, name, sizeof name);
      return thunkyErrorf(&rank->error,
                          "cuda: %s: the dynamic memcpy has no offsets for "
                          "iteration %llu",
                          name, (unsigned long long)thunkyLoopIteration(w->loops));
    }
    uint64_t size = src.size < dst.size ? src.size : dst.size;
    return !size ||
           THUNKY_CU(w->state, cuMemcpyDtoDAsync,
                     (thunkyCudaAddress(rank, dst), thunkyCudaAddress(rank, src), size, stream),
                     thunk, &w->rank->error);
  }
  case THUNKY_CMD_KERNEL: return runKernel(w, c, stream);
  case THUNKY_CMD_CUSTOM_CALL: return runCustomCall(w, c, stream);
  case THUNKY_CMD_GEMM: return thunkyCudaGemm(w->state, rank, c->gemm.gemm, stream, thunk);
  case THUNKY_CMD_CONDITIONAL: return runConditional(w, c, stream, streamId);
  case THUNKY_CMD_WHILE: return runWhile(w, c, stream, streamId);
  case THUNKY_CMD_ASYNC_START: return runAsyncStart(w, c, stream);
  case THUNKY_CMD_ASYNC_DONE:
    return THUNKY_CU(w->state, cuStreamWaitEvent, (stream, rank->done[c->asyncDone.slot], 0), thunk,
                     &w->rank->error);
  case THUNKY_CMD_COLLECTIVE:
    return thunkyCudaCollective(w->state, rank, c->collective.collective, stream, thunk);
  case THUNKY_CMD_COLLECTIVE_GROUP: return runGroup(w, c, stream, streamId);
  case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
    return runFusion(w, c, stream, streamId);
  case THUNKY_CMD_REPLICA_ID:
  case THUNKY_CMD_PARTITION_ID: {
    uint32_t partitions = w->state->partitions;
    uint32_t id = c->kind == THUNKY_CMD_REPLICA_ID ? rank->global / partitions
                                                   : rank->global % partitions;
    return THUNKY_CU(w->state, cuMemsetD32Async,
                     (thunkyCudaAddress(rank, c->id.dst), id, 1, stream), thunk, &w->rank->error);
  }
  case THUNKY_CMD_OPAQUE: /* refused when the state was created */
  case THUNKY_CMD_COUNT: break;
  }
  char name[160];
  thunkyCudaThunkName(w->state, thunk, name, sizeof name);
  return thunkyErrorf(&rank->error, "cuda: %s has unknown command kind %u", name, c->kind);
}

/*--- timing ----------------------------------------------------------------*/

/* The issue pass: one event per command on the host issue row, as long as
 * the host spent issuing it alone: not its nested commands' time, nor its
 * waits (a loop's predicates' copies are its own, see copyToHost). */
static void noteIssue(Walk *w, uint32_t thunk, uint64_t begin, uint64_t end) {
  ThunkyCudaRank *rank = w->rank;
  ThunkyTraceEvent event = {.thunk = thunk,
                            .rank = rank->global,
                            .stream = THUNKY_TRACE_HOST_ISSUE,
                            .beginNs = begin - rank->hostOrigin,
                            .endNs = end - rank->hostOrigin};
  thunkyTimelineAdd(w->state->config.timeline, event); /* or counted lost */
}

static bool runIssued(Walk *w, const ThunkyCommand *c, CUstream stream, uint32_t streamId) {
  ThunkyCudaRank *rank = w->rank;
  uint64_t begin = w->state->hostClock(), accounted = rank->accountedNs;
  if (!runCommand(w, c, stream, streamId))
    return false;
  uint64_t total = w->state->hostClock() - begin, inner = rank->accountedNs - accounted;
  noteIssue(w, c->thunk, begin, begin + (total > inner ? total - inner : 0));
  rank->accountedNs = accounted + total;
  return true;
}

/* Whether a command has device work of its own to time: not one whose
 * work is that of the lists it holds, nor a wait, which the replay charges
 * as one. A group is timed whole: NCCL enqueues its members' work only as
 * the group ends (runGroup). */
static bool timedApart(const ThunkyCommand *c) {
  switch (c->kind) {
  case THUNKY_CMD_ASYNC_START:
  case THUNKY_CMD_ASYNC_DONE:
  case THUNKY_CMD_WHILE:
  case THUNKY_CMD_CONDITIONAL:
  case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
    return false;
  default:
    return true;
  }
}

/* The traced pass, or a capture under CUPTI: the work a command enqueues,
 * or the nodes it makes, are its own. */
static bool runTraced(Walk *w, const ThunkyCommand *c, CUstream stream, uint32_t streamId) {
  if (!timedApart(c))
    return runCommand(w, c, stream, streamId);
  if (w->capturing)
    return thunkyCudaCaptureOwner(w->state, w->rank, c->thunk, streamId) &&
           runCommand(w, c, stream, streamId);
  if (!thunkyCudaTraceBegin(w->state, w->rank, c->thunk, streamId, UINT32_MAX))
    return false;
  bool ok = runCommand(w, c, stream, streamId);
  return thunkyCudaTraceEnd(w->state, w->rank) && ok;
}

/* The device pass: the main stream waits at the gate for a value the
 * releaser stream writes; what the host enqueues meanwhile runs back to
 * back once it is written. */
static bool closeGate(Walk *w) {
  ThunkyCudaRank *rank = w->rank;
  rank->gated = true;
  return THUNKY_CU(w->state, cuStreamWaitValue32,
                   (rank->main, rank->gate, rank->gateValue + 1, CU_STREAM_WAIT_VALUE_GEQ),
                   THUNKY_CUDA_NO_THUNK, &rank->error);
}

/* Opens the gate, waits for the segment, and adds its thunks' device
 * times to the timeline; the marks are free again after. */
static bool openGate(Walk *w) {
  ThunkyCudaState *state = w->state;
  ThunkyCudaRank *rank = w->rank;
  const uint32_t none = THUNKY_CUDA_NO_THUNK;
  if (rank->gated &&
      !THUNKY_CU(state, cuStreamWriteValue32, (rank->releaser, rank->gate, ++rank->gateValue, 0),
                 none, &rank->error))
    return false;
  rank->gated = false;
  if (!thunkyCudaWait(state, rank, rank->main, none))
    return false;
  for (uint32_t i = 0; i < state->plan->numStreams; i++)
    if (!thunkyCudaWait(state, rank, rank->streams[i], none))
      return false;
  for (uint32_t i = 0; i < rank->numMarked; i++) {
    float begin, end;
    if (!THUNKY_CU(state, cuEventElapsedTime, (&begin, rank->origin, rank->marks[2 * i]),
                   rank->marked[i].thunk, &rank->error) ||
        !THUNKY_CU(state, cuEventElapsedTime, (&end, rank->origin, rank->marks[2 * i + 1]),
                   rank->marked[i].thunk, &rank->error))
      return false;
    ThunkyTraceEvent event = {.thunk = rank->marked[i].thunk,
                              .rank = rank->global,
                              .stream = rank->marked[i].stream,
                              .beginNs = (uint64_t)llround((double)begin * 1e6),
                              .endNs = (uint64_t)llround((double)end * 1e6)};
    event.endNs = event.endNs > event.beginNs ? event.endNs : event.beginNs;
    thunkyTimelineAdd(state->config.timeline, event); /* or counted lost */
  }
  rank->numMarked = 0;
  return true;
}

static bool runMarked(Walk *w, const ThunkyCommand *c, CUstream stream, uint32_t streamId) {
  ThunkyCudaRank *rank = w->rank;
  /* What holds lists is timed in them; loops, conditionals and fusions may
   * also open the gate midway, past their first mark. */
  if (!timedApart(c))
    return runCommand(w, c, stream, streamId);
  /* A custom call may wait for its stream itself: it runs with the gate open. */
  if (c->kind == THUNKY_CMD_CUSTOM_CALL)
    return openGate(w) && runCommand(w, c, stream, streamId) && closeGate(w);
  if (rank->numMarked == THUNKY_CUDA_MARKS / 2 && !(openGate(w) && closeGate(w)))
    return false;
  uint32_t i = rank->numMarked++;
  rank->marked[i] = (ThunkyCudaMarked){c->thunk, streamId};
  return THUNKY_CU(w->state, cuEventRecord, (rank->marks[2 * i], stream), c->thunk, &rank->error) &&
         runCommand(w, c, stream, streamId) &&
         THUNKY_CU(w->state, cuEventRecord, (rank->marks[2 * i + 1], stream), c->thunk,
                   &rank->error);
}

/* The config graph whose first command is `command`, or SIZE_MAX. */
static size_t graphAt(const Walk *w, uint32_t command) {
  uint32_t g = w->state->graphStarting ? w->state->graphStarting[command] : UINT32_MAX;
  return g == UINT32_MAX ? SIZE_MAX : g;
}

/* Commands [first, end) of one list, a captured graph launched whole. */
static bool runCommands(Walk *w, uint32_t first, uint32_t end, CUstream stream,
                        uint32_t streamId) {
  for (uint32_t i = first; i < end; i++) {
    if (atomic_load_explicit(&w->state->stop, memory_order_relaxed))
      return thunkyErrorf(&w->rank->error, "cuda: stopped because another rank failed");
    const ThunkyCommand *c = &w->plan->commands[i];
    w->rank->lastThunk = c->thunk; /* what a timed-out wait names */
    /* Behind the gate a graph's thunks are enqueued one by one, to be
     * timed apart: the same kernels, copies and sets as its nodes. */
    size_t g = w->capturing || w->pass == PASS_DEVICE ? SIZE_MAX : graphAt(w, i);
    if (g != SIZE_MAX && w->rank->graphs[g]) {
      uint64_t begin = w->pass == PASS_ISSUE ? w->state->hostClock() : 0;
      bool traced = w->pass == PASS_TRACED;
      if (traced && !thunkyCudaTraceBegin(w->state, w->rank, c->thunk, streamId, (uint32_t)g))
        return false;
      bool launched = THUNKY_CU(w->state, cuGraphLaunch, (w->rank->graphs[g], stream), c->thunk,
                                &w->rank->error);
      if ((traced && !thunkyCudaTraceEnd(w->state, w->rank)) || !launched)
        return false;
      if (w->pass == PASS_ISSUE) {
        uint64_t end = w->state->hostClock();
        noteIssue(w, c->thunk, begin, end);
        w->rank->accountedNs += end - begin;
      }
      i += w->state->config.graphs->graphs[g].count - 1;
      continue;
    }
    bool ok = w->pass == PASS_ISSUE    ? runIssued(w, c, stream, streamId)
              : w->pass == PASS_DEVICE ? runMarked(w, c, stream, streamId)
              : w->pass == PASS_TRACED ? runTraced(w, c, stream, streamId)
                                       : runCommand(w, c, stream, streamId);
    if (!ok)
      return false;
  }
  return true;
}

static bool runList(Walk *w, uint32_t list, CUstream stream, uint32_t streamId) {
  ThunkyRange range = w->plan->lists[list];
  return runCommands(w, range.first, range.first + range.count, stream, streamId);
}

/*--- rank jobs -------------------------------------------------------------*/

static Walk walkOf(ThunkyCudaState *state, ThunkyCudaRank *rank, Pass pass) {
  return (Walk){.state = state, .rank = rank, .plan = state->plan, .pass = pass};
}

/* Waits for the main stream, then for regions never awaited. */
static bool waitAll(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  if (!thunkyCudaWait(state, rank, rank->main, THUNKY_CUDA_NO_THUNK))
    return false;
  for (uint32_t i = 0; i < state->plan->numStreams; i++)
    if (!thunkyCudaWait(state, rank, rank->streams[i], THUNKY_CUDA_NO_THUNK))
      return false;
  return true;
}

bool thunkyCudaRunRank(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  Walk w = walkOf(state, rank, PASS_NONE);
  return runList(&w, 0, rank->main, 0) && waitAll(state, rank);
}

bool thunkyCudaIssueRank(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  Walk w = walkOf(state, rank, PASS_ISSUE);
  rank->hostOrigin = state->hostClock(), rank->accountedNs = 0;
  if (!runList(&w, 0, rank->main, 0) || !waitAll(state, rank))
    return false;
  thunkyTimelineNoteStep(state->config.timeline, state->hostClock() - rank->hostOrigin);
  return true;
}

bool thunkyCudaTimeRank(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  if (state->tracer) {
    Walk w = walkOf(state, rank, PASS_TRACED);
    return thunkyCudaTraceOrigin(state, rank) && runList(&w, 0, rank->main, 0) &&
           waitAll(state, rank);
  }
  Walk w = walkOf(state, rank, PASS_DEVICE);
  rank->numMarked = 0;
  return THUNKY_CU(state, cuEventRecord, (rank->origin, rank->main), THUNKY_CUDA_NO_THUNK,
                   &rank->error) &&
         closeGate(&w) && runList(&w, 0, rank->main, 0) && openGate(&w) && waitAll(state, rank);
}

/* Records config graph g from the rank's idle main stream. */
static bool captureGraph(ThunkyCudaState *state, ThunkyCudaRank *rank, Walk *w, size_t g) {
  ThunkyRange range = state->config.graphs->graphs[g];
  uint32_t thunk = state->plan->commands[range.first].thunk;
  /* Thread-local: the other ranks capture at the same time in their own
   * threads, and must not count as unsafe calls during this capture. */
  if (!THUNKY_CU(state, cuStreamBeginCapture, (rank->main, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                 thunk, &rank->error))
    return false;
  bool ok = runCommands(w, range.first, range.first + range.count, rank->main, 0);
  CUgraph graph = NULL;
  CUresult ended = state->cu.cuStreamEndCapture(rank->main, &graph); /* always: restore it */
  ok = ok && thunkyCudaCheck(state, ended, "cuStreamEndCapture", thunk, &rank->error) &&
       THUNKY_CU(state, cuGraphInstantiate, (&rank->graphs[g], graph, 0), thunk, &rank->error);
  if (graph)
    state->cu.cuGraphDestroy(graph); /* the executable graph stands alone */
  return ok;
}

/* Each graph is recorded from the idle main stream; a graph stands apart
 * from the stream it was recorded on, and is launched on its list's. */
bool thunkyCudaCaptureRank(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  const ThunkyCommandBuffers *graphs = state->config.graphs;
  /* Under CUPTI each node the capture makes is tied to its thunk. */
  Walk w = walkOf(state, rank, state->tracer ? PASS_TRACED : PASS_NONE);
  w.capturing = true;
  if (!(rank->graphs = calloc(graphs->numGraphs + 1, sizeof *rank->graphs)) ||
      (state->tracer &&
       !(rank->graphOwners = calloc(graphs->numGraphs + 1, sizeof *rank->graphOwners))))
    return thunkyErrorf(&rank->error, "cuda: out of memory");
  if (state->tracer)
    thunkyCudaCaptureBegin(state, rank);
  bool ok = true;
  for (size_t g = 0; ok && g < graphs->numGraphs; g++) {
    if (rank->graphOwners)
      rank->graphOwners[g] = rank->numOwners;
    if (state->capturable[g])
      ok = captureGraph(state, rank, &w, g);
  }
  if (rank->graphOwners)
    rank->graphOwners[graphs->numGraphs] = rank->numOwners;
  if (state->tracer)
    thunkyCudaCaptureEnd(state, rank);
  return ok;
}

/* Whether commands [first, end), and every list nested in them, can be
 * recorded by stream capture. */
static bool capturable(const ThunkyPlan *plan, uint32_t first, uint32_t end, uint32_t depth) {
  for (uint32_t i = first; i < end; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    /* A copy or fusion that follows a loop's iteration, or reads its
     * offsets on the device, would be captured with one place. */
    if (c->kind == THUNKY_CMD_CONDITIONAL || c->kind == THUNKY_CMD_WHILE ||
        c->kind == THUNKY_CMD_CUSTOM_CALL || c->kind == THUNKY_CMD_OPAQUE ||
        (c->kind == THUNKY_CMD_COPY && c->copy.dependsOnLoop) ||
        (c->kind == THUNKY_CMD_DYNAMIC_SLICE_FUSION &&
         (c->fusion.dependsOnLoop || c->fusion.readsDevice)))
      return false;
    for (uint32_t k = 0, nested; (nested = thunkyPlanHeldList(plan, c, k)) != UINT32_MAX; k++) {
      ThunkyRange l = plan->lists[nested];
      if (depth > plan->maxDepth || !capturable(plan, l.first, l.first + l.count, depth + 1))
        return false;
    }
  }
  return true;
}

bool thunkyCudaPlanGraphs(ThunkyCudaState *state, ThunkyError *error) {
  const ThunkyCommandBuffers *graphs = state->config.graphs;
  if (!graphs)
    return true;
  uint32_t numCommands = state->plan->numCommands;
  if (!(state->capturable = calloc(graphs->numGraphs + 1, sizeof *state->capturable)) ||
      !(state->graphStarting = malloc(((size_t)numCommands + 1) * sizeof *state->graphStarting)))
    return thunkyErrorf(error, "cuda: out of memory");
  /* Graphs come in thunk order, which is not the order of their commands
   * where a loop's or region's lists come before the list holding them. */
  memset(state->graphStarting, 0xff, ((size_t)numCommands + 1) * sizeof *state->graphStarting);
  for (size_t g = 0; g < graphs->numGraphs; g++) {
    ThunkyRange r = graphs->graphs[g];
    if (r.count == 0 || r.first >= numCommands || r.count > numCommands - r.first)
      return thunkyErrorf(error, "cuda: graph %zu lies outside the plan's commands", g);
    state->graphStarting[r.first] = (uint32_t)g;
    state->capturable[g] = capturable(state->plan, r.first, r.first + r.count, 0);
  }
  return true;
}
