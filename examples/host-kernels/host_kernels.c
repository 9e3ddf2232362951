/* Host implementations of the examples' kernels (examples/executable.textproto's
 * scale_fusion, examples/train_step.mlir's loop and update), so that
 * thunky-run's host backend can run them:
 *
 *   thunky-run --library build/lib/libThunkyExampleKernels.so ...
 *
 * A library of kernels is a shared object exporting `thunky_register_v1`,
 * which registers each kernel by the name the executable launches it by.
 * The host backend passes each kernel argument as a pointer to its slice,
 * in the order of the thunk's arguments, with its size in bytes. */
#include "thunky-c/runtime/Registry.h"

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

/* step_lt_4(step s32, pred): pred = step < 4. */
static bool stepLt4(const ThunkyKernelCall *call, void *userData, ThunkyError *error) {
  if (call->numArgs != 2 || call->argSizes[0] != 4 || call->argSizes[1] != 1)
    return thunkyErrorf(error, "step_lt_4 takes an s32 and a pred");
  int32_t step;
  memcpy(&step, call->args[0], 4);
  *(uint8_t *)call->args[1] = step < 4;
  return true;
}

/* next_step(step s32): step += 1. */
static bool nextStep(const ThunkyKernelCall *call, void *userData, ThunkyError *error) {
  if (call->numArgs != 1 || call->argSizes[0] != 4)
    return thunkyErrorf(error, "next_step takes an s32");
  int32_t step;
  memcpy(&step, call->args[0], 4);
  step++;
  memcpy(call->args[0], &step, 4);
  return true;
}

/* sgd_update(params f32[n], grads f32[n], lr f32, out f32[n]):
 * out = params - lr * grads. */
static bool sgdUpdate(const ThunkyKernelCall *call, void *userData, ThunkyError *error) {
  if (call->numArgs != 4 || call->argSizes[0] != call->argSizes[1] || call->argSizes[2] != 4 ||
      call->argSizes[3] != call->argSizes[0])
    return thunkyErrorf(error, "sgd_update takes params, grads, lr (f32) and out");
  float lr;
  memcpy(&lr, call->args[2], 4);
  for (uint64_t i = 0; i < call->argSizes[3] / 4; i++) {
    float p, g;
    memcpy(&p, (const char *)call->args[0] + 4 * i, 4);
    memcpy(&g, (const char *)call->args[1] + 4 * i, 4);
    p -= lr * g;
    memcpy((char *)call->args[3] + 4 * i, &p, 4);
  }
  return true;
}

bool thunky_register_v1(ThunkyRegistry *registry, ThunkyError *error) {
  return (thunkyRegistryAddHostKernel(registry, "scale_fusion", scaleFusion, NULL) &&
          thunkyRegistryAddHostKernel(registry, "step_lt_4", stepLt4, NULL) &&
          thunkyRegistryAddHostKernel(registry, "next_step", nextStep, NULL) &&
          thunkyRegistryAddHostKernel(registry, "sgd_update", sgdUpdate, NULL)) ||
         thunkyErrorf(error, "out of memory");
}
