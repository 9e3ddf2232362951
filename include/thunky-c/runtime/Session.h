/*===- thunky-c/runtime/Session.h - running executables through opaque handles --===*
 *
 * The runtime for bindings in other languages (Python's ctypes: the
 * `thunky` package, docs/python.md), which should not mirror ThunkyPlan or
 * ThunkyRunConfig. A session holds one planned executable, the options of
 * its runs (thunky-run's, by name) and, after a run, its backend's memory,
 * to read outputs from. Every function takes and returns plain C values:
 * handles, strings, numbers, pointers to bytes. Failing functions return
 * false and leave one line in the ThunkyError. No MLIR.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_SESSION_H
#define THUNKY_C_SESSION_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkySession ThunkySession;

/* An empty session with thunky-run's defaults (host backend, 1 rank,
 * registered kernels, default limits, half the machine's memory for the
 * host backend); NULL when out of memory. Free with thunkySessionDestroy. */
THUNKY_EXPORT ThunkySession *thunkySessionCreate(void);
/* Frees the session, its plan and its backend state; NULL is allowed. */
THUNKY_EXPORT void thunkySessionDestroy(ThunkySession *session);

/* Sets option `name` as thunky-run's --NAME VALUE: each option of
 * thunky-c/runtime/RunOptions.h's table marked THUNKY_OPTION_SESSION, with
 * the same values and ranges: backend (host, cuda, symbolic: terms, not
 * bytes, for thunkySessionCompare only), kernels (registered,
 * fingerprint), ranks, partitions, max-iterations, max-host-memory,
 * scratch-byte, schedule (start, done), timeout (cuda: for one wait,
 * default 300; host and symbolic: for one whole run, default none),
 * library (a shared library of host kernels, loaded now; repeatable), and
 * the limits max-thunks, max-allocation-bytes, max-allocations,
 * max-decoded-bytes (taken by the next thunkySessionLoad). False, with
 * why, for an unknown name (and the nearest one) or a bad value. */
THUNKY_EXPORT bool thunkySessionSet(ThunkySession *session, const char *name, const char *value,
                                    ThunkyError *error);

/* Plans data[0, size), an executable in any container layering
 * (thunky-c/format/Container.h), replacing what the session held; the bytes are
 * not kept. False, with why (what the bytes are, when no executable). */
THUNKY_EXPORT bool thunkySessionLoad(ThunkySession *session, const void *data, size_t size,
                                     ThunkyError *error);

/* How many parameters (outputs false) or outputs (true) the plan has. */
THUNKY_EXPORT uint32_t thunkySessionCount(const ThunkySession *session, bool outputs);
/* Parameter or output `index`: its xla.PrimitiveType (0: raw bytes), rank,
 * dims (room for 8) and bytes. False when there is no such one. */
THUNKY_EXPORT bool thunkySessionArray(const ThunkySession *session, bool output, uint32_t index,
                                      int32_t *elementType, uint32_t *rank, int64_t *dims,
                                      uint64_t *bytes);
/* The ranks and partitions the next run takes: those set, else (after a
 * load) what the executable records (thunkyPlanRecordedLayout), else 1. */
THUNKY_EXPORT uint32_t thunkySessionRanks(const ThunkySession *session);
THUNKY_EXPORT uint32_t thunkySessionPartitions(const ThunkySession *session);
/* The plan's thunks and allocations. */
THUNKY_EXPORT uint32_t thunkySessionThunks(const ThunkySession *session);
THUNKY_EXPORT uint32_t thunkySessionAllocations(const ThunkySession *session);

/* Runs the plan once on every rank, every rank given the same inputs:
 * inputs[i] (sizes[i] bytes, borrowed, C order) for parameter i; NULL
 * inputs take seeded random ones, as thunky-run --seed `seed` makes. The
 * backend's memory stays for thunkySessionReadOutput until the next run,
 * load or destroy. */
THUNKY_EXPORT bool thunkySessionRun(ThunkySession *session, const void *const *inputs,
                                    const uint64_t *sizes, uint32_t count, uint64_t seed,
                                    ThunkyError *error);
/* Stops the run or comparison in progress on `session` (from another
 * thread, or a signal handler) before its next command, on the host and in
 * symbolic runs: it fails, "interrupted", naming that command. A run or
 * comparison that starts later is not affected. */
THUNKY_EXPORT void thunkySessionInterrupt(ThunkySession *session);
/* Copies output `output` of rank `rank` of the last run into out[0, size),
 * where size is the output's bytes. */
THUNKY_EXPORT bool thunkySessionReadOutput(const ThunkySession *session, uint32_t rank,
                                           uint32_t output, void *out, uint64_t size,
                                           ThunkyError *error);

/* Runs a's plan and b's on the same inputs (as thunkySessionRun takes
 * them), both under a's options, and compares every output of every rank
 * as thunky-run --compare does (thunky-c/runtime/Compare.h), naming the sides
 * `nameA` and `nameB`. Returns 0 when the same, 1 when different, 2 on an
 * error (in *error); for 0 and 1, *report is what thunky-run prints (the
 * first difference, the first divergent thunk), which the caller frees
 * with thunkyFree. */
THUNKY_EXPORT int thunkySessionCompare(ThunkySession *a, const char *nameA, const ThunkySession *b,
                                       const char *nameB, const void *const *inputs,
                                       const uint64_t *sizes, uint32_t count, uint64_t seed,
                                       char **report, ThunkyError *error);

/* One line naming the layers of the container data[0, size), outermost
 * first (thunky-container info), into out[0, size). */
THUNKY_EXPORT bool thunkyDescribeContainer(const void *data, size_t size, char *out, size_t outSize,
                                           ThunkyError *error);

/* The container `like` (any layering, a JAX serialize() pickle, a cache
 * entry) with its GpuExecutableProto replaced by the one in `executable`
 * (any layering): what JAX loads in place of `like`. Written with like's
 * compression into *out, *outSize bytes, which the caller frees with
 * thunkyFree. */
THUNKY_EXPORT bool thunkyContainerSwapExecutable(const void *like, size_t likeSize,
                                                 const void *executable, size_t executableSize,
                                                 uint8_t **out, size_t *outSize,
                                                 ThunkyError *error);

/* Frees memory this API handed out (reports, bytes); NULL is allowed. */
THUNKY_EXPORT void thunkyFree(void *memory);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_SESSION_H */
