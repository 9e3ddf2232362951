/*===- timeline.c - when each thunk ran ------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "thunky-c/runtime/Timeline.h"

#include "thunky-c/base/Arena.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct ThunkyTimeline {
  pthread_mutex_t lock;
  ThunkyTraceEvent *events;
  size_t count, capacity;
  uint64_t origin;
  char device[64], method[512];
  uint64_t stepSum, steps;
  uint64_t unattributedNs;
  uint64_t lost;
};

uint64_t thunkyMonotonicNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

ThunkyTimeline *thunkyTimelineCreate(void) {
  ThunkyTimeline *t = calloc(1, sizeof *t);
  if (t && pthread_mutex_init(&t->lock, NULL) != 0) {
    free(t);
    return NULL;
  }
  if (t)
    t->origin = thunkyMonotonicNs();
  return t;
}

void thunkyTimelineDestroy(ThunkyTimeline *t) {
  if (!t)
    return;
  pthread_mutex_destroy(&t->lock);
  free(t->events);
  free(t);
}

uint64_t thunkyTimelineNow(const ThunkyTimeline *t) { return thunkyMonotonicNs() - t->origin; }

bool thunkyTimelineAdd(ThunkyTimeline *t, ThunkyTraceEvent event) {
  pthread_mutex_lock(&t->lock);
  bool ok = thunkyArrayGrow((void **)&t->events, &t->capacity, t->count, sizeof *t->events);
  if (ok)
    t->events[t->count++] = event;
  else
    t->lost++;
  pthread_mutex_unlock(&t->lock);
  return ok;
}

uint64_t thunkyTimelineLost(const ThunkyTimeline *t) { return t->lost; }

const ThunkyTraceEvent *thunkyTimelineEvents(const ThunkyTimeline *t, size_t *count) {
  *count = t->count;
  return t->events;
}

void thunkyTimelineClear(ThunkyTimeline *t) {
  t->count = 0, t->stepSum = t->steps = t->unattributedNs = t->lost = 0;
}

void thunkyTimelineSetSource(ThunkyTimeline *t, const char *device, const char *method) {
  pthread_mutex_lock(&t->lock);
  snprintf(t->device, sizeof t->device, "%s", device ? device : "");
  snprintf(t->method, sizeof t->method, "%s", method ? method : "");
  pthread_mutex_unlock(&t->lock);
}

const char *thunkyTimelineDevice(const ThunkyTimeline *t) { return t->device; }

const char *thunkyTimelineMethod(const ThunkyTimeline *t) { return t->method; }

void thunkyTimelineNoteStep(ThunkyTimeline *t, uint64_t ns) {
  pthread_mutex_lock(&t->lock);
  t->stepSum += ns, t->steps++;
  pthread_mutex_unlock(&t->lock);
}

uint64_t thunkyTimelineStep(const ThunkyTimeline *t) {
  return t->steps ? (t->stepSum + t->steps / 2) / t->steps : 0;
}

uint64_t thunkyTimelineSteps(const ThunkyTimeline *t) { return t->steps; }

void thunkyTimelineNoteUnattributed(ThunkyTimeline *t, uint64_t ns) {
  pthread_mutex_lock(&t->lock);
  t->unattributedNs += ns;
  pthread_mutex_unlock(&t->lock);
}

uint64_t thunkyTimelineUnattributed(const ThunkyTimeline *t) { return t->unattributedNs; }
