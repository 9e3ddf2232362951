/*===- fuzz_trace.c - the trace reader, and a replay from what it read ---===*
 *
 * thunky-run --measured and --counts-from read a Chrome trace the user
 * names, of this program or another: a JSON reader of thunky's own. What
 * it accepts drives the schedule model's durations and loop trips, so the
 * replay runs on it too, within its bounds. An input is a 4-byte
 * little-endian length, an executable of that many bytes, then the trace.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Schedule.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4)
    return 0;
  size_t n = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
  if (n > size - 4)
    return 0;
  ThunkyPlan *plan = NULL;
  ThunkyError error;
  if (!thunkyPlanCreateForReplay(data + 4, n, NULL, &plan, &error))
    return 0;
  ThunkyMeasuredDurations *measured = NULL;
  if (thunkyMeasuredDurationsRead(data + 4 + n, size - 4 - n, "fuzz.json", plan, &measured,
                                  &error)) {
    ThunkyScheduleOptions options = {.ranks = 2,
                                     .branch = -1,
                                     .maxEvents = 4096,
                                     .maxIssued = 1u << 16,
                                     .measuredNs = measured->ns,
                                     .measuredRuns = measured->runs,
                                     .measuredIssueNs = measured->issueNs};
    ThunkySchedule *schedule = NULL;
    if (thunkyScheduleCreate(plan, &options, &schedule, &error))
      thunkyScheduleDestroy(schedule);
    thunkyMeasuredDurationsDestroy(measured);
  }
  thunkyPlanDestroy(plan);
  return 0;
}
