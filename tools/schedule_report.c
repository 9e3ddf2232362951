/*===- schedule_report.c - what thunky-run --model prints ---------===*/
#include "schedule_report.h"

#include "run_report.h"
#include "top_k.h"
#include "thunky-c/base/Json.h"
#include "thunky-c/runtime/Timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static double us(uint64_t ns) { return (double)ns / 1e3; }

static double share(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

typedef struct {
  uint32_t thunk;
  uint64_t ns;
} ThunkTotal;

static int byTotalDescending(const void *a, const void *b) {
  const ThunkTotal *x = a, *y = b;
  return x->ns != y->ns ? (x->ns < y->ns ? 1 : -1) : (x->thunk > y->thunk) - (x->thunk < y->thunk);
}

static int eventByLengthDescending(const void *a, const void *b) {
  const ThunkyScheduleEvent *x = a, *y = b;
  uint64_t dx = x->endNs - x->beginNs, dy = y->endNs - y->beginNs;
  if (dx != dy)
    return dx < dy ? 1 : -1;
  if (x->beginNs != y->beginNs)
    return x->beginNs > y->beginNs ? 1 : -1;
  return x->thunk != y->thunk ? (x->thunk > y->thunk ? 1 : -1)
                              : (x->lane > y->lane) - (x->lane < y->lane);
}

static bool printCriticalPath(FILE *out, const ThunkyPlan *plan, const ThunkySchedule *s,
                              uint32_t top) {
  if (s->eventsDropped || !s->criticalPathLength) {
    fprintf(out, "critical path: not traced (%s)\n",
            s->eventsDropped ? "more operations than events kept" : "nothing ran");
    return true;
  }
  ThunkyTopK longest;
  if (!topKCreate(&longest, top, sizeof(ThunkyScheduleEvent), eventByLengthDescending))
    return false;
  uint64_t busy = 0;
  for (size_t i = 0; i < s->criticalPathLength; i++) {
    const ThunkyScheduleEvent *e = &s->events[s->criticalPath[i]];
    busy += e->endNs - e->beginNs;
    topKOffer(&longest, e);
  }
  fprintf(out, "critical path: %zu operations, %.3f us of device time (%.1f%% of the step; "
               "the rest is issue and waits); the longest:\n",
          s->criticalPathLength, us(busy), share(busy, s->stepNs));
  size_t shown = topKFinish(&longest);
  const ThunkyScheduleEvent *path = (const ThunkyScheduleEvent *)longest.items;
  for (size_t i = 0; i < shown; i++) {
    char name[160], lane[40];
    thunkyPlanThunkName(plan, path[i].thunk, name, sizeof name);
    streamName(plan, path[i].lane, lane, sizeof lane);
    fprintf(out, "  %-56.56s %10.3f us  at %10.3f us on %s\n", name,
            us(path[i].endNs - path[i].beginNs), us(path[i].beginNs), lane);
  }
  topKDestroy(&longest);
  return true;
}

static bool printTopThunks(FILE *out, const ThunkyPlan *plan, const ThunkySchedule *s,
                           uint32_t top) {
  ThunkyTopK most;
  if (!topKCreate(&most, top, sizeof(ThunkTotal), byTotalDescending))
    return false;
  uint64_t all = 0;
  size_t n = 0;
  for (uint32_t t = 0; t < plan->numThunks; t++)
    if (s->thunkRuns[t]) {
      topKOffer(&most, &(ThunkTotal){t, s->thunkNs[t]});
      all += s->thunkNs[t], n++;
    }
  size_t shown = topKFinish(&most);
  const ThunkTotal *totals = (const ThunkTotal *)most.items;
  fprintf(out, "device time: %.3f us over %zu thunks; the most:\n", us(all), n);
  for (size_t i = 0; i < shown; i++) {
    char name[160];
    uint32_t t = totals[i].thunk;
    thunkyPlanThunkName(plan, t, name, sizeof name);
    fprintf(out, "  %-56.56s %10.3f us  %6.1f%%  %llu run(s), %s\n", name, us(totals[i].ns),
            share(totals[i].ns, all), (unsigned long long)s->thunkRuns[t],
            s->thunkSource[t] == THUNKY_DURATION_MEASURED ? "measured" : "modelled");
  }
  topKDestroy(&most);
  return true;
}

static int windowByExposureDescending(const void *a, const void *b) {
  const ThunkyAsyncWindow *x = *(const ThunkyAsyncWindow *const *)a;
  const ThunkyAsyncWindow *y = *(const ThunkyAsyncWindow *const *)b;
  return x->exposedNs != y->exposedNs ? (x->exposedNs < y->exposedNs ? 1 : -1)
                                      : (x->thunk > y->thunk) - (x->thunk < y->thunk);
}

/* The async regions that hide least first: what a pass author looks for. */
static bool printWindows(FILE *out, const ThunkyPlan *plan, const ThunkySchedule *s, uint32_t top) {
  ThunkyTopK most;
  if (!topKCreate(&most, top, sizeof(const ThunkyAsyncWindow *), windowByExposureDescending))
    return false;
  size_t exposed = 0;
  for (size_t i = 0; i < s->numWindows; i++) {
    const ThunkyAsyncWindow *w = &s->windows[i];
    topKOffer(&most, &w);
    exposed += w->exposedNs != 0;
  }
  size_t shown = topKFinish(&most);
  const ThunkyAsyncWindow *const *sorted = (const ThunkyAsyncWindow *const *)most.items;
  fprintf(out, "async regions: %zu, %zu of them exposed%s\n", s->numWindows, exposed,
          s->numWindows ? "; the most exposed:" : "");
  for (size_t i = 0; i < shown; i++) {
    const ThunkyAsyncWindow *w = sorted[i];
    char name[160], lane[40];
    thunkyPlanThunkName(plan, w->thunk, name, sizeof name);
    streamName(plan, w->lane, lane, sizeof lane);
    fprintf(out, "  %s on %s%s: ran %llu time(s); own %.3f us, window %.3f us beside %llu "
                 "operation(s), exposed %.3f us\n",
            name, lane, w->communication ? ", communication" : "", (unsigned long long)w->runs,
            us(w->ownNs), us(w->windowNs), (unsigned long long)w->besideOps, us(w->exposedNs));
  }
  if (s->numWindows > top)
    fprintf(out, "  ... and %zu more (--profile=N shows N; --json has all)\n",
            s->numWindows - top);
  topKDestroy(&most);
  return true;
}

/* The collectives and communication regions whose time nothing hid. */
static bool printExposed(FILE *out, const ThunkyPlan *plan, const ThunkySchedule *s, uint32_t top) {
  ThunkyTopK most;
  if (!topKCreate(&most, top, sizeof(ThunkTotal), byTotalDescending))
    return false;
  size_t n = 0;
  for (uint32_t t = 0; t < plan->numThunks; t++)
    if (s->thunkExposedNs[t]) {
      topKOffer(&most, &(ThunkTotal){t, s->thunkExposedNs[t]});
      n++;
    }
  size_t shown = topKFinish(&most);
  const ThunkTotal *exposed = (const ThunkTotal *)most.items;
  fprintf(out, "exposed communication: %.3f us (%.1f%% of the step)%s\n",
          us(s->exposedCommunicationNs), share(s->exposedCommunicationNs, s->stepNs),
          n ? ", from:" : "");
  for (size_t i = 0; i < shown; i++) {
    char name[160];
    thunkyPlanThunkName(plan, exposed[i].thunk, name, sizeof name);
    fprintf(out, "  %-56.56s %10.3f us exposed, %s\n", name, us(exposed[i].ns),
            strcmp(plan->thunks[exposed[i].thunk].kind, "async_start_thunk")
                ? "outside any async region"
                : "not hidden by its async window");
  }
  if (n > top)
    fprintf(out, "  ... and %zu more\n", n - top);
  topKDestroy(&most);
  return true;
}

bool printSchedule(FILE *out, const ThunkyPlan *plan, const ThunkySchedule *s,
                   const ThunkyDeviceModel *device, uint32_t top, ThunkyError *error) {
  uint32_t measured = 0, ran = 0;
  for (uint32_t t = 0; t < plan->numThunks; t++)
    if (s->thunkRuns[t])
      ran++, measured += s->thunkSource[t] == THUNKY_DURATION_MEASURED;
  fprintf(out, "predicted step: %.3f us on %s (%u thunks ran: %u measured, %u modelled)\n",
          us(s->stepNs), device->name, ran, measured, ran - measured);
  /* Where collectives run, what they cost depends on the world. */
  if (plan->numCollectives)
    fprintf(out, "world: %u rank(s), %u replica(s) of %u partition(s), %g to a node\n", s->ranks,
            s->ranks / s->partitions, s->partitions, device->gpusPerNode);
  fprintf(out, "host: issued %llu operations, the last at %.3f us\n",
          (unsigned long long)s->issued, us(s->hostNs));
  fprintf(out, "streams:\n");
  for (uint32_t l = 0; l < s->numLanes; l++) {
    char lane[40];
    streamName(plan, l, lane, sizeof lane);
    fprintf(out, "  %-26s busy %12.3f us  %5.1f%%\n", lane, us(s->laneBusyNs[l]),
            share(s->laneBusyNs[l], s->stepNs));
  }
  /* Each section ranks with a top-k that needs memory: a section left out
   * would look like nothing to report. */
  if (!printWindows(out, plan, s, top) || !printExposed(out, plan, s, top) ||
      !printCriticalPath(out, plan, s, top) || !printTopThunks(out, plan, s, top))
    return thunkyErrorf(error, "out of memory printing the schedule");
  if (s->measuredLoops)
    fprintf(out, "measured: %llu while loop run(s) with no known trip count ran as often as "
                 "in the measurement\n", (unsigned long long)s->measuredLoops);
  if (s->assumedLoops)
    fprintf(out, "assumed: %llu while loop run(s) with no known trip count took --loop-trips "
                 "iterations\n", (unsigned long long)s->assumedLoops);
  return true;
}

/* ---------------------------------------------------------------------- */

static void jsonName(FILE *f, const ThunkyPlan *plan, uint32_t thunk) {
  char name[160];
  thunkyPlanThunkName(plan, thunk, name, sizeof name);
  fputc('"', f);
  thunkyJsonWriteString(f, name, strlen(name));
  fputc('"', f);
}

bool writeScheduleJson(const char *path, const ThunkyPlan *plan, const ThunkySchedule *s,
                       const ThunkyDeviceModel *device, ThunkyError *error) {
  char partial[4096];
  FILE *f = reportOpen(path, partial, error);
  if (!f)
    return false;
  fputs("{\"device\":\"", f);
  thunkyJsonWriteString(f, device->name, strlen(device->name));
  fprintf(f, "\",\n\"ranks\":%u,\n\"partitions\":%u,", s->ranks, s->partitions);
  fprintf(f,
          "\n\"step_ns\":%llu,\n\"host_ns\":%llu,\n\"issued\":%llu,\n"
          "\"exposed_communication_ns\":%llu,\n\"assumed_loops\":%llu,\n\"measured_loops\":%llu,\n"
          "\"lanes\":[",
          (unsigned long long)s->stepNs, (unsigned long long)s->hostNs,
          (unsigned long long)s->issued, (unsigned long long)s->exposedCommunicationNs,
          (unsigned long long)s->assumedLoops, (unsigned long long)s->measuredLoops);
  for (uint32_t l = 0; l < s->numLanes; l++)
    fprintf(f, "%s\n {\"lane\":%u,\"stream\":%lld,\"communication\":%s,\"busy_ns\":%llu}",
            l ? "," : "", l, (long long)s->laneStreams[l],
            s->laneCommunication[l] ? "true" : "false", (unsigned long long)s->laneBusyNs[l]);
  fputs("],\n\"async_regions\":[", f);
  for (size_t i = 0; i < s->numWindows; i++) {
    const ThunkyAsyncWindow *w = &s->windows[i];
    fprintf(f, "%s\n {\"thunk\":%u,\"name\":", i ? "," : "", w->thunk);
    jsonName(f, plan, w->thunk);
    fprintf(f, ",\"lane\":%u,\"communication\":%s,\"runs\":%llu,\"own_ns\":%llu,"
               "\"span_ns\":%llu,\"window_ns\":%llu,\"beside\":%llu,\"exposed_ns\":%llu}",
            w->lane, w->communication ? "true" : "false", (unsigned long long)w->runs,
            (unsigned long long)w->ownNs, (unsigned long long)w->spanNs,
            (unsigned long long)w->windowNs, (unsigned long long)w->besideOps,
            (unsigned long long)w->exposedNs);
  }
  fputs("],\n\"critical_path\":[", f);
  for (size_t i = s->criticalPathLength; i-- > 0;) {
    const ThunkyScheduleEvent *e = &s->events[s->criticalPath[i]];
    fprintf(f, "%s\n {\"thunk\":%u,\"name\":", i + 1 == s->criticalPathLength ? "" : ",",
            e->thunk);
    jsonName(f, plan, e->thunk);
    fprintf(f, ",\"lane\":%u,\"begin_ns\":%llu,\"end_ns\":%llu}", e->lane,
            (unsigned long long)e->beginNs, (unsigned long long)e->endNs);
  }
  fputs("],\n\"thunks\":[", f);
  bool first = true;
  for (uint32_t t = 0; t < plan->numThunks; t++) {
    if (!s->thunkRuns[t])
      continue;
    fprintf(f, "%s\n {\"thunk\":%u,\"name\":", first ? "" : ",", t);
    jsonName(f, plan, t);
    fprintf(f, ",\"kind\":\"%s\",\"ns\":%llu,\"runs\":%llu,\"source\":\"%s\"",
            plan->thunks[t].kind, (unsigned long long)s->thunkNs[t],
            (unsigned long long)s->thunkRuns[t],
            s->thunkSource[t] == THUNKY_DURATION_MEASURED ? "measured" : "model");
    if (s->thunkExposedNs[t])
      fprintf(f, ",\"exposed_ns\":%llu", (unsigned long long)s->thunkExposedNs[t]);
    if (plan->thunks[t].work != UINT32_MAX) {
      const ThunkyWork *w = &plan->works[plan->thunks[t].work];
      double flops = 0;
      for (int k = 0; k < THUNKY_FLOPS_KINDS; k++)
        flops += w->flops[k];
      fprintf(f, ",\"hlo_flops\":%.0f,\"hlo_bytes\":%.0f", flops, w->bytes);
    }
    fputc('}', f);
    first = false;
  }
  fputs("]}\n", f);
  return reportClose(f, partial, path, error);
}

bool writeScheduleTrace(const char *path, const ThunkyPlan *plan, const ThunkySchedule *s,
                        const char *deviceName, ThunkyError *error) {
  ThunkyTimeline *timeline = thunkyTimelineCreate();
  bool ok = timeline != NULL;
  for (size_t i = 0; ok && i < s->numEvents; i++) {
    const ThunkyScheduleEvent *e = &s->events[i];
    ok = thunkyTimelineAdd(timeline, (ThunkyTraceEvent){.thunk = e->thunk,
                                                        .stream = THUNKY_TRACE_HOST_ISSUE,
                                                        .beginNs = e->issueBeginNs,
                                                        .endNs = e->issueEndNs}) &&
         thunkyTimelineAdd(timeline, (ThunkyTraceEvent){.thunk = e->thunk, .stream = e->lane,
                                                        .beginNs = e->beginNs,
                                                        .endNs = e->endNs});
  }
  ThunkyTraceOrigin origin = {.backend = "model"};
  snprintf(origin.clock, sizeof origin.clock, "the schedule model's, for %s", deviceName);
  snprintf(origin.method, sizeof origin.method,
           "predicted: each thunk's duration measured (--measured) or modelled, issued by the "
           "host lane and run on its stream's lane");
  ok = ok ? writeChromeTrace(path, plan, timeline, &origin, error)
          : thunkyErrorf(error, "out of memory writing %s", path);
  thunkyTimelineDestroy(timeline);
  return ok;
}

/* Colours by what an operation does, so that a picture reads at a glance;
 * the legend lists them in this order. */
static const struct {
  const char *what, *colour;
} colours[] = {{"communication", "#d95f02"}, {"GEMM, convolution", "#1b9e77"},
               {"copy, memset", "#7570b3"},  {"kernel, other", "#4a90d9"},
               {"host issue", "#999999"}};

static const char *colourOf(const char *kind) {
  if (strstr(kind, "all_") || strstr(kind, "reduce_scatter") || strstr(kind, "collective") ||
      strstr(kind, "send") || strstr(kind, "recv"))
    return colours[0].colour;
  if (strstr(kind, "gemm") || strstr(kind, "matmul") || strstr(kind, "conv"))
    return colours[1].colour;
  if (strstr(kind, "copy") || strstr(kind, "mem"))
    return colours[2].colour;
  return colours[3].colour;
}

static void writeXmlText(FILE *f, const char *text) {
  for (const char *c = text; *c; c++) {
    if (*c == '<')
      fputs("&lt;", f);
    else if (*c == '>')
      fputs("&gt;", f);
    else if (*c == '&')
      fputs("&amp;", f);
    else
      fputc(*c, f);
  }
}

/* A tick spacing of 1, 2 or 5 times a power of ten, for at most 10 ticks. */
static double tickNs(uint64_t spanNs) {
  static const double steps[] = {1, 2, 5};
  for (double power = 1;; power *= 10)
    for (size_t m = 0; m < 3; m++)
      if ((double)spanNs / (power * steps[m]) <= 10)
        return power * steps[m];
}

/* One bar: a tooltip with the thunk's full name, and inside it its short
 * name (XLA's annotation, else its kind) where four letters or more fit. */
static void writeBar(FILE *f, const ThunkyPlan *plan, uint32_t thunk, double x, double w,
                     unsigned y, const char *colour, uint64_t ns) {
  enum { ROW = 22, CHAR = 7 };
  char name[160];
  thunkyPlanThunkName(plan, thunk, name, sizeof name);
  fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
             "stroke=\"white\" stroke-width=\"0.5\"><title>",
          x, y, w < 0.5 ? 0.5 : w, ROW - 6, colour);
  writeXmlText(f, name);
  fprintf(f, ": %.3f us</title></rect>\n", us(ns));
  size_t fits = w > 5 * CHAR ? (size_t)(w / CHAR) - 1 : 0;
  if (!fits)
    return;
  ThunkyBytes annotation = plan->thunks[thunk].annotation;
  char label[160];
  if (annotation.size)
    snprintf(label, sizeof label, "%.*s", (int)(annotation.size < 159 ? annotation.size : 159),
             (const char *)annotation.data);
  else
    snprintf(label, sizeof label, "%s", plan->thunks[thunk].kind);
  if (strlen(label) > fits)
    label[fits] = '\0';
  fprintf(f, "<text x=\"%.2f\" y=\"%u\" font-size=\"11\" fill=\"white\">", x + 3, y + ROW - 10);
  writeXmlText(f, label);
  fputs("</text>\n", f);
}

bool writeScheduleSvg(const char *path, const ThunkyPlan *plan, const ThunkySchedule *s,
                      ThunkyError *error) {
  enum { WIDTH = 1600, ROW = 22, LEFT = 190, RIGHT = 20, TOP = 56 };
  char partial[4096];
  FILE *f = reportOpen(path, partial, error);
  if (!f)
    return false;
  uint64_t span = s->stepNs > s->hostNs ? s->stepNs : s->hostNs;
  double scale = span ? (double)(WIDTH - LEFT - RIGHT) / (double)span : 0;
  /* Rows: the host's issue, then a lane per stream; the axis under them. */
  unsigned rows = s->numLanes + 1, axis = TOP + rows * ROW + 4, height = axis + 44;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
             "font-family=\"sans-serif\" font-size=\"12\">\n"
             "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
          WIDTH, height);
  fprintf(f, "<text x=\"4\" y=\"18\" font-size=\"14\">predicted step %.3f us; %zu operations "
             "shown%s</text>\n",
          us(s->stepNs), s->numEvents, s->eventsDropped ? " (more ran)" : "");
  /* The legend, on one line under the title. */
  double at = 4;
  for (size_t c = 0; c < sizeof colours / sizeof *colours; c++) {
    fprintf(f, "<rect x=\"%.0f\" y=\"28\" width=\"12\" height=\"12\" fill=\"%s\"/>"
               "<text x=\"%.0f\" y=\"38\">%s</text>\n",
            at, colours[c].colour, at + 16, colours[c].what);
    at += 16 + 7.5 * (double)strlen(colours[c].what) + 18;
  }
  for (unsigned row = 0; row < rows; row++) {
    char lane[64];
    streamName(plan, row ? row - 1 : THUNKY_TRACE_HOST_ISSUE, lane, sizeof lane);
    fprintf(f, "<text x=\"4\" y=\"%u\">%s</text>\n", TOP + row * ROW + ROW - 8, lane);
    fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%u\" y2=\"%u\" stroke=\"#eeeeee\"/>\n", LEFT,
            WIDTH - RIGHT, TOP + row * ROW + ROW - 1, TOP + row * ROW + ROW - 1);
  }
  /* The time axis: ticks of 1, 2 or 5 times a power of ten, in us. */
  fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%u\" y2=\"%u\" stroke=\"black\"/>\n", LEFT,
          WIDTH - RIGHT, axis, axis);
  double tick = tickNs(span ? span : 1);
  for (double t = 0; t <= (double)span; t += tick) {
    double x = LEFT + t * scale;
    fprintf(f, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%u\" y2=\"%u\" stroke=\"black\"/>"
               "<text x=\"%.2f\" y=\"%u\" text-anchor=\"middle\">%g</text>\n",
            x, x, axis, axis + 5, x, axis + 18, t / 1e3);
  }
  fprintf(f, "<text x=\"%d\" y=\"%u\" text-anchor=\"middle\">time (us)</text>\n",
          LEFT + (WIDTH - LEFT - RIGHT) / 2, axis + 36);
  for (size_t i = 0; i < s->numEvents; i++) {
    const ThunkyScheduleEvent *e = &s->events[i];
    if (e->issueEndNs > e->issueBeginNs)
      writeBar(f, plan, e->thunk, LEFT + (double)e->issueBeginNs * scale,
               (double)(e->issueEndNs - e->issueBeginNs) * scale, TOP + 3, colours[4].colour,
               e->issueEndNs - e->issueBeginNs);
    writeBar(f, plan, e->thunk, LEFT + (double)e->beginNs * scale,
             (double)(e->endNs - e->beginNs) * scale, TOP + (e->lane + 1) * ROW + 3,
             colourOf(plan->thunks[e->thunk].kind), e->endNs - e->beginNs);
  }
  fputs("</svg>\n", f);
  return reportClose(f, partial, path, error);
}

/* ---------------------------------------------------------------------- */

typedef struct {
  const char *kind;
  uint64_t a, b;
} KindTotal;

static void addKind(KindTotal *kinds, size_t *n, const char *kind, uint64_t ns, bool second) {
  size_t i = 0;
  while (i < *n && strcmp(kinds[i].kind, kind))
    i++;
  if (i == *n)
    kinds[(*n)++] = (KindTotal){.kind = kind};
  *(second ? &kinds[i].b : &kinds[i].a) += ns;
}

static bool sameOperation(const ThunkyPlan *pa, const ThunkyScheduleEvent *a,
                          const ThunkyPlan *pb, const ThunkyScheduleEvent *b) {
  const ThunkyPlanThunk *x = &pa->thunks[a->thunk], *y = &pb->thunks[b->thunk];
  return !strcmp(x->kind, y->kind) && x->annotation.size == y->annotation.size &&
         !memcmp(x->annotation.data, y->annotation.data, x->annotation.size) &&
         a->endNs - a->beginNs == b->endNs - b->beginNs && a->lane == b->lane;
}

bool printScheduleComparison(FILE *out, const char *nameA, const ThunkyPlan *planA,
                             const ThunkySchedule *a, const char *nameB, const ThunkyPlan *planB,
                             const ThunkySchedule *b, ThunkyError *error) {
  double delta = (double)b->stepNs - (double)a->stepNs;
  fprintf(out, "predicted step: %.3f us (%s), %.3f us (%s): %+.3f us, %.3fx\n", us(a->stepNs),
          nameA, us(b->stepNs), nameB, delta / 1e3,
          a->stepNs ? (double)b->stepNs / (double)a->stepNs : 0.0);
  fprintf(out, "exposed communication: %.3f us, %.3f us: %+.3f us\n",
          us(a->exposedCommunicationNs), us(b->exposedCommunicationNs),
          ((double)b->exposedCommunicationNs - (double)a->exposedCommunicationNs) / 1e3);
  fprintf(out, "operations issued: %llu, %llu\n", (unsigned long long)a->issued,
          (unsigned long long)b->issued);
  /* Room for a kind per thunk; the kinds are the ThunkProto fields, a
   * short list, so the search in addKind stays short. */
  KindTotal *kinds = calloc((size_t)planA->numThunks + planB->numThunks + 1, sizeof *kinds);
  if (!kinds)
    return thunkyErrorf(error, "out of memory comparing the schedules");
  size_t n = 0;
  for (int side = 0; side < 2; side++) {
    const ThunkyPlan *plan = side ? planB : planA;
    const ThunkySchedule *s = side ? b : a;
    for (uint32_t t = 0; t < plan->numThunks; t++)
      if (s->thunkRuns[t])
        addKind(kinds, &n, plan->thunks[t].kind, s->thunkNs[t], side);
  }
  for (size_t i = 0; i < n; i++)
    if (kinds[i].a != kinds[i].b)
      fprintf(out, "  %-32s %12.3f us -> %12.3f us\n", kinds[i].kind, us(kinds[i].a),
              us(kinds[i].b));
  free(kinds);
  size_t i = 0, common = a->numEvents < b->numEvents ? a->numEvents : b->numEvents;
  while (i < common && sameOperation(planA, &a->events[i], planB, &b->events[i]))
    i++;
  if (i == a->numEvents && i == b->numEvents) {
    fprintf(out, "the schedules issue the same operations for the same times\n");
    return true;
  }
  fprintf(out, "the schedules part at operation %zu:\n", i);
  for (int side = 0; side < 2; side++) {
    const ThunkyPlan *plan = side ? planB : planA;
    const ThunkySchedule *s = side ? b : a;
    for (size_t k = i; k < s->numEvents && k < i + 5; k++) {
      char name[160];
      thunkyPlanThunkName(plan, s->events[k].thunk, name, sizeof name);
      fprintf(out, "  %c %-56.56s %10.3f us at %10.3f us, lane %u\n", side ? '+' : '-', name,
              us(s->events[k].endNs - s->events[k].beginNs), us(s->events[k].beginNs),
              s->events[k].lane);
    }
  }
  return true;
}

/* ---------------------------------------------------------------------- */

static const char *const commandTypes[] = {
    [1] = "FUSION", [2] = "CUBLAS", [3] = "CUDNN", [4] = "COLLECTIVES", [5] = "CONDITIONAL",
    [6] = "WHILE", [7] = "CUSTOM_CALL", [8] = "CUBLASLT", [9] = "DYNAMIC_SLICE_FUSION",
    [10] = "HOST_EXECUTE", [11] = "CONVOLUTION"};

void printCommandBuffers(FILE *out, const ThunkyPlan *plan, const ThunkyCommandBuffers *b,
                         const ThunkyCommandBufferConfig *config, const char *source,
                         uint32_t top) {
  uint64_t captured = 0, leaves = 0;
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    uint8_t kind = plan->commands[i].kind;
    bool leaf = kind != THUNKY_CMD_ASYNC_START && kind != THUNKY_CMD_ASYNC_DONE &&
                kind != THUNKY_CMD_COLLECTIVE_GROUP;
    leaves += leaf;
    captured += leaf && b->place[i] != THUNKY_GRAPH_NONE;
  }
  fprintf(out, "command buffers (%s: xla_gpu_enable_command_buffer =", source);
  bool any = false;
  for (uint32_t t = 1; t < 32; t++)
    if (config->enabled & 1u << t) {
      fprintf(out, "%s%s", any ? ", " : " ",
              t < sizeof commandTypes / sizeof *commandTypes && commandTypes[t] ? commandTypes[t]
                                                                               : "?");
      any = true;
    }
  fprintf(out, "%s; xla_gpu_graph_min_graph_size = %u): %zu graph(s) capture %llu of %llu "
               "operations\n",
          any ? "" : " (none)", config->minGraphSize, b->numGraphs,
          (unsigned long long)captured, (unsigned long long)leaves);
  for (size_t g = 0; g < b->numGraphs && g < top; g++) {
    char first[160], last[160];
    ThunkyRange r = b->graphs[g];
    thunkyPlanThunkName(plan, plan->commands[r.first].thunk, first, sizeof first);
    thunkyPlanThunkName(plan, plan->commands[r.first + r.count - 1].thunk, last, sizeof last);
    fprintf(out, "  graph %zu: %u thunk(s), %s to %s\n", g + 1, r.count, first, last);
  }
  if (b->numGraphs > top)
    fprintf(out, "  ... and %zu more graphs\n", b->numGraphs - top);
  fprintf(out, "not captured: %zu place(s)%s\n", b->numBreaks, b->numBreaks ? ", where:" : "");
  for (size_t i = 0; i < b->numBreaks && i < top; i++) {
    char name[160];
    const ThunkyCommand *c = &plan->commands[b->breaks[i].command];
    thunkyPlanThunkName(plan, c->thunk, name, sizeof name);
    fprintf(out, "  %s (%s): %s\n", name, plan->thunks[c->thunk].kind, b->breaks[i].why);
  }
  if (b->numBreaks > top)
    fprintf(out, "  ... and %zu more\n", b->numBreaks - top);
}
