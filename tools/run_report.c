/*===- run_report.c - what thunky-run prints and writes after a run -------===*/
#include "run_report.h"
#include "top_k.h"

#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/base/Json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* How many elements of an output --print shows. */
#define SHOWN 8

static void printElement(FILE *out, int32_t type, const uint8_t *p) {
  switch (type) {
#define INT(T, ctype, fmt)                                                                    \
  case T: {                                                                                   \
    ctype v;                                                                                  \
    memcpy(&v, p, sizeof v);                                                                  \
    fprintf(out, fmt, v);                                                                     \
    return;                                                                                   \
  }
    INT(THUNKY_TYPE_S8, int8_t, "%d") INT(THUNKY_TYPE_S16, int16_t, "%d")
    INT(THUNKY_TYPE_S32, int32_t, "%d") INT(THUNKY_TYPE_S64, int64_t, "%" PRId64)
    INT(THUNKY_TYPE_U8, uint8_t, "%u") INT(THUNKY_TYPE_U16, uint16_t, "%u")
    INT(THUNKY_TYPE_U32, uint32_t, "%u") INT(THUNKY_TYPE_U64, uint64_t, "%" PRIu64)
    INT(THUNKY_TYPE_F32, float, "%g") INT(THUNKY_TYPE_F64, double, "%g")
#undef INT
  case THUNKY_TYPE_PRED:
    fputs(*p ? "true" : "false", out);
    return;
  case THUNKY_TYPE_F16:
  case THUNKY_TYPE_BF16: {
    uint16_t bits;
    memcpy(&bits, p, 2);
    fprintf(out, "%g", thunkySmallFloatDecode(type, bits));
    return;
  }
  default:
    fprintf(out, "0x%02x", *p); /* raw bytes, or a type printed bytewise */
  }
}

void printOutputs(FILE *out, const ThunkyPlan *plan, const ThunkyNpyArray *outputs,
                  uint32_t ranks) {
  for (uint32_t r = 0; r < ranks; r++)
    for (uint32_t i = 0; i < plan->numOutputs; i++) {
      const ThunkyNpyArray *a = &outputs[r * plan->numOutputs + i];
      char type[128];
      thunkyNpyDescribe(a->elementType, a->rank, a->dims, type, sizeof type);
      uint32_t bytes = a->elementType ? thunkyElementBytes(a->elementType) : 1;
      bool bytewise = !bytes || (a->elementType == THUNKY_TYPE_C64 ||
                                 a->elementType == THUNKY_TYPE_C128);
      uint64_t step = bytewise ? 1 : bytes, count = a->size / step;
      fprintf(out, ranks > 1 ? "rank %u out%u: %s = [" : "%.0u" "out%u: %s = [", r, i, type);
      for (uint64_t k = 0; k < count && k < SHOWN; k++) {
        if (k)
          fputs(", ", out);
        printElement(out, bytewise ? 0 : a->elementType, a->data + k * step);
      }
      fputs(count > SHOWN ? ", ...]\n" : "]\n", out);
    }
}

bool printContents(FILE *out, const ThunkyPlan *plan, const ThunkyBackendOps *backend, void *state,
                   uint32_t ranks, ThunkyError *error) {
  for (uint32_t r = 0; r < ranks; r++)
    for (uint32_t i = 0; i < plan->numOutputs; i++) {
      const ThunkyPlanArray *o = &plan->outputs[i];
      ThunkyPiece *pieces;
      size_t count;
      if (!backend->contents(state, r, o->slice, &pieces, &count, error))
        return false;
      char type[128], name[200];
      int64_t bytes[1] = {(int64_t)o->slice.size};
      if (o->elementType)
        thunkyNpyDescribe(o->elementType, o->rank, o->dims, type, sizeof type);
      else
        thunkyNpyDescribe(0, 1, bytes, type, sizeof type);
      fprintf(out,
              ranks > 1 ? "rank %u out%u: %s, %zu piece%s\n" : "%.0u" "out%u: %s, %zu piece%s\n",
              r, i, type, count, count == 1 ? "" : "s");
      uint64_t at = 0;
      for (size_t k = 0; k < count; k++) {
        if (k < SHOWN) {
          fprintf(out, "  bytes [%" PRIu64 ", %" PRIu64 "): term %016" PRIx64 "%016" PRIx64
                       " from byte %" PRIu64 ", ",
                  at, at + pieces[k].size, pieces[k].term[1], pieces[k].term[0],
                  pieces[k].offset);
          if (pieces[k].thunk != UINT32_MAX) {
            thunkyPlanThunkName(plan, pieces[k].thunk, name, sizeof name);
            fprintf(out, "made by %s\n", name);
          } else if (pieces[k].parameter != UINT32_MAX) {
            fprintf(out, "parameter %u\n", pieces[k].parameter);
          } else if (pieces[k].undefined) {
            fputs("no thunk wrote it (undefined on a GPU)\n", out);
          } else {
            fputs("a fill or constant\n", out);
          }
        }
        at += pieces[k].size;
      }
      if (count > SHOWN)
        fprintf(out, "  ... and %zu more\n", count - SHOWN);
      free(pieces);
    }
  return true;
}

typedef struct {
  uint32_t thunk;
  uint64_t totalNs, calls;
} ThunkTime;

static int byTimeDescending(const void *a, const void *b) {
  const ThunkTime *x = a, *y = b;
  return x->totalNs != y->totalNs ? (x->totalNs < y->totalNs ? 1 : -1)
                                  : (x->thunk > y->thunk) - (x->thunk < y->thunk);
}

static uint64_t ownBytes(const ThunkyPlan *plan, uint32_t thunk) {
  uint64_t bytes = 0;
  ThunkyRange r = plan->thunks[thunk].accesses;
  for (uint32_t k = r.first; k < r.first + r.count; k++)
    bytes += plan->accesses[k].slice.size;
  return bytes;
}

static uint64_t listBytes(const ThunkyPlan *plan, uint32_t list, uint64_t *sums);

/* What command `c` reads and writes, once per slice, as the thunk kind
 * table says, with what the lists it holds do: a group CUDA timed whole
 * moves its members' bytes. */
static uint64_t commandBytes(const ThunkyPlan *plan, const ThunkyCommand *c, uint64_t *sums) {
  uint64_t bytes = ownBytes(plan, c->thunk);
  for (uint32_t k = 0, l; (l = thunkyPlanHeldList(plan, c, k)) != UINT32_MAX; k++)
    bytes += listBytes(plan, l, sums);
  return bytes;
}

/* Each list summed once (sums[l]; UINT64_MAX: not yet); the plan bounds
 * the nesting. */
static uint64_t listBytes(const ThunkyPlan *plan, uint32_t list, uint64_t *sums) {
  if (sums[list] != UINT64_MAX)
    return sums[list];
  uint64_t bytes = 0;
  ThunkyRange r = plan->lists[list];
  for (uint32_t i = r.first; i < r.first + r.count; i++)
    bytes += commandBytes(plan, &plan->commands[i], sums);
  return sums[list] = bytes;
}

/* A thunk that does work, ran (its issue was timed) and yet has no device
 * time is missing from the table: say how many, and why, rather than show
 * a profile that looks whole. Under CUDA's gate a custom call runs with
 * the gate open; the timeline's method says so. Inside a CUDA graph only
 * the launch is issued, so where nothing was timed no count is given. */
static void printUntimed(FILE *out, const ThunkyPlan *plan, const ThunkyTimeline *timeline,
                         const uint32_t *first, const bool *timed, const bool *issued) {
  const char *method = thunkyTimelineMethod(timeline);
  bool anyTimed = false, anyIssued = false;
  for (uint32_t t = 0; t < plan->numThunks; t++)
    anyTimed |= timed[t], anyIssued |= issued[t];
  if (anyIssued && !anyTimed) {
    fprintf(out, "not shown: no thunk was timed on the device%s%s\n",
            *method ? "; how this run timed them: " : "", method);
    return;
  }
  uint32_t untimed = 0, calls = 0;
  for (uint32_t t = 0; t < plan->numThunks; t++) {
    if (!issued[t] || timed[t] || first[t] == UINT32_MAX)
      continue;
    const ThunkyCommand *c = &plan->commands[first[t]];
    if (c->kind == THUNKY_CMD_ASYNC_DONE ||
        (c->kind != THUNKY_CMD_COLLECTIVE_GROUP && thunkyPlanHeldList(plan, c, 0) != UINT32_MAX))
      continue;
    untimed++;
    calls += c->kind == THUNKY_CMD_CUSTOM_CALL;
  }
  if (!untimed)
    return;
  fprintf(out, "not shown: %u thunk%s that ran with no device time of %s own", untimed,
          untimed == 1 ? "" : "s", untimed == 1 ? "its" : "their");
  if (calls)
    fprintf(out, " (%u custom call%s)", calls, calls == 1 ? "" : "s");
  fprintf(out, "%s%s\n", *method ? "; how this run timed them: " : "", method);
}

bool printProfile(FILE *out, const ThunkyPlan *plan, const ThunkyTimeline *timeline, uint32_t top,
                  ThunkyError *error) {
  size_t count;
  const ThunkyTraceEvent *events = thunkyTimelineEvents(timeline, &count);
  ThunkTime *times = calloc(plan->numThunks + 1, sizeof *times);
  bool *timed = calloc(plan->numThunks + 1, sizeof *timed);
  bool *spans = calloc(plan->numThunks + 1, sizeof *spans);
  bool *issued = calloc(plan->numThunks + 1, sizeof *issued);
  /* Each thunk's first command, for the lists it holds; each list's bytes. */
  uint32_t *first = malloc((plan->numThunks + 1) * sizeof *first);
  uint64_t *held = malloc((plan->numLists + 1) * sizeof *held);
  ThunkyTopK most = {0};
  bool ok = times && timed && spans && issued && first && held;
  for (size_t i = 0; ok && i < count; i++)
    if (events[i].thunk < plan->numThunks)
      (events[i].stream == THUNKY_TRACE_HOST_ISSUE ? issued : timed)[events[i].thunk] = true;
  /* A loop's time is its body's, where the body was timed: counting both
   * would count twice. */
  ok = ok && thunkyPlanMarkSpanning(plan, timed, spans) &&
       topKCreate(&most, top, sizeof *times, byTimeDescending);
  if (!ok) {
    free(times), free(timed), free(spans), free(issued), free(first), free(held);
    return thunkyErrorf(error, "out of memory printing the profile");
  }
  for (size_t i = 0; i < count; i++) {
    uint32_t thunk = events[i].thunk;
    if (thunk >= plan->numThunks || spans[thunk] || events[i].stream == THUNKY_TRACE_HOST_ISSUE)
      continue;
    times[thunk].totalNs += events[i].endNs - events[i].beginNs;
    times[thunk].calls++;
  }
  uint64_t total = 0;
  for (uint32_t t = 0; t < plan->numThunks; t++) {
    times[t].thunk = t;
    total += times[t].totalNs;
    topKOffer(&most, &times[t]);
  }
  size_t shown = topKFinish(&most);
  const ThunkTime *ranked = (const ThunkTime *)most.items;
  for (uint32_t t = 0; t < plan->numThunks; t++)
    first[t] = UINT32_MAX;
  for (uint32_t i = plan->numCommands; i-- > 0;)
    first[plan->commands[i].thunk] = i;
  for (uint32_t l = 0; l < plan->numLists; l++)
    held[l] = UINT64_MAX;
  fprintf(out, "%-48s %10s %8s %7s %12s %8s\n", "thunk", "total ms", "calls", "share",
          "bytes/call", "GB/s");
  for (size_t i = 0; i < shown && ranked[i].calls; i++) {
    uint32_t thunk = ranked[i].thunk;
    char name[160];
    thunkyPlanThunkName(plan, thunk, name, sizeof name);
    uint64_t bytes = first[thunk] != UINT32_MAX
                         ? commandBytes(plan, &plan->commands[first[thunk]], held)
                         : ownBytes(plan, thunk);
    double seconds = (double)ranked[i].totalNs / 1e9;
    fprintf(out, "%-48.48s %10.3f %8llu %6.1f%% %12llu %8.2f\n", name, ranked[i].totalNs / 1e6,
            (unsigned long long)ranked[i].calls,
            total ? 100.0 * (double)ranked[i].totalNs / (double)total : 0.0,
            (unsigned long long)bytes,
            seconds > 0 ? (double)bytes * (double)ranked[i].calls / seconds / 1e9 : 0.0);
  }
  printUntimed(out, plan, timeline, first, timed, issued);
  free(times), free(timed), free(spans), free(issued), free(first), free(held);
  topKDestroy(&most);
  return true;
}

void streamName(const ThunkyPlan *plan, uint32_t stream, char *out, size_t size) {
  if (stream == THUNKY_TRACE_HOST_ISSUE)
    snprintf(out, size, "host issue");
  else if (!stream || stream > plan->numStreams)
    snprintf(out, size, "main stream");
  else
    snprintf(out, size, "%s stream %u",
             plan->streams[stream - 1].communication ? "communication" : "computation",
             plan->streams[stream - 1].id);
}

/* The trace's thread of a stream: the host's issue after every stream. */
static uint32_t threadOf(const ThunkyPlan *plan, uint32_t stream) {
  return stream == THUNKY_TRACE_HOST_ISSUE ? plan->numStreams + 1 : stream;
}

/* Perfetto's names for what the events use: a process per rank, a thread
 * per stream, the host's issue first. */
static bool writeNames(FILE *f, const ThunkyPlan *plan, const ThunkyTraceEvent *events,
                       size_t count) {
  uint32_t ranks = 0;
  for (size_t i = 0; i < count; i++)
    ranks = events[i].rank >= ranks ? events[i].rank + 1 : ranks;
  /* Rows: the main stream, each of plan->streams, the host's issue. */
  size_t rows = (size_t)plan->numStreams + 2;
  bool *seen = calloc((size_t)ranks * rows + 1, sizeof *seen);
  if (!seen)
    return false;
  for (size_t i = 0; i < count; i++) {
    uint32_t s = events[i].stream;
    size_t row = s == THUNKY_TRACE_HOST_ISSUE ? rows - 1 : s < rows - 1 ? s : 0;
    seen[(size_t)events[i].rank * rows + row] = true;
  }
  bool first = true;
  for (uint32_t r = 0; r < ranks; r++) {
    bool any = false;
    for (size_t row = 0; row < rows; row++) {
      if (!seen[(size_t)r * rows + row])
        continue;
      if (!any)
        fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,"
                   "\"args\":{\"name\":\"rank %u\"}}",
                first ? "" : ",\n", r, r);
      any = true, first = false;
      uint32_t stream = row == rows - 1 ? THUNKY_TRACE_HOST_ISSUE : (uint32_t)row;
      char name[64];
      streamName(plan, stream, name, sizeof name);
      fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
                 "\"args\":{\"name\":\"%s\"}},\n"
                 "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
                 "\"args\":{\"sort_index\":%d}}",
              r, threadOf(plan, stream), name, r, threadOf(plan, stream),
              stream == THUNKY_TRACE_HOST_ISSUE ? -1 : (int)stream);
    }
  }
  free(seen);
  return true;
}

bool writeChromeTrace(const char *path, const ThunkyPlan *plan, const ThunkyTimeline *timeline,
                      const ThunkyTraceOrigin *origin, ThunkyError *error) {
  char partial[4096];
  FILE *f = reportOpen(path, partial, error);
  if (!f)
    return false;
  size_t count;
  const ThunkyTraceEvent *events = thunkyTimelineEvents(timeline, &count);
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"backend\":\"", f);
  thunkyJsonWriteString(f, origin->backend, strlen(origin->backend));
  fputs("\",\"clock\":\"", f);
  thunkyJsonWriteString(f, origin->clock, strlen(origin->clock));
  fputs("\",\"method\":\"", f);
  thunkyJsonWriteString(f, origin->method, strlen(origin->method));
  fputc('"', f);
  if (origin->device[0]) {
    fputs(",\"device\":\"", f);
    thunkyJsonWriteString(f, origin->device, strlen(origin->device));
    fputc('"', f);
  }
  if (origin->stepNs > 0)
    fprintf(f, ",\"step_ns\":%.0f", origin->stepNs);
  if (origin->steps > 0)
    fprintf(f, ",\"steps\":%.0f", origin->steps);
  if (origin->unattributedNs > 0)
    fprintf(f, ",\"unattributed_ns\":%.0f", origin->unattributedNs);
  fputs("},\"traceEvents\":[\n", f);
  if (!writeNames(f, plan, events, count)) {
    fclose(f);
    remove(partial);
    return thunkyErrorf(error, "out of memory writing %s", path);
  }
  for (size_t i = 0; i < count; i++) {
    const ThunkyTraceEvent *e = &events[i];
    bool known = e->thunk < plan->numThunks;
    ThunkyBytes name = known ? plan->thunks[e->thunk].annotation : (ThunkyBytes){0};
    bool issue = e->stream == THUNKY_TRACE_HOST_ISSUE;
    /* A host issue's event names its thunk otherwise, so that --measured
     * does not take the issue's time for the thunk's. */
    fprintf(f, ",\n{\"name\":\"%s %u", issue ? "issue of thunk" : "thunk", e->thunk);
    if (name.size) {
      fputs(" ", f);
      thunkyJsonWriteString(f, (const char *)name.data, name.size);
    }
    /* XLA's thunk id lets the schedule model match a rewritten program's
     * thunks to these measurements (thunky-run --model --measured). */
    fprintf(f, "\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
               "\"args\":{\"%s\":%u,\"%s\":%lld,\"kind\":\"%s\"",
            e->rank, threadOf(plan, e->stream), e->beginNs / 1e3, (e->endNs - e->beginNs) / 1e3,
            issue ? "issues_thunk" : "thunk", e->thunk, issue ? "issues_thunk_id" : "thunk_id",
            known ? (long long)plan->thunks[e->thunk].id : 0LL,
            known ? plan->thunks[e->thunk].kind : "?");
    if (name.size) {
      fputs(",\"annotation\":\"", f);
      thunkyJsonWriteString(f, (const char *)name.data, name.size);
      fputc('"', f);
    }
    fputs("}}", f);
  }
  fputs("\n]}\n", f);
  return reportClose(f, partial, path, error);
}

FILE *reportOpen(const char *path, char *partial, ThunkyError *error) {
  snprintf(partial, 4096, "%s.partial", path);
  FILE *f = fopen(partial, "w");
  if (!f)
    thunkyErrorf(error, "cannot write %s: %s", path, strerror(errno));
  return f;
}

bool reportClose(FILE *f, const char *partial, const char *path, ThunkyError *error) {
  bool ok = !ferror(f);
  ok = fclose(f) == 0 && ok && rename(partial, path) == 0;
  if (!ok) {
    remove(partial);
    return thunkyErrorf(error, "cannot write %s: %s", path, strerror(errno));
  }
  return true;
}
