/*===- run_report.h - what thunky-run prints and writes after a run -------===*/
#ifndef THUNKY_TOOLS_RUN_REPORT_H
#define THUNKY_TOOLS_RUN_REPORT_H

#include "thunky-c/runtime/Npy.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Runtime.h"
#include "thunky-c/runtime/Timeline.h"

#include <stdio.h>

/* Each output of each rank: its type and its first elements. */
void printOutputs(FILE *out, const ThunkyPlan *plan, const ThunkyNpyArray *outputs, uint32_t ranks);
/* Each output of each rank of a run without bytes (symbolic): the pieces
 * it holds, and who made each. */
bool printContents(FILE *out, const ThunkyPlan *plan, const ThunkyBackendOps *backend, void *state,
                   uint32_t ranks, ThunkyError *error);
/* The `top` thunks with the most time, with call counts and shares. */
void printProfile(FILE *out, const ThunkyPlan *plan, const ThunkyTimeline *timeline, uint32_t top);
/* The timeline as Chrome trace JSON: one process per rank, one thread per
 * stream. Written whole or not at all. */
bool writeChromeTrace(const char *path, const ThunkyPlan *plan, const ThunkyTimeline *timeline,
                      ThunkyError *error);

/* A report file written whole or not at all: written to PATH.partial,
 * renamed over PATH by reportClose (which removes it on failure).
 * `partial` holds the temporary name (4096 bytes). */
FILE *reportOpen(const char *path, char *partial, ThunkyError *error);
bool reportClose(FILE *f, const char *partial, const char *path, ThunkyError *error);

#endif /* THUNKY_TOOLS_RUN_REPORT_H */
