/*===- run_report.h - what thunky-run prints and writes after a run -------===*/
#ifndef THUNKY_TOOLS_RUN_REPORT_H
#define THUNKY_TOOLS_RUN_REPORT_H

#include "thunky-c/runtime/Npy.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Runtime.h"
#include "thunky-c/runtime/Schedule.h"
#include "thunky-c/runtime/Timeline.h"

#include <stdio.h>

/* Each output of each rank: its type and its first elements. */
void printOutputs(FILE *out, const ThunkyPlan *plan, const ThunkyNpyArray *outputs, uint32_t ranks);
/* Each output of each rank of a run without bytes (symbolic): the pieces
 * it holds, and who made each. */
bool printContents(FILE *out, const ThunkyPlan *plan, const ThunkyBackendOps *backend, void *state,
                   uint32_t ranks, ThunkyError *error);
/* The `top` thunks with the most time, with call counts and shares; false
 * only when out of memory. */
bool printProfile(FILE *out, const ThunkyPlan *plan, const ThunkyTimeline *timeline, uint32_t top,
                  ThunkyError *error);
/* The timeline as Chrome trace JSON (Perfetto reads it): a process per
 * rank and a thread per stream, each named; each thunk's name, number and
 * XLA id as arguments; what made it as "otherData" (origin's backend, clock
 * and method), which thunky-run --measured reads back. Written whole or not
 * at all. */
bool writeChromeTrace(const char *path, const ThunkyPlan *plan, const ThunkyTimeline *timeline,
                      const ThunkyTraceOrigin *origin, ThunkyError *error);
/* "main stream", "computation stream 2", "communication stream 0" or "host
 * issue": ThunkyTraceEvent.stream, and the schedule's lanes, by name. */
void streamName(const ThunkyPlan *plan, uint32_t stream, char *out, size_t size);

/* A report file written whole or not at all: written to PATH.partial,
 * renamed over PATH by reportClose (which removes it on failure).
 * `partial` holds the temporary name (4096 bytes). */
FILE *reportOpen(const char *path, char *partial, ThunkyError *error);
bool reportClose(FILE *f, const char *partial, const char *path, ThunkyError *error);

#endif /* THUNKY_TOOLS_RUN_REPORT_H */
