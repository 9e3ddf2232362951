/*===- nccl_id.c - handing NCCL's id from process 0 to the others ---------===*
 *
 * NCCL's ranks meet through a 128-byte id that one of them makes. Rather
 * than depend on MPI, process 0 leaves the id in a file every process can
 * see (config->ncclIdFile, on a shared file system across nodes), written
 * whole under a temporary name and renamed into place, so a reader never
 * sees half of it; the others poll for it. Any launcher works: mpirun,
 * srun, or a shell loop, as long as each process is told its rank.
 *
 * Environment: THUNKY_NCCL_ID_TIMEOUT, seconds the other processes wait
 * for the file (120 by default). NCCL reads its own (NCCL_DEBUG, ...).
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* fsync, nanosleep, clock_gettime */

#include "cuda_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { DEFAULT_TIMEOUT_S = 120, POLL_MS = 50 };

static unsigned long timeoutSeconds(void) {
  const char *text = getenv("THUNKY_NCCL_ID_TIMEOUT");
  char *end = NULL;
  unsigned long seconds = text ? strtoul(text, &end, 10) : 0;
  return text && *text && !*end && seconds ? seconds : DEFAULT_TIMEOUT_S;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool publish(const char *path, const ncclUniqueId *id, ThunkyError *error) {
  size_t size = strlen(path) + 32;
  char *temp = malloc(size);
  if (!temp)
    return thunkyErrorf(error, "cuda: out of memory writing NCCL's id");
  snprintf(temp, size, "%s.%ld.tmp", path, (long)getpid());
  bool ok = false;
  int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    /* fsync: a reader on another node must never see the name before the
     * bytes. */
    ok = write(fd, id, sizeof *id) == (ssize_t)sizeof *id && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    ok = ok && rename(temp, path) == 0;
  }
  if (!ok) {
    thunkyErrorf(error, "cuda: cannot write NCCL's id to %s: %s", path, strerror(errno));
    unlink(temp);
  }
  free(temp);
  return ok;
}

static bool fetch(const char *path, uint32_t process, ncclUniqueId *id, ThunkyError *error) {
  unsigned long timeout = timeoutSeconds();
  double deadline = now() + (double)timeout;
  for (;;) {
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
      ssize_t got = read(fd, id, sizeof *id);
      close(fd);
      if (got == (ssize_t)sizeof *id)
        return true;
    } else if (errno != ENOENT) {
      return thunkyErrorf(error, "cuda: cannot read NCCL's id from %s: %s", path,
                          strerror(errno));
    }
    if (now() > deadline)
      return thunkyErrorf(error,
                          "cuda: process %u waited %lu s for process 0 to write NCCL's id to "
                          "%s; is process 0 running, with the same file? "
                          "(THUNKY_NCCL_ID_TIMEOUT sets the wait)",
                          process, timeout, path);
    struct timespec pause = {0, POLL_MS * 1000000L};
    nanosleep(&pause, NULL);
  }
}

bool thunkyCudaShareNcclId(const ThunkyCudaState *state, ncclUniqueId *id,
                           ThunkyError *error) {
  const ThunkyRunConfig *config = &state->config;
  bool alone = config->processCount <= 1;
  if (alone || config->processRank == 0) {
    ncclResult_t result = state->nccl.ncclGetUniqueId(id);
    if (result != ncclSuccess)
      return thunkyNcclFail(&state->nccl, result, NULL, "ncclGetUniqueId", NULL, error);
  }
  if (alone)
    return true;
  if (!config->ncclIdFile || !*config->ncclIdFile)
    return thunkyErrorf(error,
                        "cuda: %u processes share NCCL's id through a file, and none "
                        "was given (thunky-run --nccl-id FILE; ThunkyRunConfig.ncclIdFile)",
                        config->processCount);
  return config->processRank == 0 ? publish(config->ncclIdFile, id, error)
                                  : fetch(config->ncclIdFile, config->processRank, id, error);
}

void thunkyCudaRetireNcclId(const ThunkyCudaState *state) {
  const ThunkyRunConfig *config = &state->config;
  if (config->processCount > 1 && config->processRank == 0 && config->ncclIdFile)
    unlink(config->ncclIdFile);
}
