/*===- cuda_ranks.c - one host thread per rank, and errors that name them --===*
 *
 * Every rank runs its own walk of the plan in its own thread, as XLA gives
 * each device its own: NCCL then needs no group calls to drive several GPUs
 * from one thread, and a rank blocked reading a predicate or in a NCCL
 * call never keeps a peer from arriving. Threads are made per call (tens
 * of microseconds, small next to a run that waits for the GPU).
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include "cuda_state.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void thunkyCudaThunkName(const ThunkyCudaState *state, uint32_t thunk, char *out,
                         size_t size) {
  if (thunk == THUNKY_CUDA_NO_THUNK)
    *out = '\0';
  else
    thunkyPlanThunkName(state->plan, thunk, out, size);
}

bool thunkyCudaCheck(const ThunkyCudaState *state, CUresult result, const char *call,
                     uint32_t thunk, ThunkyError *error) {
  if (result == CUDA_SUCCESS)
    return true;
  char where[160];
  thunkyCudaThunkName(state, thunk, where, sizeof where);
  return thunkyCudaFail(&state->cu, result, call, where, error);
}

typedef struct Worker {
  ThunkyCudaState *state;
  ThunkyCudaRank *rank;
  ThunkyCudaRankJob job;
} Worker;

/* Records the first rank to fail before telling the others to stop, so
 * the error reported is the cause, not a peer that stopped because of it. */
static void rankFailed(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  unsigned none = UINT32_MAX;
  atomic_compare_exchange_strong(&state->failed, &none, rank->index);
  atomic_store(&state->stop, true);
}

static void *work(void *arg) {
  Worker *w = arg;
  /* The context is current per thread, and this thread is new. */
  if (!THUNKY_CU(w->state, cuCtxSetCurrent, (w->rank->context), THUNKY_CUDA_NO_THUNK,
                 &w->rank->error) ||
      !w->job(w->state, w->rank))
    rankFailed(w->state, w->rank);
  atomic_store(&w->rank->finished, true);
  return NULL;
}

bool thunkyCudaForEachRank(ThunkyCudaState *state, ThunkyCudaRankJob job, ThunkyError *error) {
  atomic_store(&state->stop, false);
  atomic_store(&state->failed, UINT32_MAX);
  uint32_t n = state->ranks;
  Worker *workers = calloc(n, sizeof *workers);
  pthread_t *threads = calloc(n, sizeof *threads);
  if (!workers || !threads) {
    free(workers);
    free(threads);
    return thunkyErrorf(error, "cuda: out of memory starting %u rank threads", n);
  }
  for (uint32_t i = 0; i < n; i++) {
    workers[i] = (Worker){state, &state->rank[i], job};
    atomic_store(&state->rank[i].finished, false);
  }
  uint32_t started = 0;
  if (n == 1) {
    work(&workers[0]);
  } else {
    for (; started < n; started++) {
      int failure = pthread_create(&threads[started], NULL, work, &workers[started]);
      if (failure) {
        thunkyErrorf(&state->rank[started].error, "cuda: cannot start a thread: %s",
                     strerror(failure));
        rankFailed(state, &state->rank[started]);
        break;
      }
    }
    for (uint32_t i = started; i < n; i++)
      atomic_store(&state->rank[i].finished, true);
    for (uint32_t i = 0; i < started; i++)
      pthread_join(threads[i], NULL);
  }
  free(workers);
  free(threads);
  unsigned failed = atomic_load(&state->failed);
  if (failed == UINT32_MAX)
    return true;
  const ThunkyCudaRank *rank = &state->rank[failed];
  thunkyErrorf(error, "%s", rank->error.message);
  if (state->world > 1)
    thunkyErrorContext(error, "rank %u", rank->global);
  return false;
}

/*--- waiting against a deadline --------------------------------------------*/

/* Appends rank `first`, or ranks first..last, to a comma-separated list. */
static void appendRanks(char *out, size_t size, uint32_t first, uint32_t last) {
  size_t used = strlen(out);
  if (used + 1 >= size)
    return;
  if (first == last)
    snprintf(out + used, size - used, "%s%u", used ? ", " : "", first);
  else
    snprintf(out + used, size - used, "%s%u-%u", used ? ", " : "", first, last);
}

/* Fails `rank` for a wait that passed its deadline, naming what it waited
 * for and the ranks that did not get there: for communicators forming in a
 * world of several processes, the other processes' ranks, of which one at
 * least did not join (this process's ranks all reached NCCL, started
 * together, and NCCL does not say which peer is missing); otherwise this
 * process's ranks still working. */
static bool timedOut(ThunkyCudaState *state, ThunkyCudaRank *rank, const char *what,
                     bool joining) {
  atomic_store(&state->timedOut, true);
  char ranks[256] = "";
  uint32_t local = state->ranks, first = state->config.processRank * local;
  joining = joining && state->world > local; /* else every rank is here, and unfinished */
  for (uint32_t i = 0; i < local; i++)
    if (!atomic_load(&state->rank[i].finished) && !joining)
      appendRanks(ranks, sizeof ranks, state->rank[i].global, state->rank[i].global);
  if (joining && first)
    appendRanks(ranks, sizeof ranks, 0, first - 1);
  if (joining && first + local < state->world)
    appendRanks(ranks, sizeof ranks, first + local, state->world - 1);
  return thunkyErrorf(&rank->error,
                      "cuda: timed out after %llu s (--timeout) waiting for %s; %s %s%s",
                      (unsigned long long)(state->timeoutNs / 1000000000u), what,
                      joining ? "not joined: some of ranks" : "not finished: ranks", ranks,
                      joining ? " (in other processes)" : "");
}

/* Short waits (a while loop's predicate) stay quick; long ones stop
 * burning a core. */
static void backOff(unsigned polls) {
  if (polls < 100)
    return;
  struct timespec pause = {0, polls < 10000 ? 20000 : 1000000};
  while (nanosleep(&pause, &pause) && errno == EINTR)
    ;
}

/* Why the rank's communicators stopped, if one did: NCCL's asynchronous
 * errors (a peer gone, a network error) never reach the stream. */
static bool commsHealthy(ThunkyCudaState *state, ThunkyCudaRank *rank, uint32_t thunk) {
  for (uint32_t g = 0; state->hasNccl && rank->comms && g < state->numGroupings; g++) {
    ncclComm_t comm = rank->comms[g].comm;
    ncclResult_t async = ncclSuccess;
    if (!comm)
      continue;
    ncclResult_t result = state->nccl.ncclCommGetAsyncError(comm, &async);
    if (result == ncclSuccess && (async == ncclSuccess || async == ncclInProgress))
      continue;
    char where[160];
    thunkyCudaThunkName(state, thunk, where, sizeof where);
    return thunkyNcclFail(&state->nccl, result != ncclSuccess ? result : async, comm,
                          "ncclCommGetAsyncError", where, &rank->error);
  }
  return true;
}

bool thunkyCudaWait(ThunkyCudaState *state, ThunkyCudaRank *rank, CUstream stream,
                    uint32_t thunk) {
  /* Device work fails asynchronously: only a wait after each thunk (a
   * timeline's) can say which one failed. */
  const char *call = "cuStreamSynchronize (or a command before it, on the device)";
  /* Never a blocking cuStreamSynchronize, even for a rank alone: a kernel
   * that never ends, or a peer that never comes, would hang it forever. */
  uint64_t deadline = thunkyMonotonicNs() + state->timeoutNs;
  for (unsigned polls = 0;; polls++) {
    CUresult result = state->cu.cuStreamQuery(stream);
    if (result == CUDA_SUCCESS)
      return true;
    if (result != CUDA_ERROR_NOT_READY)
      return thunkyCudaCheck(state, result, call, thunk, &rank->error);
    if (atomic_load_explicit(&state->stop, memory_order_relaxed))
      return thunkyErrorf(&rank->error, "cuda: stopped waiting because another rank failed");
    if (polls % 64 == 63 && !commsHealthy(state, rank, thunk))
      return false;
    if (polls % 64 == 63 && thunkyMonotonicNs() > deadline) {
      /* Without a timeline the stream is waited for as a whole: the last
       * thunk enqueued is what the wait is for, not what never ends. */
      char name[160], what[320];
      bool whole = thunk == THUNKY_CUDA_NO_THUNK;
      thunkyCudaThunkName(state, whole ? rank->lastThunk : thunk, name, sizeof name);
      if (!whole)
        snprintf(what, sizeof what, "%s", name);
      else if (name[0])
        snprintf(what, sizeof what, "the device to finish %s, the last enqueued", name);
      else
        snprintf(what, sizeof what, "the device");
      return timedOut(state, rank, what, false);
    }
    backOff(polls);
  }
}

bool thunkyCudaNcclWait(ThunkyCudaState *state, ThunkyCudaRank *rank, ncclResult_t result,
                        ncclComm_t comm, const char *call, uint32_t thunk) {
  uint64_t deadline = thunkyMonotonicNs() + state->timeoutNs;
  for (unsigned polls = 0; result == ncclInProgress; polls++) {
    if (atomic_load_explicit(&state->stop, memory_order_relaxed))
      return thunkyErrorf(&rank->error, "cuda: stopped waiting in %s because another rank "
                                        "failed", call);
    if (thunkyMonotonicNs() > deadline) {
      char what[200];
      thunkyCudaThunkName(state, thunk, what, sizeof what);
      bool joining = thunk == THUNKY_CUDA_NO_THUNK;
      if (joining)
        snprintf(what, sizeof what, "NCCL's communicators to form (%s)", call);
      return timedOut(state, rank, what, joining);
    }
    backOff(polls);
    /* A group's end may leave several communicators in progress (comm NULL):
     * each settles on its own. */
    result = ncclSuccess;
    for (uint32_t g = 0; result == ncclSuccess && g < (comm ? 1 : state->numGroupings); g++) {
      ncclComm_t polled = comm ? comm : rank->comms[g].comm;
      ncclResult_t async = ncclSuccess;
      ncclResult_t asked = polled ? state->nccl.ncclCommGetAsyncError(polled, &async)
                                  : ncclSuccess;
      result = asked != ncclSuccess ? asked : async;
    }
  }
  return thunkyCudaNcclCheck(state, rank, result, comm, call, thunk);
}
