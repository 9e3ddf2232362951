/*===- cuda_missing.c - the cuda backend of a build without cuda.h -------===*/
#include "thunky-c/runtime/Runtime.h"
#include "registry.h"

static bool create(const ThunkyPlan *plan, const ThunkyRunConfig *config, void **state,
                   ThunkyError *error) {
  return thunkyErrorf(error, "cuda: this thunky-run was built without the CUDA backend "
                             "(cuda.h was not found at build time)");
}

static void destroy(void *state) {}

const ThunkyBackendOps thunkyCudaBackend = {"cuda", create, NULL, NULL, NULL, destroy, NULL, NULL};

bool thunkyCudaLibraryPath(const char *name, char *path, size_t size, ThunkyError *error) {
  return thunkyErrorf(error, "this thunky-run was built without the CUDA backend");
}
