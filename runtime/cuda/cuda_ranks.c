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
  CUresult result = w->state->cu.cuCtxSetCurrent(w->rank->context);
  if (!thunkyCudaCheck(w->state, result, "cuCtxSetCurrent", THUNKY_CUDA_NO_THUNK,
                       &w->rank->error) ||
      !w->job(w->state, w->rank))
    rankFailed(w->state, w->rank);
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
  for (uint32_t i = 0; i < n; i++)
    workers[i] = (Worker){state, &state->rank[i], job};
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

bool thunkyCudaWait(ThunkyCudaState *state, ThunkyCudaRank *rank, CUstream stream,
                    uint32_t thunk) {
  /* Device work fails asynchronously: only a wait after each thunk (a
   * timeline's) can say which one failed. */
  const char *call = thunk == THUNKY_CUDA_NO_THUNK
                         ? "cuStreamSynchronize (or a command before it, on the device; a run "
                           "with a timeline, thunky-run --profile, names the thunk)"
                         : "cuStreamSynchronize (or a command before it, on the device)";
  /* Alone in the process, nothing can fail meanwhile: block in the driver. */
  if (state->ranks == 1)
    return thunkyCudaCheck(state, state->cu.cuStreamSynchronize(stream), call, thunk,
                           &rank->error);
  for (unsigned polls = 0;; polls++) {
    CUresult result = state->cu.cuStreamQuery(stream);
    if (result == CUDA_SUCCESS)
      return true;
    if (result != CUDA_ERROR_NOT_READY)
      return thunkyCudaCheck(state, result, call, thunk, &rank->error);
    if (atomic_load_explicit(&state->stop, memory_order_relaxed))
      return thunkyErrorf(&rank->error, "cuda: stopped waiting because another rank failed");
    /* Short waits (a while loop's predicate) stay quick; long ones stop
     * burning a core. */
    if (polls >= 100) {
      struct timespec pause = {0, 20000};
      while (nanosleep(&pause, &pause) && errno == EINTR)
        ;
    }
  }
}
