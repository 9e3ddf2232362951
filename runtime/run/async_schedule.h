/*===- async_schedule.h - when async regions run -------------------------===*
 *
 * An async region may run at any time between its start and its done, on
 * another stream. A run takes one of two legal schedules: every region at
 * its start, or every region as late as it may, at its done, where regions
 * that started after it and are still in flight run first, latest first.
 * Comparing the two (--check-async) shows a race. A third kind runs one
 * region late, just before a given command of its window, every other at
 * its start: --check-async tries each region at each point of its window,
 * which shows a race that leaves the same bytes at both ends (a value set
 * and set back while the region reads it). The host backend and the
 * symbolic run follow the schedule through this one implementation.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_ASYNC_SCHEDULE_H
#define THUNKY_RUNTIME_ASYNC_SCHEDULE_H

#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Runtime.h"

typedef struct ThunkyAsyncSchedule {
  bool atDone;
  uint32_t slots;                /* the plan's async execution ids */
  bool *inFlight, *ranEarly;     /* per slot */
  uint32_t *pending, numPending; /* start commands whose regions wait (at done) */
  /* The late region's start command and the command it runs before
   * (UINT32_MAX: none), and whether it waits now. */
  uint32_t late, lateBefore;
  bool lateWaits;
} ThunkyAsyncSchedule;

/* A schedule of `slots` slots, regions at their done when `atDone`, else
 * at their start but for the one that config->lateRegion names (the
 * command index of its start, plus one; 0: none), which runs just before
 * command config->lateBefore; false when out of memory. Free with
 * thunkyAsyncScheduleFree. */
bool thunkyAsyncScheduleInit(ThunkyAsyncSchedule *s, uint32_t slots,
                             const ThunkyRunConfig *config);
void thunkyAsyncScheduleFree(ThunkyAsyncSchedule *s);

/* Runs region `start` (an async start command), on the caller's terms. */
typedef bool (*ThunkyRunRegion)(void *context, const ThunkyCommand *start);

/* At async start `c`: runs its region now, or defers it to its done. False
 * when the region fails, or with *why when the start is misused (its id in
 * flight). */
bool thunkyAsyncStart(ThunkyAsyncSchedule *s, const ThunkyPlan *plan, const ThunkyCommand *c,
                      ThunkyRunRegion run, void *context, const char **why);
/* Before command `c` of any list: runs the late region when it waits for
 * `c`. False when it fails. */
bool thunkyAsyncBefore(ThunkyAsyncSchedule *s, const ThunkyPlan *plan, const ThunkyCommand *c,
                       ThunkyRunRegion run, void *context);
/* At async done `c`: runs the regions due now, in order. False when one
 * fails, or with *why when the done is misused (no start in flight). */
bool thunkyAsyncDone(ThunkyAsyncSchedule *s, const ThunkyPlan *plan, const ThunkyCommand *c,
                     ThunkyRunRegion run, void *context, const char **why);
/* After a run: whether every region started was done; the schedule is
 * ready for another run either way. */
bool thunkyAsyncScheduleFinish(ThunkyAsyncSchedule *s);

#endif /* THUNKY_RUNTIME_ASYNC_SCHEDULE_H */
