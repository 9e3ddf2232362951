/*===- schedule_report.h - what thunky-run --model prints ---------===*/
#ifndef THUNKY_TOOLS_SCHEDULE_REPORT_H
#define THUNKY_TOOLS_SCHEDULE_REPORT_H

#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Schedule.h"

#include <stdio.h>

/* The predicted step: its time, each stream's busy time, every async
 * region's window and exposure, the exposed communication, the `top`
 * longest operations on the critical path and the `top` thunks with the
 * most time. */
bool printSchedule(FILE *out, const ThunkyPlan *plan, const ThunkySchedule *schedule,
                   const ThunkyDeviceModel *device, uint32_t top, ThunkyError *error);
/* The same as one JSON document, every thunk that ran included. */
bool writeScheduleJson(const char *path, const ThunkyPlan *plan, const ThunkySchedule *schedule,
                       const ThunkyDeviceModel *device, ThunkyError *error);
/* The predicted timeline as a Chrome trace, as thunky-run --trace writes a
 * measured one, so that both open side by side in Perfetto; the host's
 * issue of each operation on a row of its own. */
bool writeScheduleTrace(const char *path, const ThunkyPlan *plan, const ThunkySchedule *schedule,
                        const char *deviceName, ThunkyError *error);
/* The predicted timeline as an SVG picture, one lane per stream. */
bool writeScheduleSvg(const char *path, const ThunkyPlan *plan, const ThunkySchedule *schedule,
                      ThunkyError *error);
/* Two programs' predictions: the difference in step time, per thunk kind,
 * and the first operations, in issue order, where the schedules part.
 * False only when out of memory. */
bool printScheduleComparison(FILE *out, const char *nameA, const ThunkyPlan *planA,
                             const ThunkySchedule *a, const char *nameB, const ThunkyPlan *planB,
                             const ThunkySchedule *b, ThunkyError *error);

/* Which thunks XLA would capture into CUDA graphs under `config`
 * (`source` says where it came from): each graph, and each thunk that ended
 * one or was left out, with why; `top` of each. */
void printCommandBuffers(FILE *out, const ThunkyPlan *plan, const ThunkyCommandBuffers *buffers,
                         const ThunkyCommandBufferConfig *config, const char *source, uint32_t top);

#endif /* THUNKY_TOOLS_SCHEDULE_REPORT_H */
