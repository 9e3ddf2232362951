/*===- memory_plot.h - thunky-memory-report's SVG plot -------------------===*
 *
 * The analysis (memory_report.c) says what is live when; the plot draws
 * it. They meet here: the live bytes at every thunk, and each allocation
 * (or group of scratch slices) as a span of thunks with its bytes and what
 * it holds, so the plot can stack live bytes by what they are.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_PASSES_MEMORY_PLOT_H
#define THUNKY_PASSES_MEMORY_PLOT_H

#include "thunky-c/passes/Access.h"

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a span holds: an argument's role (ThunkyRole, thunky-c/passes/Access.h),
 * or THUNKY_HOLDS_CONSTANT for a thunky.constant. */
enum { THUNKY_HOLDS_CONSTANT = THUNKY_ROLE_OTHER + 1, THUNKY_HOLDS_KINDS };

typedef struct ThunkyLiveSpan {
  int64_t from, to; /* live at thunks [from, to]; from > to: never */
  int64_t bytes;
  int holds; /* a ThunkyRole or THUNKY_HOLDS_CONSTANT */
} ThunkyLiveSpan;

typedef struct ThunkyMemoryPlot {
  MlirStringRef program; /* the program's name for the title; may be empty */
  int64_t thunks;
  const int64_t *live;   /* live bytes at each thunk: the spans' sum */
  int64_t peak, peakThunk; /* peakThunk < 0: there are no thunks */
  const ThunkyLiveSpan *spans;
  size_t numSpans;
} ThunkyMemoryPlot;

/* Writes the plot to `f` as one SVG document; false when out of memory or
 * on a write error. Linear in thunks and spans; the document's size is
 * bounded whatever their number. */
bool thunkyWriteMemoryPlot(const ThunkyMemoryPlot *plot, FILE *f);

/* "512 bytes", "1.5 KiB", "384.0 MiB": for people, beside exact counts. */
void thunkyHumanBytes(int64_t bytes, char *out, size_t size);

#endif /* THUNKY_PASSES_MEMORY_PLOT_H */
