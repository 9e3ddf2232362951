/*===- plan_build.c - from a GpuExecutableProto to a plan ------------------===*
 *
 * The model (thunky-c/format/Executable.h) reads and checks the executable; the
 * plan takes its allocations, parameters and outputs, then its thunks as
 * commands (plan_thunks.c). Backends trust what they are given.
 *
 *===--------------------------------------------------------------------===*/
#include "plan_builder.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- allocations and the program's arrays -----------------------------------*/

static bool readAllocations(Builder *b) {
  const ThunkyExecutable *m = b->model;
  ThunkyPlan *p = b->plan;
  p->allocations = calloc(m->numAllocations + 1, sizeof *p->allocations);
  if (!p->allocations)
    return thunkyErrorf(b->error, "out of memory");
  p->numAllocations = m->numAllocations;
  for (uint32_t i = 0; i < m->numAllocations; i++) {
    const ThunkyExecutableAllocation *a = &m->allocations[i];
    p->allocations[i] = (ThunkyPlanAllocation){
        .size = a->size,
        .parameter = a->parameter,
        .isOutput = a->isOutput,
        .isThreadLocal = a->proto->is_thread_local};
  }
  p->globals = calloc(m->numConstants + 1, sizeof *p->globals);
  if (!p->globals)
    return thunkyErrorf(b->error, "out of memory");
  for (uint32_t i = 0; i < m->numConstants; i++) {
    const ThunkyExecutableConstant *c = &m->constants[i];
    if (c->allocation == THUNKY_NO_ALLOCATION) {
      ThunkyPlanGlobal *g = &p->globals[p->numGlobals++];
      if (!thunkyPlanKeepBytes(b, c->bytes.data, b->replayOnly ? 0 : c->bytes.size, &g->bytes) ||
          !thunkyPlanKeepString(b, c->proto->symbol_name, &g->symbol))
        return false;
      continue;
    }
    ThunkyPlanAllocation *a = &p->allocations[c->allocation];
    if (!thunkyPlanKeepBytes(b, c->bytes.data, b->replayOnly ? 0 : c->bytes.size, &a->constant) ||
        !thunkyPlanKeepString(b, c->proto->symbol_name, &a->symbol))
      return false;
    a->isConstant = true;
  }
  return true;
}

/* The array `shape` describes, living at the start of allocation `a`. */
static bool describeArray(Builder *b, const Xla__ShapeProto *shape, uint32_t a,
                          const char *what, ThunkyPlanArray *out) {
  uint64_t size = b->plan->allocations[a].size;
  *out = (ThunkyPlanArray){.slice = {a, 0, size}};
  if (!shape)
    return true; /* raw bytes: the whole allocation */
  uint32_t bytes = thunkyElementBytes(shape->element_type);
  if (!bytes || shape->n_tuple_shapes || shape->n_dimensions > 8)
    return thunkyErrorf(b->error, "%s: its shape is not an array of a whole-byte type", what);
  out->elementType = shape->element_type;
  out->rank = (uint32_t)shape->n_dimensions;
  __uint128_t total = bytes;
  for (size_t d = 0; d < shape->n_dimensions; d++) {
    if (shape->dimensions[d] < 0)
      return thunkyErrorf(b->error, "%s: dimension %zu is negative", what, d);
    out->dims[d] = shape->dimensions[d];
    total *= (uint64_t)shape->dimensions[d];
  }
  if (total > size)
    return thunkyErrorf(b->error, "%s: its shape needs %llu bytes, allocation %u has %" PRIu64,
                        what, (unsigned long long)total, a, size);
  out->slice.size = (uint64_t)total;
  return true;
}

static bool readArrays(Builder *b) {
  const ThunkyExecutable *m = b->model;
  ThunkyPlan *p = b->plan;
  p->parameters = calloc(m->numParameters + 1, sizeof *p->parameters);
  p->outputs = calloc(m->numOutputs + 1, sizeof *p->outputs);
  if (!p->parameters || !p->outputs)
    return thunkyErrorf(b->error, "out of memory");
  char what[64];
  for (uint32_t i = 0; i < m->numParameters; i++) {
    const ThunkyExecutableAllocation *a = &m->allocations[m->parameters[i]];
    /* A tuple parameter's index table holds its leaves' device addresses,
     * which XLA writes itself: the caller gives the leaves. */
    if (a->shape && (a->shape->n_tuple_shapes || a->shape->element_type == THUNKY_TYPE_TUPLE))
      continue;
    snprintf(what, sizeof what, "parameter %" PRId64, a->parameter);
    if (!describeArray(b, a->shape, m->parameters[i], what, &p->parameters[p->numParameters++]))
      return false;
  }
  for (uint32_t i = 0; i < m->numOutputs; i++) {
    snprintf(what, sizeof what, "output %u", i);
    if (!describeArray(b, m->outputs[i].shape, m->outputs[i].allocation, what,
                       &p->outputs[p->numOutputs++]))
      return false;
  }
  return true;
}

/*--- the plan -----------------------------------------------------------------*/

#define VEC(field, counter) \
  (Vec) { (void **)&plan->field, &plan->counter, 0, sizeof *plan->field }

/* Counts past what a run could simulate are taken as not recorded. */
static void recordLayout(ThunkyPlan *plan, const Xla__Gpu__GpuExecutableProto *exe) {
  const Xla__HloModuleProtoWithConfig *hlo = exe->hlo_module_with_config;
  const Xla__HloModuleConfigProto *config = hlo ? hlo->config : NULL;
  if (!config || config->replica_count < 1 || config->num_partitions < 1 ||
      config->replica_count > 65536 || config->num_partitions > 65536 ||
      config->replica_count * config->num_partitions > 65536)
    return;
  plan->replicaCount = (uint32_t)config->replica_count;
  plan->numPartitions = (uint32_t)config->num_partitions;
}

/* Computation streams before communication streams, each kind by id. */
static uint64_t streamKey(ThunkyPlanStream s) {
  return ((uint64_t)s.communication << 32) | s.id;
}

static int compareStreams(const void *a, const void *b) {
  uint64_t x = streamKey(*(const ThunkyPlanStream *)a), y = streamKey(*(const ThunkyPlanStream *)b);
  return (x > y) - (x < y);
}

static uint32_t streamIndexOf(const ThunkyPlan *plan, ThunkyPlanStream s) {
  uint32_t lo = 0, hi = plan->numStreams;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (streamKey(plan->streams[mid]) <= streamKey(s))
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* plan->streams from the async starts, and each start's index into it. */
static bool indexStreams(Builder *b) {
  ThunkyPlan *plan = b->plan;
  uint32_t starts = 0;
  for (uint32_t i = 0; i < plan->numCommands; i++)
    starts += plan->commands[i].kind == THUNKY_CMD_ASYNC_START;
  if (!starts)
    return true;
  plan->streams = malloc(starts * sizeof *plan->streams);
  if (!plan->streams)
    return thunkyErrorf(b->error, "out of memory");
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    if (c->kind == THUNKY_CMD_ASYNC_START)
      plan->streams[plan->numStreams++] =
          (ThunkyPlanStream){c->asyncStart.stream, c->asyncStart.communication};
  }
  qsort(plan->streams, starts, sizeof *plan->streams, compareStreams);
  uint32_t distinct = 0;
  for (uint32_t i = 0; i < starts; i++)
    if (!distinct || compareStreams(&plan->streams[i], &plan->streams[distinct - 1]))
      plan->streams[distinct++] = plan->streams[i];
  plan->numStreams = distinct;
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    ThunkyCommand *c = &plan->commands[i];
    if (c->kind == THUNKY_CMD_ASYNC_START)
      c->asyncStart.streamIndex = streamIndexOf(
          plan, (ThunkyPlanStream){c->asyncStart.stream, c->asyncStart.communication});
  }
  return true;
}

static bool create(const void *data, size_t size, const ThunkyLimits *limits, bool replayOnly,
                   ThunkyPlan **out, ThunkyError *error) {
  *out = NULL;
  ThunkyExecutable *model;
  if (!thunkyExecutableOpen(data, size, limits, &model, error))
    return false;
  ThunkyPlan *plan = calloc(1, sizeof *plan);
  Builder b = {.plan = plan, .model = model, .exe = model->proto, .error = error,
               .moduleBinary = UINT32_MAX, .replayOnly = replayOnly};
  /* The plan owns its kept bytes from the start, so that destroying a
   * half-built one frees them. */
  bool ok = (plan && (plan->storage = b.kept = thunkyArenaCreate())) ||
            thunkyErrorf(error, "out of memory");
  if (ok) {
    b.commands = VEC(commands, numCommands);
    b.lists = VEC(lists, numLists);
    b.slices = VEC(slices, numSlices);
    b.collectives = VEC(collectives, numCollectives);
    b.collectiveBuffers = VEC(collectiveBuffers, numCollectiveBuffers);
    b.groups = VEC(groups, numGroups);
    b.ids = VEC(ids, numIds);
    b.kernels = VEC(kernels, numKernels);
    b.params = VEC(params, numParams);
    b.binaries = VEC(binaries, numBinaries);
    b.customCalls = VEC(customCalls, numCustomCalls);
    b.gemms = VEC(gemms, numGemms);
    b.thunks = VEC(thunks, numThunks);
    b.accesses = VEC(accesses, numAccesses);
    b.windows = VEC(windows, numWindows);
    b.windowStarts = VEC(windowStarts, numWindowStarts);
    b.tmas = VEC(tmas, numTmas);
    b.works = VEC(works, numWorks);
    ok = thunkyPlanPush(&b.lists) != NULL || thunkyErrorf(error, "out of memory"); /* the entry */
    b.currentThunk = UINT32_MAX;
    ok = ok && readAllocations(&b) && readArrays(&b) && thunkyPlanBuildEntry(&b) &&
         indexStreams(&b);
    /* Counted as the thunks were read. */
    plan->numAsyncSlots = model->numAsyncSlots;
    plan->maxDepth = model->maxDepth;
    plan->moduleBinary = b.moduleBinary;
    recordLayout(plan, model->proto);
  }
  if (!ok)
    thunkyPlanDestroy(plan);
  thunkyHashMapDestroy(&b.binaryIndex);
  thunkyHloLaunchesDestroy(b.launches);
  thunkyExecutableDestroy(model);
  if (ok)
    *out = plan;
  return ok;
}

bool thunkyPlanCreate(const void *data, size_t size, const ThunkyLimits *limits, ThunkyPlan **out,
                      ThunkyError *error) {
  return create(data, size, limits, false, out, error);
}

bool thunkyPlanCreateForReplay(const void *data, size_t size, const ThunkyLimits *limits,
                               ThunkyPlan **out, ThunkyError *error) {
  return create(data, size, limits, true, out, error);
}

void thunkyPlanDestroy(ThunkyPlan *plan) {
  if (!plan)
    return;
  thunkyArenaDestroy(plan->storage);
  free(plan->allocations), free(plan->parameters), free(plan->outputs);
  free(plan->commands), free(plan->lists), free(plan->slices), free(plan->collectives);
  free(plan->collectiveBuffers), free(plan->groups), free(plan->ids), free(plan->kernels);
  free(plan->params), free(plan->binaries), free(plan->customCalls), free(plan->gemms), free(plan->thunks);
  free(plan->accesses), free(plan->globals), free(plan->streams), free(plan->windows);
  free(plan->windowStarts), free(plan->tmas);
  free(plan->works);
  free(plan);
}

void thunkyPlanRecordedLayout(const ThunkyPlan *plan, bool ranksGiven, bool partitionsGiven,
                              uint32_t *ranks, uint32_t *partitions) {
  uint32_t recorded = plan->numPartitions;
  uint64_t all = (uint64_t)plan->replicaCount * recorded;
  if (!recorded || partitionsGiven || all > 4096)
    return;
  if (!ranksGiven)
    *ranks = (uint32_t)all;
  if (*ranks % recorded == 0)
    *partitions = recorded;
}

ThunkyNpyArray thunkyPlanArrayShape(const ThunkyPlanArray *a) {
  ThunkyNpyArray shape = {.elementType = a->elementType, .rank = a->elementType ? a->rank : 1,
                          .size = a->slice.size};
  memcpy(shape.dims, a->dims, sizeof a->dims);
  if (!a->elementType)
    shape.dims[0] = (int64_t)a->slice.size;
  return shape;
}

uint32_t thunkyPlanBranch(const ThunkyCommand *c, const uint8_t *index) {
  uint32_t n = c->conditional.branches.count;
  if (c->conditional.index.size == 1)
    return index[0] ? 0 : 1;
  int32_t i;
  memcpy(&i, index, 4);
  return i >= 0 && (uint32_t)i < n ? (uint32_t)i : n - 1;
}

uint32_t thunkyPlanAllocationOf(const ThunkyPlan *plan, uint32_t allocation) {
  /* A window's buffer is in an earlier window or the executable's. */
  while (allocation >= plan->numAllocations)
    allocation = plan->windows[allocation - plan->numAllocations].buffer.allocation;
  return allocation;
}

/* A fusion's window: its byte offset from the loop the config names. */
static int64_t configOffset(const ThunkyPlanWindow *w, const ThunkyLoopFrame *loops) {
  const ThunkyLoopFrame *loop = loops;
  for (uint32_t k = 0; loop && k < w->loopIndex; k++)
    loop = loop->outer;
  uint64_t iteration = loop && w->loopIndex != UINT32_MAX ? loop->iteration : 0;
  /* Past int64 the clamp decides, as it would for the exact value. */
  int64_t moved, offset;
  if (__builtin_mul_overflow((int64_t)(iteration > INT64_MAX ? INT64_MAX : iteration),
                             w->byteStride, &moved))
    moved = w->byteStride < 0 ? INT64_MIN : INT64_MAX;
  if (__builtin_add_overflow(w->byteOffset, moved, &offset))
    offset = moved < 0 ? INT64_MIN : INT64_MAX;
  return offset;
}

bool thunkyPlanWindowSlice(const ThunkyPlan *plan, uint32_t window, const ThunkyLoopFrame *loops,
                           ThunkyWindowRead read, void *context, ThunkyPlanSlice *at) {
  const ThunkyPlanWindow *w = &plan->windows[window];
  *at = (ThunkyPlanSlice){w->buffer.allocation, w->buffer.offset, w->size};
  if (!w->sliced)
    return true;
  if (!w->starts.count) {
    int64_t offset = configOffset(w, loops);
    uint64_t last = w->buffer.size - w->size; /* the planner checked the window fits */
    at->offset += offset < 0 ? 0 : (uint64_t)offset > last ? last : (uint64_t)offset;
    return true;
  }
  /* Each start within its dimension keeps the window in its buffer (the
   * planner checked the largest does). */
  for (uint32_t d = 0; d < w->starts.count; d++) {
    const ThunkyPlanWindowStart *start = &plan->windowStarts[w->starts.first + d];
    int64_t value = start->value;
    uint64_t bits = 0;
    if (start->scalar.size) {
      if (!read(context, start->scalar, &bits))
        return false;
      value = (int64_t)bits;
    }
    at->offset += (value < 0                       ? 0
                   : (uint64_t)value > start->last ? start->last
                                                   : (uint64_t)value) *
                  start->byteStride;
  }
  return true;
}

bool thunkyPlanLoopMayRun(const ThunkyCommand *c, uint64_t iteration, uint64_t limit,
                          ThunkyError *error) {
  if (!limit)
    return true;
  if (c->loop.tripCount >= 0 && (uint64_t)c->loop.tripCount > limit)
    return thunkyErrorf(error, "the loop runs %lld iterations, past --max-iterations (%llu)",
                        (long long)c->loop.tripCount, (unsigned long long)limit);
  if (iteration >= limit)
    return thunkyErrorf(error, "the loop ran past --max-iterations (%llu)",
                        (unsigned long long)limit);
  return true;
}

bool thunkyPlanRunLoop(const ThunkyCommand *c, uint64_t limit, const ThunkyLoopFrame **loops,
                       const ThunkyLoopWalk *walk, ThunkyError *limitError) {
  ThunkyLoopFrame frame = {0, *loops};
  bool ok = true, more = true;
  limitError->message[0] = 0;
  *loops = &frame;
  for (; ok; frame.iteration++) {
    if (c->loop.tripCount >= 0 && frame.iteration == (uint64_t)c->loop.tripCount)
      break;
    /* A known trip count runs the body without the condition, as XLA's
     * WhileThunk does: no wait for the predicate. */
    if (c->loop.tripCount < 0 && (!(ok = walk->runList(walk->context, c->loop.condition) &&
                                         walk->predicate(walk->context, &more)) ||
                                  !more))
      break;
    ok = thunkyPlanLoopMayRun(c, frame.iteration, limit, limitError) &&
         walk->runList(walk->context, c->loop.body);
  }
  *loops = frame.outer;
  return ok;
}

void thunkyPlanThunkName(const ThunkyPlan *plan, uint32_t thunk, char *out, size_t size) {
  if (!plan || thunk >= plan->numThunks)
    snprintf(out, size, "executable");
  else
    thunkyThunkName(thunk, (const char *)plan->thunks[thunk].annotation.data,
                    plan->thunks[thunk].annotation.size, plan->thunks[thunk].id, out, size);
}
