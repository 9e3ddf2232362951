/*===- cuda_api.c - opening NVIDIA's libraries, and the driver's table ----===*/
#include "cuda_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Functions a header maps to a newer ABI name than an older driver has,
 * with the same signature under the old name: cuEventElapsedTime_v2 came
 * with CUDA 12.8 and only changed what it returns for events still
 * pending, which the runtime never asks about. */
static const char *const renames[][2] = {
    {"cuEventElapsedTime_v2", "cuEventElapsedTime"},
};

static void *findSymbol(void *library, const char *name) {
  void *fn = dlsym(library, name);
  for (size_t i = 0; !fn && i < sizeof renames / sizeof *renames; i++)
    if (!strcmp(renames[i][0], name))
      fn = dlsym(library, renames[i][1]);
  return fn;
}

bool thunkyCudaLoadLibrary(const ThunkyCudaLibrary *libraryOf, const ThunkyCudaSymbol *symbols,
                           size_t count, void *table, void **handle, ThunkyError *error) {
  char loaded[4096];
  void *library = thunkyCudaOpenLibrary(libraryOf, loaded, sizeof loaded, error);
  if (!library)
    return false;
  for (size_t i = 0; i < count; i++) {
    void *fn = findSymbol(library, symbols[i].name);
    if (!fn) {
      const char *message = dlerror();
      thunkyErrorf(error, "cuda: %s has no %s (too old for this build?): %s", loaded,
                   symbols[i].name, message ? message : "not found");
      dlclose(library); /* nothing of it has run yet */
      return false;
    }
    /* POSIX guarantees data and function pointers convert; memcpy says so
     * without a cast that ISO C leaves undefined. */
    memcpy((char *)table + symbols[i].offset, &fn, sizeof fn);
  }
  if (handle)
    *handle = library;
  return true;
}

#define DRIVER_SYMBOL(name) THUNKY_CUDA_SYMBOL(ThunkyCudaDriver, name)
static const ThunkyCudaSymbol driverSymbols[] = {THUNKY_CUDA_DRIVER_FUNCTIONS(DRIVER_SYMBOL)};

/* The driver comes with the system: only the loader's path has it. */
static const char *const driverNames[] = {"libcuda.so.1", NULL};
const ThunkyCudaLibrary thunkyCudaDriverLibrary = {driverNames, "no NVIDIA driver?", NULL, NULL};

bool thunkyCudaLoadDriver(ThunkyCudaDriver *driver, ThunkyError *error) {
  void *library;
  if (!thunkyCudaLoadLibrary(&thunkyCudaDriverLibrary, driverSymbols,
                             sizeof driverSymbols / sizeof *driverSymbols, driver, &library, error))
    return false;
  void *clock = dlsym(library, "thunkySimClockNs");
  memcpy(&driver->hostClockNs, &clock, sizeof clock);
  return true;
}

/* Errors of device work: sticky, they come back from whatever call follows
 * the fault (cuda.h). A launch that reports one did not cause it; other
 * calls (a timeline's event record, a wait) follow the work they name. */
static bool deviceFault(CUresult result) {
  switch (result) {
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return true;
  default:
    return false;
  }
}

bool thunkyCudaFail(const ThunkyCudaDriver *driver, CUresult result, const char *call,
                    const char *where, ThunkyError *error) {
  /* A stub library or a result newer than the driver has no words. */
  const char *text = NULL, *name = NULL;
  if (driver->cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "unknown error";
  char number[32];
  if (driver->cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) {
    snprintf(number, sizeof number, "CUresult %d", (int)result);
    name = number;
  }
  bool located = where && *where;
  if (located && deviceFault(result) && strncmp(call, "cuLaunch", 8) == 0)
    return thunkyErrorf(error,
                        "cuda: %s failed: %s (%s) at %s, from device work enqueued before it", call,
                        text, name, where);
  return thunkyErrorf(error, "cuda: %s failed: %s (%s)%s%s", call, text, name,
                      located ? " in " : "", located ? where : "");
}
