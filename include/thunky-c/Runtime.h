/*===- thunky-c/Runtime.h - running executables without XLA -------------===*
 *
 * The runtime takes a GpuExecutableProto (in any container layering), plans
 * it once, and runs the plan on a backend: "host", a reference that
 * implements every supported thunk on the CPU across N simulated ranks (one
 * thread each), or "cuda", the CUDA driver API with NCCL and cuBLASLt. It
 * links no MLIR.
 *
 * Kernels are device code the host cannot run, so the host backend runs
 * host implementations registered by kernel name; custom calls are looked
 * up by target name on both backends.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_RUNTIME_H
#define THUNKY_C_RUNTIME_H

#include "thunky-c/Container.h"
#include "thunky-c/Error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a host kernel implementation is given: the kernel's arguments in
 * parameter order (each a pointer to its slice, with the slice's size). */
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

/* An empty registry, or NULL when out of memory. */
ThunkyRegistry *thunkyRegistryCreate(void);
void thunkyRegistryFree(ThunkyRegistry *registry);
/* Registers a host implementation of kernel `name`; false if out of memory. */
bool thunkyRegistryAddHostKernel(ThunkyRegistry *registry, const char *name,
                                 ThunkyHostKernelFn fn, void *userData);
/* Registers custom-call target `target` for backend "host" or "cuda". */
bool thunkyRegistryAddCustomCall(ThunkyRegistry *registry, const char *backend,
                                 const char *target, ThunkyCustomCallFn fn, void *userData);

/* A shared library of host kernels and custom calls exports this symbol;
 * thunky-run --library loads it and calls it once. */
#define THUNKY_REGISTER_SYMBOL "thunky_register"
typedef bool (*ThunkyRegisterFn)(ThunkyRegistry *registry, ThunkyError *error);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_RUNTIME_H */
