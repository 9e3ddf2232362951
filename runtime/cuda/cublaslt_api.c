/*===- cublaslt_api.c - cuBLASLt's table, loaded when a plan has gemms ----===*/
#include "cuda_api.h"

#define CUBLASLT_SYMBOL(name) THUNKY_CUDA_SYMBOL(ThunkyCublasLt, name)
static const ThunkyCudaSymbol cublasLtSymbols[] = {THUNKY_CUBLASLT_FUNCTIONS(CUBLASLT_SYMBOL)};

/* The soname carries cuBLAS's major version; the unversioned name is what
 * a toolkit of another major version leaves for development. CUDA 13's
 * wheel (nvidia-cublas) installs nvidia/cu13/lib; CUDA 12's installed
 * nvidia/cublas/lib. */
static const char *const cublasLtNames[] = {"libcublasLt.so.13", "libcublasLt.so", NULL};
static const char *const cublasLtWheels[] = {"cu13", "cublas", NULL};
const ThunkyCudaLibrary thunkyCublasLtLibrary = {
    cublasLtNames, "the plan has gemms; cuBLAS is needed", "THUNKY_CUBLASLT_PATH",
    cublasLtWheels};

bool thunkyCudaLoadCublasLt(ThunkyCublasLt *lt, ThunkyError *error) {
  return thunkyCudaLoadLibrary(&thunkyCublasLtLibrary, cublasLtSymbols,
                               sizeof cublasLtSymbols / sizeof *cublasLtSymbols, lt, NULL, error);
}

bool thunkyCublasLtFail(const ThunkyCublasLt *lt, cublasStatus_t status, const char *call,
                        const char *where, ThunkyError *error) {
  const char *text = lt->cublasLtGetStatusString(status);
  bool located = where && *where;
  return thunkyErrorf(error, "cuda: %s failed: %s (%d)%s%s", call, text ? text : "unknown",
                      (int)status, located ? " in " : "", located ? where : "");
}
