/*===- bench/dispatch.c - host-runtime dispatch cost per command ----------===*
 *
 *   bench-dispatch N [--kernels K] [--args A] [--min-ms T] [--exe FILE.pb [--ranks R]]
 *   bench-dispatch --exe FILE.pb [--ranks R] [--min-ms T]
 *
 * Builds a ThunkyPlan by hand: N kernel commands in the entry list, each with
 * A arguments (2) of its own slices, naming K distinct kernels
 * (min(N, 4096)) round robin, every kernel the same empty host function
 * registered in a ThunkyRegistry. Creates the host backend (1 rank) and
 * runs the plan, in turn with a bare C loop calling the empty function N
 * times through a volatile function pointer with the same arguments, until
 * 2T ms (T = 200) and at least 5 pairs of runs have passed. Prints one
 * `key value` pair a line, medians over the runs:
 *
 *   thunky_ns_per_cmd  host backend: ns per kernel command
 *   bare_ns_per_call   bare loop: ns per call
 *   ratio              the two divided
 *   thunky_min_ns_per_cmd, bare_min_ns_per_call  the fastest runs
 *   pairs              runs of each
 *   create_ns          thunkyHostBackend.create (resolving K kernels), once
 *
 * With --exe, also (without N: only) plans FILE.pb with thunkyPlanCreate,
 * registers the empty function under every kernel name and an empty custom
 * call under every target, and runs that plan on R simulated ranks (1):
 * exe_commands, exe_kernels, exe_create_ns, exe_ns_per_cmd (memsets, copies,
 * collectives and the like do their real work there), or exe_error (and
 * exit status 1 when there was no N). Then the same plan as a fingerprint
 * run (thunky-c/runtime/Check.h: nothing registered, every kernel and custom call
 * hashes what it reads): fp_ns_per_cmd, fp_ratio (to exe_ns_per_cmd), and
 * fp_read_bytes, the bytes those thunks read once each (loops not counted).
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "thunky-c/runtime/Runtime.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Timeline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compareDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The kernel: does nothing. Never inlined, and only ever called through a
 * pointer (the registry's, or the bare loop's volatile one). */
__attribute__((noinline)) static bool emptyKernel(const ThunkyKernelCall *call, void *userData,
                                                  ThunkyError *error) {
  (void)call, (void)userData, (void)error;
  __asm__ volatile("" ::: "memory");
  return true;
}

__attribute__((noinline)) static bool emptyCustomCall(const ThunkyCustomCallArgs *call,
                                                      void *userData, ThunkyError *error) {
  (void)call, (void)userData, (void)error;
  return true;
}

static bool (*volatile kernelPointer)(const ThunkyKernelCall *, void *, ThunkyError *) =
    emptyKernel;

typedef struct Samples {
  double *ns; /* per-run nanoseconds */
  size_t count, capacity;
} Samples;

static void addSample(Samples *s, double ns) {
  if (s->count == s->capacity) {
    s->capacity = s->capacity ? 2 * s->capacity : 64;
    s->ns = realloc(s->ns, s->capacity * sizeof *s->ns);
    if (!s->ns) {
      fprintf(stderr, "bench-dispatch: out of memory\n");
      exit(1);
    }
  }
  s->ns[s->count++] = ns;
}

static double median(Samples *s) {
  qsort(s->ns, s->count, sizeof *s->ns, compareDouble);
  return s->ns[s->count / 2];
}

/* Runs a created backend until minNs and 5 runs have passed (one warm-up
 * run first); the median run's ns, or a negative number on failure. */
static double timeBackend(void *state, uint64_t minNs, ThunkyError *error) {
  if (!thunkyHostBackend.run(state, error))
    return -1;
  Samples s = {0};
  uint64_t start = thunkyMonotonicNs();
  while (s.count < 5 || thunkyMonotonicNs() - start < minNs) {
    uint64_t begin = thunkyMonotonicNs();
    if (!thunkyHostBackend.run(state, error)) {
      free(s.ns);
      return -1;
    }
    addSample(&s, (double)(thunkyMonotonicNs() - begin));
  }
  double m = median(&s);
  free(s.ns);
  return m;
}

/* The bare loop: the empty kernel called n times through the volatile
 * pointer, with arguments like the backend's. */
typedef struct BareLoop {
  void **args;
  uint64_t *sizes;
  ThunkyKernelCall call;
  bool ok;
} BareLoop;

static void bareLoopInit(BareLoop *b, uint32_t numArgs) {
  static uint8_t memory[64];
  b->args = calloc(numArgs + 1, sizeof *b->args);
  b->sizes = calloc(numArgs + 1, sizeof *b->sizes);
  if (!b->args || !b->sizes) {
    fprintf(stderr, "bench-dispatch: out of memory\n");
    exit(1);
  }
  for (uint32_t i = 0; i < numArgs; i++)
    b->args[i] = memory, b->sizes[i] = sizeof memory;
  b->call = (ThunkyKernelCall){.name = "k0", .args = b->args, .argSizes = b->sizes,
                               .numArgs = numArgs, .grid = {1, 1, 1}, .block = {1, 1, 1},
                               .rank = 0, .ranks = 1};
  b->ok = true;
}

static uint64_t bareLoopRun(BareLoop *b, uint32_t n) {
  ThunkyError error;
  error.message[0] = 0;
  uint64_t begin = thunkyMonotonicNs();
  for (uint32_t i = 0; i < n; i++)
    b->ok &= kernelPointer(&b->call, NULL, &error);
  return thunkyMonotonicNs() - begin;
}

/* The backend and the bare loop, one run of each in turn (so that both see
 * the same machine when others share it), until minNs has passed twice and
 * at least 5 pairs ran. Medians and minimums of each; false if a run failed. */
typedef struct Timings {
  double thunkyMedian, bareMedian, thunkyMin, bareMin;
  size_t pairs;
} Timings;

static bool timeInterleaved(void *state, uint32_t n, uint32_t numArgs, uint64_t minNs,
                            Timings *out, ThunkyError *error) {
  BareLoop bare;
  bareLoopInit(&bare, numArgs);
  bool ok = thunkyHostBackend.run(state, error); /* warm-up */
  bareLoopRun(&bare, n);
  Samples t = {0}, b = {0};
  uint64_t start = thunkyMonotonicNs();
  while (ok && (t.count < 5 || thunkyMonotonicNs() - start < 2 * minNs)) {
    uint64_t begin = thunkyMonotonicNs();
    ok = thunkyHostBackend.run(state, error);
    addSample(&t, (double)(thunkyMonotonicNs() - begin));
    addSample(&b, (double)bareLoopRun(&bare, n));
  }
  if (ok) {
    out->pairs = t.count;
    out->thunkyMedian = median(&t), out->bareMedian = median(&b);
    out->thunkyMin = t.ns[0], out->bareMin = b.ns[0]; /* sorted by median() */
  }
  if (!bare.ok)
    fprintf(stderr, "bench-dispatch: the empty kernel failed?\n");
  free(t.ns), free(b.ns), free(bare.args), free(bare.sizes);
  return ok;
}

/* The hand-built plan: N kernel commands over one allocation. */
typedef struct HandPlan {
  ThunkyPlan plan;
  ThunkyPlanAllocation allocation;
  ThunkyRange list;
  char **names;
} HandPlan;

static bool buildHandPlan(HandPlan *h, uint32_t n, uint32_t kernels, uint32_t numArgs) {
  memset(h, 0, sizeof *h);
  ThunkyPlan *p = &h->plan;
  h->allocation = (ThunkyPlanAllocation){.size = 64u * numArgs, .parameter = -1};
  p->allocations = &h->allocation, p->numAllocations = 1;
  p->commands = calloc(n ? n : 1, sizeof *p->commands);
  p->slices = calloc((size_t)n * numArgs + 1, sizeof *p->slices);
  p->kernels = calloc(kernels + 1, sizeof *p->kernels);
  p->thunks = calloc(n ? n : 1, sizeof *p->thunks);
  h->names = calloc(kernels + 1, sizeof *h->names);
  if (!p->commands || !p->slices || !p->kernels || !p->thunks || !h->names)
    return false;
  for (uint32_t k = 0; k < kernels; k++) {
    char name[32];
    snprintf(name, sizeof name, "empty_fusion_%u", k);
    if (!(h->names[k] = strdup(name)))
      return false;
    p->kernels[k] = (ThunkyPlanKernel){
        .name = {(const uint8_t *)h->names[k], strlen(h->names[k])}, .binary = UINT32_MAX};
  }
  for (uint32_t i = 0; i < n; i++) {
    ThunkyCommand *c = &p->commands[i];
    c->kind = THUNKY_CMD_KERNEL;
    c->thunk = i;
    c->kernel.kernel = i % kernels;
    c->kernel.args = (ThunkyRange){i * numArgs, numArgs};
    for (uint32_t a = 0; a < numArgs; a++)
      p->slices[(size_t)i * numArgs + a] = (ThunkyPlanSlice){0, 64u * a, 64};
    for (int d = 0; d < 3; d++)
      c->kernel.grid[d] = c->kernel.block[d] = 1;
  }
  h->list = (ThunkyRange){0, n};
  p->lists = &h->list, p->numLists = 1;
  p->numCommands = n, p->numSlices = n * numArgs, p->numKernels = kernels, p->numThunks = n;
  p->maxDepth = 1;
  return true;
}

static void freeHandPlan(HandPlan *h) {
  for (uint32_t k = 0; h->names && k < h->plan.numKernels; k++)
    free(h->names[k]);
  free(h->names);
  free(h->plan.commands), free(h->plan.slices), free(h->plan.kernels), free(h->plan.thunks);
}

/* An --exe failure: a line for bench/run on stdout, and the reason on stderr. */
static void exeError(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void exeError(const char *fmt, ...) {
  char line[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  printf("exe_error %s", line);
  fprintf(stderr, "bench-dispatch: %s", line);
}

/* The bytes every kernel, custom call and opaque thunk reads, once. */
static uint64_t fingerprintReadBytes(const ThunkyPlan *plan) {
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    if (c->kind != THUNKY_CMD_KERNEL && c->kind != THUNKY_CMD_CUSTOM_CALL &&
        c->kind != THUNKY_CMD_OPAQUE)
      continue;
    ThunkyRange r = plan->thunks[c->thunk].accesses;
    for (uint32_t a = 0; a < r.count; a++)
      if (plan->accesses[r.first + a].access & THUNKY_ACCESS_READ)
        bytes += plan->accesses[r.first + a].slice.size;
  }
  return bytes;
}

/* The plan again, every kernel and custom call a fingerprint. */
static bool runFingerprint(const ThunkyPlan *plan, uint32_t ranks, uint64_t minNs,
                           double emptyNs) {
  ThunkyRegistry *registry = thunkyRegistryCreate();
  ThunkyRunConfig config = {.ranks = ranks, .partitions = 1, .maxIterations = 1000000,
                            .registry = registry, .fingerprint = true};
  ThunkyError error = {{0}};
  void *state = NULL;
  bool ok = registry && thunkyHostBackend.create(plan, &config, &state, &error);
  double ns = ok ? timeBackend(state, minNs, &error) : -1;
  if (ns < 0) {
    exeError("fingerprint run: %s\n", error.message);
  } else {
    printf("fp_ns_per_cmd %.3f\n", ns / (plan->numCommands ? plan->numCommands : 1));
    printf("fp_ratio %.3f\n", emptyNs > 0 ? ns / emptyNs : 0.0);
    printf("fp_read_bytes %llu\n", (unsigned long long)fingerprintReadBytes(plan));
  }
  if (state)
    thunkyHostBackend.destroy(state);
  thunkyRegistryDestroy(registry);
  return ns >= 0;
}

/* --exe: the generated executable's own plan, every kernel and custom call
 * empty. Reports exe_error rather than failing. */
static bool runExecutable(const char *path, uint32_t ranks, uint64_t minNs) {
  ThunkyBuffer file = {0};
  ThunkyPlan *plan = NULL;
  ThunkyError error = {{0}};
  if (!thunkyBufferReadFile(&file, path, &error)) {
    exeError("%s\n", error.message);
    return false;
  }
  bool planned = thunkyPlanCreate(file.data, file.size, NULL, &plan, &error);
  thunkyBufferDestroy(&file);
  if (!planned) {
    exeError("plan: %s\n", error.message);
    return false;
  }
  ThunkyRegistry *registry = thunkyRegistryCreate();
  char name[4096];
  for (uint32_t k = 0; k < plan->numKernels; k++) {
    snprintf(name, sizeof name, "%.*s", (int)plan->kernels[k].name.size,
             (const char *)plan->kernels[k].name.data);
    thunkyRegistryAddHostKernel(registry, name, emptyKernel, NULL);
  }
  for (uint32_t c = 0; c < plan->numCustomCalls; c++) {
    snprintf(name, sizeof name, "%.*s", (int)plan->customCalls[c].target.size,
             (const char *)plan->customCalls[c].target.data);
    thunkyRegistryAddCustomCall(registry, "host", name, emptyCustomCall, NULL);
  }
  ThunkyRunConfig config = {.ranks = ranks, .partitions = 1, .maxIterations = 1000000,
                            .registry = registry};
  void *state = NULL;
  bool ok = false;
  double emptyNs = -1;
  uint64_t begin = thunkyMonotonicNs();
  if (!thunkyHostBackend.create(plan, &config, &state, &error)) {
    exeError("create: %s\n", error.message);
  } else {
    uint64_t created = thunkyMonotonicNs() - begin;
    double ns = timeBackend(state, minNs, &error);
    printf("exe_commands %u\n", plan->numCommands);
    printf("exe_kernels %u\n", plan->numKernels);
    printf("exe_create_ns %llu\n", (unsigned long long)created);
    if (ns < 0)
      exeError("run: %s\n", error.message);
    else
      printf("exe_ns_per_cmd %.3f\n", ns / (plan->numCommands ? plan->numCommands : 1));
    ok = ns >= 0;
    emptyNs = ns;
    thunkyHostBackend.destroy(state);
  }
  ok = ok && runFingerprint(plan, ranks, minNs, emptyNs);
  thunkyRegistryDestroy(registry);
  thunkyPlanDestroy(plan);
  return ok;
}

static void usage(void) {
  fprintf(stderr,
          "usage: bench-dispatch N [--kernels K] [--args A] [--min-ms T] [--exe FILE.pb "
          "[--ranks R]]\n"
          "       bench-dispatch --exe FILE.pb [--ranks R] [--min-ms T]\n");
  exit(2);
}

int main(int argc, char **argv) {
  long long n = -1, kernels = -1, numArgs = 2, minMs = 200, ranks = 1;
  const char *exe = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--kernels") && i + 1 < argc)
      kernels = atoll(argv[++i]);
    else if (!strcmp(a, "--args") && i + 1 < argc)
      numArgs = atoll(argv[++i]);
    else if (!strcmp(a, "--min-ms") && i + 1 < argc)
      minMs = atoll(argv[++i]);
    else if (!strcmp(a, "--ranks") && i + 1 < argc)
      ranks = atoll(argv[++i]);
    else if (!strcmp(a, "--exe") && i + 1 < argc)
      exe = argv[++i];
    else if (a[0] != '-' && n < 0)
      n = atoll(a);
    else
      usage();
  }
  if (minMs < 0 || ranks < 1 || ranks > 1024)
    usage();
  uint64_t minNs = (uint64_t)minMs * 1000000u;
  if (n < 0 && exe)
    return runExecutable(exe, (uint32_t)ranks, minNs) ? 0 : 1;
  if (n < 1 || n > (1 << 28) || numArgs < 0 || numArgs > 64)
    usage();
  if (kernels < 0)
    kernels = n < 4096 ? n : 4096;
  if (kernels < 1 || kernels > n)
    usage();

  HandPlan h;
  if (!buildHandPlan(&h, (uint32_t)n, (uint32_t)kernels, (uint32_t)numArgs)) {
    fprintf(stderr, "bench-dispatch: out of memory building the plan\n");
    return 1;
  }
  ThunkyRegistry *registry = thunkyRegistryCreate();
  for (uint32_t k = 0; k < (uint32_t)kernels; k++)
    if (!registry || !thunkyRegistryAddHostKernel(registry, h.names[k], emptyKernel, NULL)) {
      fprintf(stderr, "bench-dispatch: out of memory registering kernels\n");
      return 1;
    }
  ThunkyRunConfig config = {.ranks = 1, .partitions = 1, .maxIterations = 1,
                            .registry = registry};
  void *state = NULL;
  ThunkyError error = {{0}};
  uint64_t begin = thunkyMonotonicNs();
  if (!thunkyHostBackend.create(&h.plan, &config, &state, &error)) {
    fprintf(stderr, "bench-dispatch: create: %s\n", error.message);
    return 1;
  }
  uint64_t created = thunkyMonotonicNs() - begin;
  Timings t;
  if (!timeInterleaved(state, (uint32_t)n, (uint32_t)numArgs, minNs, &t, &error)) {
    fprintf(stderr, "bench-dispatch: run: %s\n", error.message);
    return 1;
  }
  double perCommand = t.thunkyMedian / (double)n, perCall = t.bareMedian / (double)n;
  printf("commands %lld\n", n);
  printf("kernels %lld\n", kernels);
  printf("thunky_ns_per_cmd %.3f\n", perCommand);
  printf("bare_ns_per_call %.3f\n", perCall);
  printf("ratio %.3f\n", perCall > 0 ? perCommand / perCall : 0.0);
  printf("thunky_min_ns_per_cmd %.3f\n", t.thunkyMin / (double)n);
  printf("bare_min_ns_per_call %.3f\n", t.bareMin / (double)n);
  printf("pairs %zu\n", t.pairs);
  printf("create_ns %llu\n", (unsigned long long)created);
  fflush(stdout);
  thunkyHostBackend.destroy(state);
  thunkyRegistryDestroy(registry);
  freeHandPlan(&h);

  if (exe)
    runExecutable(exe, (uint32_t)ranks, minNs);
  return 0;
}
