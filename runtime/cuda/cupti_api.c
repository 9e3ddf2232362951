/*===- cupti_api.c - CUPTI's table, loaded for a timeline's device times --===*/
#include "cuda_api.h"

#define CUPTI_SYMBOL(name) THUNKY_CUDA_SYMBOL(ThunkyCupti, name)
static const ThunkyCudaSymbol cuptiSymbols[] = {THUNKY_CUPTI_FUNCTIONS(CUPTI_SYMBOL)};

/* The soname carries CUDA's major version. CUDA 13's wheel
 * (nvidia-cuda-cupti) installs nvidia/cu13/lib, CUDA 12's
 * nvidia/cuda_cupti/lib. CUPTI 12's records hold the fields read here
 * (cuda_cupti.c) at the same offsets as CUPTI 13's. */
static const char *const cuptiNames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so",
                                         NULL};
static const char *const cuptiWheels[] = {"cu13", "cuda_cupti", NULL};
const ThunkyCudaLibrary thunkyCuptiLibrary = {
    cuptiNames, "a timeline's device times from CUPTI's activity records", "THUNKY_CUPTI_PATH",
    cuptiWheels};

bool thunkyCudaLoadCupti(ThunkyCupti *cupti, ThunkyError *error) {
  return thunkyCudaLoadLibrary(&thunkyCuptiLibrary, cuptiSymbols,
                               sizeof cuptiSymbols / sizeof *cuptiSymbols, cupti, NULL, error);
}

bool thunkyCuptiFail(const ThunkyCupti *cupti, CUptiResult result, const char *call,
                     ThunkyError *error) {
  const char *text = NULL;
  if (cupti->cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text)
    text = "unknown error";
  return thunkyErrorf(error, "cuda: %s failed: %s (%d)", call, text, (int)result);
}
