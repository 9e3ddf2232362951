/*===- thunky-c/runtime/RunOptions.h - the options of a run, once -------===*
 *
 * One table of every option a run takes: its name, its value and the range
 * or choices the value must be in, which of the backends and the model it
 * applies to, whether a session (thunky-c/runtime/Session.h, and through
 * it the Python package) takes it, and the help `thunky-run --help` prints.
 * thunky-run's command line, thunkySessionSet and the Python package all
 * read this table, so that a name, a range and a refusal are written once.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_RUNTIME_RUN_OPTIONS_H
#define THUNKY_C_RUNTIME_RUN_OPTIONS_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every option, in the order --help lists them. */
typedef enum ThunkyRunOptionId {
  THUNKY_OPTION_SEED,
  THUNKY_OPTION_BACKEND,
  THUNKY_OPTION_KERNELS,
  THUNKY_OPTION_COMPARE,
  THUNKY_OPTION_CHECK_ASYNC,
  THUNKY_OPTION_SCHEDULE,
  THUNKY_OPTION_SCRATCH_BYTE,
  THUNKY_OPTION_MODEL,
  THUNKY_OPTION_DEVICE,
  THUNKY_OPTION_MEASURED,
  THUNKY_OPTION_COUNTS_FROM,
  THUNKY_OPTION_LOOP_TRIPS,
  THUNKY_OPTION_BRANCH,
  THUNKY_OPTION_COMMAND_BUFFERS,
  THUNKY_OPTION_GRAPH_MIN_SIZE,
  THUNKY_OPTION_GRAPH_TYPES,
  THUNKY_OPTION_JSON,
  THUNKY_OPTION_SVG,
  THUNKY_OPTION_RANKS,
  THUNKY_OPTION_PARTITIONS,
  THUNKY_OPTION_LIBRARY,
  THUNKY_OPTION_OUTPUT_DIR,
  THUNKY_OPTION_PRINT,
  THUNKY_OPTION_REPEAT,
  THUNKY_OPTION_PROFILE,
  THUNKY_OPTION_TRACE,
  THUNKY_OPTION_DEVICE_TIMING,
  THUNKY_OPTION_MAX_ITERATIONS,
  THUNKY_OPTION_MAX_HOST_MEMORY,
  THUNKY_OPTION_MAX_THUNKS,
  THUNKY_OPTION_MAX_ALLOCATION_BYTES,
  THUNKY_OPTION_MAX_ALLOCATIONS,
  THUNKY_OPTION_MAX_DECODED_BYTES,
  THUNKY_OPTION_MAX_NESTING,
  THUNKY_OPTION_TIMEOUT,
  THUNKY_OPTION_NCCL_ID,
  THUNKY_OPTION_HELP,
  THUNKY_OPTION_VERSION,
  THUNKY_OPTION_COUNT
} ThunkyRunOptionId;

/* What an option's value is. */
typedef enum ThunkyRunOptionValue {
  THUNKY_VALUE_NONE,   /* a flag */
  THUNKY_VALUE_COUNT,  /* a whole number in [min, max] */
  THUNKY_VALUE_BYTES,  /* a positive byte count, K, M, G, T suffixes allowed */
  THUNKY_VALUE_CHOICE, /* one of `choices` */
  THUNKY_VALUE_TEXT,   /* a path or a list, checked where it is used */
  THUNKY_VALUE_LIMIT,  /* one of thunky-c/base/Limits.h's, as thunkyLimitsSet takes it */
} ThunkyRunOptionValue;

/* Where an option applies, and how it is given (ThunkyRunOption.flags). */
enum {
  THUNKY_APPLIES_HOST = 1u << 0,     /* the host backend, fingerprints included */
  THUNKY_APPLIES_SYMBOLIC = 1u << 1, /* the symbolic backend */
  THUNKY_APPLIES_CUDA = 1u << 2,     /* the CUDA backend */
  THUNKY_APPLIES_MODEL = 1u << 3,    /* the schedule model (no run: a prediction) */
  THUNKY_APPLIES_ANY = 15u,
  THUNKY_OPTION_SESSION = 1u << 4,  /* thunkySessionSet takes it, by the same name */
  THUNKY_OPTION_OPTIONAL = 1u << 5, /* the value may be left out: --profile or --profile=N */
  THUNKY_OPTION_REPEATS = 1u << 6,  /* may be given more than once, each adding one */
};

typedef struct ThunkyRunOption {
  ThunkyRunOptionId id;
  const char *name;      /* without dashes: "max-iterations"; "o" for -o */
  const char *valueName; /* how --help shows the value ("N", "FILE"); NULL for a flag */
  ThunkyRunOptionValue value;
  uint64_t min, max;   /* THUNKY_VALUE_COUNT's range */
  const char *choices; /* THUNKY_VALUE_CHOICE's, '|' between them: "host|cuda|symbolic" */
  const char *what;    /* what a choice names, for a refusal: "a backend" */
  const char *older;   /* choices still taken under an older spelling, numbered after
                        * `choices` ("model" for --backend: --model) */
  unsigned flags;
  const char *help; /* --help's lines for it, '\n' between them */
} ThunkyRunOption;

/* Option `index` of the table, in --help's order; NULL past the last.
 * Borrowed: the table is static. */
THUNKY_EXPORT const ThunkyRunOption *thunkyRunOptionAt(uint32_t index);

/* The option named name[0, length) (without dashes), or NULL. An older
 * name finds its option too: `cuda-graph` finds command-buffers. */
THUNKY_EXPORT const ThunkyRunOption *thunkyRunOptionFind(const char *name, size_t length);

/* The listed name nearest to `name` (at most two edits away) among the
 * options whose flags include all of `flags`, or NULL: for "did you mean". */
THUNKY_EXPORT const char *thunkyRunOptionNearest(const char *name, unsigned flags);

/* Checks `value` against the option: a count in range (into *number), a
 * byte count (into *number), one of the choices (its position into
 * *number), a limit as thunkyLimitsSet takes it, or any text (nothing). `dashes` is how the caller
 * spells the name in the refusal ("--" for a command line, "" for a session). False, with one line
 * naming the option, the value and what is allowed. */
THUNKY_EXPORT bool thunkyRunOptionParse(const ThunkyRunOption *option, const char *dashes,
                                        const char *value, uint64_t *number, ThunkyError *error);

/* "host", "cuda", "symbolic" or "the model": the one place of the flags
 * below THUNKY_APPLIES_ANY, to say where a run is. */
THUNKY_EXPORT const char *thunkyRunOptionPlaceName(unsigned place);

/* Writes --help's lines for every option whose flags include all of
 * `flags` (0: all) into buffer[0, size), NUL-terminated and cut short when
 * it does not fit; each option as "  --name VALUE" with its help beside it
 * or, when the name is long, below it. Returns the length it needs. */
THUNKY_EXPORT size_t thunkyRunOptionsHelp(unsigned flags, char *buffer, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_RUNTIME_RUN_OPTIONS_H */
