/*===- run_setup.c - what a caller does before a run ---------------------===*
 *
 * Shared by thunky-run and sessions (thunky-c/runtime/Session.h): the default
 * bound on host memory, seeded random inputs, and libraries of host
 * kernels.
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include "thunky-c/runtime/Inputs.h"
#include "thunky-c/runtime/Runtime.h"

#include "thunky-c/base/ElementTypes.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t thunkyDefaultHostMemory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  return pages > 0 && pageSize > 0 ? (uint64_t)pages * (uint64_t)pageSize / 2 : UINT64_C(8) << 30;
}

bool thunkyRunConfigNormalize(ThunkyRunConfig *c, ThunkyError *error) {
  if (!c->ranks)
    c->ranks = 1;
  if (!c->partitions)
    c->partitions = 1;
  if (!c->processCount)
    c->processCount = 1;
  if (c->processRank >= c->processCount)
    return thunkyErrorf(error, "process %u of only %u", c->processRank, c->processCount);
  uint64_t world = (uint64_t)c->ranks * c->processCount;
  if (world > INT32_MAX)
    return thunkyErrorf(error, "a world of %llu ranks is too large", (unsigned long long)world);
  if (world % c->partitions)
    return thunkyErrorf(error, "%u partitions do not divide a world of %llu ranks",
                        c->partitions, (unsigned long long)world);
  return true;
}

bool thunkyRegistryLoadLibrary(ThunkyRegistry *registry, const char *path, ThunkyError *error) {
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ThunkyRegisterFn registerFn =
      handle ? (ThunkyRegisterFn)(uintptr_t)dlsym(handle, THUNKY_REGISTER_SYMBOL) : NULL;
  if (!handle)
    return thunkyErrorf(error, "%s: %s", path, dlerror());
  if (!registerFn) {
    /* Nothing of it is in the registry yet, so nothing keeps it loaded. */
    bool old = dlsym(handle, "thunky_register") != NULL;
    dlclose(handle);
    return thunkyErrorf(error,
                        "%s: exports no " THUNKY_REGISTER_SYMBOL "%s (thunky-c/runtime/Runtime.h)", path,
                        old ? ": it exports thunky_register, the unversioned interface of "
                              "thunky 0.2 and before; rename it"
                            : "");
  }
  /* The library stays loaded, even when it fails: what it registered
   * before failing points into it. */
  return registerFn(registry, error) || thunkyErrorContext(error, "%s", path);
}

bool thunkyRandomInput(const ThunkyPlanArray *p, uint64_t seed, uint32_t i, ThunkyNpyArray *out,
                       ThunkyError *error) {
  *out = thunkyPlanArrayShape(p);
  if (!(out->data = malloc(out->size ? out->size : 1)))
    return thunkyErrorf(error, "out of memory");
  thunkyFingerprintFill(thunkyFingerprintHash(seed, &i, sizeof i), out->data, out->size);
  uint8_t *d = out->data;
  if (p->elementType == THUNKY_TYPE_PRED)
    for (uint64_t k = 0; k < out->size; k++)
      d[k] &= 1;
  bool f32 = p->elementType == THUNKY_TYPE_F32, f64 = p->elementType == THUNKY_TYPE_F64;
  size_t width = f32 ? 4 : 8;
  for (uint64_t k = 0; (f32 || f64) && k + width <= out->size; k += width) {
    uint64_t u = 0;
    memcpy(&u, d + k, width);
    float v32 = (float)((uint32_t)u >> 8) / 0x1p23f - 1.0f;
    double v64 = (double)(u >> 11) / 0x1p52 - 1.0;
    memcpy(d + k, f32 ? (const void *)&v32 : (const void *)&v64, width);
  }
  return true;
}
