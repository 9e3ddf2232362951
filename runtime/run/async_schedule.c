/*===- async_schedule.c - when async regions run -------------------------===*/
#include "async_schedule.h"

#include <stdlib.h>
#include <string.h>

bool thunkyAsyncScheduleInit(ThunkyAsyncSchedule *s, uint32_t slots,
                             const ThunkyRunConfig *config) {
  bool late = !config->asyncAtDone && config->lateRegion;
  *s = (ThunkyAsyncSchedule){.atDone = config->asyncAtDone, .slots = slots,
                             .late = late ? config->lateRegion - 1 : UINT32_MAX,
                             .lateBefore = late ? config->lateBefore : UINT32_MAX,
                             .inFlight = calloc(slots + 1, sizeof *s->inFlight),
                             .ranEarly = calloc(slots + 1, sizeof *s->ranEarly),
                             .pending = calloc(slots + 1, sizeof *s->pending)};
  if (s->inFlight && s->ranEarly && s->pending)
    return true;
  thunkyAsyncScheduleFree(s);
  return false;
}

void thunkyAsyncScheduleFree(ThunkyAsyncSchedule *s) {
  free(s->inFlight), free(s->ranEarly), free(s->pending);
  *s = (ThunkyAsyncSchedule){0};
}

bool thunkyAsyncStart(ThunkyAsyncSchedule *s, const ThunkyPlan *plan, const ThunkyCommand *c,
                      ThunkyRunRegion run, void *context, const char **why) {
  uint32_t slot = c->asyncStart.slot;
  if (s->inFlight[slot]) {
    *why = "async start while the same execution id is still in flight";
    return false;
  }
  s->inFlight[slot] = true;
  if (!s->atDone && (uint32_t)(c - plan->commands) == s->late)
    return s->lateWaits = true;
  if (!s->atDone)
    return run(context, c);
  s->pending[s->numPending++] = (uint32_t)(c - plan->commands);
  return true;
}

bool thunkyAsyncBefore(ThunkyAsyncSchedule *s, const ThunkyPlan *plan, const ThunkyCommand *c,
                       ThunkyRunRegion run, void *context) {
  if (!s->lateWaits || (uint32_t)(c - plan->commands) != s->lateBefore)
    return true;
  s->lateWaits = false;
  return run(context, &plan->commands[s->late]);
}

bool thunkyAsyncDone(ThunkyAsyncSchedule *s, const ThunkyPlan *plan, const ThunkyCommand *c,
                     ThunkyRunRegion run, void *context, const char **why) {
  uint32_t slot = c->asyncDone.slot;
  if (!s->inFlight[slot]) {
    *why = "async done without an async start in flight";
    return false;
  }
  s->inFlight[slot] = false;
  /* A late region whose command never came runs at its done at the latest. */
  if (s->lateWaits && plan->commands[s->late].asyncStart.slot == slot) {
    s->lateWaits = false;
    if (!run(context, &plan->commands[s->late]))
      return false;
  }
  if (!s->atDone)
    return true;
  if (s->ranEarly[slot]) {
    s->ranEarly[slot] = false;
    return true;
  }
  /* Its start is pending (it is in flight and did not run early); the
   * regions started after it run first, and are then done early. */
  while (s->numPending) {
    const ThunkyCommand *start = &plan->commands[s->pending[--s->numPending]];
    bool mine = start->asyncStart.slot == slot;
    s->ranEarly[start->asyncStart.slot] = !mine;
    if (!run(context, start))
      return false;
    if (mine)
      return true;
  }
  *why = "async done whose start is not pending";
  return false;
}

bool thunkyAsyncScheduleFinish(ThunkyAsyncSchedule *s) {
  bool done = true;
  for (uint32_t i = 0; i < s->slots; i++)
    done &= !s->inFlight[i];
  memset(s->inFlight, 0, s->slots * sizeof *s->inFlight);
  memset(s->ranEarly, 0, s->slots * sizeof *s->ranEarly);
  s->numPending = 0;
  s->lateWaits = false;
  return done;
}
