/*===- golden.c - XLA's golden-file wrapper -----------------------------===*/
#include "golden.h"

#include <stddef.h>

Xla__Gpu__GpuExecutableProto *thunkyGoldenExecutable(Xla__HumanReadableAotExecutable *w) {
  /* The oneof's members share storage: gpu_executable is only read as one
   * when the case says so. */
  if (!w || w->backend_executable_case !=
                XLA__HUMAN_READABLE_AOT_EXECUTABLE__BACKEND_EXECUTABLE_GPU_EXECUTABLE)
    return NULL;
  Xla__Gpu__GpuExecutableProto *exe = w->gpu_executable;
  if (!exe || w->base.n_unknown_fields || !(exe->n_thunks || exe->buffer_allocations))
    return NULL;
  return exe;
}
