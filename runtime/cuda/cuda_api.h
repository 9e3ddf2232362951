/*===- cuda_api.h - the CUDA driver, NCCL and cuBLASLt, loaded at run time -===*
 *
 * The runtime must build and run on machines without a GPU, so it links
 * none of NVIDIA's libraries: it compiles against their headers and opens
 * libcuda.so.1, libnccl.so.2, libcublasLt and libcupti at run time, resolving every
 * function it calls into a table. The tables are filled from X-lists whose
 * entries go through the headers' own #defines, so a field named cuMemAlloc
 * is really cuMemAlloc_v2, typed and looked up under that ABI name.
 *
 * The libraries are never unloaded: the driver and NCCL leave threads
 * running in their code after the last context or communicator is gone.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_CUDA_API_H
#define THUNKY_RUNTIME_CUDA_API_H

#include "thunky-c/base/Error.h"

#include <cublasLt.h>
#include <cuda.h>
#include <cupti.h>
#include <nccl.h>

#include <stddef.h>
#include <stdint.h>

#define THUNKY_CUDA_DRIVER_FUNCTIONS(X)                                                            \
  X(cuInit)                                                                                        \
  X(cuGetErrorString)                                                                              \
  X(cuGetErrorName)                                                                                \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)       \
      X(cuCtxSynchronize) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemsetD8) \
          X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemsetD8Async) X(cuMemsetD32Async)                \
              X(cuMemcpyDtoDAsync) X(cuMemcpyDtoHAsync) X(cuModuleLoadDataEx) X(cuModuleUnload)    \
                  X(cuModuleGetFunction) X(cuModuleGetGlobal) X(cuFuncGetAttribute)                \
                      X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuLaunchKernelEx)                  \
                          X(cuTensorMapEncodeTiled) X(cuStreamCreate) X(cuStreamDestroy)           \
                              X(cuStreamQuery) X(cuStreamSynchronize) X(cuStreamWaitEvent)         \
                                  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)              \
                                      X(cuEventElapsedTime) X(cuStreamBeginCapture)                \
                                          X(cuStreamEndCapture) X(cuGraphInstantiate)              \
                                              X(cuGraphLaunch) X(cuGraphDestroy)                   \
                                                  X(cuGraphExecDestroy) X(cuStreamWaitValue32)     \
                                                      X(cuStreamWriteValue32) X(cuDeviceGetName) X(cuDeviceGetAttribute)

#define THUNKY_NCCL_FUNCTIONS(X)                                                         \
  X(ncclGetErrorString) X(ncclGetLastError) X(ncclGetUniqueId) X(ncclCommInitRankConfig) \
  X(ncclCommGetAsyncError) X(ncclCommSplit) X(ncclCommDestroy) X(ncclCommAbort)          \
  X(ncclGroupStart) X(ncclGroupEnd)                                                      \
  X(ncclAllReduce) X(ncclAllGather) X(ncclReduceScatter) X(ncclBroadcast) X(ncclSend)    \
  X(ncclRecv)

#define THUNKY_CUBLASLT_FUNCTIONS(X)                                                     \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetStatusString)                        \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy)                               \
  X(cublasLtMatmulDescSetAttribute) X(cublasLtMatrixLayoutCreate)                        \
  X(cublasLtMatrixLayoutDestroy) X(cublasLtMatrixLayoutSetAttribute)                     \
  X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy)                   \
  X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatmulAlgoGetHeuristic)              \
  X(cublasLtMatmul)

/* CUPTI, for a timeline's device times where it is found (cuda_cupti.c). */
#define THUNKY_CUPTI_FUNCTIONS(X)                                                        \
  X(cuptiGetVersion) X(cuptiGetResultString) X(cuptiGetTimestamp)                        \
  X(cuptiActivityEnable) X(cuptiActivityDisable) X(cuptiActivityRegisterCallbacks)       \
  X(cuptiActivityFlushAll) X(cuptiActivityGetNextRecord)                                 \
  X(cuptiActivityPushExternalCorrelationId) X(cuptiActivityPopExternalCorrelationId)     \
  X(cuptiSubscribe) X(cuptiUnsubscribe) X(cuptiEnableCallback) X(cuptiGetGraphNodeId)

#define THUNKY_CUDA_API_FIELD(name) __typeof__(name) *name;

typedef struct ThunkyCudaDriver {
  THUNKY_CUDA_DRIVER_FUNCTIONS(THUNKY_CUDA_API_FIELD)
  /* A driver that keeps a clock of its own for the host (the simulation in
   * test/CudaSim, whose device times are simulated too) exports it as
   * thunkySimClockNs; NULL for NVIDIA's, whose host clock is the system's. */
  uint64_t (*hostClockNs)(void);
} ThunkyCudaDriver;

typedef struct ThunkyNccl {
  THUNKY_NCCL_FUNCTIONS(THUNKY_CUDA_API_FIELD)
} ThunkyNccl;

typedef struct ThunkyCublasLt {
  THUNKY_CUBLASLT_FUNCTIONS(THUNKY_CUDA_API_FIELD)
} ThunkyCublasLt;

typedef struct ThunkyCupti {
  THUNKY_CUPTI_FUNCTIONS(THUNKY_CUDA_API_FIELD)
} ThunkyCupti;

/* Each fills its table, or fails with a message that names the library and
 * what needs it ("cuda: cannot load libcuda.so.1 (no NVIDIA driver?): ..."). */
bool thunkyCudaLoadDriver(ThunkyCudaDriver *driver, ThunkyError *error);
bool thunkyCudaLoadNccl(ThunkyNccl *nccl, ThunkyError *error);
bool thunkyCudaLoadCublasLt(ThunkyCublasLt *lt, ThunkyError *error);
bool thunkyCudaLoadCupti(ThunkyCupti *cupti, ThunkyError *error);

/* One function of a table: its ABI name and where its field is. */
typedef struct ThunkyCudaSymbol {
  const char *name;
  size_t offset;
} ThunkyCudaSymbol;

#define THUNKY_CUDA_STRING_(x) #x
#define THUNKY_CUDA_STRING(x) THUNKY_CUDA_STRING_(x) /* after expanding x */
#define THUNKY_CUDA_SYMBOL(table, name) {THUNKY_CUDA_STRING(name), offsetof(table, name)},

/* Where a library may be: its names (NULL-terminated, the versioned soname
 * first), what needs it (for errors), the variable that overrides the
 * search (NULL: none) and the folders under a Python environment's
 * site-packages/nvidia that pip wheels install it in (NULL: none). */
typedef struct ThunkyCudaLibrary {
  const char *const *names;
  const char *why;
  const char *override;
  const char *const *wheels;
} ThunkyCudaLibrary;

extern const ThunkyCudaLibrary thunkyCudaDriverLibrary, thunkyNcclLibrary,
    thunkyCublasLtLibrary, thunkyCuptiLibrary;

/* Opens `library` where find_library.c looks for it, writing the path it
 * was loaded from; NULL with an error naming where it looked. */
void *thunkyCudaOpenLibrary(const ThunkyCudaLibrary *library, char *path, size_t size,
                            ThunkyError *error);

/* Opens `library` and resolves every symbol into `table`; *handle (when
 * not NULL) is the library, which stays loaded. */
bool thunkyCudaLoadLibrary(const ThunkyCudaLibrary *library, const ThunkyCudaSymbol *symbols,
                           size_t count, void *table, void **handle, ThunkyError *error);

/* Each sets "cuda: <call> failed: <the library's words for result>" with
 * " in <where>" after it when `where` is not NULL or empty, and returns
 * false. The NCCL one adds NCCL's last error message for `comm`. */
bool thunkyCudaFail(const ThunkyCudaDriver *driver, CUresult result, const char *call,
                    const char *where, ThunkyError *error);
/* Calls the driver's `fn` on `args`, in parentheses: true when it
 * succeeds, else thunkyCudaFail's error, the call named once. */
#define THUNKY_CU_AT(driver, fn, args, where, error)                                               \
  thunkyCudaSucceeded((driver), (driver)->fn args, #fn, (where), (error))
static inline bool thunkyCudaSucceeded(const ThunkyCudaDriver *driver, CUresult result,
                                       const char *call, const char *where, ThunkyError *error) {
  return result == CUDA_SUCCESS || thunkyCudaFail(driver, result, call, where, error);
}
bool thunkyNcclFail(const ThunkyNccl *nccl, ncclResult_t result, ncclComm_t comm,
                    const char *call, const char *where, ThunkyError *error);
bool thunkyCublasLtFail(const ThunkyCublasLt *lt, cublasStatus_t status, const char *call,
                        const char *where, ThunkyError *error);
bool thunkyCuptiFail(const ThunkyCupti *cupti, CUptiResult result, const char *call,
                     ThunkyError *error);

#endif /* THUNKY_RUNTIME_CUDA_API_H */
