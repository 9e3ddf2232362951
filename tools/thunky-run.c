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

#include "thunky-c/Version.h"
#include "thunky-c/format/Container.h"
#include "thunky-c/runtime/Compare.h"
#include "thunky-c/runtime/Npy.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/RunOptions.h"
#include "thunky-c/runtime/Schedule.h"
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

/* The usage line; the options come from the table (thunky-c/runtime/RunOptions.h). */
static void printUsage(FILE *to) {
  fputs("usage: thunky-run [options] EXECUTABLE [INPUT.npy ...]\n"
        "  EXECUTABLE             a GpuExecutableProto, bare or as JAX/XLA packed it"
#ifdef THUNKY_WITH_MLIR
        ",\n                         or an MLIR module (text or bytecode, whatever its name)"
#endif
        "\n"
        "  INPUT.npy              one per parameter, in order (every rank gets the same)\n",
        to);
  size_t size = thunkyRunOptionsHelp(0, NULL, 0) + 1;
  char *help = malloc(size);
  if (help) {
    thunkyRunOptionsHelp(0, help, size);
    fputs(help, to);
  }
  free(help);
}

typedef struct {
  const char *executable, *outputDir, *trace, *ncclId, *compare;
  const char *device, *measured, *countsFrom, *json, *svg;
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
  unsigned place;       /* THUNKY_APPLIES_HOST, _SYMBOLIC, _CUDA or _MODEL: where this run is */
  bool kernelsSymbolic; /* --kernels=symbolic, the older spelling of --backend symbolic */
  bool print, profile, fingerprint, hasSeed, checkAsync, asyncAtDone;
  bool oneSchedule;
  bool commandBuffers;
  ThunkyDeviceTiming deviceTiming;
  uint8_t scratchByte;
  /* Each option given, as spelt, to check where it applies once the place is known. */
  const ThunkyRunOption *given[THUNKY_OPTION_COUNT];
  char spelt[THUNKY_OPTION_COUNT][64];
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

/* One option with its value (NULL for a flag), checked against the table;
 * false after saying what is wrong. */
static bool takeOption(Options *o, const ThunkyRunOption *option, const char *value) {
  uint64_t n = 0;
  ThunkyError why = {{0}};
  if (value && !thunkyRunOptionParse(option, "--", value, &n, &why))
    return bad("%s", why.message);
  switch (option->id) {
  case THUNKY_OPTION_BACKEND: /* host, cuda, symbolic; "model" is --model's older spelling */
    o->place = (unsigned[]){THUNKY_APPLIES_HOST, THUNKY_APPLIES_CUDA, THUNKY_APPLIES_SYMBOLIC,
                            THUNKY_APPLIES_MODEL}[n];
    break;
  case THUNKY_OPTION_KERNELS: /* registered, fingerprint; "symbolic": --backend symbolic */
    o->fingerprint = n != 0, o->kernelsSymbolic = n == 2;
    break;
  case THUNKY_OPTION_MODEL:
    o->place = THUNKY_APPLIES_MODEL;
    break;
  case THUNKY_OPTION_DEVICE:
    o->device = value;
    break;
  case THUNKY_OPTION_MEASURED:
    o->measured = value;
    break;
  case THUNKY_OPTION_COUNTS_FROM:
    o->countsFrom = value;
    break;
  case THUNKY_OPTION_JSON:
    o->json = value;
    break;
  case THUNKY_OPTION_SVG:
    o->svg = value;
    break;
  case THUNKY_OPTION_LOOP_TRIPS:
    o->loopTrips = n;
    break;
  case THUNKY_OPTION_BRANCH:
    o->branch = (int64_t)n;
    break;
  case THUNKY_OPTION_RANKS:
    o->ranks = (uint32_t)n, o->ranksGiven = true;
    break;
  case THUNKY_OPTION_PARTITIONS:
    o->partitions = (uint32_t)n, o->partitionsGiven = true;
    break;
  case THUNKY_OPTION_REPEAT:
    o->repeat = (uint32_t)n;
    break;
  case THUNKY_OPTION_MAX_ITERATIONS:
    o->maxIterations = n;
    break;
  case THUNKY_OPTION_MAX_HOST_MEMORY:
    o->maxHostMemory = n;
    break;
  case THUNKY_OPTION_MAX_THUNKS:
  case THUNKY_OPTION_MAX_ALLOCATION_BYTES:
  case THUNKY_OPTION_MAX_ALLOCATIONS:
  case THUNKY_OPTION_MAX_DECODED_BYTES:
  case THUNKY_OPTION_MAX_NESTING:
    if (!thunkyLimitsSet(&o->limits, option->name, value, &why))
      return bad("--%s", why.message);
    break;
  case THUNKY_OPTION_LIBRARY:
    if (o->numLibraries == 32)
      return bad("--library: at most 32 libraries; '%s' is one more", value);
    o->libraries[o->numLibraries++] = value;
    break;
  case THUNKY_OPTION_OUTPUT_DIR:
    o->outputDir = value;
    break;
  case THUNKY_OPTION_TRACE:
    o->trace = value;
    break;
  case THUNKY_OPTION_DEVICE_TIMING:
    o->deviceTiming = n == 0 ? THUNKY_DEVICE_TIMING_CUPTI : THUNKY_DEVICE_TIMING_GATE;
    break;
  case THUNKY_OPTION_TIMEOUT:
    o->timeout = (uint32_t)n;
    break;
  case THUNKY_OPTION_NCCL_ID:
    o->ncclId = value;
    break;
  case THUNKY_OPTION_COMPARE:
    o->compare = value;
    break;
  case THUNKY_OPTION_SEED:
    o->seed = n, o->hasSeed = true;
    break;
  case THUNKY_OPTION_SCRATCH_BYTE:
    o->scratchByte = (uint8_t)n;
    break;
  case THUNKY_OPTION_SCHEDULE:
    o->asyncAtDone = n == 1, o->oneSchedule = true;
    break;
  case THUNKY_OPTION_PROFILE:
    o->profile = true, o->profileTop = value ? (uint32_t)n : o->profileTop;
    break;
  case THUNKY_OPTION_PRINT:
    o->print = true;
    break;
  case THUNKY_OPTION_GRAPH_TYPES: {
    ThunkyCommandBufferConfig check;
    if (!thunkyCommandBufferTypesParse(value, &check, &why))
      return bad("--graph-types: %s", why.message);
    o->graphTypes = value;
    break;
  }
  case THUNKY_OPTION_GRAPH_MIN_SIZE:
    o->graphMinSize = (uint32_t)n;
    break;
  case THUNKY_OPTION_COMMAND_BUFFERS:
    o->commandBuffers = true;
    break;
  case THUNKY_OPTION_CHECK_ASYNC:
    o->checkAsync = true;
    break;
  case THUNKY_OPTION_HELP:
  case THUNKY_OPTION_VERSION:
  case THUNKY_OPTION_COUNT:
    break;
  }
  return true;
}

/* "--backend host only", "--backend cuda or --model": the places in
 * `flags`, as a command line chooses them. */
static void placesOf(unsigned flags, char *out, size_t size) {
  static const unsigned places[] = {THUNKY_APPLIES_HOST, THUNKY_APPLIES_CUDA,
                                    THUNKY_APPLIES_SYMBOLIC, THUNKY_APPLIES_MODEL};
  size_t count = 0, used = 0;
  for (size_t i = 0; i < 4; i++)
    count += (flags & places[i]) != 0;
  out[0] = 0;
  for (size_t i = 0, n = 0; i < 4 && used < size; i++) {
    if (!(flags & places[i]))
      continue;
    used += (size_t)snprintf(
        out + used, size - used, "%s%s%s",
        !n              ? ""
        : n + 1 < count ? ", "
                        : " or ",
        places[i] == THUNKY_APPLIES_MODEL ? "--model"
        : !n                              ? "--backend "
                                          : "",
        places[i] == THUNKY_APPLIES_MODEL ? "" : thunkyRunOptionPlaceName(places[i]));
    n++;
  }
  if (count == 1 && used < size)
    snprintf(out + used, size - used, " only");
}

static bool parseOptions(int argc, char **argv, Options *o) {
  *o = (Options){.place = THUNKY_APPLIES_HOST,
                 .ranks = 1,
                 .partitions = 1,
                 .repeat = 1,
                 .profileTop = 10,
                 .maxIterations = 1000000,
                 .branch = -1,
                 .maxHostMemory = thunkyDefaultHostMemory(),
                 .limits = thunkyLimitsDefault()};
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
    /* -o is the one option of one dash; every other has two. */
    size_t dashes = a[1] == '-' ? 2 : 1;
    const ThunkyRunOption *option = thunkyRunOptionFind(a + dashes, length - dashes);
    if (!option || (dashes == 1) != (option->id == THUNKY_OPTION_OUTPUT_DIR)) {
      const char *near = thunkyRunOptionNearest(name + 2 * (name[1] == '-'), 0);
      if (near)
        return bad("unknown option '%s'; did you mean %s%s? (--help lists them)", name,
                   near[1] ? "--" : "-", near);
      return bad("unknown option '%s' (--help lists them)", name);
    }
    bool takesValue = option->value != THUNKY_VALUE_NONE;
    bool optional = option->flags & THUNKY_OPTION_OPTIONAL;
    if (equals)
      value = equals + 1;
    else if (takesValue && !optional && i + 1 < argc)
      value = argv[++i];
    else if (takesValue && !optional)
      return bad("%s needs a value (--help says which)", name);
    if (equals && !takesValue)
      return bad("%s takes no value; '%s' was given", name, value);
    if (!takeOption(o, option, value))
      return false;
    o->given[option->id] = option;
    snprintf(o->spelt[option->id], sizeof o->spelt[option->id], "%s", name);
  }
  if (!o->executable)
    return bad("no EXECUTABLE given (--help shows the usage)");
  /* --kernels=symbolic is the older spelling of --backend symbolic, on
   * the host only. */
  if (o->kernelsSymbolic && o->place == THUNKY_APPLIES_HOST)
    o->place = THUNKY_APPLIES_SYMBOLIC, o->given[THUNKY_OPTION_KERNELS] = NULL;
  bool model = o->place == THUNKY_APPLIES_MODEL;
  for (int id = 0; id < THUNKY_OPTION_COUNT; id++) {
    const ThunkyRunOption *option = o->given[id];
    if (!option || option->flags & o->place)
      continue;
    char where[96];
    if ((option->flags & THUNKY_APPLIES_ANY) == (THUNKY_APPLIES_ANY & ~THUNKY_APPLIES_MODEL))
      snprintf(where, sizeof where, "a run");
    else
      placesOf(option->flags, where, sizeof where);
    if (model)
      return bad("%s applies to %s, and --model runs nothing", o->spelt[id], where);
    return bad("%s applies to %s, and this run is on %s", o->spelt[id], where,
               thunkyRunOptionPlaceName(o->place));
  }
  if (model && o->numInputs)
    return bad("%s: --model runs nothing, so it takes no inputs", o->inputs[0]);
  if ((o->graphMinSize || o->graphTypes) && !o->commandBuffers)
    return bad("%s shapes the graphs of --command-buffers; give it",
               o->graphMinSize ? "--graph-min-size" : "--graph-types");
  if (o->deviceTiming && !o->trace && !o->profile)
    return bad("--device-timing says how --trace or --profile times the device; give one");
  if (o->ranks % o->partitions)
    return bad("--ranks %u cannot be split into --partitions of %u (a divisor of the ranks)",
               o->ranks, o->partitions);
  return true;
}

/* An executable in any layering, or a module told by its bytes; a plan
 * to replay only when `replay` (--model). */
static bool loadPlan(const char *path, const ThunkyLimits *limits, bool replay,
                     ThunkyPlan **plan, ThunkyError *error) {
  ThunkyFileBytes bytes;
  bool ok = thunkyFileBytesCreate(&bytes, path, error);
  ThunkyInputKind kind = ok ? thunkyInputKindOf(bytes.data, bytes.size) : THUNKY_INPUT_BINARY;
  if (ok && (kind == THUNKY_INPUT_MLIR_TEXT || kind == THUNKY_INPUT_MLIR_BYTECODE)) {
#ifdef THUNKY_WITH_MLIR
    ThunkyBuffer exported = {0};
    ok = thunkyValidateTextNesting((const char *)bytes.data, bytes.size, path, limits->maxNesting,
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

static bool parseCount(const char *text, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || *end || !*text || text[0] == '-' || v > max)
    return false;
  *out = v;
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

/* Whether a trace's durations may stand for a GPU's: a host run's are the
 * CPU running reference kernels, so it is refused; a prediction read back,
 * or a trace that does not say what made it, is taken and said to be. */
static bool measuredFromGpu(const char *path, const ThunkyTraceOrigin *origin,
                            ThunkyError *error) {
  if (!strcmp(origin->backend, "host"))
    return thunkyErrorf(error,
                        "%s: a trace of the host backend: its durations are this machine's "
                        "CPU running reference kernels, not a GPU's; --measured takes a trace "
                        "of --backend cuda",
                        path);
  if (strstr(origin->device, "simulation"))
    fprintf(stderr, "thunky-run: %s: times from a simulated device (%s), not a GPU's\n", path,
            origin->device);
  if (!strcmp(origin->backend, "model"))
    fprintf(stderr, "thunky-run: %s: durations from the schedule model's own prediction (%s), "
                    "not a measurement\n", path, origin->clock);
  else if (strcmp(origin->backend, "cuda"))
    fprintf(stderr, "thunky-run: %s does not say what made it (no otherData.backend); its "
                    "durations are taken as a GPU's\n", path);
  if (origin->unattributedNs > 0)
    fprintf(stderr,
            "thunky-run: %s: %.3f us of its device work was tied to no thunk: the "
            "thunks it belonged to are modelled\n",
            path, origin->unattributedNs / 1e3);
  return true;
}

/* What a trace's own numbers say against it: device time on one stream
 * cannot exceed the step it was part of, unless the trace timed waits or
 * launches as the device's work (a drained trace does). */
static void checkLanes(const char *path, const ThunkyMeasuredDurations *m) {
  if (m->origin.stepNs > 0 && m->busiestLaneNs > m->origin.stepNs * 1.0001)
    fprintf(stderr,
            "thunky-run: %s: one stream's device time (%.3f us) exceeds the step it was "
            "measured in (%.3f us): its durations hold more than device work, and the "
            "prediction counts that twice\n",
            path, m->busiestLaneNs / 1e3, m->origin.stepNs / 1e3);
}

/* The schedule of one program, on the model's terms. */
static bool predictOne(const Options *o, const char *path, const ThunkyDeviceModel *device,
                       ThunkyPlan **plan, ThunkySchedule **schedule, ThunkyError *error) {
  if (!loadPlan(path, &o->limits, true, plan, error))
    return false;
  /* The world a run of this program would have, unless given. */
  uint32_t ranks = o->ranks, partitions = o->partitions;
  thunkyPlanRecordedLayout(*plan, o->ranksGiven, o->partitionsGiven, &ranks, &partitions);
  ThunkyMeasuredDurations *measured = NULL;
  if (o->measured) {
    if (!thunkyMeasuredDurationsCreate(o->measured, *plan, &measured, error) ||
        !measuredFromGpu(o->measured, &measured->origin, error)) {
      thunkyMeasuredDurationsDestroy(measured);
      return false;
    }
    if (!measured->matched)
      fprintf(stderr, "thunky-run: %s: no thunk of %s is in it; every duration is modelled\n",
              o->measured, path);
    checkLanes(o->measured, measured);
  }
  /* Any backend runs the program's control flow as a GPU would, so any
   * trace says how often loops ran and which branches were taken. */
  ThunkyMeasuredDurations *counts = NULL;
  bool countsMeasured = o->countsFrom && o->measured && !strcmp(o->countsFrom, o->measured);
  if (o->countsFrom && !countsMeasured &&
      !thunkyMeasuredDurationsCreate(o->countsFrom, *plan, &counts, error)) {
    thunkyMeasuredDurationsDestroy(measured);
    return false;
  }
  if (counts && !counts->matched)
    fprintf(stderr, "thunky-run: %s: no thunk of %s is in it; loops and branches are assumed\n",
            o->countsFrom, path);
  ThunkyCommandBuffers *buffers = NULL;
  if (o->commandBuffers && !commandBuffersOf(o, path, *plan, true, &buffers, error)) {
    thunkyMeasuredDurationsDestroy(measured);
    thunkyMeasuredDurationsDestroy(counts);
    return false;
  }
  const ThunkyMeasuredDurations *runs = counts ? counts : measured;
  ThunkyScheduleOptions options = {.device = device,
                                   .measuredNs = measured ? measured->ns : NULL,
                                   .measuredRuns = runs ? runs->runs : NULL,
                                   .measuredIssueNs = measured ? measured->issueNs : NULL,
                                   .graphPlace = buffers ? buffers->place : NULL,
                                   .ranks = ranks,
                                   .partitions = partitions,
                                   .loopTrips = o->loopTrips,
                                   .branch = o->branch};
  bool ok = thunkyScheduleCreate(*plan, &options, schedule, error) ||
            thunkyErrorContext(error, "%s", path);
  thunkyMeasuredDurationsDestroy(measured);
  thunkyMeasuredDurationsDestroy(counts);
  thunkyCommandBuffersDestroy(buffers);
  return ok;
}

/* What --trace says made a run's trace (docs/schedule.md, "Traces"). */
static const ThunkyTraceOrigin cudaTraceOrigin = {
    .backend = "cuda",
    .clock = "device lanes: the CUDA device's, as the method reads it; host issue and step: "
             "the host's"};
static const ThunkyTraceOrigin hostTraceOrigin = {
    .backend = "host",
    .clock = "the host's CLOCK_MONOTONIC",
    .method = "each thunk timed around its run by the host backend's reference kernels"};

/* --model: a prediction, no run. */
static int predict(const Options *o) {
  ThunkyError error = {{0}};
  ThunkyDeviceModel device = thunkyDeviceModelH200();
  ThunkyPlan *plan = NULL, *other = NULL;
  ThunkySchedule *schedule = NULL, *otherSchedule = NULL;
  bool ok = (!o->device || thunkyDeviceModelRead(o->device, &device, &error)) &&
            predictOne(o, o->executable, &device, &plan, &schedule, &error) &&
            (!o->compare || predictOne(o, o->compare, &device, &other, &otherSchedule, &error));
  if (ok && o->compare)
    ok = printScheduleComparison(stdout, o->executable, plan, schedule, o->compare, other,
                                 otherSchedule, &error);
  else if (ok)
    ok = printSchedule(stdout, plan, schedule, &device, o->profile ? o->profileTop : 5, &error);
  ok = ok && (!o->json || writeScheduleJson(o->json, plan, schedule, &device, &error)) &&
       (!o->svg || writeScheduleSvg(o->svg, plan, schedule, &error)) &&
       (!o->trace || writeScheduleTrace(o->trace, plan, schedule, device.name, &error));
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
      printUsage(stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--version")) {
      puts("thunky-run " THUNKY_VERSION);
      /* What a device check records: the libraries a run would load. */
      static const char *const libraries[] = {"cuda", "nccl", "cublasLt", "cupti"};
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
    printUsage(stderr);
    return 2;
  }
  if (!parseOptions(argc, argv, &o))
    return 2;
  if (o.place == THUNKY_APPLIES_MODEL)
    return predict(&o);
  bool symbolic = o.place == THUNKY_APPLIES_SYMBOLIC;
  if (symbolic && (o.numInputs || o.hasSeed))
    return fail("--backend symbolic: every parameter is a symbol, so a run takes no inputs "
                "and no --seed");
  if (symbolic && !o.compare && !o.checkAsync && !o.print)
    return fail("--backend symbolic holds no bytes: use it with --compare, --check-async or "
                "--print");
  o.fingerprint |= symbolic;
  /* A fingerprint comparison without inputs given may go symbolic when the
   * bytes do not fit (below); with inputs it runs on them or not at all. */
  bool mayGoSymbolic = (o.compare || o.checkAsync) && o.fingerprint &&
                       o.place == THUNKY_APPLIES_HOST && !o.numInputs && !o.hasSeed;
  /* A comparison needs inputs, the same random ones on both sides; a
   * fingerprint run follows dataflow, for which any inputs do. */
  if ((o.compare || o.checkAsync || o.fingerprint) && !symbolic && !o.numInputs && !o.hasSeed)
    o.hasSeed = true, o.seed = 1;
  const ThunkyBackendOps *backend = symbolic                         ? &thunkySymbolicBackend
                                    : o.place == THUNKY_APPLIES_HOST ? &thunkyHostBackend
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
                            .ncclIdFile = o.ncclId, .timeoutSeconds = o.timeout,
                            .deviceTiming = o.deviceTiming};
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
    fprintf(stderr, "thunky-run: %s: comparing on symbols instead (--backend symbolic)\n",
            error.message);
    backend = &thunkySymbolicBackend, symbolic = true;
  }
  ok = ok && (backend != &thunkyHostBackend || thunkyHostMemoryCheck(plan, &config, &error)) &&
       (symbolic || loadInputs(&o, plan, inputs, &error));
  int status = 0;
  /* Random inputs are each rank's own; .npy files every rank's. */
  ThunkyInputs given = {symbolic ? NULL : inputs, !o.numInputs && o.hasSeed, o.seed};
  if (ok && (o.compare || o.checkAsync)) {
    status = compare(&o, backend, plan, &config, &given, &error);
    ok = status != 2;
  } else {
    ok = ok && backend->create(plan, &config, &state, &error) &&
         thunkyWriteInputs(backend, state, plan, o.ranks, &given, &error) &&
         runRepeatedly(&o, backend, state, &error);
    if (ok && symbolic) {
      ok = printContents(stdout, plan, backend, state, o.ranks, &error);
    } else if (ok) {
      outputs = calloc((size_t)o.ranks * plan->numOutputs + 1, sizeof *outputs);
      ok = outputs ? readOutputs(&o, plan, backend, state, outputs, &error)
                   : thunkyErrorf(&error, "out of memory");
    }
    ok = ok && (!o.outputDir || writeOutputs(&o, plan, outputs, &error));
    if (ok && o.print && !symbolic)
      printOutputs(stdout, plan, outputs, o.ranks);
    if (ok && timeline && thunkyTimelineLost(timeline))
      ok = thunkyErrorf(&error,
                        "out of memory recording when each thunk ran: %llu event(s) lost, so "
                        "no %s is written",
                        (unsigned long long)thunkyTimelineLost(timeline),
                        o.profile && o.trace ? "profile or trace"
                        : o.profile          ? "profile"
                                             : "trace");
    if (ok && o.profile)
      ok = printProfile(stdout, plan, timeline, o.profileTop, &error);
    if (ok && timeline && thunkyTimelineUnattributed(timeline))
      fprintf(stderr,
              "thunky-run: %.3f us of device work was tied to no thunk (graph nodes no capture "
              "made): no event holds it, and the thunks it belonged to look untimed\n",
              (double)thunkyTimelineUnattributed(timeline) / 1e3);
    if (ok && o.trace) {
      ThunkyTraceOrigin origin = backend == &thunkyCudaBackend ? cudaTraceOrigin : hostTraceOrigin;
      if (backend == &thunkyCudaBackend) {
        snprintf(origin.method, sizeof origin.method, "%s", thunkyTimelineMethod(timeline));
        snprintf(origin.device, sizeof origin.device, "%s", thunkyTimelineDevice(timeline));
        origin.stepNs = (double)thunkyTimelineStep(timeline);
        origin.steps = (double)thunkyTimelineSteps(timeline) / (o.ranks ? o.ranks : 1);
        origin.unattributedNs = (double)thunkyTimelineUnattributed(timeline);
      }
      ok = writeChromeTrace(o.trace, plan, timeline, &origin, &error);
    }
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
