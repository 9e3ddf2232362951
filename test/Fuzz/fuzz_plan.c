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
    /* Collectives are modelled only in a world their groups split, so a
     * few small worlds are tried, partitions among them. */
    static const uint32_t worlds[][2] = {{2, 1}, {4, 1}, {4, 2}};
    for (int graphs = 0; graphs < 2; graphs++)
      for (size_t w = 0; w < sizeof worlds / sizeof *worlds; w++) {
        /* Bounded: a crafted loop may ask for billions of iterations. */
        ThunkyScheduleOptions options = {.ranks = worlds[w][0],
                                         .partitions = worlds[w][1],
                                         .branch = -1,
                                         .maxEvents = 4096,
                                         .maxIssued = 1u << 16,
                                         .graphPlace = graphs ? buffers->place : NULL};
        ThunkySchedule *schedule = NULL;
        bool made = thunkyScheduleCreate(plan, &options, &schedule, &error);
        thunkyScheduleDestroy(schedule);
        if (made)
          break;
      }
    thunkyCommandBuffersDestroy(buffers);
  }
  thunkyPlanDestroy(plan);
  return 0;
}
