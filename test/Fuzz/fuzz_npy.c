/*===- fuzz_npy.c - the .npy reader --------------------------------------===*
 *
 * thunky-run reads the .npy files a user hands it; the first byte picks the
 * XLA type asked for (it decides how a void descr is read).
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Npy.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  ThunkyNpyArray array;
  ThunkyError error;
  if (thunkyNpyReadMemory(data + 1, size - 1, "fuzz.npy", data[0] % 40, &array, &error))
    thunkyNpyArrayDestroy(&array);
  return 0;
}
