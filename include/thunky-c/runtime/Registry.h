/*===- thunky-c/runtime/Registry.h - host kernels and custom calls, by name -----===*
 *
 * What a library of host kernels and custom calls needs, and nothing of the
 * runtime's plans or backends: the arguments each implementation is given,
 * the registry it adds itself to, and the one symbol thunky-run --library
 * calls. The host backend runs a kernel's host implementation by the
 * kernel's name; custom calls are looked up by target name on every
 * backend.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_REGISTRY_H
#define THUNKY_C_REGISTRY_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Bytes.h"
#include "thunky-c/base/Error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a host kernel implementation is given: the kernel's parameters in
 * order. Without a packing spec they are its arguments, each a pointer to
 * its slice with the slice's size; a custom kernel whose spec packs its
 * arguments gets the spec's parameters: a relocation as its argument's
 * slice, constant bytes as a pointer to them (read only) and their size. */
typedef struct ThunkyKernelCall {
  const char *name;
  void *const *args;
  const uint64_t *argSizes;
  uint32_t numArgs;
  uint32_t grid[3], block[3];
  uint32_t rank, ranks;
} ThunkyKernelCall;

/* What a custom call is given. On the host the pointers are host memory;
 * on CUDA they are device pointers and `stream` is the CUstream to use. */
typedef struct ThunkyCustomCallArgs {
  const char *target;
  void *const *operands, *const *results; /* NULL for an absent operand */
  const uint64_t *operandSizes, *resultSizes;
  uint32_t numOperands, numResults;
  ThunkyBytes opaque;     /* the legacy API's opaque bytes */
  ThunkyBytes attributes; /* serialized xla.ffi.AttributesMapProto */
  void *stream;
  uint32_t rank, ranks;
} ThunkyCustomCallArgs;

typedef bool (*ThunkyHostKernelFn)(const ThunkyKernelCall *call, void *userData,
                                   ThunkyError *error);
typedef bool (*ThunkyCustomCallFn)(const ThunkyCustomCallArgs *call, void *userData,
                                   ThunkyError *error);

typedef struct ThunkyRegistry ThunkyRegistry;

/* An empty registry, or NULL when out of memory; the caller owns it. */
THUNKY_EXPORT ThunkyRegistry *thunkyRegistryCreate(void);
THUNKY_EXPORT void thunkyRegistryDestroy(ThunkyRegistry *registry);
/* Registers a host implementation of kernel `name`; false if out of memory. */
THUNKY_EXPORT bool thunkyRegistryAddHostKernel(ThunkyRegistry *registry, const char *name,
                                               ThunkyHostKernelFn fn, void *userData);
/* The host implementation of kernel `name` and its user data, borrowed
 * from the registry; false when none is registered. */
THUNKY_EXPORT bool thunkyRegistryGetHostKernel(const ThunkyRegistry *registry, const char *name,
                                               ThunkyHostKernelFn *fn, void **userData);
/* Registers a global variable of a module that host kernels read directly,
 * as device code reads a module's __device__ global: `size` bytes at
 * `data`, owned by the caller. The simulated CUDA driver (test/CudaSim)
 * gives it from cuModuleGetGlobal for the executable's own module, where
 * XLA binds constants; the host backend does not use it. */
THUNKY_EXPORT bool thunkyRegistryAddHostGlobal(ThunkyRegistry *registry, const char *name,
                                               void *data, size_t size);
/* The bytes and size of global `name`; false when none is registered. */
THUNKY_EXPORT bool thunkyRegistryGetHostGlobal(const ThunkyRegistry *registry, const char *name,
                                               void **data, size_t *size);
/* Registers custom-call target `target` for backend "host" or "cuda". */
THUNKY_EXPORT bool thunkyRegistryAddCustomCall(ThunkyRegistry *registry, const char *backend,
                                               const char *target, ThunkyCustomCallFn fn,
                                               void *userData);

/* A shared library of host kernels and custom calls defines
 * thunky_register_v1; thunky-run --library loads it and calls it once. The
 * version names what the library was built against (ThunkyKernelCall,
 * ThunkyCustomCallArgs and the registry's functions as declared here): a
 * change to them makes a new symbol, and a library without the one this
 * thunky reads is refused, saying which it exports. Declared here so that
 * it is exported where the library is built with hidden visibility. */
#define THUNKY_REGISTER_SYMBOL "thunky_register_v1"
typedef bool (*ThunkyRegisterFn)(ThunkyRegistry *registry, ThunkyError *error);
THUNKY_EXPORT bool thunky_register_v1(ThunkyRegistry *registry, ThunkyError *error);

/* Loads the shared library at `path` and calls its THUNKY_REGISTER_SYMBOL
 * on `registry` (thunky-run --library); the library stays loaded. False,
 * with an error naming the library. */
THUNKY_EXPORT bool thunkyRegistryLoadLibrary(ThunkyRegistry *registry, const char *path,
                                             ThunkyError *error);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_REGISTRY_H */
