/*===- nccl_api.c - NCCL's table, loaded when a plan has collectives ------===*/
#include "cuda_api.h"

#define NCCL_SYMBOL(name) THUNKY_CUDA_SYMBOL(ThunkyNccl, name)
static const ThunkyCudaSymbol ncclSymbols[] = {THUNKY_NCCL_FUNCTIONS(NCCL_SYMBOL)};

/* The nvidia-nccl-cu13 wheel installs nvidia/nccl/lib/libnccl.so.2. */
static const char *const ncclNames[] = {"libnccl.so.2", "libnccl.so", NULL};
static const char *const ncclWheels[] = {"nccl", NULL};
const ThunkyCudaLibrary thunkyNcclLibrary = {
    ncclNames, "the plan has collectives; NCCL 2.18 or newer is needed", "THUNKY_NCCL_PATH",
    ncclWheels};

bool thunkyCudaLoadNccl(ThunkyNccl *nccl, ThunkyError *error) {
  return thunkyCudaLoadLibrary(&thunkyNcclLibrary, ncclSymbols,
                               sizeof ncclSymbols / sizeof *ncclSymbols, nccl, NULL, error);
}

bool thunkyNcclFail(const ThunkyNccl *nccl, ncclResult_t result, ncclComm_t comm,
                    const char *call, const char *where, ThunkyError *error) {
  /* ncclGetErrorString only names the class ("unhandled system error");
   * the last error says what went wrong. */
  const char *text = nccl->ncclGetErrorString(result);
  const char *detail = nccl->ncclGetLastError(comm);
  bool located = where && *where, detailed = detail && *detail;
  return thunkyErrorf(error, "cuda: %s failed: %s (%d)%s%s%s%s", call,
                      text ? text : "unknown error", (int)result, detailed ? ": " : "",
                      detailed ? detail : "", located ? " in " : "", located ? where : "");
}
