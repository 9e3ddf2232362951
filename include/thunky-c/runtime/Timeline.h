/*===- thunky-c/runtime/Timeline.h - when each thunk ran, for profiles and traces ===*/
#ifndef THUNKY_C_TIMELINE_H
#define THUNKY_C_TIMELINE_H

#include "thunky-c/Export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkyTraceEvent {
  uint32_t thunk, rank;
  uint32_t stream; /* 0: the main stream; k: plan->streams[k - 1]; or the host's issue */
  uint64_t beginNs, endNs; /* since the timeline's origin */
} ThunkyTraceEvent;

/* ThunkyTraceEvent.stream of the host issuing a thunk (the schedule
 * model's host lane), not of a stream running it. */
#define THUNKY_TRACE_HOST_ISSUE UINT32_MAX

/* Events of every rank; appending takes a lock, so ranks may share one. */
typedef struct ThunkyTimeline ThunkyTimeline;

/* Nanoseconds on CLOCK_MONOTONIC, for timing anything. */
THUNKY_EXPORT uint64_t thunkyMonotonicNs(void);

THUNKY_EXPORT ThunkyTimeline *thunkyTimelineCreate(void);
THUNKY_EXPORT void thunkyTimelineDestroy(ThunkyTimeline *timeline);
/* Nanoseconds since the timeline was created (CLOCK_MONOTONIC). */
THUNKY_EXPORT uint64_t thunkyTimelineNow(const ThunkyTimeline *timeline);
/* Records one event; false when out of memory: the event is dropped, and
 * counted (thunkyTimelineLost). */
THUNKY_EXPORT bool thunkyTimelineAdd(ThunkyTimeline *timeline, ThunkyTraceEvent event);
/* How many events were dropped for want of memory since the timeline was
 * made or cleared: a profile or trace of a timeline that lost any would
 * be missing them, so a caller that reports one checks this first. */
THUNKY_EXPORT uint64_t thunkyTimelineLost(const ThunkyTimeline *timeline);
/* The events so far, in the order they were added. */
THUNKY_EXPORT const ThunkyTraceEvent *thunkyTimelineEvents(const ThunkyTimeline *timeline,
                                                           size_t *count);
THUNKY_EXPORT void thunkyTimelineClear(ThunkyTimeline *timeline);

/* What a backend says of its measurement, kept for the trace (NULL or ""
 * where it said nothing): the device it ran on, and how it took the
 * events' times; the timeline copies both, cut to 63 and 511 bytes. */
THUNKY_EXPORT void thunkyTimelineSetSource(ThunkyTimeline *timeline, const char *device,
                                           const char *method);
/* The device and method last set, borrowed; "" when none was. */
THUNKY_EXPORT const char *thunkyTimelineDevice(const ThunkyTimeline *timeline);
THUNKY_EXPORT const char *thunkyTimelineMethod(const ThunkyTimeline *timeline);
/* One step as the host saw it, from issuing its first thunk to the end of
 * waiting for its last, in ns; a backend notes each rank's of each run. */
THUNKY_EXPORT void thunkyTimelineNoteStep(ThunkyTimeline *timeline, uint64_t ns);
/* The mean of the steps noted, or 0 when none was. */
THUNKY_EXPORT uint64_t thunkyTimelineStep(const ThunkyTimeline *timeline);
/* How many steps were noted: each rank's of each run. */
THUNKY_EXPORT uint64_t thunkyTimelineSteps(const ThunkyTimeline *timeline);
/* Device work a backend measured but could tie to no thunk (a graph node
 * no capture made), in ns: its events leave it out, so the thunks it
 * belonged to look untimed. A backend notes each such piece. */
THUNKY_EXPORT void thunkyTimelineNoteUnattributed(ThunkyTimeline *timeline, uint64_t ns);
/* The sum of what was noted; 0 when nothing was. */
THUNKY_EXPORT uint64_t thunkyTimelineUnattributed(const ThunkyTimeline *timeline);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_TIMELINE_H */
