/*===- fuzz_plan.c - the runtime's plan builder, and the replay of a plan -===*
 *
 * The runtime trusts a plan: every slice inside its allocation, every list
 * and index in range. The builder must refuse any executable that would
 * break that, whatever its bytes. What it accepts, the schedule model must
 * replay within its bounds, with and without XLA's command buffers.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Schedule.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ThunkyPlan *plan = NULL;
  ThunkyError error;
  if (thunkyPlanCreate(data, size, NULL, &plan, &error))
    thunkyPlanDestroy(plan);
  if (!thunkyPlanCreateForReplay(data, size, NULL, &plan, &error))
    return 0;
  ThunkyCommandBufferConfig config = thunkyCommandBufferConfigDefault();
  config.enabled = ~0u; /* every kind, loops and conditionals too */
  ThunkyCommandBuffers *buffers = NULL;
  bool found;
  (void)thunkyCommandBufferConfigRead(data, size, NULL, &config, &found, &error);
  if (thunkyCommandBuffersCreate(plan, &config, &buffers, &error)) {
    for (int graphs = 0; graphs < 2; graphs++) {
      /* Bounded: a crafted loop may ask for billions of iterations. */
      ThunkyScheduleOptions options = {.ranks = 4, .branch = -1, .maxEvents = 4096,
                                       .maxIssued = 1u << 16,
                                       .graphPlace = graphs ? buffers->place : NULL};
      ThunkySchedule *schedule = NULL;
      if (thunkyScheduleCreate(plan, &options, &schedule, &error))
        thunkyScheduleDestroy(schedule);
    }
    thunkyCommandBuffersDestroy(buffers);
  }
  thunkyPlanDestroy(plan);
  return 0;
}
