/*===- module_export.c - thunky-run reads a module through thunky-translate -===*
 *
 * The runtime links no MLIR, and neither does thunky-run: linked, MLIR's
 * libraries cost every run about 150 ms at start-up, most of running a
 * small executable, and loading the plugin into this process would put a
 * second copy of the format library beside thunky-run's own. A module is
 * rare input; it goes through the translator, in its own process.
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L

#include "module_export.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* thunky-translate beside /proc/self/exe: the build's bin/, or the
 * installed one. */
static bool translatorPath(char *path, size_t size, ThunkyError *error) {
  ssize_t n = readlink("/proc/self/exe", path, size - 1);
  char *slash = n > 0 ? (path[n] = 0, strrchr(path, '/')) : NULL;
  if (!slash || (size_t)(slash - path) + sizeof "/thunky-translate" > size)
    return thunkyErrorf(error, "cannot tell where thunky-run is (/proc/self/exe)");
  strcpy(slash, "/thunky-translate");
  return true;
}

/* Reads the child's stdout into `out` and keeps the start of its stderr
 * (enough for the first diagnostic) until both close; 0, or an errno. */
static int drain(int outFd, int errFd, ThunkyBuffer *out, char *err, size_t errSize) {
  struct pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
  size_t errUsed = 0;
  char chunk[65536];
  int failed = 0;
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      failed = errno;
      break;
    }
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !fds[i].revents)
        continue;
      ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
      } else if (i == 0) {
        if (!failed && !thunkyBufferAppend(out, chunk, (size_t)n))
          failed = ENOMEM;
      } else {
        size_t keep = errSize - 1 - errUsed < (size_t)n ? errSize - 1 - errUsed : (size_t)n;
        memcpy(err + errUsed, chunk, keep);
        errUsed += keep;
      }
    }
  }
  for (int i = 0; i < 2; i++)
    if (fds[i].fd >= 0)
      close(fds[i].fd);
  err[errUsed] = 0;
  return failed;
}

/* "path:1:9: error: expected ..." becomes "path:1:9: expected ...". */
static void firstError(const char *path, char *err, ThunkyError *error) {
  char *line = strstr(err, ": error: ");
  if (!line) {
    err[strcspn(err, "\n")] = 0;
    thunkyErrorf(error, "%s: thunky-translate --export-thunky failed: %s", path,
                 *err ? err : "(it said nothing)");
    return;
  }
  char *start = line;
  while (start > err && start[-1] != '\n')
    start--;
  line[strcspn(line, "\n")] = 0;
  thunkyErrorf(error, "%.*s: %s", (int)(line - start), start, line + strlen(": error: "));
}

bool exportModuleFile(const char *path, uint64_t maxNesting, ThunkyBuffer *out,
                      ThunkyError *error) {
  char translator[4096], err[4096], nesting[64];
  if (!translatorPath(translator, sizeof translator, error))
    return false;
  int outPipe[2], errPipe[2];
  if (pipe(outPipe))
    return thunkyErrorf(error, "%s: cannot make a pipe: %s", path, strerror(errno));
  if (pipe(errPipe)) {
    close(outPipe[0]), close(outPipe[1]);
    return thunkyErrorf(error, "%s: cannot make a pipe: %s", path, strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, outPipe[0]);
  posix_spawn_file_actions_addclose(&actions, errPipe[0]);
  snprintf(nesting, sizeof nesting, "--thunky-max-nesting=%llu", (unsigned long long)maxNesting);
  /* posix_spawn takes its arguments as writable strings. */
  char exportFlag[] = "--export-thunky", outFlag[] = "-o", stdoutName[] = "-";
  char *input = strdup(path);
  char *argv[] = {translator, exportFlag, nesting, input, outFlag, stdoutName, NULL};
  pid_t pid;
  int spawned = input ? posix_spawn(&pid, translator, &actions, NULL, argv, environ) : ENOMEM;
  posix_spawn_file_actions_destroy(&actions);
  free(input);
  close(outPipe[1]), close(errPipe[1]);
  if (spawned) {
    close(outPipe[0]), close(errPipe[0]);
    return thunkyErrorf(error,
                        "%s: a module, and thunky-run cannot run %s to export it (%s); export it "
                        "with thunky-translate --export-thunky %s -o EXE, then run EXE",
                        path, translator, strerror(spawned), path);
  }
  int failed = drain(outPipe[0], errPipe[0], out, err, sizeof err);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (failed)
    return thunkyErrorf(error, "%s: cannot read the executable thunky-translate exported: %s",
                        path, strerror(failed));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return true;
  if (WIFSIGNALED(status))
    return thunkyErrorf(error, "%s: thunky-translate --export-thunky died of signal %d", path,
                        WTERMSIG(status));
  firstError(path, err, error);
  return false;
}
