/*===- thunky-c/base/Limits.h - bounds on what thunky reads ------------------===*
 *
 * An executable may come from anywhere. These bounds keep a crafted or
 * corrupt one from exhausting memory or time: input past one is refused
 * with an error naming the limit, never half read. Every tool takes them
 * as flags; docs/security.md lists them with their defaults.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_LIMITS_H
#define THUNKY_C_LIMITS_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkyLimits {
  /* Bytes that decompressing container chunks may produce, in all (a file
   * claiming more is refused before anything is allocated). */
  uint64_t maxDecodedBytes;
  /* Thunks in one executable, those nested in loops, branches and async
   * regions counted. */
  uint64_t maxThunks;
  /* Bytes of one buffer allocation. */
  uint64_t maxAllocationBytes;
  /* Buffer allocations in one executable. */
  uint64_t maxAllocations;
  /* Brackets of MLIR text nested in one another ({, [, ( and <, thunkyValidateTextNesting). */
  uint64_t maxNesting;
} ThunkyLimits;

/* 4 GiB decoded, 16Mi thunks, 1 TiB per allocation, 16Mi allocations: past
 * any executable XLA writes for today's GPUs, short of what would exhaust a
 * workstation. 1000 brackets deep: far past what import writes (control flow
 * nests at most 64 deep), and a third of where MLIR's recursive parser
 * overflows an 8 MiB stack (about 3,500 nested regions). */
#define THUNKY_DEFAULT_MAX_DECODED_BYTES (UINT64_C(4) << 30)
#define THUNKY_DEFAULT_MAX_THUNKS (UINT64_C(1) << 24)
#define THUNKY_DEFAULT_MAX_ALLOCATION_BYTES (UINT64_C(1) << 40)
#define THUNKY_DEFAULT_MAX_ALLOCATIONS (UINT64_C(1) << 24)
#define THUNKY_DEFAULT_MAX_NESTING UINT64_C(1000)

/* The defaults above. */
THUNKY_EXPORT ThunkyLimits thunkyLimitsDefault(void);

/* Sets the limit called `name` ("max-decoded-bytes", "max-thunks",
 * "max-allocation-bytes", "max-allocations" or "max-nesting") from `value`: a decimal count, for bytes with an
 * optional K, M, G or T suffix (powers of 1024). False, with the reason,
 * for an unknown name or a malformed or zero value. */
THUNKY_EXPORT bool thunkyLimitsSet(ThunkyLimits *limits, const char *name, const char *value,
                                   ThunkyError *error);

/* Parses `value` as thunkyLimitsSet does (a count, K/M/G/T suffixes when
 * `bytes`) into *out; false when malformed, zero or past UINT64_MAX. */
THUNKY_EXPORT bool thunkyParseAmount(const char *value, bool bytes, uint64_t *out);

/* Refuses MLIR text text[0, size), read from `name`, whose brackets nest
 * deeper than `maxNesting`, before MLIR's parser recurses into it. Brackets
 * in strings and // comments do not count; bytecode passes unread. Linear
 * in `size`. The error names name:line:column where the limit is passed,
 * the limit, and `flag`, the option that raises it. */
THUNKY_EXPORT bool thunkyValidateTextNesting(const char *text, size_t size, const char *name,
                                          uint64_t maxNesting, const char *flag,
                                          ThunkyError *error);

/* The name of thunky 0.2 ("check" now means showing that a change kept
 * a program's meaning: docs/runtime.md#names), for one more release. */
#define thunkyCheckTextNesting thunkyValidateTextNesting

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_LIMITS_H */
