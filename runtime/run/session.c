/*===- session.c - running executables through opaque handles -----------===*
 *
 * thunky-c/runtime/Session.h: a plan, the options of its runs and, after a run,
 * the backend's memory, behind one handle for bindings in other languages.
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "thunky-c/runtime/Session.h"

#include "thunky-c/base/Limits.h"
#include "thunky-c/format/Container.h"
#include "thunky-c/runtime/Compare.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/RunOptions.h"
#include "thunky-c/runtime/Runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ThunkySession {
  volatile int interrupt; /* the config's: thunkySessionInterrupt sets it */
  uint32_t ranks, partitions; /* as set; 0: the plan's (thunkyPlanRecordedLayout), else 1 */
  ThunkyPlan *plan;
  ThunkyRegistry *registry;
  ThunkyLimits limits;
  ThunkyRunConfig config;
  const ThunkyBackendOps *backend;
  void *state; /* the last run's backend memory, or NULL */
  uint32_t stateRanks;
};

ThunkySession *thunkySessionCreate(void) {
  ThunkySession *s = calloc(1, sizeof *s);
  if (!s || !(s->registry = thunkyRegistryCreate())) {
    free(s);
    return NULL;
  }
  s->limits = thunkyLimitsDefault();
  s->backend = &thunkyHostBackend;
  s->config = (ThunkyRunConfig){.ranks = 1, .partitions = 1, .maxIterations = 1000000,
                                .maxHostMemory = thunkyDefaultHostMemory(),
                                .registry = s->registry, .interrupt = &s->interrupt};
  return s;
}

static void dropState(ThunkySession *s) {
  if (s->state)
    s->backend->destroy(s->state);
  s->state = NULL;
}

void thunkySessionDestroy(ThunkySession *s) {
  if (!s)
    return;
  dropState(s);
  thunkyPlanDestroy(s->plan);
  thunkyRegistryDestroy(s->registry);
  free(s);
}

/* The ranks and partitions of the next run: those set, else the plan's. */
static void layout(ThunkySession *s) {
  s->config.ranks = s->ranks ? s->ranks : 1;
  s->config.partitions = s->partitions ? s->partitions : 1;
  if (s->plan)
    thunkyPlanRecordedLayout(s->plan, s->ranks, s->partitions, &s->config.ranks,
                             &s->config.partitions);
}

bool thunkySessionSet(ThunkySession *s, const char *name, const char *value,
                      ThunkyError *error) {
  const ThunkyRunOption *option = thunkyRunOptionFind(name, strlen(name));
  uint64_t n = 0;
  ThunkyRunConfig *c = &s->config;
  if (!option || !(option->flags & THUNKY_OPTION_SESSION)) {
    const char *near = thunkyRunOptionNearest(name, THUNKY_OPTION_SESSION);
    char names[512] = "";
    for (uint32_t i = 0, used = 0; thunkyRunOptionAt(i) && used < sizeof names; i++)
      if (thunkyRunOptionAt(i)->flags & THUNKY_OPTION_SESSION)
        used += (uint32_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                   thunkyRunOptionAt(i)->name);
    return near ? thunkyErrorf(error, "unknown option '%s'; did you mean %s?", name, near)
                : thunkyErrorf(error, "unknown option '%s' (%s)", name, names);
  }
  if (!value)
    return thunkyErrorf(error, "%s needs a value", name);
  if (!thunkyRunOptionParse(option, "", value, &n, error))
    return false;
  switch (option->id) {
  case THUNKY_OPTION_BACKEND: { /* host, cuda, symbolic; "model" predicts, runs nothing */
    if (n == 3)
      return thunkyErrorf(error, "backend: 'model' runs nothing; a session runs on host, cuda "
                                 "or symbolic (thunky-run --model predicts)");
    const ThunkyBackendOps *chosen = (const ThunkyBackendOps *[]){
        &thunkyHostBackend, &thunkyCudaBackend, &thunkySymbolicBackend}[n];
    if (chosen != s->backend)
      dropState(s);
    s->backend = chosen;
    c->fingerprint |= chosen == &thunkySymbolicBackend;
    break;
  }
  case THUNKY_OPTION_KERNELS: /* registered, fingerprint; "symbolic": backend symbolic */
    if (n == 2 && s->backend != &thunkySymbolicBackend)
      dropState(s), s->backend = &thunkySymbolicBackend;
    c->fingerprint = n != 0 || s->backend == &thunkySymbolicBackend;
    break;
  case THUNKY_OPTION_RANKS:
  case THUNKY_OPTION_PARTITIONS:
    *(option->id == THUNKY_OPTION_RANKS ? &s->ranks : &s->partitions) = (uint32_t)n;
    layout(s);
    break;
  case THUNKY_OPTION_MAX_ITERATIONS:
    c->maxIterations = n;
    break;
  case THUNKY_OPTION_MAX_HOST_MEMORY:
    c->maxHostMemory = n;
    break;
  case THUNKY_OPTION_SCRATCH_BYTE:
    c->scratchByte = (uint8_t)n;
    break;
  case THUNKY_OPTION_SCHEDULE:
    c->asyncAtDone = n == 1;
    break;
  case THUNKY_OPTION_TIMEOUT:
    c->timeoutSeconds = (uint32_t)n;
    break;
  case THUNKY_OPTION_LIBRARY:
    return thunkyRegistryLoadLibrary(s->registry, value, error);
  default: /* the limits the next load takes */
    return thunkyLimitsSet(&s->limits, name, value, error);
  }
  return true;
}

bool thunkySessionLoad(ThunkySession *s, const void *data, size_t size, ThunkyError *error) {
  ThunkyPlan *plan = NULL;
  if (!thunkyInputExpectExecutable(data, size, NULL, error) ||
      !thunkyPlanCreate(data, size, &s->limits, &plan, error))
    return false;
  dropState(s);
  thunkyPlanDestroy(s->plan);
  s->plan = plan;
  layout(s);
  return true;
}

uint32_t thunkySessionRanks(const ThunkySession *s) { return s->config.ranks; }
uint32_t thunkySessionPartitions(const ThunkySession *s) { return s->config.partitions; }

uint32_t thunkySessionCount(const ThunkySession *s, bool outputs) {
  return !s->plan ? 0 : outputs ? s->plan->numOutputs : s->plan->numParameters;
}

bool thunkySessionArray(const ThunkySession *s, bool output, uint32_t index,
                        int32_t *elementType, uint32_t *rank, int64_t *dims, uint64_t *bytes) {
  if (index >= thunkySessionCount(s, output))
    return false;
  const ThunkyPlanArray *a = output ? &s->plan->outputs[index] : &s->plan->parameters[index];
  ThunkyNpyArray shape = thunkyPlanArrayShape(a);
  *elementType = shape.elementType;
  *rank = shape.rank;
  memcpy(dims, shape.dims, sizeof shape.dims);
  *bytes = shape.size;
  return true;
}

uint32_t thunkySessionThunks(const ThunkySession *s) { return s->plan ? s->plan->numThunks : 0; }
uint32_t thunkySessionAllocations(const ThunkySession *s) {
  return s->plan ? s->plan->numAllocations : 0;
}

/* One array per parameter of `plan`: views of the caller's bytes (not
 * owned: data is not freed), or random ones (owned) when inputs is NULL. */
static bool makeInputs(const ThunkyPlan *plan, const void *const *inputs, const uint64_t *sizes,
                       uint32_t count, uint64_t seed, ThunkyNpyArray **out, ThunkyError *error) {
  if (inputs && count != plan->numParameters)
    return thunkyErrorf(error, "the executable takes %u parameter%s; %u given",
                        plan->numParameters, plan->numParameters == 1 ? "" : "s", count);
  ThunkyNpyArray *arrays = calloc(plan->numParameters + 1, sizeof *arrays);
  if (!(*out = arrays))
    return thunkyErrorf(error, "out of memory");
  for (uint32_t i = 0; i < plan->numParameters; i++) {
    uint64_t want = plan->parameters[i].slice.size;
    if (!inputs) {
      if (!thunkyRandomInput(&plan->parameters[i], seed, i, &arrays[i], error))
        return false;
    } else if (sizes[i] != want) {
      return thunkyErrorf(error, "input %u holds %llu bytes, parameter %u %llu", i,
                          (unsigned long long)sizes[i], i, (unsigned long long)want);
    } else {
      arrays[i] = (ThunkyNpyArray){.data = (uint8_t *)(uintptr_t)inputs[i], .size = sizes[i]};
    }
  }
  return true;
}

static void freeInputs(const ThunkyPlan *plan, ThunkyNpyArray *arrays, bool owned) {
  for (uint32_t i = 0; owned && arrays && i < plan->numParameters; i++)
    thunkyNpyArrayDestroy(&arrays[i]);
  free(arrays);
}

/* Whether `plan` can run under `options`' backend and configuration: a
 * comparison runs both plans under its first side's. */
static bool checkReady(const ThunkyPlan *plan, const ThunkySession *options, ThunkyError *error) {
  const ThunkyRunConfig *c = &options->config;
  if (!plan)
    return thunkyErrorf(error, "the session holds no executable (thunkySessionLoad)");
  if (c->ranks % c->partitions)
    return thunkyErrorf(error, "ranks %u cannot be split into partitions of %u", c->ranks,
                        c->partitions);
  return options->backend != &thunkyHostBackend || thunkyHostMemoryCheck(plan, c, error);
}

void thunkySessionInterrupt(ThunkySession *s) {
  __atomic_store_n(&s->interrupt, 1, __ATOMIC_RELAXED);
}

bool thunkySessionRun(ThunkySession *s, const void *const *inputs, const uint64_t *sizes,
                      uint32_t count, uint64_t seed, ThunkyError *error) {
  __atomic_store_n(&s->interrupt, 0, __ATOMIC_RELAXED);
  if (!checkReady(s->plan, s, error))
    return false;
  if (s->backend == &thunkySymbolicBackend)
    return thunkyErrorf(error, "backend symbolic holds no bytes to read: compare with it");
  dropState(s);
  ThunkyNpyArray *arrays = NULL;
  bool ok = makeInputs(s->plan, inputs, sizes, count, seed, &arrays, error) &&
            s->backend->create(s->plan, &s->config, &s->state, error);
  ThunkyInputs given = {arrays, !inputs, seed};
  ok = ok && thunkyWriteInputs(s->backend, s->state, s->plan, s->config.ranks, &given, error) &&
       s->backend->run(s->state, error);
  freeInputs(s->plan, arrays, !inputs);
  if (!ok)
    dropState(s);
  s->stateRanks = s->config.ranks;
  return ok;
}

bool thunkySessionReadOutput(const ThunkySession *s, uint32_t rank, uint32_t output, void *out,
                             uint64_t size, ThunkyError *error) {
  if (!s->state)
    return thunkyErrorf(error, "no run to read outputs of (thunkySessionRun)");
  if (rank >= s->stateRanks || output >= s->plan->numOutputs)
    return thunkyErrorf(error, "no output %u of rank %u: the run had %u output(s) on %u rank(s)",
                        output, rank, s->plan->numOutputs, s->stateRanks);
  if (size != s->plan->outputs[output].slice.size)
    return thunkyErrorf(error, "output %u is %llu bytes, not %llu", output,
                        (unsigned long long)s->plan->outputs[output].slice.size,
                        (unsigned long long)size);
  return s->backend->read(s->state, rank, s->plan->outputs[output].slice, out, error);
}

int thunkySessionCompare(ThunkySession *a, const char *nameA, const ThunkySession *b,
                         const char *nameB, const void *const *inputs, const uint64_t *sizes,
                         uint32_t count, uint64_t seed, char **report, ThunkyError *error) {
  *report = NULL;
  __atomic_store_n(&a->interrupt, 0, __ATOMIC_RELAXED);
  if (!checkReady(a->plan, a, error) || !checkReady(b->plan, a, error))
    return 2;
  ThunkyRunSide sideA = {nameA, a->plan, a->config}, sideB = {nameB, b->plan, a->config};
  sideA.config.undefinedInitial = sideB.config.undefinedInitial = true;
  /* Every parameter is a symbol: no inputs are made (or read). */
  bool symbolic = a->backend == &thunkySymbolicBackend;
  ThunkyNpyArray *arrays = NULL;
  size_t length = 0;
  FILE *out = open_memstream(report, &length);
  int status = 2;
  if (!out)
    thunkyErrorf(error, "out of memory");
  else if (symbolic && !(arrays = calloc(a->plan->numParameters + 1, sizeof *arrays)))
    thunkyErrorf(error, "out of memory");
  else if (symbolic || makeInputs(a->plan, inputs, sizes, count, seed, &arrays, error))
    status = thunkyCompareRuns(a->backend, &sideA, &sideB,
                               &(ThunkyInputs){arrays, !inputs && !symbolic, seed}, out, error);
  if (out)
    fclose(out);
  freeInputs(a->plan, arrays, !inputs && !symbolic);
  if (status == 2) {
    free(*report);
    *report = NULL;
  }
  return status;
}

bool thunkyDescribeContainer(const void *data, size_t size, char *out, size_t outSize,
                             ThunkyError *error) {
  ThunkyContainer c;
  if (!thunkyInputExpectExecutable(data, size, NULL, error) ||
      !thunkyContainerCreate(data, size, NULL, &c, error))
    return false;
  thunkyContainerDescribe(&c, out, outSize);
  thunkyContainerDestroy(&c);
  return true;
}

bool thunkyContainerSwapExecutable(const void *like, size_t likeSize, const void *executable,
                                   size_t executableSize, uint8_t **out, size_t *outSize,
                                   ThunkyError *error) {
  ThunkyContainer outer, inner;
  *out = NULL, *outSize = 0;
  if (!thunkyInputExpectExecutable(like, likeSize, "the container", error) ||
      !thunkyContainerCreate(like, likeSize, NULL, &outer, error))
    return thunkyErrorContext(error, "the container");
  if (!thunkyInputExpectExecutable(executable, executableSize, "the executable", error) ||
      !thunkyContainerCreate(executable, executableSize, NULL, &inner, error)) {
    thunkyContainerDestroy(&outer);
    return thunkyErrorContext(error, "the executable");
  }
  ThunkyContainer swapped = outer;
  swapped.executable = inner.executable;
  ThunkyBuffer written = {0};
  bool ok = thunkyContainerWrite(&swapped, outer.compression, &written, error);
  thunkyContainerDestroy(&inner);
  thunkyContainerDestroy(&outer);
  if (!ok) {
    thunkyBufferDestroy(&written);
    return false;
  }
  *out = written.data, *outSize = written.size;
  return true;
}

void thunkyFree(void *memory) { free(memory); }
