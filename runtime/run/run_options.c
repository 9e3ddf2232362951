/*===- run_options.c - every option of a run, in one table --------------===*
 *
 * thunky-c/runtime/RunOptions.h. thunky-run parses its command line with
 * this table and prints its --help from it; sessions (and so the Python
 * package) take the rows marked THUNKY_OPTION_SESSION by the same names,
 * with the same ranges and the same refusals.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/RunOptions.h"

#include "thunky-c/base/Limits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  HOST = THUNKY_APPLIES_HOST,
  SYMBOLIC = THUNKY_APPLIES_SYMBOLIC,
  CUDA = THUNKY_APPLIES_CUDA,
  MODEL = THUNKY_APPLIES_MODEL,
  ANY = THUNKY_APPLIES_ANY,
  RUNS = HOST | SYMBOLIC | CUDA, /* what a run has and a prediction does not */
  SESSION = THUNKY_OPTION_SESSION,
  OPTIONAL = THUNKY_OPTION_OPTIONAL,
  REPEATS = THUNKY_OPTION_REPEATS,
};

#define COUNT(lo, hi) THUNKY_VALUE_COUNT, lo, hi, NULL, NULL, NULL
#define BYTES THUNKY_VALUE_BYTES, 0, 0, NULL, NULL, NULL
#define TEXT THUNKY_VALUE_TEXT, 0, 0, NULL, NULL, NULL
#define LIMIT THUNKY_VALUE_LIMIT, 0, 0, NULL, NULL, NULL
#define FLAG NULL, THUNKY_VALUE_NONE, 0, 0, NULL, NULL, NULL
#define CHOICE(list, what, older) THUNKY_VALUE_CHOICE, 0, 0, list, what, older

static const ThunkyRunOption table[THUNKY_OPTION_COUNT] = {
    {THUNKY_OPTION_SEED, "seed", "N", COUNT(0, UINT64_MAX), RUNS,
     "no .npy inputs: seeded random bytes for each parameter\n"
     "(fingerprint runs without inputs: as with --seed 1)\n"
     "(f32/f64 in [-1, 1), pred 0 or 1)"},
    {THUNKY_OPTION_BACKEND, "backend", NULL, CHOICE("host|cuda|symbolic", "a backend", "model"),
     ANY | SESSION,
     "what runs the thunks: host (the reference backend), cuda\n"
     "(GPUs), or symbolic (the fingerprint's model on terms, not\n"
     "bytes, for --compare, --check-async and --print, at any size,\n"
     "without inputs; --compare on fingerprints takes it when the\n"
     "bytes do not fit --max-host-memory)"},
    {THUNKY_OPTION_KERNELS, "kernels", NULL,
     CHOICE("registered|fingerprint", "a kind of kernel", "symbolic"), HOST | SESSION,
     "what runs a thunk with no host implementation: an error\n"
     "(registered, the default), or a keyed hash of what it reads\n"
     "(fingerprint: docs/checking.md)"},
    {THUNKY_OPTION_COMPARE, "compare", "OTHER", TEXT, ANY,
     "run OTHER (an executable or module) on the same inputs and\n"
     "compare every output of every rank bit for bit; exit 0 same,\n"
     "1 different (naming the output and the first divergent\n"
     "thunk), 2 cannot prove (naming why) or error; without\n"
     "inputs, seeded ones, each rank its own (docs/checking.md)\n"
     "(--model: predict OTHER too, and print the difference)"},
    {THUNKY_OPTION_CHECK_ASYNC, "check-async", FLAG, HOST | SYMBOLIC,
     "run every async region at its start, then at its done, and\n"
     "compare as --compare does (a race shows as a difference)"},
    {THUNKY_OPTION_SCHEDULE, "schedule", NULL, CHOICE("start|done", "a schedule", NULL),
     HOST | SYMBOLIC | SESSION,
     "when an async region runs (start, the default); a\n"
     "--compare runs both unless one is given"},
    {THUNKY_OPTION_SCRATCH_BYTE, "scratch-byte", "N", COUNT(0, 255), HOST | SYMBOLIC | SESSION,
     "fill scratch allocations with byte N (0-255) before\n"
     "running, not zeros: outputs that change read scratch\n"
     "bytes nothing wrote"},
    {THUNKY_OPTION_MODEL, "model", FLAG, ANY,
     "run nothing: predict where a step's time goes on a GPU,\n"
     "with the schedule model (docs/schedule.md)"},
    {THUNKY_OPTION_DEVICE, "device", "FILE", TEXT, MODEL,
     "the GPU, as `key = value` lines (default an H200)"},
    {THUNKY_OPTION_MEASURED, "measured", "TRACE", TEXT, MODEL,
     "thunk durations from a --trace of a cuda run, of this\n"
     "program or the one it was rewritten from (by XLA thunk id)"},
    {THUNKY_OPTION_COUNTS_FROM, "counts-from", "TRACE", TEXT, MODEL,
     "how often each loop ran and which branch each conditional\n"
     "took, from a --trace of any backend; durations stay the\n"
     "model's (or --measured's)"},
    {THUNKY_OPTION_LOOP_TRIPS, "loop-trips", "N", COUNT(1, UINT32_MAX), MODEL,
     "iterations of a while loop with no known trip count (1)"},
    {THUNKY_OPTION_BRANCH, "branch", "N", COUNT(0, UINT32_MAX), MODEL,
     "the branch every conditional takes (default: the one a --measured trace saw, else its "
     "costliest)"},
    {THUNKY_OPTION_COMMAND_BUFFERS, "command-buffers", FLAG, CUDA | MODEL,
     "the CUDA graphs XLA's command buffers make, under the\n"
     "executable's own debug options (else JAX 0.11.2's): cuda\n"
     "launches each, captured once (control flow and custom calls\n"
     "in them run thunk by thunk); the model replays them and\n"
     "reports each graph and what broke them (older name:\n"
     "--cuda-graph)"},
    {THUNKY_OPTION_GRAPH_MIN_SIZE, "graph-min-size", "N", COUNT(1, UINT32_MAX), CUDA | MODEL,
     "--command-buffers: graphs of N thunks or more\n"
     "(xla_gpu_graph_min_graph_size; default the executable's, else 5)"},
    {THUNKY_OPTION_GRAPH_TYPES, "graph-types", "LIST", TEXT, CUDA | MODEL,
     "--command-buffers: the thunk types graphs take, as\n"
     "xla_gpu_enable_command_buffer lists them (FUSION,CUBLAS,...;\n"
     "default the executable's, else JAX 0.11.2's)"},
    {THUNKY_OPTION_JSON, "json", "FILE", TEXT, MODEL, "the prediction as JSON"},
    {THUNKY_OPTION_SVG, "svg", "FILE", TEXT, MODEL, "the predicted timeline as an SVG picture"},
    {THUNKY_OPTION_RANKS, "ranks", "N", COUNT(1, 4096), ANY | SESSION,
     "ranks: simulated (host) or GPUs (cuda); default: the\n"
     "replicas times partitions the executable records, else 1"},
    {THUNKY_OPTION_PARTITIONS, "partitions", "N", COUNT(1, 4096), ANY | SESSION,
     "of the ranks, partitions per replica; default: the\n"
     "executable's when they divide the ranks, else 1"},
    {THUNKY_OPTION_LIBRARY, "library", "LIB.so", TEXT, RUNS | SESSION | REPEATS,
     "host kernels and custom calls to register (repeatable)"},
    {THUNKY_OPTION_OUTPUT_DIR, "o", "DIR", TEXT, HOST | CUDA,
     "write outputs as DIR/out<i>.npy (out<i>.rank<r>.npy for r > 0)"},
    {THUNKY_OPTION_PRINT, "print", FLAG, RUNS, "print the outputs"},
    {THUNKY_OPTION_REPEAT, "repeat", "N", COUNT(1, UINT32_MAX), HOST | CUDA,
     "run N times and print a timing summary"},
    {THUNKY_OPTION_PROFILE, "profile", "N", COUNT(1, 100000), HOST | CUDA | MODEL | OPTIONAL,
     "print the N thunks that took longest (default 10)"},
    {THUNKY_OPTION_TRACE, "trace", "FILE", TEXT, HOST | CUDA | MODEL,
     "write a Chrome trace (chrome://tracing, Perfetto)"},
    {THUNKY_OPTION_DEVICE_TIMING, "device-timing", NULL,
     CHOICE("cupti|gate", "a way of timing the device", NULL), CUDA,
     "--trace or --profile: each thunk's device time from CUPTI's\n"
     "activity records (cupti; by default where libcupti is\n"
     "found), or from CUDA events with the thunks held behind a\n"
     "gate (gate; what the default falls back to)"},
    {THUNKY_OPTION_MAX_ITERATIONS, "max-iterations", "N", COUNT(1, UINT64_MAX), RUNS | SESSION,
     "fail a while loop running longer (default 1000000)"},
    {THUNKY_OPTION_MAX_HOST_MEMORY, "max-host-memory", "B", BYTES, HOST | SYMBOLIC | SESSION,
     "refuse a run whose allocations over all ranks and\n"
     "inputs are more bytes, before inputs are read or made\n"
     "(default half the machine's memory; K, M, G, T suffixes)"},
    {THUNKY_OPTION_MAX_THUNKS, "max-thunks", "N", LIMIT, ANY | SESSION,
     "refuse an executable of more thunks (default 16777216)"},
    {THUNKY_OPTION_MAX_ALLOCATION_BYTES, "max-allocation-bytes", "B", LIMIT, ANY | SESSION,
     "refuse a larger buffer allocation (default 1T)"},
    {THUNKY_OPTION_MAX_ALLOCATIONS, "max-allocations", "N", LIMIT, ANY | SESSION,
     "refuse an executable of more allocations (default 16777216)"},
    {THUNKY_OPTION_MAX_DECODED_BYTES, "max-decoded-bytes", "B", LIMIT, ANY | SESSION,
     "refuse a container decompressing to more (default 4G)"},
    {THUNKY_OPTION_MAX_NESTING, "max-nesting", "N", LIMIT, ANY,
     "refuse a .mlir module whose brackets nest deeper (default 1000)"},
    {THUNKY_OPTION_TIMEOUT, "timeout", "S", COUNT(1, 7 * 86400), RUNS | SESSION,
     "on cuda, fail a wait for the device or NCCL that takes longer\n"
     "than S seconds, naming the thunk (default 300); host and\n"
     "symbolic: fail a run that takes longer (default none)"},
    {THUNKY_OPTION_NCCL_ID, "nccl-id", "FILE", TEXT, CUDA,
     "several processes: where rank 0 leaves NCCL's id; each\n"
     "process's rank and count come from THUNKY_RANK and\n"
     "THUNKY_WORLD_SIZE, or mpirun's OMPI_COMM_WORLD_RANK/_SIZE"},
    {THUNKY_OPTION_HELP, "help", FLAG, ANY, "print this and exit"},
    {THUNKY_OPTION_VERSION, "version", FLAG, ANY,
     "print the version, and where the cuda backend finds\n"
     "libcuda, libnccl, libcublasLt and libcupti (docs/runtime.md)"},
};

/* Names an option had before, still taken. */
static const struct {
  const char *name;
  ThunkyRunOptionId id;
} olderNames[] = {{"cuda-graph", THUNKY_OPTION_COMMAND_BUFFERS}};

const ThunkyRunOption *thunkyRunOptionAt(uint32_t index) {
  return index < THUNKY_OPTION_COUNT ? &table[index] : NULL;
}

static bool named(const char *listed, const char *name, size_t length) {
  return strlen(listed) == length && !strncmp(listed, name, length);
}

const ThunkyRunOption *thunkyRunOptionFind(const char *name, size_t length) {
  for (size_t i = 0; i < THUNKY_OPTION_COUNT; i++)
    if (named(table[i].name, name, length))
      return &table[i];
  for (size_t i = 0; i < sizeof olderNames / sizeof *olderNames; i++)
    if (named(olderNames[i].name, name, length))
      return &table[olderNames[i].id];
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

const char *thunkyRunOptionNearest(const char *name, unsigned flags) {
  const char *best = NULL;
  size_t bestDistance = 3;
  for (size_t i = 0; i < THUNKY_OPTION_COUNT; i++)
    if ((table[i].flags & flags) == flags && distance(name, table[i].name) < bestDistance)
      best = table[i].name, bestDistance = distance(name, table[i].name);
  return best;
}

/* The position of `value` among '|'-separated `list`, counted from `base`,
 * or -1. */
static int choiceIndex(const char *list, const char *value, int base) {
  for (int i = base; list && *list; i++) {
    const char *bar = strchr(list, '|');
    size_t length = bar ? (size_t)(bar - list) : strlen(list);
    if (named(value, list, length))
      return i;
    list = bar ? bar + 1 : "";
  }
  return -1;
}

static int choiceCount(const char *list) {
  int n = 1;
  for (; *list; list++)
    n += *list == '|';
  return n;
}

/* "a, b or c" of '|'-separated `list`. */
static void choiceWords(const char *list, char *out, size_t size) {
  out[0] = 0;
  for (size_t n = 0, used = 0; *list && used < size; n++) {
    const char *bar = strchr(list, '|');
    size_t length = bar ? (size_t)(bar - list) : strlen(list);
    used += (size_t)snprintf(out + used, size - used, "%s%.*s",
                             !n    ? ""
                             : bar ? ", "
                                   : " or ",
                             (int)length, list);
    list = bar ? bar + 1 : "";
  }
}

bool thunkyRunOptionParse(const ThunkyRunOption *o, const char *dashes, const char *value,
                          uint64_t *number, ThunkyError *error) {
  char words[256];
  switch (o->value) {
  case THUNKY_VALUE_NONE:
  case THUNKY_VALUE_TEXT:
    return true;
  case THUNKY_VALUE_COUNT: {
    char *end;
    errno = 0;
    unsigned long long v = value[0] == '-' ? 0 : strtoull(value, &end, 10);
    if (value[0] == '-' || !*value || errno || *end || v < o->min || v > o->max)
      return thunkyErrorf(error, "%s%s: '%s' is not a whole number from %llu to %llu", dashes,
                          o->name, value, (unsigned long long)o->min, (unsigned long long)o->max);
    *number = v;
    return true;
  }
  case THUNKY_VALUE_BYTES:
    return thunkyParseAmount(value, true, number) ||
           thunkyErrorf(error,
                        "%s%s: '%s' is not a positive byte count (K, M, G, T suffixes "
                        "allowed)",
                        dashes, o->name, value);
  case THUNKY_VALUE_LIMIT: {
    ThunkyLimits limits = thunkyLimitsDefault();
    ThunkyError why = {{0}};
    return thunkyLimitsSet(&limits, o->name, value, &why) ||
           thunkyErrorf(error, "%s%s", dashes, why.message);
  }
  case THUNKY_VALUE_CHOICE: {
    int listed = choiceIndex(o->choices, value, 0);
    if (listed < 0)
      listed = choiceIndex(o->older, value, choiceCount(o->choices));
    if (listed >= 0) {
      *number = (uint64_t)listed;
      return true;
    }
    choiceWords(o->choices, words, sizeof words);
    return thunkyErrorf(error, "%s%s: '%s' is not %s (%s)", dashes, o->name, value, o->what, words);
  }
  }
  return thunkyErrorf(error, "%s%s: no such kind of value", dashes, o->name);
}

const char *thunkyRunOptionPlaceName(unsigned place) {
  switch (place) {
  case HOST:
    return "host";
  case SYMBOLIC:
    return "symbolic";
  case CUDA:
    return "cuda";
  case MODEL:
    return "the model";
  }
  return "no one place";
}

size_t thunkyRunOptionsHelp(unsigned flags, char *buffer, size_t size) {
  size_t used = 0;
/* Appends, counting what does not fit; no pointer arithmetic on a NULL
 * buffer when only the length is asked. */
#define PUT(...)                                                                                  \
  used += (size_t)snprintf(used < size ? buffer + used : NULL, used < size ? size - used : 0,     \
                           __VA_ARGS__)
  for (size_t i = 0; i < THUNKY_OPTION_COUNT; i++) {
    const ThunkyRunOption *o = &table[i];
    if ((o->flags & flags) != flags)
      continue;
    char left[64];
    const char *value = o->value == THUNKY_VALUE_CHOICE ? o->choices : o->valueName;
    bool optional = o->flags & OPTIONAL;
    snprintf(left, sizeof left, "%s%s%s%s%s", o->name[1] ? "--" : "-", o->name,
             !value     ? ""
             : optional ? "[="
                        : " ",
             value ? value : "", value && optional ? "]" : "");
    /* The help beside the name where it fits, else on the lines below. */
    if (strlen(left) <= 22)
      PUT("  %-23s", left);
    else
      PUT("  %s\n  %-23s", left, "");
    /* Where it applies, unless anywhere or in any run. */
    unsigned places = o->flags & ANY;
    if (places != ANY && places != RUNS)
      for (unsigned bit = 1, n = 0; bit <= MODEL; bit <<= 1)
        if (places & bit)
          PUT("%s%s", n++ ? ", " : "", bit == MODEL ? "model" : thunkyRunOptionPlaceName(bit));
    if (places != ANY && places != RUNS)
      PUT(": ");
    for (const char *line = o->help; *line;) {
      const char *end = strchr(line, '\n');
      size_t length = end ? (size_t)(end - line) : strlen(line);
      PUT("%.*s\n", (int)length, line);
      line += length + (end != NULL);
      if (*line)
        PUT("  %-23s", "");
    }
  }
#undef PUT
  return used;
}
