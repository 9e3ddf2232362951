/*===- registry.h - looking up kernels and custom calls -------------------===*/
#ifndef THUNKY_RUNTIME_REGISTRY_H
#define THUNKY_RUNTIME_REGISTRY_H

#include "thunky-c/runtime/Registry.h"

typedef struct ThunkyRegistryEntry {
  char *name;
  char backend[8]; /* "host" or "cuda"; "host" for kernels; "global" for globals */
  bool isKernel;
  union {
    ThunkyHostKernelFn kernel;
    ThunkyCustomCallFn customCall;
    size_t globalSize;
  };
  void *userData; /* a global's bytes */
} ThunkyRegistryEntry;

/* The entry for kernel or custom call `name` of `backend`, or NULL. Done
 * once per kernel when a backend is created, never while running. */
const ThunkyRegistryEntry *thunkyRegistryFind(const ThunkyRegistry *registry,
                                              const char *backend, bool isKernel,
                                              ThunkyBytes name);

#endif /* THUNKY_RUNTIME_REGISTRY_H */
