/* Host implementations of the example executable's kernels, so that
 * thunky-run's host backend can run it:
 *
 *   thunky-run --library build/lib/libThunkyExampleKernels.so ...
 *
 * A library of kernels is a shared object exporting `thunky_register`,
 * which registers each kernel by the name the executable launches it by.
 * The host backend passes each kernel argument as a pointer to its slice,
 * in the order of the thunk's arguments, with its size in bytes. */
#include "thunky-c/Runtime.h"

#include <string.h>

/* scale_fusion(in f32[n], out f32[n]): out = 2 * in. */
static bool scaleFusion(const ThunkyKernelCall *call, void *userData, ThunkyError *error) {
  if (call->numArgs != 2 || call->argSizes[0] != call->argSizes[1])
    return thunkyErrorf(error, "scale_fusion takes two f32 arrays of one size");
  for (uint64_t i = 0; i < call->argSizes[1] / 4; i++) {
    float v;
    memcpy(&v, (const char *)call->args[0] + 4 * i, 4);
    v *= 2;
    memcpy((char *)call->args[1] + 4 * i, &v, 4);
  }
  return true;
}

bool thunky_register(ThunkyRegistry *registry, ThunkyError *error) {
  return thunkyRegistryAddHostKernel(registry, "scale_fusion", scaleFusion, NULL) ||
         thunkyErrorf(error, "out of memory");
}
