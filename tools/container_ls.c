/*===- container_ls.c - the executables of a dump or cache folder -------===*
 *
 * XLA's dump folder holds one *.gpu_executable.riegeli (or, before JAX
 * 0.10, *.gpu_executable.pb) among many text files; a JAX compilation
 * cache holds <key>-cache entries and XLA's own cache folders. Every
 * regular file is tried; those named as executables are reported when they
 * do not read, the others are left out quietly.
 *
 *===--------------------------------------------------------------------===*/
#define _DEFAULT_SOURCE /* strdup */
#include "container_ls.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/format/Container.h"
#include "thunky-c/format/Executable.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int byName(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool endsWith(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}

/* Whether a file's name says it holds an executable. */
static bool namedAsExecutable(const char *name) {
  return endsWith(name, "-cache") || endsWith(name, ".gpu_executable.riegeli") ||
         endsWith(name, ".gpu_executable.pb");
}

static bool countThunk(ThunkyThunkProto *thunk, void *userData, ThunkyError *error) {
  (void)thunk, (void)userData, (void)error;
  return true;
}

/* One file's row; false, with why, when it does not read. */
static bool listOne(const char *path, const char *name, bool *listed, ThunkyError *error) {
  ThunkyFileBytes bytes;
  *listed = false;
  if (!thunkyFileBytesCreate(&bytes, path, error))
    return false;
  ThunkyContainer c;
  ThunkyExecutable *exe = NULL;
  bool binary = thunkyInputKindOf(bytes.data, bytes.size) == THUNKY_INPUT_BINARY;
  bool ok = binary && thunkyContainerCreate(bytes.data, bytes.size, NULL, &c, error);
  if (ok) {
    char layers[512];
    thunkyContainerDescribe(&c, layers, sizeof layers);
    layers[strcspn(layers, ":")] = 0; /* the layering's name */
    thunkyContainerDestroy(&c);
    ok = thunkyExecutableOpen(bytes.data, bytes.size, NULL, &exe, error) &&
         thunkyExecutableForEachThunk(exe, countThunk, NULL, error);
    if (ok) {
      const char *module = exe->proto->module_name && *exe->proto->module_name
                               ? exe->proto->module_name
                               : "-";
      printf("%8llu %12zu  %-28s %-24s %s\n", (unsigned long long)exe->numThunks, bytes.size,
             layers, module, name);
      *listed = true;
    }
  } else if (!binary) {
    thunkyInputExpectExecutable(bytes.data, bytes.size, name, error);
  }
  thunkyExecutableDestroy(exe);
  thunkyFileBytesDestroy(&bytes);
  return ok;
}

static void freeNames(char **names, size_t count) {
  for (size_t i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

int containerList(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "thunky-container: %s: %s\n", dir, strerror(errno));
    return 2;
  }
  char **names = NULL;
  size_t count = 0, capacity = 0, folders = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    if (!thunkyArrayGrow((void **)&names, &capacity, count, sizeof *names) ||
        !(names[count] = strdup(e->d_name))) {
      fprintf(stderr, "thunky-container: %s: out of memory\n", dir);
      closedir(d);
      freeNames(names, count);
      return 2;
    }
    count++;
  }
  closedir(d);
  qsort(names, count, sizeof *names, byName);
  printf("%8s %12s  %-28s %-24s %s\n", "thunks", "bytes", "layering", "module", "file");
  size_t executables = 0, others = 0;
  int status = 0;
  for (size_t i = 0; i < count; i++) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (stat(path, &st) != 0) {
      fprintf(stderr, "thunky-container: %s: %s\n", path, strerror(errno));
      status = 2;
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      folders += S_ISDIR(st.st_mode) != 0;
      others += !S_ISDIR(st.st_mode);
      continue;
    }
    ThunkyError error;
    bool listed;
    /* A file that did not read for want of memory may be an executable
     * all the same: that is an error, not a file left out. */
    errno = 0;
    bool read = listOne(path, names[i], &listed, &error);
    if (read || (!namedAsExecutable(names[i]) && errno != ENOMEM)) {
      executables += listed, others += !listed;
      continue;
    }
    fprintf(stderr, "thunky-container: %s: %s\n", path, error.message);
    status = 2;
  }
  printf("%zu executable(s); %zu other file(s) and %zu folder(s) left out\n", executables,
         others, folders);
  freeNames(names, count);
  return status;
}
