/*===- host_backend.c - the reference backend: every thunk on the CPU -----===*
 *
 * Each rank has its own copy of every allocation and runs the plan on its
 * own thread; collectives meet in a ThunkyHostWorld. An async region runs
 * when it starts: a legal schedule of "on another stream", and the one that
 * makes results reproducible (config.asyncAtDone runs it at its done,
 * the other end of what is legal, and regions in flight together in the
 * other order). In a fingerprint run, whatever has no
 * host implementation runs as a fingerprint (thunky-c/runtime/Check.h).
 * Everything a run needs is allocated in create.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Runtime.h"
#include "thunky-c/runtime/Check.h"
#include "async_schedule.h"
#include "registry.h"
#include "host_collectives.h"
#include "run_stop.h"
#include "thunky-c/runtime/HostGemm.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct HostState HostState;

/* What one rank needs while it runs. */
typedef struct {
  HostState *state;
  uint32_t rank;
  uint8_t **memory;    /* allocation bases */
  uint8_t *block;      /* where they live */
  void **pointers;     /* per plan slice: where it is (NULL when empty) */
  uint64_t *sizes;     /* per plan slice: its size; kernels get ranges of both */
  void **params;       /* per plan param: its argument's memory, or its constant */
  uint64_t *paramSizes; /* per plan param: the argument's size, or the constant's */
  ThunkyError why;     /* what a kernel or custom call said went wrong */
  ThunkyAsyncSchedule async;
  const ThunkyLoopFrame *loops; /* the while loops running, innermost first; NULL outside */
  ThunkyExchanges exchanges; /* fingerprint runs: what its exchanges sent */
  ThunkyRunStop stop;
  ThunkyError error;
  bool failed;
} Rank;

struct HostState {
  const ThunkyPlan *plan;
  ThunkyRunConfig config;
  const ThunkyRegistryEntry **kernels, **calls;
  ThunkyHostWorld *world;
  Rank *ranks;
  uint32_t *outputOf; /* per allocation, its first output (thunkyOutputsOfAllocations) */
};

static void destroy(void *opaque) {
  HostState *s = opaque;
  if (!s)
    return;
  for (uint32_t r = 0; s->ranks && r < s->config.ranks; r++) {
    free(s->ranks[r].block), free(s->ranks[r].memory);
    free(s->ranks[r].pointers), free(s->ranks[r].sizes);
    thunkyAsyncScheduleFree(&s->ranks[r].async);
    thunkyExchangesFree(&s->ranks[r].exchanges);
    free(s->ranks[r].params), free(s->ranks[r].paramSizes);
  }
  free(s->ranks), free(s->kernels), free(s->calls), free(s->outputOf);
  if (s->world)
    thunkyHostWorldDestroy(s->world);
  free(s);
}

/* Allocations laid out in one block per rank, each 64-byte aligned; every
 * slice's address is computed here, once, so that launching a kernel is a
 * call with pointers into these tables. */
static bool rankBytes(const ThunkyPlan *p, uint64_t *total, ThunkyError *error) {
  *total = 0;
  for (uint32_t a = 0; a < p->numAllocations; a++) {
    uint64_t size = (p->allocations[a].size + 63) & ~(uint64_t)63;
    if (size < p->allocations[a].size || *total + size < *total)
      return thunkyErrorf(error, "host: allocations overflow the address space");
    *total += size;
  }
  return true;
}

/* On a GPU, XLA fills the module's global named after a constant, placed
 * in an allocation or in none (cuda_backend.c: bindConstants); a host
 * kernel that reads that global directly, registered with
 * thunkyRegistryAddHostGlobal, sees it filled the same way. */
static void fillGlobal(const HostState *s, ThunkyBytes symbol, ThunkyBytes bytes) {
  void *data;
  size_t size;
  if (symbol.size && bytes.size && s->config.registry &&
      thunkyRegistryGetHostGlobal(s->config.registry, (const char *)symbol.data, &data, &size) &&
      size >= bytes.size)
    memcpy(data, bytes.data, bytes.size);
}

/* The addresses of plan slices `slices` and of packed parameters `params`,
 * from r->memory: once, and again for a fusion's when it moves its windows. */
static void placeArguments(Rank *r, ThunkyRange slices, ThunkyRange params) {
  const ThunkyPlan *p = r->state->plan;
  for (uint32_t i = slices.first; i < slices.first + slices.count; i++) {
    ThunkyPlanSlice slice = p->slices[i];
    r->pointers[i] = slice.size ? r->memory[slice.allocation] + slice.offset : NULL;
    r->sizes[i] = slice.size;
  }
  /* A packed kernel's stand-in sees its parameters as a GPU kernel would:
   * a relocation as its argument's memory, constant bytes as themselves. */
  for (uint32_t i = params.first; i < params.first + params.count; i++) {
    const ThunkyPlanParam *param = &p->params[i];
    bool relocation = param->slice != UINT32_MAX;
    r->params[i] = relocation ? r->pointers[param->slice] : (void *)(uintptr_t)param->bytes.data;
    r->paramSizes[i] = relocation ? r->sizes[param->slice] : param->bytes.size;
  }
}

static bool allocateRank(HostState *s, Rank *r, ThunkyError *error) {
  const ThunkyPlan *p = s->plan;
  uint64_t total;
  if (!rankBytes(p, &total, error))
    return false;
  r->block = total <= SIZE_MAX ? aligned_alloc(64, total ? (size_t)total : 64) : NULL;
  /* Past the allocations, the windows of dynamic-slice fusions, each set
   * when its fusion runs. */
  r->memory = calloc(p->numAllocations + p->numWindows + 1, sizeof *r->memory);
  r->pointers = calloc(p->numSlices + 1, sizeof *r->pointers);
  r->sizes = calloc(p->numSlices + 1, sizeof *r->sizes);
  r->params = calloc(p->numParams + 1, sizeof *r->params);
  r->paramSizes = calloc(p->numParams + 1, sizeof *r->paramSizes);
  bool async = thunkyAsyncScheduleInit(&r->async, p->numAsyncSlots, &s->config);
  if (!r->block || !r->memory || !r->pointers || !r->sizes || !r->params || !r->paramSizes ||
      !async)
    return thunkyErrorf(error, "host: out of memory for %llu bytes of allocations",
                        (unsigned long long)total);
  memset(r->block, 0, (size_t)total);
  uint64_t at = 0;
  for (uint32_t a = 0; a < p->numAllocations; a++) {
    const ThunkyPlanAllocation *al = &p->allocations[a];
    r->memory[a] = r->block + at;
    bool scratch = al->parameter < 0 && !al->isConstant && !al->isOutput;
    if (scratch && s->config.scratchByte)
      memset(r->memory[a], s->config.scratchByte, (size_t)al->size);
    else if ((scratch || (al->isOutput && al->parameter < 0)) && s->config.undefinedInitial)
      thunkyFingerprintFill(thunkyInitialSeed(s->outputOf, a, r->rank), r->memory[a],
                            (size_t)al->size);
    if (p->allocations[a].constant.size)
      memcpy(r->memory[a], p->allocations[a].constant.data, p->allocations[a].constant.size);
    if (al->isConstant)
      fillGlobal(s, al->symbol, al->constant);
    at += (p->allocations[a].size + 63) & ~(uint64_t)63;
  }
  for (uint32_t g = 0; g < p->numGlobals; g++)
    fillGlobal(s, p->globals[g].symbol, p->globals[g].bytes);
  placeArguments(r, (ThunkyRange){0, p->numSlices}, (ThunkyRange){0, p->numParams});
  return true;
}

static const char fingerprintHint[] =
    " (thunky-run --kernels=fingerprint runs it as an uninterpreted function)";

/* Every kernel and custom call must be registered before anything runs,
 * and every thunk of a kind the host cannot run refused, unless the run is
 * a fingerprint run; then a NULL entry runs as a fingerprint. */
static bool resolve(HostState *s, ThunkyError *error) {
  const ThunkyPlan *p = s->plan;
  bool fingerprint = s->config.fingerprint;
  s->kernels = calloc(p->numKernels + 1, sizeof *s->kernels);
  s->calls = calloc(p->numCustomCalls + 1, sizeof *s->calls);
  if (!s->kernels || !s->calls)
    return thunkyErrorf(error, "host: out of memory");
  for (uint32_t i = 0; i < p->numCommands; i++) {
    const ThunkyCommand *c = &p->commands[i];
    char name[160];
    if (c->kind != THUNKY_CMD_OPAQUE || fingerprint)
      continue;
    thunkyPlanThunkName(p, c->thunk, name, sizeof name);
    ThunkyBytes why = p->thunks[c->thunk].unsupported;
    return thunkyErrorf(error, "host: %s: %s is not supported by the host backend%s", name,
                        why.size ? (const char *)why.data : p->thunks[c->thunk].kind,
                        fingerprintHint);
  }
  for (uint32_t i = 0; i < p->numKernels; i++)
    if (!(s->kernels[i] = thunkyRegistryFind(s->config.registry, "host", true,
                                             p->kernels[i].name)) && !fingerprint)
      return thunkyErrorf(error,
                          "host: no host implementation of kernel '%.*s' is registered "
                          "(thunky-run --library loads them; --kernels=fingerprint runs "
                          "kernels without one as uninterpreted functions)",
                          (int)p->kernels[i].name.size, (const char *)p->kernels[i].name.data);
  for (uint32_t i = 0; i < p->numCustomCalls; i++)
    if (!(s->calls[i] = thunkyRegistryFind(s->config.registry, "host", false,
                                           p->customCalls[i].target)) && !fingerprint)
      return thunkyErrorf(error, "host: custom-call target '%.*s' is not registered%s",
                          (int)p->customCalls[i].target.size,
                          (const char *)p->customCalls[i].target.data, fingerprintHint);
  return true;
}

/* Refused up front: zeroing allocations past the machine's memory would
 * bring in the OOM killer, not an error. */
bool thunkyHostMemoryCheck(const ThunkyPlan *plan, const ThunkyRunConfig *config,
                           ThunkyError *error) {
  uint64_t perRank, inputs = 0, limit = config->maxHostMemory;
  uint32_t ranks = config->ranks ? config->ranks : 1;
  if (!rankBytes(plan, &perRank, error))
    return false;
  for (uint32_t i = 0; i < plan->numParameters; i++) {
    uint64_t size = plan->parameters[i].slice.size;
    inputs = inputs + size < inputs ? UINT64_MAX : inputs + size;
  }
  if (!limit || (perRank <= limit / ranks && inputs <= limit - perRank * ranks))
    return true;
  return thunkyErrorf(error,
                      "host: %u rank(s) x %llu bytes of allocations and %llu bytes of inputs "
                      "are more than the max-host-memory limit (%llu bytes)",
                      ranks, (unsigned long long)perRank, (unsigned long long)inputs,
                      (unsigned long long)limit);
}

static bool create(const ThunkyPlan *plan, const ThunkyRunConfig *config, void **out,
                   ThunkyError *error) {
  HostState *s = calloc(1, sizeof *s);
  *out = NULL;
  if (!s)
    return thunkyErrorf(error, "host: out of memory");
  s->plan = plan;
  s->config = *config;
  bool ok = (thunkyRunConfigNormalize(&s->config, error) || thunkyErrorContext(error, "host")) &&
            thunkyHostMemoryCheck(plan, &s->config, error) && resolve(s, error) &&
            ((s->outputOf = thunkyOutputsOfAllocations(plan)) ||
             thunkyErrorf(error, "host: out of memory")) &&
            (s->world = thunkyHostWorldCreate(s->config.ranks, s->config.partitions, error)) &&
            (s->ranks = calloc(s->config.ranks, sizeof *s->ranks));
  if (ok && !s->ranks)
    ok = thunkyErrorf(error, "host: out of memory");
  for (uint32_t r = 0; ok && r < s->config.ranks; r++) {
    s->ranks[r].state = s, s->ranks[r].rank = r;
    ok = allocateRank(s, &s->ranks[r], error);
  }
  if (!ok) {
    destroy(s);
    return false;
  }
  *out = s;
  return true;
}

static bool access(void *opaque, uint32_t rank, ThunkyPlanSlice slice, ThunkyError *error) {
  HostState *s = opaque;
  if (rank >= s->config.ranks || slice.allocation >= s->plan->numAllocations ||
      slice.offset > s->plan->allocations[slice.allocation].size ||
      slice.size > s->plan->allocations[slice.allocation].size - slice.offset)
    return thunkyErrorf(error, "host: rank %u, allocation %u, bytes [%llu, %llu) do not exist",
                        rank, slice.allocation, (unsigned long long)slice.offset,
                        (unsigned long long)(slice.offset + slice.size));
  return true;
}

static bool write(void *opaque, uint32_t rank, ThunkyPlanSlice slice, const void *data,
                  ThunkyError *error) {
  HostState *s = opaque;
  if (!access(s, rank, slice, error))
    return false;
  memcpy(s->ranks[rank].memory[slice.allocation] + slice.offset, data, slice.size);
  return true;
}

static bool read(void *opaque, uint32_t rank, ThunkyPlanSlice slice, void *out,
                 ThunkyError *error) {
  HostState *s = opaque;
  if (!access(s, rank, slice, error))
    return false;
  memcpy(out, s->ranks[rank].memory[slice.allocation] + slice.offset, slice.size);
  return true;
}

/*--- running --------------------------------------------------------------------*/

static bool runList(Rank *r, uint32_t list, uint32_t stream);

/* An async region, on its own stream id in traces. */
static bool runRegion(void *rank, const ThunkyCommand *start) {
  return runList(rank, start->asyncStart.list, start->asyncStart.streamIndex + 1);
}

static bool fail(Rank *r, const ThunkyCommand *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(Rank *r, const ThunkyCommand *c, const char *fmt, ...) {
  char what[400], name[160];
  va_list args;
  va_start(args, fmt);
  vsnprintf(what, sizeof what, fmt, args);
  va_end(args);
  thunkyPlanThunkName(r->state->plan, c->thunk, name, sizeof name);
  return thunkyErrorf(&r->error, "rank %u: %s: %s", r->rank, name, what);
}

/* Puts a failure reported by a callee into the rank's context. */
static bool failWith(Rank *r, const ThunkyCommand *c, const ThunkyError *why) {
  return fail(r, c, "%s", why->message);
}

static uint8_t *at(Rank *r, ThunkyPlanSlice s) { return r->memory[s.allocation] + s.offset; }

/* A thunk with no host implementation, in a fingerprint run; one that
 * moves bytes between ranks as an exchange (thunky-c/runtime/Check.h). */
static bool fingerprint(Rank *r, const ThunkyCommand *c) {
  const ThunkyPlan *p = r->state->plan;
  if (!p->thunks[c->thunk].exchange) {
    thunkyFingerprintThunk(p, c->thunk, r->memory);
    return true;
  }
  return thunkyFingerprintExchange(p, c->thunk, r->memory, r->rank, &r->exchanges) ||
         fail(r, c, "out of memory");
}

static bool runKernel(Rank *r, const ThunkyCommand *c) {
  const ThunkyRegistryEntry *e = r->state->kernels[c->kernel.kernel];
  if (!e)
    return fingerprint(r, c);
  const ThunkyPlanKernel *k = &r->state->plan->kernels[c->kernel.kernel];
  uint32_t first = k->packed ? k->params.first : c->kernel.args.first;
  ThunkyKernelCall call = {.name = e->name,
                           .args = (k->packed ? r->params : r->pointers) + first,
                           .argSizes = (k->packed ? r->paramSizes : r->sizes) + first,
                           .numArgs = k->packed ? k->params.count : c->kernel.args.count,
                           .grid = {c->kernel.grid[0], c->kernel.grid[1], c->kernel.grid[2]},
                           .block = {c->kernel.block[0], c->kernel.block[1], c->kernel.block[2]},
                           .rank = r->rank, .ranks = r->state->config.ranks};
  r->why.message[0] = 0;
  return e->kernel(&call, e->userData, &r->why) || failWith(r, c, &r->why);
}

static bool runCustomCall(Rank *r, const ThunkyCommand *c) {
  const ThunkyRegistryEntry *e = r->state->calls[c->customCall.call];
  if (!e)
    return fingerprint(r, c);
  const ThunkyPlanCustomCall *call = &r->state->plan->customCalls[c->customCall.call];
  uint32_t operands = c->customCall.operands.first, results = c->customCall.results.first;
  ThunkyCustomCallArgs args = {.target = e->name, .operands = r->pointers + operands,
                               .results = r->pointers + results,
                               .operandSizes = r->sizes + operands,
                               .resultSizes = r->sizes + results,
                               .numOperands = c->customCall.operands.count,
                               .numResults = c->customCall.results.count,
                               .opaque = call->opaque, .attributes = call->attributes,
                               .rank = r->rank, .ranks = r->state->config.ranks};
  r->why.message[0] = 0;
  return e->customCall(&args, e->userData, &r->why) || failWith(r, c, &r->why);
}

static bool runConditional(Rank *r, const ThunkyCommand *c, uint32_t stream) {
  const ThunkyPlan *p = r->state->plan;
  uint32_t branch = thunkyPlanBranch(c, at(r, c->conditional.index));
  return runList(r, (uint32_t)p->ids[c->conditional.branches.first + branch], stream);
}

/* A loop's lists run on the stream the loop runs on. */
typedef struct {
  Rank *rank;
  const ThunkyCommand *loop;
  uint32_t stream;
} LoopWalk;

static bool runLoopList(void *context, uint32_t list) {
  LoopWalk *w = context;
  return runList(w->rank, list, w->stream);
}

static bool readLoopPredicate(void *context, bool *more) {
  LoopWalk *w = context;
  *more = *at(w->rank, w->loop->loop.predicate) != 0;
  return true;
}

static bool runWhile(Rank *r, const ThunkyCommand *c, uint32_t stream) {
  LoopWalk context = {r, c, stream};
  ThunkyLoopWalk walk = {runLoopList, readLoopPredicate, &context};
  ThunkyError why;
  if (thunkyPlanRunLoop(c, r->state->config.maxIterations, &r->loops, &walk, &why))
    return true;
  return why.message[0] ? failWith(r, c, &why) : false; /* else the list's own error */
}

/* A window start's integer, as XLA copies it to the host. */
static bool readStart(void *rank, ThunkyPlanSlice scalar, uint64_t *bits) {
  *bits = 0;
  memcpy(bits, at(rank, scalar), (size_t)scalar.size); /* little-endian, as the device */
  return true;
}

/* A dynamic-slice fusion: its windows where its loops and offsets put
 * them, then its thunks over them. */
static bool runFusion(Rank *r, const ThunkyCommand *c, uint32_t stream) {
  const ThunkyPlan *p = r->state->plan;
  for (uint32_t w = c->fusion.windows.first; w < c->fusion.windows.first + c->fusion.windows.count;
       w++) {
    ThunkyPlanSlice at;
    thunkyPlanWindowSlice(p, w, r->loops, readStart, r, &at);
    r->memory[p->numAllocations + w] = r->memory[at.allocation] + at.offset;
  }
  placeArguments(r, c->fusion.slices, c->fusion.params);
  return runList(r, c->fusion.list, stream);
}

static bool runCommand(Rank *r, const ThunkyCommand *c, uint32_t stream) {
  HostState *s = r->state;
  switch ((ThunkyCommandKind)c->kind) {
  case THUNKY_CMD_MEMZERO:
    memset(at(r, c->memzero.dst), 0, c->memzero.dst.size);
    return true;
  case THUNKY_CMD_MEMSET32: {
    uint8_t *dst = at(r, c->memset32.dst);
    for (uint64_t i = 0; i < c->memset32.dst.size; i += 4)
      memcpy(dst + i, &c->memset32.value, 4);
    return true;
  }
  case THUNKY_CMD_COPY: {
    ThunkyPlanSlice src, dst;
    if (!thunkyPlanCopySlices(s->plan, c, thunkyLoopIteration(r->loops), &src, &dst))
      return fail(r, c, "the dynamic memcpy has no offsets for iteration %llu",
                  (unsigned long long)thunkyLoopIteration(r->loops));
    memmove(at(r, dst), at(r, src), dst.size);
    return true;
  }
  case THUNKY_CMD_KERNEL:
    return runKernel(r, c);
  case THUNKY_CMD_CUSTOM_CALL:
    return runCustomCall(r, c);
  case THUNKY_CMD_GEMM: /* the planner made the ones the host gemm cannot run opaque */
    return thunkyHostGemm(&s->plan->gemms[c->gemm.gemm], r->memory, &r->why) ||
           failWith(r, c, &r->why);
  case THUNKY_CMD_CONDITIONAL:
    return runConditional(r, c, stream);
  case THUNKY_CMD_WHILE:
    return runWhile(r, c, stream);
  case THUNKY_CMD_ASYNC_START:
  case THUNKY_CMD_ASYNC_DONE: {
    const char *why = NULL;
    bool ok = c->kind == THUNKY_CMD_ASYNC_START
                  ? thunkyAsyncStart(&r->async, s->plan, c, runRegion, r, &why)
                  : thunkyAsyncDone(&r->async, s->plan, c, runRegion, r, &why);
    return ok || (why && fail(r, c, "%s", why));
  }
  case THUNKY_CMD_OPAQUE:
    return fingerprint(r, c); /* resolve refused it outside fingerprint runs */
  case THUNKY_CMD_COLLECTIVE:
    return thunkyHostCollective(s->world, r->rank, s->plan, c->collective.collective, r->memory,
                                &r->why) ||
           failWith(r, c, &r->why);
  case THUNKY_CMD_COLLECTIVE_GROUP:
    return runList(r, c->group.list, stream);
  case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
    return runFusion(r, c, stream);
  case THUNKY_CMD_REPLICA_ID:
  case THUNKY_CMD_PARTITION_ID: {
    uint32_t p = s->config.partitions;
    uint32_t id = c->kind == THUNKY_CMD_REPLICA_ID ? r->rank / p : r->rank % p;
    memcpy(at(r, c->id.dst), &id, 4);
    return true;
  }
  case THUNKY_CMD_COUNT:
    break;
  }
  return fail(r, c, "unknown command kind %u", c->kind);
}

static bool runList(Rank *r, uint32_t list, uint32_t stream) {
  const ThunkyPlan *p = r->state->plan;
  ThunkyTimeline *timeline = r->state->config.timeline;
  ThunkyWriteLog *trace = r->state->config.writeLog;
  ThunkyRange range = p->lists[list];
  for (uint32_t i = 0; i < range.count; i++) {
    const ThunkyCommand *c = &p->commands[range.first + i];
    const char *why = thunkyRunStopped(&r->stop);
    if (why)
      return fail(r, c, "%s", why);
    if (!thunkyAsyncBefore(&r->async, p, c, runRegion, r))
      return false;
    if (!timeline && !trace) {
      if (!runCommand(r, c, stream))
        return false;
      continue;
    }
    uint64_t begin = timeline ? thunkyTimelineNow(timeline) : 0;
    bool ok = runCommand(r, c, stream);
    if (timeline)
      thunkyTimelineAdd(timeline, (ThunkyTraceEvent){c->thunk, r->rank, stream, begin,
                                                     thunkyTimelineNow(timeline)});
    uint64_t checksum;
    if (ok && trace && thunkyChecksumWrites(p, c->thunk, r->memory, &checksum))
      thunkyWriteLogAdd(trace, r->rank, (ThunkyWriteEvent){c->thunk, checksum});
    if (!ok)
      return false;
  }
  return true;
}

static void *runRank(void *opaque) {
  Rank *r = opaque;
  r->failed = !runList(r, 0, 0);
  if (!thunkyAsyncScheduleFinish(&r->async) && !r->failed) {
    r->failed = true;
    thunkyErrorf(&r->error, "rank %u: an async region was started and never done", r->rank);
  }
  /* Peers waiting at a collective for this rank must not wait forever. */
  if (r->failed)
    thunkyHostWorldAbort(r->state->world, r->rank);
  return NULL;
}

static bool run(void *opaque, ThunkyError *error) {
  HostState *s = opaque;
  uint32_t n = s->config.ranks, started = 0;
  pthread_t threads[n > 1 ? n : 1];
  ThunkyRunStop stop = thunkyRunStopStart(&s->config);
  for (uint32_t r = 0; r < n; r++) {
    s->ranks[r].failed = false;
    s->ranks[r].stop = stop;
    thunkyExchangesFree(&s->ranks[r].exchanges);
  }
  thunkyHostWorldReset(s->world); /* a failed run left it aborted */
  if (n == 1) {
    runRank(&s->ranks[0]);
  } else {
    for (; started < n; started++)
      if (pthread_create(&threads[started], NULL, runRank, &s->ranks[started]) != 0)
        break;
    if (started < n)
      thunkyHostWorldAbort(s->world, UINT32_MAX);
    for (uint32_t r = 0; r < started; r++)
      pthread_join(threads[r], NULL);
    if (started < n)
      return thunkyErrorf(error, "host: could not start a thread for rank %u", started);
  }
  /* The error of the rank that failed first, not "another rank failed". */
  uint32_t first = thunkyHostWorldFirstFailed(s->world);
  if (first < n && s->ranks[first].failed) {
    *error = s->ranks[first].error;
    return false;
  }
  for (uint32_t r = 0; r < n; r++)
    if (s->ranks[r].failed) {
      *error = s->ranks[r].error;
      return false;
    }
  return true;
}

static bool sent(void *opaque, uint32_t rank, uint64_t *digest) {
  HostState *s = opaque;
  *digest = s->ranks[rank].exchanges.sent;
  return true;
}

const ThunkyBackendOps thunkyHostBackend = {"host", create, write, read, run,
                                            destroy, NULL, sent};
