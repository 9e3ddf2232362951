/*===- find_library.c - finding NVIDIA's libraries where they are installed -===*
 *
 * The driver comes with the system, on the loader's path. cuBLAS and NCCL
 * often come as pip wheels inside a Python environment instead, which the
 * loader's path does not cover; JAX and torch find them there, under
 * site-packages/nvidia/<package>/lib. The search, in order, is torch's
 * (whose libraries carry a RUNPATH to the wheels' folders, which the
 * loader reads after LD_LIBRARY_PATH and before its cache):
 *   1. the override variable (THUNKY_NCCL_PATH, THUNKY_CUBLASLT_PATH,
 *      THUNKY_CUPTI_PATH): a
 *      library file, or a folder holding it. Set, it is the only place
 *      looked at, so that an explicit choice is never silently passed over;
 *   2. LD_LIBRARY_PATH's folders, in order;
 *   3. the Python environments: $VIRTUAL_ENV, $CONDA_PREFIX, the prefix of
 *      the python3 first on PATH (the folder above its bin/), and ~/.local,
 *      each as PREFIX/lib/python3.* /{site,dist}-packages/nvidia/<wheel>/lib,
 *      so that the wheels JAX runs with beat an older system copy;
 *   4. the rest of the loader's search (its cache, /usr/lib, ...), as
 *      dlopen does it.
 * No Python runs: the layout is read from the file system.
 *
 *===--------------------------------------------------------------------===*/
#define _GNU_SOURCE /* dlinfo */

#include "cuda_api.h"
#include "thunky-c/runtime/Runtime.h"

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The prefix of the python3 first on PATH: the folder above its bin/,
 * unresolved, since a virtual environment's python3 links elsewhere. */
static bool pythonPrefix(char *out, size_t size) {
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t length = strcspn(path, ":");
    char candidate[4096];
    struct stat st;
    if (length && length < sizeof candidate - 16) {
      snprintf(candidate, sizeof candidate, "%.*s/python3", (int)length, path);
      if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
        snprintf(out, size, "%.*s/..", (int)length, path);
        return true;
      }
    }
    path += length + (path[length] == ':');
  }
  return false;
}

/* Opens `name` in the first of a colon-separated list of folders that has
 * it. */
static void *openInFolders(const char *folders, const char *name) {
  void *handle = NULL;
  while (folders && *folders && !handle) {
    size_t length = strcspn(folders, ":");
    char path[4352];
    if (length && length < 4096) {
      snprintf(path, sizeof path, "%.*s/%s", (int)length, folders, name);
      if (access(path, F_OK) == 0)
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    folders += length + (folders[length] == ':');
  }
  return handle;
}

/* Opens `name` in the wheels' folders under one environment's prefix. */
static void *openInEnvironment(const char *prefix, const ThunkyCudaLibrary *library,
                               const char *name) {
  void *handle = NULL;
  for (size_t w = 0; library->wheels[w] && !handle; w++) {
    char pattern[4352];
    snprintf(pattern, sizeof pattern, "%s/lib/python3*/*-packages/nvidia/%s/lib/%s", prefix,
             library->wheels[w], name);
    glob_t found;
    if (glob(pattern, 0, NULL, &found) == 0)
      for (size_t i = 0; i < found.gl_pathc && !handle; i++)
        handle = dlopen(found.gl_pathv[i], RTLD_NOW | RTLD_LOCAL);
    globfree(&found);
  }
  return handle;
}

static void *openInEnvironments(const ThunkyCudaLibrary *library) {
  char python[4096], local[4096];
  const char *home = getenv("HOME");
  const char *prefixes[] = {getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX"),
                            pythonPrefix(python, sizeof python) ? python : NULL,
                            home && snprintf(local, sizeof local, "%s/.local", home) > 0
                                ? local
                                : NULL};
  void *handle = NULL;
  for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes && !handle; p++)
    for (size_t n = 0; prefixes[p] && *prefixes[p] && library->names[n] && !handle; n++)
      handle = openInEnvironment(prefixes[p], library, library->names[n]);
  return handle;
}

/* The override: a file, or a folder holding one of the names. */
static void *openOverride(const char *value, const ThunkyCudaLibrary *library) {
  struct stat st;
  if (stat(value, &st) != 0 || !S_ISDIR(st.st_mode))
    return dlopen(value, RTLD_NOW | RTLD_LOCAL);
  void *handle = NULL;
  for (size_t n = 0; library->names[n] && !handle; n++) {
    char path[4352];
    snprintf(path, sizeof path, "%s/%s", value, library->names[n]);
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  }
  return handle;
}

void *thunkyCudaOpenLibrary(const ThunkyCudaLibrary *library, char *path, size_t size,
                            ThunkyError *error) {
  const char *override = library->override ? getenv(library->override) : NULL;
  void *handle = NULL;
  char firstError[512] = "";
  if (override && *override) {
    if (!(handle = openOverride(override, library))) {
      const char *message = dlerror();
      thunkyErrorf(error, "cuda: cannot load %s from %s=%s: %s", library->names[0],
                   library->override, override, message ? message : "not found there");
      return NULL;
    }
  }
  for (size_t n = 0; !handle && library->names[n]; n++)
    handle = openInFolders(getenv("LD_LIBRARY_PATH"), library->names[n]);
  if (!handle && library->wheels)
    handle = openInEnvironments(library);
  for (size_t n = 0; !handle && library->names[n]; n++) {
    /* The first name's dlerror says most: the versioned name is the one a
     * correct install has; the others are fallbacks. */
    handle = dlopen(library->names[n], RTLD_NOW | RTLD_LOCAL);
    const char *message = handle ? NULL : dlerror();
    if (n == 0 && message)
      snprintf(firstError, sizeof firstError, "%s", message);
  }
  if (!handle) {
    thunkyErrorf(error, "cuda: cannot load %s (%s): %s%s%s%s", library->names[0], library->why,
                 firstError[0] ? firstError : "not found",
                 library->wheels ? "; not in a Python environment's nvidia wheels either" : "",
                 library->override ? " (" : "",
                 library->override ? library->override : "");
    if (library->override)
      snprintf(error->message + strlen(error->message),
               sizeof error->message - strlen(error->message), " may name it)");
    return NULL;
  }
  struct link_map *map = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name || !*map->l_name)
    snprintf(path, size, "%s", library->names[0]);
  else
    snprintf(path, size, "%s", map->l_name);
  return handle;
}

bool thunkyCudaLibraryPath(const char *name, char *path, size_t size, ThunkyError *error) {
  const ThunkyCudaLibrary *library = !strcmp(name, "cuda")       ? &thunkyCudaDriverLibrary
                                     : !strcmp(name, "nccl")     ? &thunkyNcclLibrary
                                     : !strcmp(name, "cublasLt") ? &thunkyCublasLtLibrary
                                     : !strcmp(name, "cupti")    ? &thunkyCuptiLibrary
                                                                 : NULL;
  if (!library)
    return thunkyErrorf(error, "cuda: no library '%s' (cuda, nccl, cublasLt or cupti)", name);
  /* Found as a run finds it; left loaded, as a run leaves it. */
  return thunkyCudaOpenLibrary(library, path, size, error) != NULL;
}
