/* The simulated driver's own check: a process that exits holding device
 * memory, a stream and a context is reported, and fails under
 * THUNKY_CUDA_SIM_CHECK_LEAKS=1 (test/Runtime/cuda-sim-errors.test). */
#include <cuda.h>

#include <stdio.h>

int main(void) {
  CUdevice device;
  CUcontext ctx;
  CUdeviceptr p;
  CUstream stream;
  if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&ctx, device) ||
      cuCtxSetCurrent(ctx) || cuMemAlloc(&p, 64) || cuStreamCreate(&stream, 0)) {
    fprintf(stderr, "sim-leak-test: the simulated driver refused a call\n");
    return 1;
  }
  printf("sim-leak-test: exiting with what it made\n");
  return 0;
}
