/*===- schedule_replay.c - a plan's schedule, replayed with durations -----===*
 *
 * The host issues the plan's commands in order, paying the device's launch
 * time for each operation; each operation starts when it has been issued
 * and its stream is free. The streams are lanes: lane 0 is the main stream,
 * and each async execution stream id gets the next lane in order of id. An
 * async start makes its region's lane wait for what its own lane has
 * issued, then issues the region there; a done makes its lane wait for the
 * region's end. A while loop with no known trip count, and a conditional,
 * make the host wait for the stream that computed the predicate, as XLA's
 * WhileThunk and ConditionalThunk copy it to the host (docs/schedule.md).
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/base/Arena.h"
#include "thunky-c/runtime/Runtime.h"
#include "thunky-c/runtime/Schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double at;
  int64_t cause; /* the kept event that ends at `at`, or -1 */
} Time;

typedef struct {
  double end, startAt;
  int64_t cause;
  uint64_t besideFrom;
  uint32_t window, fromLane;
  bool inFlight;
} Slot;

/* A region being issued: its operations' times go to its window. */
typedef struct {
  uint32_t window;
  bool any;
  double first, last, own;
} Issuing;

typedef struct {
  const ThunkyPlan *plan;
  ThunkyDeviceModel device;
  uint32_t ranks, partitions;
  uint64_t loopTrips, maxIssued;
  const uint64_t *measuredRuns;
  const double *issueNs; /* per thunk, measured host issue; NULL: none */
  const uint8_t *graphPlace;
  int64_t branch;
  size_t maxEvents, eventCapacity;
  ThunkySchedule *s;
  double *commandNs;      /* per command: its duration */
  double *commandIssueNs; /* per command: the host's time to issue it outside a graph */
  uint32_t *startLane;    /* per command: an async start's region lane */
  uint32_t *windowOfThunk;
  double *listWork;       /* per list: device time in it, for the costliest branch */
  Time host, *ready;      /* per lane */
  uint64_t *laneIssued;   /* per lane: operations issued on it */
  Slot *slots;
  Issuing *issuing;
  uint32_t numIssuing;
  double exposed;
  double *laneBusy;
  ThunkyError *error;
} Replay;

static bool issueList(Replay *r, uint32_t list, uint32_t lane);

static double later(double a, double b) { return a > b ? a : b; }

static bool keepEvent(Replay *r, ThunkyScheduleEvent e, int64_t *index) {
  ThunkySchedule *s = r->s;
  *index = -1;
  if (s->numEvents == r->maxEvents) {
    s->eventsDropped = true;
    return true;
  }
  if (!thunkyArrayGrow((void **)&s->events, &r->eventCapacity, s->numEvents, sizeof *s->events))
    return thunkyErrorf(r->error, "out of memory for the schedule's events");
  *index = (int64_t)s->numEvents;
  s->events[s->numEvents++] = e;
  return true;
}

/* The host's measured time to issue thunk `thunk` once, else `otherwise`. */
static double issueOf(const Replay *r, uint32_t thunk, double otherwise) {
  return r->issueNs && r->issueNs[thunk] >= 0 ? r->issueNs[thunk] : otherwise;
}

/* One operation: issued by the host, run when its stream is free. */
static bool issueOperation(Replay *r, uint32_t command, uint32_t lane) {
  ThunkySchedule *s = r->s;
  if (++s->issued > r->maxIssued)
    return thunkyErrorf(r->error, "the replay issued more than %llu operations (loops times "
                                  "their trip counts); give a smaller --loop-trips, or a "
                                  "larger --max-issued",
                        (unsigned long long)r->maxIssued);
  const ThunkyCommand *c = &r->plan->commands[command];
  double ns = r->commandNs[command];
  uint8_t place = r->graphPlace ? r->graphPlace[command] : THUNKY_GRAPH_NONE;
  double issued = r->host.at;
  r->host.at += place == THUNKY_GRAPH_NONE    ? r->commandIssueNs[command]
                : place == THUNKY_GRAPH_FIRST ? r->device.graphLaunchNs
                                              : 0;
  bool waitedForStream = r->ready[lane].at > r->host.at;
  double begin = later(r->host.at, r->ready[lane].at), end = begin + ns;
  ThunkyScheduleEvent e = {
      .thunk = c->thunk, .lane = lane, .beginNs = (uint64_t)llround(begin),
      .endNs = (uint64_t)llround(end),
      .cause = waitedForStream ? r->ready[lane].cause : r->host.cause,
      .source = s->thunkSource[c->thunk], .issueBeginNs = (uint64_t)llround(issued),
      .issueEndNs = (uint64_t)llround(r->host.at)};
  int64_t index;
  if (!keepEvent(r, e, &index))
    return false;
  r->ready[lane] = (Time){end, index};
  /* The next operation the host issues waits for this one's issue: a step
   * the host cannot issue fast enough has its launches on the path. */
  r->host.cause = index;
  r->laneIssued[lane]++;
  r->laneBusy[lane] += ns;
  s->thunkNs[c->thunk] += (uint64_t)llround(ns);
  s->thunkRuns[c->thunk]++;
  for (uint32_t i = 0; i < r->numIssuing; i++) {
    Issuing *w = &r->issuing[i];
    w->first = w->any ? w->first : begin;
    w->last = w->any ? later(w->last, end) : end;
    w->own += ns, w->any = true;
  }
  bool communicates = c->kind == THUNKY_CMD_COLLECTIVE ||
                      (c->kind == THUNKY_CMD_OPAQUE && r->plan->thunks[c->thunk].communicates);
  if (communicates && !r->numIssuing) {
    r->exposed += ns; /* nothing runs beside a collective on its own stream */
    s->thunkExposedNs[c->thunk] += (uint64_t)llround(ns);
  }
  return true;
}

/* Whether a command runs in a CUDA graph: its control flow on the device. */
static bool inGraph(const Replay *r, uint32_t command) {
  return r->graphPlace && r->graphPlace[command] != THUNKY_GRAPH_NONE;
}

/* An async start or done the runtime would refuse to run. */
static bool misused(Replay *r, const ThunkyCommand *c, const char *what) {
  char name[160];
  thunkyPlanThunkName(r->plan, c->thunk, name, sizeof name);
  return thunkyErrorf(r->error, "%s %s", name, what);
}

static bool asyncStart(Replay *r, uint32_t command, uint32_t lane) {
  const ThunkyCommand *c = &r->plan->commands[command];
  Slot *slot = &r->slots[c->asyncStart.slot];
  if (slot->inFlight)
    return misused(r, c, "starts its async execution again before its done (XLA refuses "
                         "start-start-done-done on one execution)");
  if (!inGraph(r, command))
    r->host.at += issueOf(r, c->thunk, 0); /* its events, recorded and waited for */
  uint32_t region = r->startLane[command];
  ThunkyAsyncWindow *w = &r->s->windows[r->windowOfThunk[c->thunk]];
  /* The region's stream waits for an event recorded here. */
  if (r->ready[lane].at > r->ready[region].at)
    r->ready[region] = r->ready[lane];
  double startAt = r->ready[lane].at > r->host.at ? r->ready[lane].at : r->host.at;
  r->issuing[r->numIssuing++] = (Issuing){.window = r->windowOfThunk[c->thunk]};
  bool ok = issueList(r, c->asyncStart.list, region);
  Issuing done = r->issuing[--r->numIssuing];
  if (!ok)
    return false;
  w->runs++;
  w->ownNs += (uint64_t)llround(done.own);
  w->spanNs += (uint64_t)llround(done.any ? done.last - done.first : 0);
  *slot = (Slot){.end = r->ready[region].at, .cause = r->ready[region].cause,
                 .startAt = startAt, .besideFrom = r->laneIssued[lane],
                 .window = r->windowOfThunk[c->thunk], .fromLane = lane, .inFlight = true};
  return true;
}

static bool asyncDone(Replay *r, uint32_t command, uint32_t lane) {
  const ThunkyCommand *c = &r->plan->commands[command];
  Slot *slot = &r->slots[c->asyncDone.slot];
  if (!slot->inFlight)
    return misused(r, c, "waits for an async execution not in flight");
  if (!inGraph(r, command))
    r->host.at += issueOf(r, c->thunk, 0);
  ThunkyAsyncWindow *w = &r->s->windows[slot->window];
  double here = later(r->ready[lane].at, r->host.at);
  w->windowNs += (uint64_t)llround(here > slot->startAt ? here - slot->startAt : 0);
  w->besideOps += r->laneIssued[lane] - slot->besideFrom;
  if (slot->end > r->ready[lane].at) {
    double waited = slot->end - r->ready[lane].at;
    w->exposedNs += (uint64_t)llround(waited);
    if (w->communication) {
      r->exposed += waited;
      r->s->thunkExposedNs[w->thunk] += (uint64_t)llround(waited);
    }
    r->ready[lane] = (Time){slot->end, slot->cause};
  }
  slot->inFlight = false;
  return true;
}

/* The host waits for what `lane` has issued: a predicate comes back, by a
 * copy on the lane (as short as anything there is) that the host waits for. */
static void hostWaits(Replay *r, uint32_t lane) {
  r->ready[lane].at = later(r->ready[lane].at, r->host.at) + r->device.kernelMinNs;
  r->host = r->ready[lane];
  r->host.at += r->device.syncNs;
}

static uint32_t costliestBranch(const Replay *r, const ThunkyCommand *c) {
  uint32_t best = 0;
  for (uint32_t b = 1; b < c->conditional.branches.count; b++)
    if (r->listWork[r->plan->ids[c->conditional.branches.first + b]] >
        r->listWork[r->plan->ids[c->conditional.branches.first + best]])
      best = b;
  return best;
}

/* The branch the measurement saw run most, by its first thunk's runs;
 * else the costliest. */
static uint32_t measuredBranch(const Replay *r, const ThunkyCommand *c) {
  uint32_t best = UINT32_MAX;
  uint64_t most = 0;
  for (uint32_t b = 0; r->measuredRuns && b < c->conditional.branches.count; b++) {
    ThunkyRange l = r->plan->lists[r->plan->ids[c->conditional.branches.first + b]];
    uint64_t runs = l.count ? r->measuredRuns[r->plan->commands[l.first].thunk] : 0;
    if (runs > most)
      best = b, most = runs;
  }
  return best != UINT32_MAX ? best : costliestBranch(r, c);
}

/* Conditions per run of the loop in the measurement (trips + 1), or 0. */
static uint64_t measuredTrips(const Replay *r, const ThunkyCommand *c) {
  ThunkyRange condition = r->plan->lists[c->loop.condition];
  if (!r->measuredRuns || !condition.count || !r->measuredRuns[c->thunk])
    return 0;
  uint64_t loops = r->measuredRuns[c->thunk];
  uint64_t conditions = r->measuredRuns[r->plan->commands[condition.first].thunk];
  return (conditions + loops / 2) / loops;
}

static bool issueCommand(Replay *r, uint32_t command, uint32_t lane) {
  const ThunkyPlan *plan = r->plan;
  const ThunkyCommand *c = &plan->commands[command];
  switch (c->kind) {
  case THUNKY_CMD_ASYNC_START:
    return asyncStart(r, command, lane);
  case THUNKY_CMD_ASYNC_DONE:
    return asyncDone(r, command, lane);
  case THUNKY_CMD_COLLECTIVE_GROUP:
    return issueList(r, c->group.list, lane);
  case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
    /* Offsets on the device are read back first, as a loop's predicate. */
    if (c->fusion.readsDevice && !inGraph(r, command)) {
      r->host.at += issueOf(r, c->thunk, 0); /* the offsets' copies */
      hostWaits(r, lane);
    }
    return issueList(r, c->fusion.list, lane); /* its thunks are its work */
  case THUNKY_CMD_CONDITIONAL: {
    uint32_t count = c->conditional.branches.count;
    if (!count)
      return true;
    if (!inGraph(r, command)) {
      r->host.at += issueOf(r, c->thunk, 0); /* the index's copy */
      hostWaits(r, lane);
    }
    /* XLA runs the last branch for an index out of range. */
    uint32_t b = r->branch < 0                 ? measuredBranch(r, c)
                 : (uint64_t)r->branch < count ? (uint32_t)r->branch
                                               : count - 1;
    return issueList(r, (uint32_t)plan->ids[c->conditional.branches.first + b], lane);
  }
  case THUNKY_CMD_WHILE: {
    bool known = c->loop.tripCount >= 0;
    uint64_t trips = known ? (uint64_t)c->loop.tripCount : r->loopTrips;
    uint64_t seen = known ? 0 : measuredTrips(r, c);
    if (seen)
      trips = seen - 1, r->s->measuredLoops++;
    else
      r->s->assumedLoops += !known;
    /* Eager, a known trip count runs the body without the condition, as
     * XLA's WhileThunk does (thunkyPlanRunLoop); a graph's while node
     * evaluates it each time. */
    bool condition = !known || inGraph(r, command);
    /* A measured loop's issue is its predicates' copies over one run. */
    double read = issueOf(r, c->thunk, 0) / (double)(seen ? seen : trips + 1);
    for (uint64_t i = 0; i <= trips; i++) {
      if (condition && !issueList(r, c->loop.condition, lane))
        return false;
      if (!known && !inGraph(r, command)) {
        r->host.at += read;
        hostWaits(r, lane);
      }
      if (i < trips && !issueList(r, c->loop.body, lane))
        return false;
    }
    return true;
  }
  default:
    return issueOperation(r, command, lane);
  }
}

static bool issueList(Replay *r, uint32_t list, uint32_t lane) {
  ThunkyRange l = r->plan->lists[list];
  for (uint32_t i = l.first; i < l.first + l.count; i++)
    if (!issueCommand(r, i, lane))
      return false;
  return true;
}

/* ---------------------------------------------------------------------- */

/* Device time in a list, loops times their trips: what picks a
 * conditional's costliest branch. Memoized, so each list is summed once. */
static double listWork(Replay *r, uint32_t list, uint8_t *state) {
  if (state[list] == 2)
    return r->listWork[list];
  if (state[list] == 1)
    return 0; /* a cycle the planner would not build */
  state[list] = 1;
  double work = 0;
  ThunkyRange l = r->plan->lists[list];
  for (uint32_t i = l.first; i < l.first + l.count; i++) {
    const ThunkyCommand *c = &r->plan->commands[i];
    switch (c->kind) {
    case THUNKY_CMD_ASYNC_START:
      work += listWork(r, c->asyncStart.list, state);
      break;
    case THUNKY_CMD_COLLECTIVE_GROUP:
      work += listWork(r, c->group.list, state);
      break;
    case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
      work += listWork(r, c->fusion.list, state);
      break;
    case THUNKY_CMD_ASYNC_DONE:
      break;
    case THUNKY_CMD_CONDITIONAL: {
      double most = 0;
      for (uint32_t b = 0; b < c->conditional.branches.count; b++)
        most = later(most, listWork(r, (uint32_t)r->plan->ids[c->conditional.branches.first + b],
                                    state));
      work += most;
      break;
    }
    case THUNKY_CMD_WHILE: {
      bool known = c->loop.tripCount >= 0;
      double trips = known ? (double)c->loop.tripCount : (double)r->loopTrips;
      work += (known && !inGraph(r, i) ? 0 : trips + 1) * listWork(r, c->loop.condition, state) +
              trips * listWork(r, c->loop.body, state);
      break;
    }
    default:
      work += r->commandNs[i];
    }
  }
  state[list] = 2;
  return r->listWork[list] = work;
}

/* Lanes, windows and durations: everything sized by the plan. */
static bool prepare(Replay *r, const ThunkyScheduleOptions *o) {
  const ThunkyPlan *plan = r->plan;
  ThunkySchedule *s = r->s;
  size_t commands = plan->numCommands + 1, thunks = plan->numThunks + 1;
  uint32_t starts = 0;
  for (uint32_t i = 0; i < plan->numCommands; i++)
    starts += plan->commands[i].kind == THUNKY_CMD_ASYNC_START;
  s->numLanes = plan->numStreams + 1;
  s->laneStreams = malloc(s->numLanes * sizeof *s->laneStreams);
  s->laneCommunication = calloc(s->numLanes, sizeof *s->laneCommunication);
  s->thunkNs = calloc(thunks, sizeof *s->thunkNs);
  s->thunkRuns = calloc(thunks, sizeof *s->thunkRuns);
  s->thunkSource = calloc(thunks, sizeof *s->thunkSource);
  s->thunkExposedNs = calloc(thunks, sizeof *s->thunkExposedNs);
  s->windows = calloc(starts + 1, sizeof *s->windows);
  r->commandNs = malloc(commands * sizeof *r->commandNs);
  r->commandIssueNs = malloc(commands * sizeof *r->commandIssueNs);
  r->startLane = calloc(commands, sizeof *r->startLane);
  r->windowOfThunk = malloc(thunks * sizeof *r->windowOfThunk);
  r->listWork = calloc(plan->numLists + 1, sizeof *r->listWork);
  r->slots = calloc(plan->numAsyncSlots + 1, sizeof *r->slots);
  r->issuing = calloc(plan->maxDepth + 2, sizeof *r->issuing);
  if (!s->laneStreams || !s->laneCommunication || !s->thunkNs || !s->thunkRuns || !s->thunkSource ||
      !s->thunkExposedNs || !s->windows || !r->commandNs || !r->commandIssueNs || !r->startLane ||
      !r->windowOfThunk || !r->listWork || !r->slots || !r->issuing)
    return thunkyErrorf(r->error, "out of memory for the schedule");
  /* Lanes: the main stream, then the plan's execution streams. */
  s->laneStreams[0] = -1;
  for (uint32_t l = 1; l < s->numLanes; l++) {
    s->laneStreams[l] = plan->streams[l - 1].id;
    s->laneCommunication[l] = plan->streams[l - 1].communication;
  }
  s->laneBusyNs = calloc(s->numLanes, sizeof *s->laneBusyNs);
  r->laneBusy = calloc(s->numLanes, sizeof *r->laneBusy);
  r->ready = calloc(s->numLanes, sizeof *r->ready);
  r->laneIssued = calloc(s->numLanes, sizeof *r->laneIssued);
  if (!s->laneBusyNs || !r->laneBusy || !r->ready || !r->laneIssued)
    return thunkyErrorf(r->error, "out of memory for the schedule");
  for (uint32_t l = 0; l < s->numLanes; l++)
    r->ready[l].cause = -1;
  r->host.cause = -1;
  memset(r->windowOfThunk, 0xff, thunks * sizeof *r->windowOfThunk);
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    bool measured = o->measuredNs && o->measuredNs[c->thunk] >= 0;
    if (measured)
      r->commandNs[i] = o->measuredNs[c->thunk];
    else if (!thunkyModelDuration(plan, i, &r->device, r->ranks, r->partitions, &r->commandNs[i],
                                  r->error)) {
      char name[160];
      thunkyPlanThunkName(plan, c->thunk, name, sizeof name);
      return thunkyErrorContext(r->error, "%s", name);
    }
    r->commandIssueNs[i] = issueOf(r, c->thunk, thunkyModelIssueNs(plan, i, &r->device));
    s->thunkSource[c->thunk] = measured ? THUNKY_DURATION_MEASURED : THUNKY_DURATION_MODEL;
    if (c->kind != THUNKY_CMD_ASYNC_START)
      continue;
    r->startLane[i] = c->asyncStart.streamIndex + 1;
    if (r->windowOfThunk[c->thunk] == UINT32_MAX) {
      r->windowOfThunk[c->thunk] = (uint32_t)s->numWindows;
      s->windows[s->numWindows++] = (ThunkyAsyncWindow){
          .thunk = c->thunk, .lane = r->startLane[i],
          .communication = c->asyncStart.communication};
    }
  }
  uint8_t *state = calloc(plan->numLists + 1, 1);
  if (!state)
    return thunkyErrorf(r->error, "out of memory for the schedule");
  for (uint32_t l = 0; l < plan->numLists; l++)
    listWork(r, l, state);
  free(state);
  return true;
}

/* Back from the event that ends last, through what each waited for. */
static bool criticalPath(ThunkySchedule *s, ThunkyError *error) {
  if (!s->numEvents || s->eventsDropped)
    return true;
  size_t last = 0;
  for (size_t i = 1; i < s->numEvents; i++)
    if (s->events[i].endNs >= s->events[last].endNs)
      last = i;
  size_t length = 0;
  for (int64_t i = (int64_t)last; i >= 0; i = s->events[i].cause)
    length++;
  if (!(s->criticalPath = malloc(length * sizeof *s->criticalPath)))
    return thunkyErrorf(error, "out of memory for the critical path");
  for (int64_t i = (int64_t)last; i >= 0; i = s->events[i].cause)
    s->criticalPath[s->criticalPathLength++] = (uint32_t)i;
  return true;
}

bool thunkyScheduleCreate(const ThunkyPlan *plan, const ThunkyScheduleOptions *options,
                          ThunkySchedule **schedule, ThunkyError *error) {
  ThunkyScheduleOptions none = {.branch = -1};
  const ThunkyScheduleOptions *o = options ? options : &none;
  ThunkyRunConfig world = {.ranks = o->ranks, .partitions = o->partitions};
  if (!thunkyRunConfigNormalize(&world, error)) /* a run's rule for its world */
    return false;
  ThunkySchedule *s = calloc(1, sizeof *s);
  Replay r = {.plan = plan,
              .s = s,
              .error = error,
              .device = o->device ? *o->device : thunkyDeviceModelH200(),
              .ranks = world.ranks,
              .partitions = world.partitions,
              .loopTrips = o->loopTrips ? o->loopTrips : 1,
              .branch = o->branch,
              .measuredRuns = o->measuredRuns,
              .issueNs = o->measuredIssueNs,
              .graphPlace = o->graphPlace,
              .maxEvents = o->maxEvents ? o->maxEvents : (size_t)1 << 22,
              .maxIssued = o->maxIssued ? o->maxIssued : (uint64_t)1 << 32};
  if (s)
    s->ranks = r.ranks, s->partitions = r.partitions;
  bool ok = s ? prepare(&r, o) : thunkyErrorf(error, "out of memory for the schedule");
  ok = ok && (!plan->numLists || issueList(&r, 0, 0));
  if (ok) {
    double device = 0;
    for (uint32_t l = 0; l < s->numLanes; l++) {
      device = later(device, r.ready[l].at);
      s->laneBusyNs[l] = (uint64_t)llround(r.laneBusy[l]);
    }
    /* The host waits for the step to end, unless it already has. */
    double step = device > r.host.at ? device + r.device.syncNs : r.host.at;
    s->stepNs = (uint64_t)llround(step);
    s->hostNs = (uint64_t)llround(r.host.at);
    s->exposedCommunicationNs = (uint64_t)llround(r.exposed);
    ok = criticalPath(s, error);
  }
  free(r.commandNs);
  free(r.commandIssueNs);
  free(r.startLane);
  free(r.windowOfThunk);
  free(r.listWork);
  free(r.slots);
  free(r.issuing);
  free(r.ready);
  free(r.laneIssued);
  free(r.laneBusy);
  if (!ok) {
    thunkyScheduleDestroy(s);
    return false;
  }
  *schedule = s;
  return true;
}

void thunkyScheduleDestroy(ThunkySchedule *s) {
  if (!s)
    return;
  free(s->laneStreams);
  free(s->laneCommunication);
  free(s->laneBusyNs);
  free(s->events);
  free(s->thunkNs);
  free(s->thunkRuns);
  free(s->thunkSource);
  free(s->thunkExposedNs);
  free(s->windows);
  free(s->criticalPath);
  free(s);
}
