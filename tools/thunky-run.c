/*===- thunky-run.c - run an XLA:GPU executable without XLA ---------------===*
 *
 *   thunky-run [options] EXECUTABLE [INPUT.npy ...]
 *
 * Plans the executable (a GpuExecutableProto in any container layering, or
 * a .mlir module when built with MLIR), feeds each parameter from a .npy
 * file (or seeded random bytes), runs it on the host reference backend or
 * on CUDA, and writes each output as a .npy file. --compare runs a second
 * executable on the same inputs and compares (docs/checking.md). Links no
 * MLIR: built beside thunky-translate, it exports a module through it.
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* isatty, fileno */

#include "thunky-c/runtime/Runtime.h"

#include "thunky-c/runtime/Compare.h"
#include "thunky-c/format/Container.h"
#include "thunky-c/runtime/Npy.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Schedule.h"
#include "thunky-c/Version.h"
#include "run_report.h"
#include "schedule_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef THUNKY_WITH_MLIR
#include "module_export.h"
#endif

static const char usage[] =
    "usage: thunky-run [options] EXECUTABLE [INPUT.npy ...]\n"
    "  EXECUTABLE             a GpuExecutableProto, bare or as JAX/XLA packed it"
#ifdef THUNKY_WITH_MLIR
    ",\n                         or an MLIR module (text or bytecode, whatever its name)"
#endif
    "\n"
    "  INPUT.npy              one per parameter, in order (every rank gets the same)\n"
    "  --seed N               no .npy inputs: seeded random bytes for each parameter\n"
    "                         (fingerprint runs without inputs: as with --seed 1)\n"
    "                         (f32/f64 in [-1, 1), pred 0 or 1)\n"
    "  --kernels=registered|fingerprint|symbolic\n"
    "                         host: what runs a thunk with no host implementation: an\n"
    "                         error (registered, the default), or a keyed hash of what it\n"
    "                         reads (fingerprint: docs/checking.md); symbolic: the\n"
    "                         fingerprint's model on terms, not bytes, for --compare,\n"
    "                         --check-async and --print, at any size, without inputs\n"
    "                         (--compare on fingerprints takes it when the bytes do not\n"
    "                         fit --max-host-memory)\n"
    "  --compare OTHER        run OTHER (an executable or module) on the same inputs and\n"
    "                         compare every output of every rank bit for bit; exit 0 same,\n"
    "                         1 different (naming the output and the first divergent\n"
    "                         thunk), 2 cannot prove (naming why) or error; without\n"
    "                         inputs, seeded ones, each rank its own (docs/checking.md)\n"
    "                         (model: predict OTHER too, and print the difference)\n"
    "  --check-async          host: run every async region at its start, then at its done, and\n"
    "                         compare as --compare does (a race shows as a difference)\n"
    "  --schedule start|done  host: when an async region runs (start, the default); a\n"
    "                         --compare runs both unless one is given\n"
    "  --scratch-byte N       host: fill scratch allocations with byte N (0-255) before\n"
    "                         running, not zeros: outputs that change read scratch\n"
    "                         bytes nothing wrote\n"
    "  --backend host|cuda|model\n"
    "                         where to run (host: the reference backend); model: no\n"
    "                         run, a prediction of where a step's time goes on a GPU\n"
    "                         (docs/schedule.md); an option for another backend is refused\n"
    "  --device FILE          model: the GPU, as `key = value` lines (default an H200)\n"
    "  --measured TRACE       model: thunk durations from a --trace of a cuda run, of this\n"
    "                         program or the one it was rewritten from (by XLA thunk id)\n"
    "  --loop-trips N         model: iterations of a while loop with no known trip count (1)\n"
    "  --branch N             model: the branch every conditional takes (default: its\n"
    "                         costliest)\n"
    "  --command-buffers      cuda, model: the CUDA graphs XLA's command buffers make,\n"
    "                         under the executable's own debug options (else JAX\n"
    "                         0.11.2's): cuda launches each, captured once (control flow\n"
    "                         and custom calls in them run thunk by thunk); model\n"
    "                         replays them and reports each graph and what broke them\n"
    "  --graph-min-size N     --command-buffers: graphs of N thunks or more\n"
    "                         (xla_gpu_graph_min_graph_size; default the executable's, else 5)\n"
    "  --graph-types LIST     --command-buffers: the thunk types graphs take,\n"
    "                         as xla_gpu_enable_command_buffer lists them (FUSION,CUBLAS,...;\n"
    "                         default the executable's, else JAX 0.11.2's)\n"
    "  --json FILE            model: the prediction as JSON\n"
    "  --svg FILE             model: the predicted timeline as an SVG picture\n"
    "  --ranks N              ranks: simulated (host) or GPUs (cuda); default: the\n"
    "                         replicas times partitions the executable records, else 1\n"
    "  --partitions N         of the ranks, partitions per replica; default: the\n"
    "                         executable's when they divide the ranks, else 1\n"
    "  --library LIB.so       host kernels and custom calls to register (repeatable)\n"
    "  -o DIR                 write outputs as DIR/out<i>.npy (out<i>.rank<r>.npy for r > 0)\n"
    "  --print                print the outputs\n"
    "  --repeat N             run N times and print a timing summary\n"
    "  --profile[=N]          print the N thunks that took longest (default 10)\n"
    "  --trace FILE           write a Chrome trace (chrome://tracing, Perfetto)\n"
    "  --max-iterations N     fail a while loop running longer (default 1000000)\n"
    "  --max-host-memory B    host: refuse a run whose allocations over all ranks and\n"
    "                         inputs are more bytes, before inputs are read or made\n"
    "                         (default half the machine's memory; K, M, G, T suffixes)\n"
    "  --max-thunks N         refuse an executable of more thunks (default 16777216)\n"
    "  --max-allocation-bytes B  refuse a larger buffer allocation (default 1T)\n"
    "  --max-allocations N    refuse an executable of more allocations (default 16777216)\n"
    "  --max-decoded-bytes B  refuse a container decompressing to more (default 4G)\n"
    "  --max-nesting N        refuse a .mlir module whose brackets nest deeper (default 1000)\n"
    "  --cuda-graph           cuda: --command-buffers, by its older name\n"
    "  --timeout S            cuda: fail a wait for the device or NCCL that takes longer\n"
    "                         than S seconds, naming the thunk (default 300); host and\n"
    "                         symbolic: fail a run that takes longer (default none)\n"
    "  --nccl-id FILE         cuda, several processes: where rank 0 leaves NCCL's id; each\n"
    "                         process's rank and count come from THUNKY_RANK and\n"
    "                         THUNKY_WORLD_SIZE, or mpirun's OMPI_COMM_WORLD_RANK/_SIZE\n"
    "  --version              print the version, and where the cuda backend finds\n"
    "                         libcuda, libnccl and libcublasLt (docs/runtime.md)\n";

typedef struct {
  const char *executable, *backend, *outputDir, *trace, *ncclId, *compare;
  const char *device, *measured, *json, *svg;
  uint64_t loopTrips;
  int64_t branch;
  const char *inputs[256], *libraries[32];
  int numInputs, numLibraries;
  uint32_t ranks, partitions, repeat, profileTop, timeout;
  bool ranksGiven, partitionsGiven;
  uint32_t graphMinSize;  /* 0: the executable's, else JAX's */
  const char *graphTypes; /* NULL: the executable's, else JAX's */
  uint64_t maxIterations, maxHostMemory, seed;
  ThunkyLimits limits;
  bool print, profile, fingerprint, symbolic, hasSeed, checkAsync, asyncAtDone;
  bool oneSchedule;
  bool commandBuffers;
  uint8_t scratchByte;
  const char *hostOnly, *cudaOnly, *modelOnly; /* an option that applies to one backend */
  const char *runOnly; /* an option for a run (inputs, outputs), which a model has not */
} Options;

static void vreport(const char *fmt, va_list args) {
  fputs("thunky-run: ", stderr);
  vfprintf(stderr, fmt, args);
  fputc('\n', stderr);
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What stops the tool from answering: one line, exit status 2 (1 is
 * "different", docs/runtime.md#exit-status). */
static int fail(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vreport(fmt, args);
  va_end(args);
  return 2;
}

/* A bad command line: one line, and parsing stops (exit status 2). */
static bool bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool bad(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vreport(fmt, args);
  va_end(args);
  return false;
}

static bool parseCount(const char *text, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || *end || !*text || text[0] == '-' || v > max)
    return false;
  *out = v;
  return true;
}

/* Every option, for recognising `--name value` and `--name=value` and for
 * suggesting a near name when one is misspelt. */
static const char *const valueOptions[] = {
    "--backend", "--ranks", "--partitions", "--repeat", "--max-iterations",
    "--max-host-memory", "--max-thunks", "--max-allocation-bytes", "--max-allocations",
    "--max-decoded-bytes", "--max-nesting", "--library", "-o", "--trace", "--nccl-id",
    "--compare", "--seed", "--scratch-byte", "--schedule", "--kernels", "--timeout",
    "--device", "--measured", "--loop-trips", "--branch", "--json", "--svg",
    "--graph-min-size", "--graph-types", NULL};
static const char *const flagOptions[] = {"--print", "--cuda-graph", "--check-async",
                                          "--command-buffers",
                                          "--profile", "--help", "--version", NULL};

/* The entry of `names` that is name's first `length` bytes, or NULL: the
 * option's name in static storage, which outlives the argument parsed. */
static const char *listed(const char *const *names, const char *name, size_t length) {
  for (; *names; names++)
    if (strlen(*names) == length && !strncmp(*names, name, length))
      return *names;
  return NULL;
}

/* Edit distance, capped: option names are short. */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[40];
  if (la >= 40 || lb >= 40)
    return 99;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t above = row[j], best = diagonal + (a[i - 1] != b[j - 1]);
      best = above + 1 < best ? above + 1 : best;
      best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
      row[j] = best, diagonal = above;
    }
  }
  return row[lb];
}

static bool unknownOption(const char *name) {
  const char *best = NULL;
  size_t bestDistance = 3;
  for (int list = 0; list < 2; list++)
    for (const char *const *n = list ? flagOptions : valueOptions; *n; n++)
      if (distance(name, *n) < bestDistance)
        best = *n, bestDistance = distance(name, *n);
  if (best)
    return bad("unknown option '%s'; did you mean %s? (--help lists them)", name, best);
  return bad("unknown option '%s' (--help lists them)", name);
}

static bool countOption(const char *name, const char *value, uint64_t min, uint64_t max,
                        uint64_t *out) {
  if (parseCount(value, max, out) && *out >= min)
    return true;
  return bad("%s: '%s' is not a whole number from %llu to %llu", name, value,
             (unsigned long long)min, (unsigned long long)max);
}

/* One option with its value (NULL for a flag); false after saying what is
 * wrong. */
static bool takeOption(Options *o, const char *a, const char *value) {
  uint64_t n;
  ThunkyError why;
  if (!strcmp(a, "--backend")) {
    if (strcmp(value, "host") && strcmp(value, "cuda") && strcmp(value, "model"))
      return bad("--backend: '%s' is not a backend (host, cuda or model)", value);
    o->backend = value;
  } else if (!strcmp(a, "--device") || !strcmp(a, "--measured") || !strcmp(a, "--json") ||
             !strcmp(a, "--svg")) {
    *(!strcmp(a, "--device")     ? &o->device
      : !strcmp(a, "--measured") ? &o->measured
      : !strcmp(a, "--json")     ? &o->json
                                 : &o->svg) = value;
    o->modelOnly = a;
  } else if (!strcmp(a, "--loop-trips")) {
    if (!countOption(a, value, 1, UINT32_MAX, &o->loopTrips))
      return false;
    o->modelOnly = a;
  } else if (!strcmp(a, "--branch")) {
    if (!countOption(a, value, 0, UINT32_MAX, &n))
      return false;
    o->branch = (int64_t)n, o->modelOnly = a;
  } else if (!strcmp(a, "--ranks") || !strcmp(a, "--partitions") || !strcmp(a, "--repeat")) {
    if (!countOption(a, value, 1, strcmp(a, "--repeat") ? 4096 : UINT32_MAX, &n))
      return false;
    *(!strcmp(a, "--ranks") ? &o->ranks : !strcmp(a, "--partitions") ? &o->partitions
                                                                     : &o->repeat) = (uint32_t)n;
    o->ranksGiven |= !strcmp(a, "--ranks"), o->partitionsGiven |= !strcmp(a, "--partitions");
    if (!strcmp(a, "--repeat"))
      o->runOnly = a;
  } else if (!strcmp(a, "--max-iterations")) {
    if (!countOption(a, value, 1, UINT64_MAX, &o->maxIterations))
      return false;
  } else if (!strcmp(a, "--max-host-memory")) {
    if (!thunkyParseAmount(value, true, &o->maxHostMemory))
      return bad("--max-host-memory: '%s' is not a positive byte count (K, M, G, T suffixes "
                 "allowed)", value);
    o->hostOnly = a;
  } else if (!strncmp(a, "--max-", 6)) {
    if (!thunkyLimitsSet(&o->limits, a + 2, value, &why))
      return bad("--%s", why.message);
  } else if (!strcmp(a, "--library")) {
    if (o->numLibraries == 32)
      return bad("--library: at most 32 libraries; '%s' is one more", value);
    o->libraries[o->numLibraries++] = value;
  } else if (!strcmp(a, "-o")) {
    o->outputDir = value, o->runOnly = a;
  } else if (!strcmp(a, "--trace")) {
    o->trace = value;
  } else if (!strcmp(a, "--timeout")) {
    if (!countOption(a, value, 1, 7 * 86400, &n))
      return false;
    o->timeout = (uint32_t)n, o->runOnly = a;
  } else if (!strcmp(a, "--nccl-id")) {
    o->ncclId = value, o->cudaOnly = a;
  } else if (!strcmp(a, "--compare")) {
    o->compare = value;
  } else if (!strcmp(a, "--seed")) {
    if (!countOption(a, value, 0, UINT64_MAX, &o->seed))
      return false;
    o->hasSeed = true, o->runOnly = a;
  } else if (!strcmp(a, "--scratch-byte")) {
    if (!countOption(a, value, 0, 255, &n))
      return false;
    o->scratchByte = (uint8_t)n, o->hostOnly = a;
  } else if (!strcmp(a, "--schedule")) {
    if (strcmp(value, "start") && strcmp(value, "done"))
      return bad("--schedule: '%s' is not a schedule (start or done)", value);
    o->asyncAtDone = !strcmp(value, "done"), o->oneSchedule = true, o->hostOnly = a;
  } else if (!strcmp(a, "--kernels")) {
    if (strcmp(value, "registered") && strcmp(value, "fingerprint") && strcmp(value, "symbolic"))
      return bad("--kernels: '%s' is not a kind of run (registered, fingerprint or symbolic)",
                 value);
    o->symbolic = !strcmp(value, "symbolic");
    o->fingerprint = o->symbolic || !strcmp(value, "fingerprint"), o->hostOnly = "--kernels";
  } else if (!strcmp(a, "--profile")) {
    if (value && !countOption(a, value, 1, 100000, &n))
      return false;
    o->profile = true, o->profileTop = value ? (uint32_t)n : o->profileTop;
  } else if (!strcmp(a, "--print")) {
    o->print = true, o->runOnly = a;
  } else if (!strcmp(a, "--cuda-graph")) {
    o->commandBuffers = true, o->cudaOnly = a;
  } else if (!strcmp(a, "--graph-types")) {
    ThunkyCommandBufferConfig check;
    ThunkyError why;
    if (!thunkyCommandBufferTypesParse(value, &check, &why))
      return bad("--graph-types: %s", why.message);
    o->graphTypes = value;
  } else if (!strcmp(a, "--graph-min-size")) {
    if (!countOption(a, value, 1, UINT32_MAX, &n))
      return false;
    o->graphMinSize = (uint32_t)n;
  } else if (!strcmp(a, "--command-buffers")) {
    o->commandBuffers = true;
  } else if (!strcmp(a, "--check-async")) {
    o->checkAsync = true, o->hostOnly = a;
  }
  return true;
}

static bool parseOptions(int argc, char **argv, Options *o) {
  *o = (Options){.backend = "host", .ranks = 1, .partitions = 1, .repeat = 1,
                 .profileTop = 10, .maxIterations = 1000000, .branch = -1,
                 .maxHostMemory = thunkyDefaultHostMemory(), .limits = thunkyLimitsDefault()};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || !a[1]) {
      if (!o->executable)
        o->executable = a;
      else if (o->numInputs < 256)
        o->inputs[o->numInputs++] = a;
      else
        return bad("at most 256 inputs; '%s' is one more", a);
      continue;
    }
    char name[64];
    const char *equals = strchr(a, '='), *value = NULL;
    size_t length = equals ? (size_t)(equals - a) : strlen(a);
    snprintf(name, sizeof name, "%.*s", (int)(length < 63 ? length : 63), a);
    const char *option = listed(valueOptions, a, length);
    bool takesValue = option != NULL;
    if (!option && !(option = listed(flagOptions, a, length)))
      return unknownOption(name);
    if (equals)
      value = equals + 1;
    else if (takesValue && i + 1 < argc)
      value = argv[++i];
    else if (takesValue)
      return bad("%s needs a value (--help says which)", name);
    if (equals && !takesValue && strcmp(name, "--profile"))
      return bad("%s takes no value; '%s' was given", name, value);
    if (!takeOption(o, option, value))
      return false;
  }
  if (!o->executable)
    return bad("no EXECUTABLE given (--help shows the usage)");
  bool host = !strcmp(o->backend, "host"), model = !strcmp(o->backend, "model");
  if (strcmp(o->backend, "cuda") && o->cudaOnly)
    return bad("%s applies to --backend cuda only, and this run is on %s", o->cudaOnly,
               o->backend);
  if (!host && o->hostOnly)
    return bad("%s applies to --backend host only, and this run is on %s", o->hostOnly,
               o->backend);
  if (!model && o->modelOnly)
    return bad("%s applies to --backend model only, and this run is on %s", o->modelOnly,
               o->backend);
  /* XLA's command buffers are the CUDA graphs it makes: one option, which
   * the cuda backend launches and the model replays (--cuda-graph is the
   * cuda backend's older name for it). */
  if (host && o->commandBuffers)
    return bad("--command-buffers applies to --backend cuda (launched as CUDA graphs) or "
               "model (replayed so), and this run is on host");
  if ((o->graphMinSize || o->graphTypes) && !o->commandBuffers)
    return bad("%s shapes the graphs of --command-buffers; give it",
               o->graphMinSize ? "--graph-min-size" : "--graph-types");
  if (model && (o->runOnly || o->numInputs))
    return bad("%s: --backend model runs nothing, so it takes no inputs, --seed, -o, "
               "--print or --repeat", o->runOnly ? o->runOnly : o->inputs[0]);
  if (o->ranks % o->partitions)
    return bad("--ranks %u cannot be split into --partitions of %u (a divisor of the ranks)",
               o->ranks, o->partitions);
  return true;
}


/* An executable in any layering, or a module told by its bytes; a plan
 * to replay only when `replay` (--backend model). */
static bool loadPlan(const char *path, const ThunkyLimits *limits, bool replay,
                     ThunkyPlan **plan, ThunkyError *error) {
  ThunkyFileBytes bytes;
  bool ok = thunkyFileBytesCreate(&bytes, path, error);
  ThunkyInputKind kind = ok ? thunkyInputKindOf(bytes.data, bytes.size) : THUNKY_INPUT_BINARY;
  if (ok && (kind == THUNKY_INPUT_MLIR_TEXT || kind == THUNKY_INPUT_MLIR_BYTECODE)) {
#ifdef THUNKY_WITH_MLIR
    ThunkyBuffer exported = {0};
    ok = thunkyCheckTextNesting((const char *)bytes.data, bytes.size, path, limits->maxNesting,
                                "--max-nesting", error) &&
         exportModuleFile(path, limits->maxNesting, &exported, error);
    thunkyFileBytesDestroy(&bytes);
    bytes = (ThunkyFileBytes){.data = exported.data ? exported.data : (const uint8_t *)"",
                              .size = exported.size, .buffer = exported};
#else
    ok = thunkyErrorf(error,
                      "%s: %s, and this thunky-run was built without MLIR; export the module "
                      "with thunky-translate --export-thunky %s -o EXE first, then run EXE",
                      path, thunkyInputKindName(kind), path);
#endif
  }
  ok = ok && ((thunkyInputExpectExecutable(bytes.data, bytes.size, path, error) &&
               (replay ? thunkyPlanCreateForReplay : thunkyPlanCreate)(bytes.data, bytes.size,
                                                                       limits, plan, error)) ||
              thunkyErrorContext(error, "%s", path));
  thunkyFileBytesDestroy(&bytes);
  return ok;
}

static bool loadLibraries(const Options *o, ThunkyRegistry *registry, ThunkyError *error) {
  for (int i = 0; i < o->numLibraries; i++)
    if (!thunkyRegistryLoadLibrary(registry, o->libraries[i], error))
      return false;
  return true;
}

/* Reads input i and checks it against parameter i. */
static bool readInput(const ThunkyPlanArray *p, const char *path, ThunkyNpyArray *in,
                      ThunkyError *error) {
  char want[128], got[128];
  if (!thunkyNpyRead(path, p->elementType, in, error))
    return false;
  if (!p->elementType) {
    /* No program shape: raw bytes, of the parameter's size. */
    return in->size == p->slice.size ||
           thunkyErrorf(error, "%s holds %llu bytes, the parameter %llu", path,
                        (unsigned long long)in->size, (unsigned long long)p->slice.size);
  }
  thunkyNpyDescribe(p->elementType, p->rank, p->dims, want, sizeof want);
  thunkyNpyDescribe(in->elementType, in->rank, in->dims, got, sizeof got);
  return strcmp(want, got) == 0 ||
         thunkyErrorf(error, "%s is %s, the parameter is %s", path, got, want);
}

/* One array per parameter: from the .npy files given, else from --seed. */
static bool loadInputs(const Options *o, const ThunkyPlan *plan, ThunkyNpyArray *inputs,
                       ThunkyError *error) {
  if (!o->numInputs && o->hasSeed) {
    for (uint32_t i = 0; i < plan->numParameters; i++)
      if (!thunkyRandomInput(&plan->parameters[i], o->seed, i, &inputs[i], error))
        return false;
    return true;
  }
  if ((uint32_t)o->numInputs != plan->numParameters) {
    char list[512] = "";
    for (uint32_t i = 0; i < plan->numParameters && strlen(list) < 400; i++) {
      char one[96];
      const ThunkyPlanArray *p = &plan->parameters[i];
      thunkyNpyDescribe(p->elementType, p->rank, p->dims, one, sizeof one);
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", one);
    }
    return thunkyErrorf(error, "the executable takes %u parameter%s (%s); %d given%s",
                        plan->numParameters, plan->numParameters == 1 ? "" : "s", list,
                        o->numInputs, o->numInputs ? "" : " (--seed N makes random ones)");
  }
  for (uint32_t i = 0; i < plan->numParameters; i++)
    if (!readInput(&plan->parameters[i], o->inputs[i], &inputs[i], error))
      return false;
  return true;
}

/* This process's place among several, from its launcher's environment. */
static bool processPlace(uint32_t *rank, uint32_t *count) {
  const char *r = getenv("THUNKY_RANK"), *n = getenv("THUNKY_WORLD_SIZE");
  if (!r || !n)
    r = getenv("OMPI_COMM_WORLD_RANK"), n = getenv("OMPI_COMM_WORLD_SIZE");
  uint64_t rv = 0, nv = 1;
  if (r && n && !(parseCount(r, 65535, &rv) && parseCount(n, 65536, &nv) && rv < nv))
    return false;
  *rank = (uint32_t)rv, *count = (uint32_t)nv;
  return true;
}

static int compareU64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static bool runRepeatedly(const Options *o, const ThunkyBackendOps *b, void *state,
                          ThunkyError *error) {
  uint64_t *times = calloc(o->repeat, sizeof *times);
  if (!times)
    return thunkyErrorf(error, "out of memory");
  bool progress = o->repeat > 1 && isatty(fileno(stderr));
  uint64_t started = thunkyMonotonicNs(), shown = started;
  bool ok = true;
  for (uint32_t i = 0; ok && i < o->repeat; i++) {
    uint64_t begin = thunkyMonotonicNs();
    ok = b->run(state, error);
    times[i] = thunkyMonotonicNs() - begin;
    if (progress && times[i] + begin - shown > 500000000u) {
      shown = thunkyMonotonicNs();
      fprintf(stderr, "\rthunky-run: run %u of %u", i + 1, o->repeat);
    }
  }
  if (progress && shown != started)
    fputc('\n', stderr);
  if (ok && o->repeat > 1) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < o->repeat; i++)
      total += times[i];
    qsort(times, o->repeat, sizeof *times, compareU64);
    printf("%u runs on %s: min %.3f ms, median %.3f ms, mean %.3f ms, max %.3f ms\n",
           o->repeat, b->name, times[0] / 1e6, times[o->repeat / 2] / 1e6,
           total / 1e6 / o->repeat, times[o->repeat - 1] / 1e6);
  }
  free(times);
  return ok;
}

/* Every output of every rank is read before any file is written. */
static bool readOutputs(const Options *o, const ThunkyPlan *plan, const ThunkyBackendOps *b,
                        void *state, ThunkyNpyArray *outputs, ThunkyError *error) {
  for (uint32_t r = 0; r < o->ranks; r++)
    for (uint32_t i = 0; i < plan->numOutputs; i++) {
      const ThunkyPlanArray *p = &plan->outputs[i];
      ThunkyNpyArray *out = &outputs[r * plan->numOutputs + i];
      *out = thunkyPlanArrayShape(p);
      if (!(out->data = malloc(out->size ? out->size : 1)))
        return thunkyErrorf(error, "out of memory");
      if (!b->read(state, r, p->slice, out->data, error))
        return false;
    }
  return true;
}

static bool writeOutputs(const Options *o, const ThunkyPlan *plan, const ThunkyNpyArray *outputs,
                         ThunkyError *error) {
  for (uint32_t r = 0; r < o->ranks; r++)
    for (uint32_t i = 0; i < plan->numOutputs; i++) {
      char path[4096];
      if (r)
        snprintf(path, sizeof path, "%s/out%u.rank%u.npy", o->outputDir, i, r);
      else
        snprintf(path, sizeof path, "%s/out%u.npy", o->outputDir, i);
      if (!thunkyNpyWrite(path, &outputs[r * plan->numOutputs + i], error))
        return false;
    }
  return true;
}

enum { MAX_LATE_SCHEDULES = 256 };

/* --compare and --check-async: two runs, compared; 0 same, 1 different, 2 error. */
static int compare(const Options *o, const ThunkyBackendOps *backend, const ThunkyPlan *plan,
                   const ThunkyRunConfig *config, const ThunkyInputs *inputs,
                   ThunkyError *error) {
  ThunkyRunSide a = {o->executable, plan, *config}, b = a;
  ThunkyPlan *other = NULL;
  if (o->compare) {
    if (!loadPlan(o->compare, &o->limits, false, &other, error))
      return 2;
    b.name = o->compare, b.plan = other;
  } else {
    a.name = "the run with async regions at their start";
    b.name = "the run with async regions at their done";
    a.config.asyncAtDone = false, b.config.asyncAtDone = true;
  }
  int status = thunkyCompareRuns(backend, &a, &b, inputs, stdout, error);
  /* Two schedules are not all of them: each region runs late too, just
   * after each op beside it that touches its bytes, as many times as
   * MAX_LATE_SCHEDULES allows; past them the static check says what else
   * may race. */
  uint32_t explored, total;
  bool complete;
  if (status == 0 && o->checkAsync && plan->numAsyncSlots &&
      (status = thunkyCompareLateRegions(backend, &a, inputs, stdout, MAX_LATE_SCHEDULES,
                                         &explored, &total, &complete, error)) == 0) {
    if (complete && !total)
      printf("(no op beside an async region touches its bytes: the two schedules are all "
             "that matter)\n");
    else if (complete)
      printf("(and each region run late, just after each op beside it that touches its bytes: "
             "%u schedule%s, the same)\n", total, total == 1 ? "" : "s");
    else
      printf("(and each region run late just after %u of the ops beside it that touch its "
             "bytes, the same; a race at the others is thunky-check-races' to find)\n",
             explored);
  }
  thunkyPlanDestroy(other);
  return status;
}

/* The graphs XLA's command buffers would make of `plan`, under the debug
 * options in the executable at `path`, else JAX 0.11.2's, and
 * --graph-min-size; printed when `report`. */
static bool commandBuffersOf(const Options *o, const char *path, const ThunkyPlan *plan,
                             bool report, ThunkyCommandBuffers **buffers, ThunkyError *error) {
  ThunkyCommandBufferConfig config = thunkyCommandBufferConfigDefault();
  bool found = false;
  ThunkyFileBytes bytes;
  ThunkyInputKind kind = THUNKY_INPUT_BINARY;
  if (!thunkyFileBytesCreate(&bytes, path, error))
    return false;
  kind = thunkyInputKindOf(bytes.data, bytes.size);
  /* A module's options are in its attributes; the defaults stand for it. */
  bool ok = kind == THUNKY_INPUT_MLIR_TEXT || kind == THUNKY_INPUT_MLIR_BYTECODE ||
            thunkyCommandBufferConfigRead(bytes.data, bytes.size, &o->limits, &config, &found,
                                          error);
  thunkyFileBytesDestroy(&bytes);
  if (o->graphMinSize)
    config.minGraphSize = o->graphMinSize;
  if (o->graphTypes)
    thunkyCommandBufferTypesParse(o->graphTypes, &config, error); /* checked when parsed */
  if (!ok || !thunkyCommandBuffersCreate(plan, &config, buffers, error))
    return ok ? false : thunkyErrorContext(error, "%s", path);
  char source[160];
  snprintf(source, sizeof source, "%s%s",
           found ? "the executable's debug options" : "JAX 0.11.2's defaults",
           o->graphTypes && o->graphMinSize ? ", --graph-types and --graph-min-size"
           : o->graphTypes                  ? ", --graph-types"
           : o->graphMinSize                ? ", --graph-min-size"
                                            : "");
  if (report)
    printCommandBuffers(stdout, plan, *buffers, &config, source, o->profile ? o->profileTop : 5);
  return true;
}

/* The schedule of one program, on the model's terms. */
static bool predictOne(const Options *o, const char *path, const ThunkyDeviceModel *device,
                       ThunkyPlan **plan, ThunkySchedule **schedule, ThunkyError *error) {
  if (!loadPlan(path, &o->limits, true, plan, error))
    return false;
  double *measured = NULL;
  uint64_t *runs = NULL;
  uint32_t matched = 0;
  if (o->measured) {
    measured = malloc(((*plan)->numThunks + 1) * sizeof *measured);
    runs = malloc(((*plan)->numThunks + 1) * sizeof *runs);
    bool ok = measured && runs
                  ? thunkyMeasuredDurationsRead(o->measured, *plan, measured, runs, &matched, error)
                  : thunkyErrorf(error, "out of memory");
    if (!ok) {
      free(measured);
      free(runs);
      return false;
    }
    if (!matched)
      fprintf(stderr, "thunky-run: %s: no thunk of %s is in it; every duration is modelled\n",
              o->measured, path);
  }
  ThunkyCommandBuffers *buffers = NULL;
  if (o->commandBuffers && !commandBuffersOf(o, path, *plan, true, &buffers, error)) {
    free(measured);
    free(runs);
    return false;
  }
  ThunkyScheduleOptions options = {.device = device, .measuredNs = measured, .measuredRuns = runs,
                                   .graphPlace = buffers ? buffers->place : NULL,
                                   .ranks = o->ranks, .loopTrips = o->loopTrips,
                                   .branch = o->branch};
  bool ok = thunkyScheduleCreate(*plan, &options, schedule, error) ||
            thunkyErrorContext(error, "%s", path);
  free(measured);
  free(runs);
  thunkyCommandBuffersDestroy(buffers);
  return ok;
}

/* --backend model: a prediction, no run. */
static int predict(const Options *o) {
  ThunkyError error = {{0}};
  ThunkyDeviceModel device = thunkyDeviceModelH200();
  ThunkyPlan *plan = NULL, *other = NULL;
  ThunkySchedule *schedule = NULL, *otherSchedule = NULL;
  bool ok = (!o->device || thunkyDeviceModelRead(o->device, &device, &error)) &&
            predictOne(o, o->executable, &device, &plan, &schedule, &error) &&
            (!o->compare || predictOne(o, o->compare, &device, &other, &otherSchedule, &error));
  if (ok && o->compare)
    printScheduleComparison(stdout, o->executable, plan, schedule, o->compare, other,
                            otherSchedule);
  else if (ok)
    printSchedule(stdout, plan, schedule, &device, o->profile ? o->profileTop : 5);
  ok = ok && (!o->json || writeScheduleJson(o->json, plan, schedule, &device, &error)) &&
       (!o->svg || writeScheduleSvg(o->svg, plan, schedule, &error)) &&
       (!o->trace || writeScheduleTrace(o->trace, plan, schedule, &error));
  if (!ok)
    fail("%s", error.message);
  thunkyScheduleDestroy(schedule);
  thunkyScheduleDestroy(otherSchedule);
  thunkyPlanDestroy(plan);
  thunkyPlanDestroy(other);
  return ok ? 0 : 2;
}

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(usage, stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--version")) {
      puts("thunky-run " THUNKY_VERSION);
      /* What a device check records: the libraries a run would load. */
      static const char *const libraries[] = {"cuda", "nccl", "cublasLt"};
      for (size_t l = 0; l < sizeof libraries / sizeof *libraries; l++) {
        char path[4096];
        ThunkyError why = {{0}};
        if (thunkyCudaLibraryPath(libraries[l], path, sizeof path, &why))
          printf("%s: %s\n", libraries[l], path);
        else
          printf("%s: not found: %s\n", libraries[l], why.message);
      }
      return 0;
    }
  }
  if (argc == 1) {
    fputs(usage, stderr);
    return 2;
  }
  if (!parseOptions(argc, argv, &o))
    return 2;
  if (!strcmp(o.backend, "model"))
    return predict(&o);
  if (o.symbolic && (o.numInputs || o.hasSeed))
    return fail("--kernels=symbolic: every parameter is a symbol, so a run takes no inputs "
                "and no --seed");
  if (o.symbolic && !o.compare && !o.checkAsync && !o.print)
    return fail("--kernels=symbolic holds no bytes: use it with --compare, --check-async or "
                "--print");
  if (o.symbolic && (o.repeat > 1 || o.profile || o.trace || o.outputDir))
    return fail("--kernels=symbolic does not take --repeat, --profile, --trace or -o");
  /* A fingerprint comparison without inputs given may go symbolic when the
   * bytes do not fit (below); with inputs it runs on them or not at all. */
  bool mayGoSymbolic = (o.compare || o.checkAsync) && o.fingerprint && !o.symbolic &&
                       !o.numInputs && !o.hasSeed && !strcmp(o.backend, "host");
  /* A comparison needs inputs, the same random ones on both sides; a
   * fingerprint run follows dataflow, for which any inputs do. */
  if ((o.compare || o.checkAsync || o.fingerprint) && !o.symbolic && !o.numInputs && !o.hasSeed)
    o.hasSeed = true, o.seed = 1;
  const ThunkyBackendOps *backend = o.symbolic                   ? &thunkySymbolicBackend
                                    : !strcmp(o.backend, "host") ? &thunkyHostBackend
                                                                 : &thunkyCudaBackend;
  if (o.compare && o.checkAsync)
    return fail("--compare and --check-async are two checks: run them one at a time");
  if ((o.compare || o.checkAsync) && (o.repeat > 1 || o.profile || o.trace || o.outputDir))
    return fail("--compare and --check-async do not take --repeat, --profile, --trace or -o");
  ThunkyError error = {{0}};
  ThunkyPlan *plan = NULL;
  ThunkyRegistry *registry = thunkyRegistryCreate();
  ThunkyTimeline *timeline = o.profile || o.trace ? thunkyTimelineCreate() : NULL;
  ThunkyNpyArray *inputs = NULL, *outputs = NULL;
  void *state = NULL;
  bool ok = registry && (!(o.profile || o.trace) || timeline);
  if (!ok)
    thunkyErrorf(&error, "out of memory");
  ok = ok && loadPlan(o.executable, &o.limits, false, &plan, &error) &&
       loadLibraries(&o, registry, &error);
  if (ok)
    thunkyPlanRecordedLayout(plan, o.ranksGiven, o.partitionsGiven, &o.ranks, &o.partitions);
  ThunkyRunConfig config = {.ranks = o.ranks, .partitions = o.partitions,
                            .maxIterations = o.maxIterations,
                            .maxHostMemory = o.maxHostMemory, .registry = registry,
                            .timeline = timeline, .fingerprint = o.fingerprint,
                            .asyncAtDone = o.asyncAtDone, .oneSchedule = o.oneSchedule,
                            .scratchByte = o.scratchByte,
                            .undefinedInitial = o.compare || o.checkAsync,
                            .ncclIdFile = o.ncclId, .timeoutSeconds = o.timeout};
  ThunkyCommandBuffers *graphs = NULL;
  if (ok && o.commandBuffers && commandBuffersOf(&o, o.executable, plan, false, &graphs, &error))
    config.graphs = graphs;
  ok = ok && (!o.commandBuffers || graphs);
  if (ok && !processPlace(&config.processRank, &config.processCount))
    ok = thunkyErrorf(&error, "THUNKY_RANK/THUNKY_WORLD_SIZE (or OMPI_COMM_WORLD_RANK/_SIZE) "
                              "are not a rank below a count");
  if (ok && !(inputs = calloc(plan->numParameters + 1, sizeof *inputs)))
    ok = thunkyErrorf(&error, "out of memory");
  /* Before inputs are read or made: random ones for 100 GB of parameters
   * would take minutes and then the machine's memory. */
  if (ok && mayGoSymbolic && !thunkyHostMemoryCheck(plan, &config, &error)) {
    fprintf(stderr, "thunky-run: %s: comparing on symbols instead (--kernels=symbolic)\n",
            error.message);
    backend = &thunkySymbolicBackend, o.symbolic = true;
  }
  ok = ok && (backend != &thunkyHostBackend || thunkyHostMemoryCheck(plan, &config, &error)) &&
       (o.symbolic || loadInputs(&o, plan, inputs, &error));
  int status = 0;
  /* Random inputs are each rank's own; .npy files every rank's. */
  ThunkyInputs given = {o.symbolic ? NULL : inputs, !o.numInputs && o.hasSeed, o.seed};
  if (ok && (o.compare || o.checkAsync)) {
    status = compare(&o, backend, plan, &config, &given, &error);
    ok = status != 2;
  } else {
    ok = ok && backend->create(plan, &config, &state, &error) &&
         thunkyWriteInputs(backend, state, plan, o.ranks, &given, &error) &&
         runRepeatedly(&o, backend, state, &error);
    if (ok && o.symbolic) {
      ok = printContents(stdout, plan, backend, state, o.ranks, &error);
    } else if (ok) {
      outputs = calloc((size_t)o.ranks * plan->numOutputs + 1, sizeof *outputs);
      ok = outputs ? readOutputs(&o, plan, backend, state, outputs, &error)
                   : thunkyErrorf(&error, "out of memory");
    }
    ok = ok && (!o.outputDir || writeOutputs(&o, plan, outputs, &error));
    if (ok && o.print && !o.symbolic)
      printOutputs(stdout, plan, outputs, o.ranks);
    if (ok && o.profile)
      printProfile(stdout, plan, timeline, o.profileTop);
    ok = ok && (!o.trace || writeChromeTrace(o.trace, plan, timeline, &error));
  }
  if (!ok)
    status = fail("%s", error.message);
  for (size_t i = 0; inputs && i < plan->numParameters; i++)
    thunkyNpyArrayDestroy(&inputs[i]);
  free(inputs);
  for (size_t i = 0; outputs && plan && i < (size_t)o.ranks * plan->numOutputs; i++)
    thunkyNpyArrayDestroy(&outputs[i]);
  free(outputs);
  if (state)
    backend->destroy(state);
  thunkyCommandBuffersDestroy(graphs);
  thunkyTimelineDestroy(timeline);
  thunkyRegistryDestroy(registry);
  thunkyPlanDestroy(plan);
  return status;
}
