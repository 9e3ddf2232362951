/*===- cuda_backend.c - the CUDA backend: setting up, copying, running ----===*
 *
 * `create` does everything that can fail before anything runs: it checks
 * the plan against the configuration (custom calls registered, collectives
 * fitting the world, gemms cuBLASLt can run), then per local rank takes the
 * device's primary context (shared with the CUDA runtime, which NCCL and
 * cuBLASLt use), allocates and zeroes every allocation, uploads constants,
 * loads the modules its kernels need, and makes its streams and events;
 * then the communicators, and in CUDA graph mode the graphs. Local rank r
 * runs on device r of those the process sees (CUDA_VISIBLE_DEVICES).
 *
 * Several processes: each is given processRank and processCount (thunky-run
 * reads them from THUNKY_RANK and THUNKY_WORLD_SIZE; this backend reads no
 * such variables) and drives the same number of local ranks; NCCL's id
 * goes through config->ncclIdFile (see nccl_id.c, which reads
 * THUNKY_NCCL_ID_TIMEOUT). Slices given to write and read name local ranks.
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include "cuda_state.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/runtime/Timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void destroy(void *opaque);

/* calloc that means NULL only when out of memory, even for no elements. */
static void *zeroed(size_t count, size_t size) { return calloc(count ? count : 1, size); }

static char *copyString(ThunkyBytes bytes) {
  char *s = malloc(bytes.size + 1);
  if (s) {
    if (bytes.size)
      memcpy(s, bytes.data, bytes.size);
    s[bytes.size] = '\0';
  }
  return s;
}

/*--- what needs no GPU -----------------------------------------------------*/

static bool checkConfig(ThunkyCudaState *s, ThunkyError *error) {
  ThunkyRunConfig *c = &s->config;
  if (!thunkyRunConfigNormalize(c, error))
    return thunkyErrorContext(error, "cuda");
  s->ranks = c->ranks, s->world = c->ranks * c->processCount, s->partitions = c->partitions;
  return true;
}

static bool resolveCalls(ThunkyCudaState *s, ThunkyError *error) {
  const ThunkyPlan *plan = s->plan;
  s->calls = zeroed(plan->numCustomCalls, sizeof *s->calls);
  s->callTargets = zeroed(plan->numCustomCalls, sizeof *s->callTargets);
  s->sliceSizes = zeroed(plan->numSlices, sizeof *s->sliceSizes);
  if (!s->calls || !s->callTargets || !s->sliceSizes)
    return thunkyErrorf(error, "cuda: out of memory");
  for (uint32_t i = 0; i < plan->numSlices; i++)
    s->sliceSizes[i] = plan->slices[i].size;
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    if (c->kind == THUNKY_CMD_OPAQUE) {
      char name[160];
      thunkyCudaThunkName(s, c->thunk, name, sizeof name);
      ThunkyBytes why = plan->thunks[c->thunk].unsupported;
      return thunkyErrorf(error, "cuda: %s: %s is not supported by the cuda backend yet", name,
                          why.size ? (const char *)why.data : plan->thunks[c->thunk].kind);
    }
    if (c->kind != THUNKY_CMD_CUSTOM_CALL || s->calls[c->customCall.call])
      continue;
    uint32_t index = c->customCall.call;
    ThunkyBytes target = plan->customCalls[index].target;
    s->calls[index] = s->config.registry
                          ? thunkyRegistryFind(s->config.registry, "cuda", false, target)
                          : NULL;
    if (!s->calls[index]) {
      char name[160];
      thunkyCudaThunkName(s, c->thunk, name, sizeof name);
      return thunkyErrorf(error,
                          "cuda: custom call target '%.*s' of %s is not registered for the "
                          "cuda backend",
                          (int)target.size, (const char *)target.data, name);
    }
    if (!(s->callTargets[index] = copyString(target)))
      return thunkyErrorf(error, "cuda: out of memory");
  }
  return true;
}

/*--- one rank's device -----------------------------------------------------*/

static bool allocate(ThunkyCudaState *s, ThunkyCudaRank *r, ThunkyError *error) {
  const ThunkyPlan *plan = s->plan;
  const ThunkyCudaDriver *cu = &s->cu;
  for (uint32_t a = 0; a < plan->numAllocations; a++) {
    const ThunkyPlanAllocation *alloc = &plan->allocations[a];
    if (!alloc->size)
      continue;
    char where[64];
    snprintf(where, sizeof where, "allocation %u (%llu bytes)", a, (unsigned long long)alloc->size);
    /* Zeroed, so that runs compare bit for bit with the host backend even
     * where a program reads what it never wrote. */
    size_t constant = alloc->constant.size < alloc->size ? alloc->constant.size : alloc->size;
    if (!THUNKY_CU_AT(cu, cuMemAlloc, (&r->memory[a], alloc->size), where, error) ||
        !THUNKY_CU_AT(cu, cuMemsetD8, (r->memory[a], 0, alloc->size), where, error) ||
        (constant && !THUNKY_CU_AT(cu, cuMemcpyHtoD, (r->memory[a], alloc->constant.data, constant),
                                   where, error)))
      return false;
  }
  return true;
}

/* Every slice's address, once constants have found their globals, and the
 * parameter tables that launches pass. */
static void locateSlices(ThunkyCudaState *s, ThunkyCudaRank *r) {
  const ThunkyPlan *plan = s->plan;
  thunkyCudaPlaceSlices(plan, r, (ThunkyRange){0, plan->numSlices});
  for (uint32_t i = 0; i < plan->numSlices; i++)
    r->params[i] = &r->slices[i];
  /* The driver only reads parameters: a constant's bytes are passed as the
   * plan keeps them. */
  for (uint32_t i = 0; i < plan->numParams; i++) {
    const ThunkyPlanParam *param = &plan->params[i];
    r->packed[i] = param->slice != UINT32_MAX ? (void *)&r->slices[param->slice]
                                              : (void *)(uintptr_t)param->bytes.data;
  }
  /* An argument with a TMA descriptor is passed as its map, by value, and
   * so is a packing spec's relocation of it (XLA copies the whole map). */
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    if (c->kind != THUNKY_CMD_KERNEL)
      continue;
    const ThunkyPlanKernel *k = &plan->kernels[c->kernel.kernel];
    for (uint32_t t = k->tmas.first; t < k->tmas.first + k->tmas.count; t++) {
      uint32_t slice = c->kernel.args.first + plan->tmas[t].arg;
      r->params[slice] = &r->maps[t];
      for (uint32_t p = k->params.first; k->packed && p < k->params.first + k->params.count; p++)
        if (plan->params[p].slice == slice)
          r->packed[p] = &r->maps[t];
    }
  }
}

/* Loads binary `index`, which `user` (a thunk name) is the first to need. */
static bool loadModule(ThunkyCudaState *s, ThunkyCudaRank *r, uint32_t index, const char *user,
                       ThunkyError *error) {
  const ThunkyPlanBinary *binary = &s->plan->binaries[index];
  /* cuModuleLoadData takes PTX as a NUL-terminated string. */
  char *ptx = binary->isPtx ? copyString(binary->bytes) : NULL;
  if (binary->isPtx && !ptx)
    return thunkyErrorf(error, "cuda: out of memory");
  char log[2048] = "";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, (void *)(uintptr_t)sizeof log};
  CUresult result = s->cu.cuModuleLoadDataEx(
      &r->modules[index], ptx ? (const void *)ptx : binary->bytes.data, 2, options, values);
  free(ptx);
  if (result == CUDA_SUCCESS)
    return true;
  char where[sizeof log + 256];
  snprintf(where, sizeof where, "binary %u (%s of %zu bytes) of %s%s%s", index,
           binary->isPtx ? "PTX" : "cubin", binary->bytes.size, user, log[0] ? ": " : "", log);
  return thunkyCudaFail(&s->cu, result, "cuModuleLoadDataEx", where, error);
}

/* Resolves kernel `k`, loading its module first if no kernel has yet. */
static bool resolveKernel(ThunkyCudaState *s, ThunkyCudaRank *r, uint32_t k, uint32_t thunk,
                          ThunkyError *error) {
  const ThunkyPlanKernel *kernel = &s->plan->kernels[k];
  char name[160];
  thunkyCudaThunkName(s, thunk, name, sizeof name);
  if (kernel->binary == UINT32_MAX)
    return thunkyErrorf(error,
                        "cuda: kernel '%.*s' of %s has no binary: the executable carries "
                        "neither a cubin nor PTX",
                        (int)kernel->name.size, (const char *)kernel->name.data, name);
  if (!r->modules[kernel->binary] && !loadModule(s, r, kernel->binary, name, error))
    return false;
  char *symbol = copyString(kernel->name);
  if (!symbol)
    return thunkyErrorf(error, "cuda: out of memory");
  CUresult result =
      s->cu.cuModuleGetFunction(&r->functions[k], r->modules[kernel->binary], symbol);
  bool ok = result == CUDA_SUCCESS;
  if (result == CUDA_ERROR_NOT_FOUND)
    thunkyErrorf(error, "cuda: kernel '%s' not found in its module (%s)", symbol, name);
  else if (!ok)
    thunkyCudaCheck(s, result, "cuModuleGetFunction", thunk, error);
  free(symbol);
  return ok;
}

static bool loadKernels(ThunkyCudaState *s, ThunkyCudaRank *r, ThunkyError *error) {
  const ThunkyPlan *plan = s->plan;
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    if (c->kind != THUNKY_CMD_KERNEL)
      continue;
    uint32_t k = c->kernel.kernel;
    if (!r->functions[k] && !resolveKernel(s, r, k, c->thunk, error))
      return false;
    /* Dynamic shared memory past the default limit (48 KiB) must be
     * asked for, once per function, for its largest launch. */
    int allowed = 0;
    if (!THUNKY_CU(s, cuFuncGetAttribute,
                   (&allowed, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, r->functions[k]),
                   c->thunk, error))
      return false;
    if (c->kernel.sharedBytes > (uint32_t)allowed &&
        !THUNKY_CU(s, cuFuncSetAttribute,
                   (r->functions[k], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    (int)c->kernel.sharedBytes),
                   c->thunk, error))
      return false;
  }
  return true;
}

/* XLA places each constant in the executable module's global of the
 * constant's name, and fills it (service/gpu/gpu_executable.cc:
 * ResolveConstantGlobals): kernels may read the global directly, not
 * through an argument. A constant without such a global keeps its own
 * allocation, filled in allocate(). */
static bool bindConstants(ThunkyCudaState *s, ThunkyCudaRank *r, ThunkyError *error) {
  const ThunkyPlan *plan = s->plan;
  const ThunkyCudaDriver *cu = &s->cu;
  CUmodule module = plan->moduleBinary != UINT32_MAX ? r->modules[plan->moduleBinary] : NULL;
  for (uint32_t a = 0; module && a < plan->numAllocations; a++) {
    const ThunkyPlanAllocation *alloc = &plan->allocations[a];
    if (!alloc->isConstant || !alloc->symbol.size)
      continue;
    CUdeviceptr global = 0;
    size_t bytes = 0;
    const char *name = (const char *)alloc->symbol.data; /* the plan NUL-terminates it */
    CUresult result = cu->cuModuleGetGlobal(&global, &bytes, module, name);
    if (result == CUDA_ERROR_NOT_FOUND)
      continue;
    char where[320];
    snprintf(where, sizeof where, "constant '%s' (allocation %u)", name, a);
    if (result != CUDA_SUCCESS)
      return thunkyCudaFail(cu, result, "cuModuleGetGlobal", where, error);
    if (bytes < alloc->size)
      return thunkyErrorf(error,
                          "cuda: the module's global for %s has %zu bytes, the allocation %llu",
                          where, bytes, (unsigned long long)alloc->size);
    if ((alloc->constant.size &&
         !THUNKY_CU_AT(cu, cuMemcpyHtoD, (global, alloc->constant.data, alloc->constant.size),
                       where, error)) ||
        (r->memory[a] && !THUNKY_CU_AT(cu, cuMemFree, (r->memory[a]), where, error)))
      return false;
    r->memory[a] = global, r->isGlobal[a] = true;
  }
  /* A constant of no allocation lives in its global alone; XLA fills it
   * all the same. */
  for (uint32_t g = 0; module && g < plan->numGlobals; g++) {
    const ThunkyPlanGlobal *k = &plan->globals[g];
    CUdeviceptr global = 0;
    size_t bytes = 0;
    const char *name = (const char *)k->symbol.data;
    CUresult result = k->symbol.size ? cu->cuModuleGetGlobal(&global, &bytes, module, name)
                                     : CUDA_ERROR_NOT_FOUND;
    if (result == CUDA_ERROR_NOT_FOUND)
      continue; /* no kernel can read it by name */
    char where[320];
    snprintf(where, sizeof where, "constant '%s' (in no allocation)", name);
    if (result != CUDA_SUCCESS)
      return thunkyCudaFail(cu, result, "cuModuleGetGlobal", where, error);
    if (bytes < k->bytes.size)
      return thunkyErrorf(error, "cuda: the module's global for %s has %zu bytes, the constant %zu",
                          where, bytes, k->bytes.size);
    if (k->bytes.size &&
        !THUNKY_CU_AT(cu, cuMemcpyHtoD, (global, k->bytes.data, k->bytes.size), where, error))
      return false;
  }
  return true;
}

static bool makeStreams(ThunkyCudaState *s, ThunkyCudaRank *r, ThunkyError *error) {
  const uint32_t none = THUNKY_CUDA_NO_THUNK;
  /* Non-blocking: the legacy default stream, which custom calls or other
   * libraries may use, must not serialize with the plan's streams. */
  if (!THUNKY_CU(s, cuStreamCreate, (&r->main, CU_STREAM_NON_BLOCKING), none, error))
    return false;
  for (uint32_t i = 0; i < s->plan->numStreams; i++)
    if (!THUNKY_CU(s, cuStreamCreate, (&r->streams[i], CU_STREAM_NON_BLOCKING), none, error))
      return false;
  for (uint32_t i = 0; i < s->plan->numAsyncSlots; i++)
    if (!THUNKY_CU(s, cuEventCreate, (&r->started[i], CU_EVENT_DISABLE_TIMING), none, error) ||
        !THUNKY_CU(s, cuEventCreate, (&r->done[i], CU_EVENT_DISABLE_TIMING), none, error))
      return false;
  if (s->config.timeline && !s->tracer) { /* the gate's */
    if (!(r->marks = calloc(THUNKY_CUDA_MARKS, sizeof *r->marks)) ||
        !(r->marked = calloc(THUNKY_CUDA_MARKS / 2, sizeof *r->marked)))
      return thunkyErrorf(error, "cuda: out of memory");
    if (!THUNKY_CU(s, cuEventCreate, (&r->origin, CU_EVENT_DEFAULT), none, error) ||
        !THUNKY_CU(s, cuStreamCreate, (&r->releaser, CU_STREAM_NON_BLOCKING), none, error) ||
        !THUNKY_CU(s, cuMemAlloc, (&r->gate, 4), none, error) ||
        !THUNKY_CU(s, cuMemsetD8, (r->gate, 0, 4), none, error))
      return false;
    for (uint32_t i = 0; i < THUNKY_CUDA_MARKS; i++)
      if (!THUNKY_CU(s, cuEventCreate, (&r->marks[i], CU_EVENT_DEFAULT), none, error))
        return false;
  }
  void *pinned = NULL;
  if (!THUNKY_CU(s, cuMemHostAlloc, (&pinned, 8, 0), none, error))
    return false;
  r->pinned = pinned;
  return true;
}

static bool setUpRank(ThunkyCudaState *s, ThunkyCudaRank *r, ThunkyError *error) {
  const ThunkyPlan *plan = s->plan;
  const uint32_t none = THUNKY_CUDA_NO_THUNK;
  CUcontext context = NULL;
  if (!THUNKY_CU(s, cuDeviceGet, (&r->device, (int)r->index), none, error) ||
      !THUNKY_CU(s, cuDevicePrimaryCtxRetain, (&context, r->device), none, error))
    return false;
  r->context = context;
  if (!THUNKY_CU(s, cuCtxSetCurrent, (context), none, error))
    return false;
  /* Past the allocations, the windows of dynamic-slice fusions, each set
   * when its fusion runs. */
  r->memory = zeroed(plan->numAllocations + plan->numWindows, sizeof *r->memory);
  r->slices = zeroed(plan->numSlices, sizeof *r->slices);
  r->params = zeroed(plan->numSlices, sizeof *r->params);
  r->packed = zeroed(plan->numParams, sizeof *r->packed);
  /* CUDA wants a map 64-byte aligned. */
  r->maps = aligned_alloc(64, (plan->numTmas + 1) * sizeof *r->maps);
  r->isGlobal = zeroed(plan->numAllocations, sizeof *r->isGlobal);
  r->pointers = zeroed(plan->numSlices, sizeof *r->pointers);
  r->modules = zeroed(plan->numBinaries, sizeof *r->modules);
  r->functions = zeroed(plan->numKernels, sizeof *r->functions);
  r->streams = zeroed(s->plan->numStreams, sizeof *r->streams);
  r->started = zeroed(plan->numAsyncSlots, sizeof *r->started);
  r->done = zeroed(plan->numAsyncSlots, sizeof *r->done);
  r->comms = zeroed(s->numGroupings, sizeof *r->comms);
  if (!r->memory || !r->slices || !r->params || !r->packed || !r->maps || !r->isGlobal ||
      !r->pointers || !r->modules || !r->functions || !r->streams || !r->started || !r->done ||
      !r->comms)
    return thunkyErrorf(error, "cuda: out of memory");
  /* The zeroing and uploads ran on the legacy stream, which the plan's
   * non-blocking streams do not wait for. */
  if (!allocate(s, r, error) || !loadKernels(s, r, error) || !bindConstants(s, r, error))
    return false;
  locateSlices(s, r);
  return makeStreams(s, r, error) && (!plan->numGemms || thunkyCudaInitGemms(s, r, error)) &&
         THUNKY_CU(s, cuCtxSynchronize, (), none, error);
}

/* After a timeout, whether the rank's streams still run work once its
 * communicators were aborted (which ends NCCL's kernels): a kernel that
 * never ends. Freeing its memory, modules or context may wait for that work
 * (cuMemFree "may perform implicit synchronization", cuda.h), so they are
 * left to the process's exit, which ends it. */
static bool stillRunning(ThunkyCudaState *s, ThunkyCudaRank *r) {
  const ThunkyCudaDriver *cu = &s->cu;
  if (!atomic_load(&s->timedOut) || !r->context || !r->main ||
      cu->cuCtxSetCurrent(r->context) != CUDA_SUCCESS)
    return false;
  uint64_t deadline = thunkyMonotonicNs() + 1000000000u; /* a second for aborts to land */
  for (;;) {
    bool busy = cu->cuStreamQuery(r->main) == CUDA_ERROR_NOT_READY;
    for (uint32_t i = 0; i < s->plan->numStreams && r->streams && !busy; i++)
      busy = r->streams[i] && cu->cuStreamQuery(r->streams[i]) == CUDA_ERROR_NOT_READY;
    if (!busy || thunkyMonotonicNs() > deadline)
      return busy;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
}

/* Frees what setUpRank made, as far as it got; on the device only when no
 * work still runs there. */
static void freeRank(ThunkyCudaState *s, ThunkyCudaRank *r) {
  const ThunkyCudaDriver *cu = &s->cu;
  const ThunkyPlan *plan = s->plan;
  if (!stillRunning(s, r) && r->context && cu->cuCtxSetCurrent(r->context) == CUDA_SUCCESS) {
    for (size_t g = 0; r->graphs && g < s->config.graphs->numGraphs; g++)
      if (r->graphs[g])
        cu->cuGraphExecDestroy(r->graphs[g]);
    if (s->hasCublasLt)
      thunkyCudaFreeGemms(s, r);
    if (r->pinned)
      cu->cuMemFreeHost(r->pinned);
    /* Streams before the events their work records and waits on: a
     * driver may free an event at once, while a stream's last work, past
     * a failure, still names it (the simulated driver does). */
    for (uint32_t i = 0; i < s->plan->numStreams && r->streams; i++)
      if (r->streams[i])
        cu->cuStreamDestroy(r->streams[i]);
    if (r->main)
      cu->cuStreamDestroy(r->main);
    if (r->releaser)
      cu->cuStreamDestroy(r->releaser);
    if (r->gate)
      cu->cuMemFree(r->gate);
    if (r->origin)
      cu->cuEventDestroy(r->origin);
    for (uint32_t i = 0; r->marks && i < THUNKY_CUDA_MARKS; i++)
      if (r->marks[i])
        cu->cuEventDestroy(r->marks[i]);
    for (uint32_t i = 0; i < plan->numAsyncSlots && r->started && r->done; i++) {
      if (r->started[i])
        cu->cuEventDestroy(r->started[i]);
      if (r->done[i])
        cu->cuEventDestroy(r->done[i]);
    }
    for (uint32_t i = 0; i < plan->numBinaries && r->modules; i++)
      if (r->modules[i])
        cu->cuModuleUnload(r->modules[i]);
    for (uint32_t i = 0; i < plan->numAllocations && r->memory; i++)
      if (r->memory[i] && !(r->isGlobal && r->isGlobal[i])) /* a global goes with its module */
        cu->cuMemFree(r->memory[i]);
    cu->cuCtxSetCurrent(NULL);
    cu->cuDevicePrimaryCtxRelease(r->device);
  }
  free(r->memory), free(r->slices), free(r->params), free(r->packed), free(r->isGlobal);
  free(r->pointers), free(r->maps);
  free(r->modules), free(r->functions), free(r->streams), free(r->started), free(r->done);
  free(r->comms);
  free(r->graphs);
  free(r->marks), free(r->marked);
  free(r->traced), free(r->owners), free(r->graphOwners);
}

/*--- the backend -----------------------------------------------------------*/

static bool setUp(ThunkyCudaState *s, ThunkyError *error) {
  const ThunkyPlan *plan = s->plan;
  if (!checkConfig(s, error) ||
      !thunkyCudaPlanGraphs(s, error) ||
      !resolveCalls(s, error) ||
      !thunkyCudaLoadDriver(&s->cu, error))
    return false;
  const uint32_t none = THUNKY_CUDA_NO_THUNK;
  int devices = 0;
  if (!THUNKY_CU(s, cuInit, (0), none, error) ||
      !THUNKY_CU(s, cuDeviceGetCount, (&devices), none, error))
    return false;
  if (s->ranks > (uint32_t)devices)
    return thunkyErrorf(error,
                        "cuda: %u ranks need a GPU each, and this process sees %d "
                        "(CUDA_VISIBLE_DEVICES?)",
                        s->ranks, devices);
  s->hostClock = s->cu.hostClockNs ? s->cu.hostClockNs : thunkyMonotonicNs;
  CUdevice first;
  if (s->config.timeline) {
    if (!THUNKY_CU(s, cuDeviceGet, (&first, 0), none, error) ||
        !THUNKY_CU(s, cuDeviceGetName, (s->deviceName, (int)sizeof s->deviceName, first), none,
                   error))
      return false;
    if (!thunkyCudaTracerCreate(s, error))
      return false;
    thunkyTimelineSetSource(s->config.timeline, s->deviceName, thunkyCudaTracerMethod(s));
  }
  if (!(s->rank = zeroed(s->ranks, sizeof *s->rank)))
    return thunkyErrorf(error, "cuda: out of memory");
  for (uint32_t i = 0; i < s->ranks; i++) {
    ThunkyCudaRank *r = &s->rank[i];
    r->index = i, r->global = s->config.processRank * s->ranks + i;
    r->lastThunk = THUNKY_CUDA_NO_THUNK;
    atomic_init(&r->finished, true);
  }
  if (plan->numCollectives) {
    if (!thunkyCudaLoadNccl(&s->nccl, error))
      return false;
    s->hasNccl = true;
    if (!thunkyCudaPlanCollectives(s, error))
      return false;
  }
  if (plan->numGemms) {
    if (!thunkyCudaLoadCublasLt(&s->lt, error))
      return false;
    s->hasCublasLt = true;
  }
  for (uint32_t i = 0; i < s->ranks; i++)
    if (!setUpRank(s, &s->rank[i], error))
      return s->world > 1 ? thunkyErrorContext(error, "rank %u", s->rank[i].global) : false;
  if (s->hasNccl) {
    if (!thunkyCudaShareNcclId(s, &s->ncclId, error))
      return false;
    bool joined = thunkyCudaForEachRank(s, thunkyCudaInitComms, error);
    thunkyCudaRetireNcclId(s);
    /* Communicators whose peers never joined can only be aborted. */
    if (!joined) {
      s->broken = true;
      return false;
    }
  }
  return !s->config.graphs || thunkyCudaForEachRank(s, thunkyCudaCaptureRank, error);
}

static bool create(const ThunkyPlan *plan, const ThunkyRunConfig *config, void **out,
                   ThunkyError *error) {
  *out = NULL;
  ThunkyCudaState *s = calloc(1, sizeof *s);
  if (!s)
    return thunkyErrorf(error, "cuda: out of memory");
  s->plan = plan;
  s->config = *config;
  if (config->fingerprint || config->asyncAtDone || config->writeLog) {
    free(s);
    return thunkyErrorf(error, "cuda: fingerprint runs, write logs and the async schedule "
                               "check run on the host backend only");
  }
  atomic_init(&s->stop, false);
  atomic_init(&s->failed, UINT32_MAX);
  atomic_init(&s->timedOut, false);
  uint32_t timeout = config->timeoutSeconds ? config->timeoutSeconds
                                            : THUNKY_CUDA_DEFAULT_TIMEOUT_S;
  s->timeoutNs = (uint64_t)timeout * 1000000000u;
  if (!setUp(s, error)) {
    destroy(s);
    return false;
  }
  *out = s;
  return true;
}

/* The device address of `slice` of local rank `rank`, checked, with the
 * rank's context current on this thread. */
static bool locate(ThunkyCudaState *s, uint32_t rank, ThunkyPlanSlice slice,
                   CUdeviceptr *address, ThunkyError *error) {
  const ThunkyPlan *plan = s->plan;
  if (rank >= s->ranks)
    return thunkyErrorf(error, "cuda: rank %u of only %u in this process", rank, s->ranks);
  if (slice.allocation >= plan->numAllocations ||
      slice.offset > plan->allocations[slice.allocation].size ||
      slice.size > plan->allocations[slice.allocation].size - slice.offset)
    return thunkyErrorf(error, "cuda: bytes [%llu, +%llu) of allocation %u are out of range",
                        (unsigned long long)slice.offset, (unsigned long long)slice.size,
                        slice.allocation);
  *address = thunkyCudaAddress(&s->rank[rank], slice);
  return THUNKY_CU(s, cuCtxSetCurrent, (s->rank[rank].context), THUNKY_CUDA_NO_THUNK, error);
}

static bool writeSlice(void *opaque, uint32_t rank, ThunkyPlanSlice slice, const void *data,
                       ThunkyError *error) {
  ThunkyCudaState *s = opaque;
  CUdeviceptr address;
  /* From pageable memory the copy may return before its DMA ends, on the
   * legacy stream, which the plan's non-blocking streams do not wait for. */
  return locate(s, rank, slice, &address, error) &&
         (!slice.size ||
          (THUNKY_CU(s, cuMemcpyHtoD, (address, data, slice.size), THUNKY_CUDA_NO_THUNK, error) &&
           THUNKY_CU(s, cuCtxSynchronize, (), THUNKY_CUDA_NO_THUNK, error)));
}

static bool readSlice(void *opaque, uint32_t rank, ThunkyPlanSlice slice, void *out,
                      ThunkyError *error) {
  ThunkyCudaState *s = opaque;
  CUdeviceptr address;
  return locate(s, rank, slice, &address, error) &&
         (!slice.size ||
          THUNKY_CU(s, cuMemcpyDtoH, (out, address, slice.size), THUNKY_CUDA_NO_THUNK, error));
}

/* A run with a timeline: the issue pass, then the device pass. */
static bool timedRun(ThunkyCudaState *s, ThunkyError *error) {
  if (!thunkyCudaForEachRank(s, thunkyCudaIssueRank, error))
    return false;
  if (!s->tracer)
    return thunkyCudaForEachRank(s, thunkyCudaTimeRank, error);
  if (!thunkyCudaTracerStart(s, error))
    return false;
  bool ran = thunkyCudaForEachRank(s, thunkyCudaTimeRank, error);
  ThunkyError finishing = {{0}};
  bool finished = thunkyCudaTracerFinish(s, ran ? error : &finishing);
  return ran && finished;
}

static bool run(void *opaque, ThunkyError *error) {
  ThunkyCudaState *s = opaque;
  if (s->broken)
    return thunkyErrorf(error, "cuda: an earlier run failed with collectives in flight; "
                               "destroy the backend and create it again");
  if (!s->config.timeline ? thunkyCudaForEachRank(s, thunkyCudaRunRank, error)
                          : timedRun(s, error))
    return true;
  /* Peers may wait forever in NCCL for a rank that stopped, and NCCL's
   * work for a deadline passed: from now on only aborting the
   * communicators (in destroy) is safe. */
  s->broken = s->hasNccl && (s->world > 1 || atomic_load(&s->timedOut));
  return false;
}

static void destroy(void *opaque) {
  ThunkyCudaState *s = opaque;
  if (!s)
    return;
  if (s->rank && s->hasNccl) {
    ThunkyError ignored;
    thunkyCudaForEachRank(s, thunkyCudaFreeComms, &ignored);
  }
  for (uint32_t i = s->rank ? s->ranks : 0; i-- > 0;)
    freeRank(s, &s->rank[i]);
  for (uint32_t i = 0; s->callTargets && i < s->plan->numCustomCalls; i++)
    free(s->callTargets[i]);
  free(s->callTargets);
  free(s->calls);
  free(s->sliceSizes);
  free(s->groupings);
  free(s->collectiveGrouping);
  free(s->capturable);
  free(s->graphStarting);
  thunkyCudaTracerDestroy(s);
  free(s->rank);
  free(s);
}

const ThunkyBackendOps thunkyCudaBackend = {"cuda",    create, writeSlice,
                                            readSlice, run,    destroy, NULL, NULL};
