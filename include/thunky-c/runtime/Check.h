/*===- thunky-c/runtime/Check.h - showing that a change kept a program's meaning --===*
 *
 * What `thunky-run --kernels=fingerprint` and `thunky-run --compare` are
 * made of (docs/checking.md).
 *
 * A fingerprint run executes memory ops, control flow, collectives and the
 * GEMMs the host implements for real, and every other thunk as an
 * uninterpreted function: each buffer it writes is filled from a keyed
 * hash of the bytes it reads (ThunkyPlanThunk.key, then each read in
 * order). Two runs of executables that compute the same thing give the
 * same bytes; a changed dataflow changes them.
 *
 * A write log records, for each thunk a rank runs, a checksum of the
 * bytes it wrote. Two traces of runs that differ name the first thunk
 * after which they part.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_CHECK_H
#define THUNKY_C_CHECK_H

#include "thunky-c/Export.h"

#include "thunky-c/base/HashMap.h"
#include "thunky-c/runtime/Plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A keyed 64-bit hash of data[0, size): fast, not cryptographic. */
THUNKY_EXPORT uint64_t thunkyFingerprintHash(uint64_t key, const void *data, size_t size);

/* Fills out[0, size) with bytes drawn from `seed`. A 1-byte buffer gets 0
 * or 1, since it is a pred (a loop's condition, a branch) whenever a
 * thunk writes one; a wider one gets any bytes. */
THUNKY_EXPORT void thunkyFingerprintFill(uint64_t seed, void *out, size_t size);

/* For each allocation of `plan`, the number of the first output that lies
 * in it, else UINT32_MAX: an array of plan->numAllocations entries the
 * caller frees, NULL when out of memory. */
THUNKY_EXPORT uint32_t *thunkyOutputsOfAllocations(const ThunkyPlan *plan);

/* The seed of the undefined bytes allocation `allocation` of rank `rank`
 * starts with (ThunkyRunConfig.undefinedInitial), given `outputOf` from
 * thunkyOutputsOfAllocations: an output's is drawn from its output number,
 * which no rewrite changes, scratch's from its allocation. */
THUNKY_EXPORT uint64_t thunkyInitialSeed(const uint32_t *outputOf, uint32_t allocation,
                                         uint32_t rank);

/* Whether access `access` (0 .. count - 1) of thunk `thunk` feeds its
 * fingerprint: what it reads, and a kernel's written arguments as
 * ThunkyPlanThunk.written says (read where the HLO shows an update in
 * place, never where it shows outputs only, and outside scratch where it
 * shows nothing; fingerprint.c). Symbolic runs share the rule. */
THUNKY_EXPORT bool thunkyFingerprintReads(const ThunkyPlan *plan, uint32_t thunk, uint32_t access);

/*--- exchanges --------------------------------------------------------------*/

/* A thunk that moves bytes between ranks and that the host does not run
 * (ThunkyPlanThunk.exchange: send, recv, ragged all-to-all, collective
 * kernels, NVSHMEM) is an exchange to the checks. What it writes on a
 * rank is a function of its key, the rank, and which run of that key
 * this is on the rank (the first, the second, ...); what it reads is what
 * it sends, and each run's bytes go into the rank's sent digest, which a
 * comparison compares as it compares outputs. Whoever receives what is
 * sent, two programs that send the same bytes in the same runs of the
 * same keys receive the same bytes, so equal outputs and equal digests
 * prove them the same (docs/checking.md). Zero-initialize; free with
 * thunkyExchangesFree. */
typedef struct ThunkyExchanges {
  ThunkyHashMap runs; /* key -> runs so far */
  uint64_t sent;      /* a sum of one hash per run: key, run number, bytes read */
  uint64_t count;     /* runs so far, of every key */
} ThunkyExchanges;

/* Counts a run of key `key` into *x, and what it sent (`sentHash`, a hash
 * of the bytes it read); its run number (0 the first run of that key) to
 * *run. False when out of memory. */
THUNKY_EXPORT bool thunkyExchangeRun(ThunkyExchanges *x, uint64_t key, uint64_t sentHash,
                                     uint64_t *run);

/* The seed of what run `run` of key `key` writes on rank `rank`. */
THUNKY_EXPORT uint64_t thunkyExchangeSeed(uint64_t key, uint64_t run, uint32_t rank);

THUNKY_EXPORT void thunkyExchangesFree(ThunkyExchanges *x);

/* Runs thunk `thunk` of `plan` (ThunkyPlanThunk.exchange) as an exchange
 * on rank `rank`'s memory (allocation bases), counted into *x. False when
 * out of memory. */
THUNKY_EXPORT bool thunkyFingerprintExchange(const ThunkyPlan *plan, uint32_t thunk,
                                             uint8_t *const *memory, uint32_t rank,
                                             ThunkyExchanges *x);

/* Runs thunk `thunk` of `plan` as an uninterpreted function on one rank's
 * memory (allocation bases). Bytes it only writes never feed the hash; a
 * kernel's written arguments do as ThunkyPlanThunk.written says
 * (fingerprint.c). */
THUNKY_EXPORT void thunkyFingerprintThunk(const ThunkyPlan *plan, uint32_t thunk,
                                          uint8_t *const *memory);

/* A checksum of the bytes thunk `thunk` writes, as they are now, and for
 * an exchange of what it sends; false when it writes and sends nothing. */
THUNKY_EXPORT bool thunkyChecksumWrites(const ThunkyPlan *plan, uint32_t thunk,
                                        uint8_t *const *memory, uint64_t *checksum);

/* A piece of what a symbolic run (thunkySymbolicBackend) holds: bytes
 * [offset, offset + size) of a term, named by a 128-bit hash of how it was
 * made (docs/checking.md). Equal piece lists are equal bytes under any
 * reading of the terms. */
typedef struct ThunkyPiece {
  uint64_t term[2];
  uint64_t offset, size;
  uint32_t thunk;     /* the thunk whose run made the term; UINT32_MAX: none */
  uint32_t parameter; /* a parameter's own bytes: its number; UINT32_MAX: not one */
  /* A term whose bytes are known: byte i of a fill is fill[i % period]
   * (period 1 or 4); of a constant, bytes[i] (zeros past bytesSize; the
   * bytes are the plan's). Neither (period 0, bytes NULL): not known. */
  uint8_t fill[4], period;
  const uint8_t *bytes;
  uint64_t bytesSize;
  /* Bytes no thunk wrote: what an output or scratch held at the start,
   * which a GPU leaves undefined (ThunkyRunConfig.undefinedInitial). */
  bool undefined;
} ThunkyPiece;

/* Byte `at` of piece p's term into *byte, when the term's bytes are known. */
THUNKY_EXPORT bool thunkyPieceByte(const ThunkyPiece *p, uint64_t at, uint8_t *byte);

/*--- write logs ------------------------------------------------------------*/

typedef struct ThunkyWriteEvent {
  uint32_t thunk;    /* plan->thunks */
  uint64_t checksum; /* of what it wrote (thunkyChecksumWrites) */
} ThunkyWriteEvent;

typedef struct ThunkyWriteLog ThunkyWriteLog;

/* An empty trace for `ranks` ranks keeping at most `maxEvents` events per
 * rank (later ones are counted, not kept); NULL when out of memory. The
 * caller owns it. */
THUNKY_EXPORT ThunkyWriteLog *thunkyWriteLogCreate(uint32_t ranks, size_t maxEvents);
THUNKY_EXPORT void thunkyWriteLogDestroy(ThunkyWriteLog *trace);
/* Appends an event of rank `rank`; only that rank's thread may call it. */
THUNKY_EXPORT void thunkyWriteLogAdd(ThunkyWriteLog *trace, uint32_t rank,
                                       ThunkyWriteEvent event);
/* Rank `rank`'s events in the order it ran them (borrowed), and whether
 * some were dropped past maxEvents. */
THUNKY_EXPORT const ThunkyWriteEvent *
thunkyWriteLogGet(const ThunkyWriteLog *trace, uint32_t rank, size_t *count, bool *truncated);

typedef enum ThunkyDivergence {
  THUNKY_DIVERGENCE_NONE,   /* the traces agree */
  THUNKY_DIVERGENCE_WRITES, /* *thunkA and *thunkB wrote different bytes */
  THUNKY_DIVERGENCE_ONLY_B, /* *thunkB ran (once more) in B only */
  THUNKY_DIVERGENCE_ONLY_A, /* *thunkA ran in A only (a copy B removed?) */
  THUNKY_DIVERGENCE_ORDER,  /* A ran *thunkA before *thunkB, B after it */
  THUNKY_DIVERGENCE_FAILED, /* out of memory */
} ThunkyDivergence;

/* Where two runs of rank `rank` first part. A thunk of run A is the same
 * thunk of run B when its kind and annotation match (its key, without an
 * annotation), counting repeated runs in a loop in order. A divergence is
 * a thunk that ran in one run only, or a pair that wrote different bytes;
 * its time is its position in its run, a pair's the later of its two. The
 * earliest wins (at one time, one run only before a pair, A's before B's),
 * so what a divergence caused, which ran after it in both runs, is never
 * named before it, and independent thunks in another order are no
 * divergence. When there is none and the outputs still differ, two writes
 * to the same bytes ran in another order: the first pair that did is
 * named. Unset thunks are UINT32_MAX. Time and memory are linear in the
 * events (hash maps). */
THUNKY_EXPORT ThunkyDivergence thunkyWriteLogDivergence(
    const ThunkyPlan *planA, const ThunkyWriteLog *traceA, const ThunkyPlan *planB,
    const ThunkyWriteLog *traceB, uint32_t rank, uint32_t *thunkA, uint32_t *thunkB);

/* The names of thunky 0.2, when a write log was a "write trace" (a trace
 * is a timeline, thunky-c/runtime/Timeline.h), for one more release. */
typedef ThunkyWriteLog ThunkyWriteTrace;
#define thunkyWriteTraceCreate thunkyWriteLogCreate
#define thunkyWriteTraceDestroy thunkyWriteLogDestroy
#define thunkyWriteTraceAdd thunkyWriteLogAdd
#define thunkyWriteTraceGet thunkyWriteLogGet
#define thunkyWriteTraceDivergence thunkyWriteLogDivergence

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_CHECK_H */
