/*===- fuzz_plan.c - the runtime's plan builder --------------------------===*
 *
 * The runtime trusts a plan: every slice inside its allocation, every list
 * and index in range. The builder must refuse any executable that would
 * break that, whatever its bytes.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Plan.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ThunkyPlan *plan = NULL;
  ThunkyError error;
  if (thunkyPlanCreate(data, size, NULL, &plan, &error))
    thunkyPlanDestroy(plan);
  return 0;
}
