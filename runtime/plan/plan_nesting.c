/*===- plan_nesting.c - which commands run others inside their own span ---===*
 *
 * A loop, a conditional, an async region, a group and a dynamic-slice
 * fusion run lists of commands; a backend that times such a command times
 * its lists' work too. What counts as a container depends on the backend
 * (CUDA times a group whole and its members not at all; the host times
 * both), so a timeline's readers decide from what was timed.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Plan.h"

#include <stdlib.h>

uint32_t thunkyPlanHeldList(const ThunkyPlan *plan, const ThunkyCommand *c, uint32_t k) {
  switch (c->kind) {
  case THUNKY_CMD_CONDITIONAL:
    return k < c->conditional.branches.count
               ? (uint32_t)plan->ids[c->conditional.branches.first + k]
               : UINT32_MAX;
  case THUNKY_CMD_WHILE:
    return k == 0 ? c->loop.condition : k == 1 ? c->loop.body : UINT32_MAX;
  case THUNKY_CMD_ASYNC_START:
    return k == 0 ? c->asyncStart.list : UINT32_MAX;
  case THUNKY_CMD_COLLECTIVE_GROUP:
    return k == 0 ? c->group.list : UINT32_MAX;
  case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
    return k == 0 ? c->fusion.list : UINT32_MAX;
  default:
    return UINT32_MAX;
  }
}

enum { UNSEEN, UNTIMED, TIMED };

/* Whether any command of list `l`, or of a list one of them holds, was
 * timed. Each list is looked at once; the plan bounds the nesting. */
static bool listTimed(const ThunkyPlan *plan, const bool *timed, uint8_t *seen, uint32_t l) {
  if (seen[l] != UNSEEN)
    return seen[l] == TIMED;
  seen[l] = UNTIMED;
  ThunkyRange r = plan->lists[l];
  for (uint32_t i = r.first; i < r.first + r.count; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    bool any = timed[c->thunk];
    for (uint32_t k = 0, held; !any && (held = thunkyPlanHeldList(plan, c, k)) != UINT32_MAX; k++)
      any = listTimed(plan, timed, seen, held);
    if (any) {
      seen[l] = TIMED;
      return true;
    }
  }
  return false;
}

bool thunkyPlanMarkSpanning(const ThunkyPlan *plan, const bool *timed, bool *spans) {
  uint8_t *seen = calloc(plan->numLists + 1, 1);
  if (!seen)
    return false;
  for (uint32_t t = 0; t < plan->numThunks; t++)
    spans[t] = false;
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    bool holds = c->kind == THUNKY_CMD_ASYNC_DONE;
    for (uint32_t k = 0, l; !holds && (l = thunkyPlanHeldList(plan, c, k)) != UINT32_MAX; k++)
      holds = listTimed(plan, timed, seen, l);
    spans[c->thunk] |= holds;
  }
  free(seen);
  return true;
}
