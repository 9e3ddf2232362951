/*===- measured_durations.c - thunk durations from a Chrome trace ---------===*
 *
 * Reads the trace thunky-run --trace writes (either of Chrome's forms: an
 * object with "traceEvents", or the bare array), keeping of each complete
 * event ("ph": "X") its duration and which thunk it was: args.thunk_id,
 * XLA's id, which survives a rewrite, else args.thunk or the name's
 * "thunk N", the thunk's number in this plan. A strict reader: anything but
 * JSON is refused with its byte offset, and nesting is bounded.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Schedule.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/format/Container.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct {
  const char *p, *begin, *end;
  const char *path;
  int depth; /* containers open around the value being read */
  ThunkyError *error;
} Json;

typedef struct {
  double dur;
  bool hasDur, complete;
  bool issue;             /* a host issue's event: args.issues_thunk(_id) */
  int64_t thunk, thunkId; /* -1: not given */
  int64_t pid, tid;       /* -1: not given */
} TraceEvent;

static bool fail(Json *j, const char *what) {
  return thunkyErrorf(j->error, "%s: at byte %zu: %s", j->path, (size_t)(j->p - j->begin), what);
}

static void space(Json *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
    j->p++;
}

static bool expect(Json *j, char c) {
  space(j);
  if (j->p == j->end || *j->p != c) {
    char what[48];
    snprintf(what, sizeof what, "expected '%c'", c);
    return fail(j, what);
  }
  j->p++;
  return true;
}

/* A string; its raw bytes (escapes left as they are) in [*s, *s + *n). */
static bool string(Json *j, const char **s, size_t *n) {
  if (!expect(j, '"'))
    return false;
  *s = j->p;
  while (j->p < j->end && *j->p != '"') {
    if ((unsigned char)*j->p < 0x20)
      return fail(j, "control character in a string");
    j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
  }
  if (j->p >= j->end)
    return fail(j, "unterminated string");
  *n = (size_t)(j->p - *s);
  j->p++;
  return true;
}

static bool number(Json *j, double *v) {
  space(j);
  char text[64];
  size_t n = 0;
  while (j->p + n < j->end && n < sizeof text - 1 &&
         (isdigit((unsigned char)j->p[n]) || strchr("+-.eE", j->p[n])))
    n++;
  memcpy(text, j->p, n);
  text[n] = 0;
  char *stop;
  *v = strtod(text, &stop);
  if (!n || *stop || !isfinite(*v))
    return fail(j, "expected a number");
  j->p += n;
  return true;
}

static bool value(Json *j);

static bool literal(Json *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
    return fail(j, "expected a value");
  j->p += n;
  return true;
}

/* Reads one member of an object (`key` its name) or element of an array
 * (`key` NULL) from where the value starts. */
typedef bool (*Member)(Json *j, const char *key, size_t n, void *ctx);

/* The members of an object or array whose opening bracket was read, up to
 * and including `close`, each read by `member`. */
static bool collection(Json *j, char close, Member member, void *ctx) {
  space(j);
  if (j->p < j->end && *j->p == close)
    return j->p++, true;
  for (;;) {
    const char *k = NULL;
    size_t n = 0;
    if (close == '}' && !(string(j, &k, &n) && expect(j, ':')))
      return false;
    if (!member(j, k, n, ctx))
      return false;
    space(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    return expect(j, close);
  }
}

static bool anyMember(Json *j, const char *key, size_t n, void *ctx) {
  (void)key, (void)n, (void)ctx;
  return value(j);
}

/* Any JSON value, read and left. */
static bool value(Json *j) {
  space(j);
  if (j->p == j->end)
    return fail(j, "unexpected end");
  const char *s;
  size_t n;
  double v;
  switch (*j->p) {
  case '{':
  case '[': {
    if (j->depth == MAX_DEPTH)
      return fail(j, "nested deeper than 64");
    char close = *j->p++ == '{' ? '}' : ']';
    j->depth++;
    bool ok = collection(j, close, anyMember, NULL);
    j->depth--;
    return ok;
  }
  case '"':
    return string(j, &s, &n);
  case 't':
    return literal(j, "true");
  case 'f':
    return literal(j, "false");
  case 'n':
    return literal(j, "null");
  default:
    return number(j, &v);
  }
}

static bool isKey(const char *k, size_t n, const char *name) {
  return n == strlen(name) && !memcmp(k, name, n);
}

static bool integer(Json *j, int64_t *out) {
  double v;
  if (!number(j, &v))
    return false;
  if (v < 0 || v > 9e15 || v != floor(v))
    return fail(j, "expected a thunk number or id");
  *out = (int64_t)v;
  return true;
}

static bool argsMember(Json *j, const char *k, size_t n, void *ctx) {
  TraceEvent *e = ctx;
  if (isKey(k, n, "issues_thunk_id") || isKey(k, n, "issues_thunk"))
    e->issue = true;
  return isKey(k, n, "thunk_id") || isKey(k, n, "issues_thunk_id") ? integer(j, &e->thunkId)
         : isKey(k, n, "thunk") || isKey(k, n, "issues_thunk")     ? integer(j, &e->thunk)
                                                                   : value(j);
}

static bool eventMember(Json *j, const char *k, size_t n, void *ctx) {
  TraceEvent *e = ctx;
  const char *s;
  size_t m;
  if (isKey(k, n, "dur"))
    return e->hasDur = true, number(j, &e->dur);
  if (isKey(k, n, "pid") || isKey(k, n, "tid")) {
    double v;
    if (!number(j, &v))
      return false;
    *(isKey(k, n, "pid") ? &e->pid : &e->tid) = v >= 0 && v < 1e9 ? (int64_t)v : -1;
    return true;
  }
  if (isKey(k, n, "ph")) {
    bool ok = string(j, &s, &m);
    e->complete = ok && m == 1 && *s == 'X';
    return ok;
  }
  if (isKey(k, n, "name")) {
    bool ok = string(j, &s, &m);
    if (ok && m > 6 && !memcmp(s, "thunk ", 6) && e->thunk < 0 && isdigit((unsigned char)s[6]))
      e->thunk = strtoll(s + 6, NULL, 10);
    return ok;
  }
  if (isKey(k, n, "args")) {
    space(j);
    if (j->p < j->end && *j->p == '{') /* else not ours: any JSON */
      return j->p++, collection(j, '}', argsMember, e);
  }
  return value(j);
}

typedef struct {
  int64_t id;
  uint32_t thunk;
} IdEntry;

static int byId(const void *a, const void *b) {
  const IdEntry *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* The plan thunk with XLA id `id`, or UINT32_MAX. */
static uint32_t thunkOfId(const IdEntry *ids, size_t count, int64_t id) {
  IdEntry key = {.id = id};
  const IdEntry *hit = bsearch(&key, ids, count, sizeof *ids, byId);
  return hit ? hit->thunk : UINT32_MAX;
}

/* A device event's time on its lane, added once the trace says which
 * thunks hold others. */
typedef struct {
  uint32_t lane, thunk;
  double ns;
} LaneEvent;

/* Sums per thunk, and per lane (a rank's thread) of device time. */
typedef struct {
  const ThunkyPlan *plan;
  const IdEntry *ids;
  size_t numIds;
  double *sum, *issueSum;
  uint64_t *count, *issueCount;
  ThunkyHashMap lanes; /* pid << 32 | tid -> index in laneNs */
  double *laneNs;
  size_t numLanes, laneCapacity;
  LaneEvent *laneEvents;
  size_t numLaneEvents, laneEventCapacity;
  ThunkyTraceOrigin *origin;
  bool found; /* a traceEvents array */
  ThunkyError *error;
} Trace;

static bool addToLane(Trace *t, const TraceEvent *e, uint32_t thunk, double ns) {
  uint64_t key = (uint64_t)e->pid << 32 | (uint64_t)(uint32_t)e->tid;
  uint32_t index;
  if (!thunkyHashMapGet(&t->lanes, key, &index)) {
    index = (uint32_t)t->numLanes;
    if (!thunkyArrayGrow((void **)&t->laneNs, &t->laneCapacity, t->numLanes, sizeof *t->laneNs) ||
        !thunkyHashMapPut(&t->lanes, key, index))
      return thunkyErrorf(t->error, "out of memory reading a trace");
    t->laneNs[t->numLanes++] = 0;
  }
  if (!thunkyArrayGrow((void **)&t->laneEvents, &t->laneEventCapacity, t->numLaneEvents,
                       sizeof *t->laneEvents))
    return thunkyErrorf(t->error, "out of memory reading a trace");
  t->laneEvents[t->numLaneEvents++] = (LaneEvent){index, thunk, ns};
  return true;
}

static bool eventItem(Json *j, const char *k, size_t n, void *ctx) {
  (void)k, (void)n;
  Trace *t = ctx;
  TraceEvent e = {.thunk = -1, .thunkId = -1, .pid = -1, .tid = -1};
  if (!expect(j, '{') || !collection(j, '}', eventMember, &e))
    return false;
  if (!e.complete || !e.hasDur || e.dur < 0)
    return true;
  uint32_t thunk = e.thunkId > 0 ? thunkOfId(t->ids, t->numIds, e.thunkId)
                   : e.thunk >= 0 && (uint64_t)e.thunk < t->plan->numThunks ? (uint32_t)e.thunk
                                                                            : UINT32_MAX;
  if (thunk == UINT32_MAX)
    return true;
  double ns = e.dur * 1e3; /* microseconds in the trace */
  if (e.issue) {
    t->issueSum[thunk] += ns, t->issueCount[thunk]++;
    return true;
  }
  t->sum[thunk] += ns, t->count[thunk]++;
  return e.pid < 0 || e.tid < 0 || addToLane(t, &e, thunk, ns);
}
static bool events(Json *j, Trace *t) {
  t->found = true;
  return expect(j, '[') && collection(j, ']', eventItem, t);
}

/* A string member of otherData into a fixed field, cut to fit; escapes
 * stay as written (thunky writes none there). */
static bool copyString(Json *j, char *to, size_t size) {
  const char *s;
  size_t n;
  space(j);
  if (j->p == j->end || *j->p != '"')
    return value(j);
  if (!string(j, &s, &n))
    return false;
  n = n < size - 1 ? n : size - 1;
  memcpy(to, s, n);
  to[n] = '\0';
  return true;
}

static bool stepNumber(Json *j, double *ns, const char *negative) {
  space(j);
  if (j->p == j->end || !(*j->p == '-' || isdigit((unsigned char)*j->p)))
    return value(j); /* not ours: any JSON */
  return number(j, ns) && (*ns >= 0 || fail(j, negative));
}

static bool originMember(Json *j, const char *k, size_t n, void *ctx) {
  ThunkyTraceOrigin *o = ctx;
  return isKey(k, n, "backend")   ? copyString(j, o->backend, sizeof o->backend)
         : isKey(k, n, "clock")   ? copyString(j, o->clock, sizeof o->clock)
         : isKey(k, n, "method")  ? copyString(j, o->method, sizeof o->method)
         : isKey(k, n, "device")  ? copyString(j, o->device, sizeof o->device)
         : isKey(k, n, "step_ns") ? stepNumber(j, &o->stepNs, "a negative step_ns")
         : isKey(k, n, "steps")   ? stepNumber(j, &o->steps, "a negative steps")
         : isKey(k, n, "unattributed_ns")
             ? stepNumber(j, &o->unattributedNs, "a negative unattributed_ns")
             : value(j);
}

static bool traceMember(Json *j, const char *k, size_t n, void *ctx) {
  Trace *t = ctx;
  if (isKey(k, n, "traceEvents"))
    return events(j, t);
  if (isKey(k, n, "otherData")) {
    space(j);
    if (j->p < j->end && *j->p == '{') /* else not ours: any JSON */
      return j->p++, collection(j, '}', originMember, t->origin);
  }
  return value(j);
}

/* Either of Chrome's forms: the bare array of events, or an object holding
 * it as traceEvents. */
static bool trace(Json *j, Trace *t) {
  space(j);
  if (j->p < j->end && *j->p == '[')
    return events(j, t);
  return expect(j, '{') && collection(j, '}', traceMember, t) &&
         (t->found || fail(j, "no traceEvents"));
}

static void destroy(ThunkyMeasuredDurations *m) {
  if (!m)
    return;
  free(m->ns);
  free(m->runs);
  free(m->issueNs);
  free(m);
}

void thunkyMeasuredDurationsDestroy(ThunkyMeasuredDurations *m) { destroy(m); }

bool thunkyMeasuredDurationsCreate(const char *path, const ThunkyPlan *plan,
                                   ThunkyMeasuredDurations **out, ThunkyError *error) {
  *out = NULL;
  ThunkyFileBytes bytes;
  if (!thunkyFileBytesCreate(&bytes, path, error))
    return false;
  bool ok = thunkyMeasuredDurationsRead(bytes.data, bytes.size, path, plan, out, error);
  thunkyFileBytesDestroy(&bytes);
  return ok;
}

bool thunkyMeasuredDurationsRead(const void *data, size_t size, const char *path,
                                 const ThunkyPlan *plan, ThunkyMeasuredDurations **out,
                                 ThunkyError *error) {
  *out = NULL;
  size_t thunks = plan->numThunks + 1;
  ThunkyMeasuredDurations *m = calloc(1, sizeof *m);
  Trace t = {.plan = plan, .error = error};
  IdEntry *ids = malloc(thunks * sizeof *ids);
  bool *timed = calloc(thunks, sizeof *timed), *spans = calloc(thunks, sizeof *spans);
  t.sum = calloc(thunks, sizeof *t.sum), t.issueSum = calloc(thunks, sizeof *t.issueSum);
  t.count = calloc(thunks, sizeof *t.count), t.issueCount = calloc(thunks, sizeof *t.issueCount);
  bool ok = m && ids && timed && spans && t.sum && t.issueSum && t.count && t.issueCount &&
            (m->ns = malloc(thunks * sizeof *m->ns)) &&
            (m->runs = malloc(thunks * sizeof *m->runs)) &&
            (m->issueNs = malloc(thunks * sizeof *m->issueNs));
  if (!ok)
    thunkyErrorf(error, "out of memory reading %s", path);
  size_t numIds = 0;
  for (uint32_t i = 0; ok && i < plan->numThunks; i++)
    if (plan->thunks[i].id > 0)
      ids[numIds++] = (IdEntry){plan->thunks[i].id, i};
  if (ok)
    qsort(ids, numIds, sizeof *ids, byId);
  t.ids = ids, t.numIds = numIds, t.origin = ok ? &m->origin : NULL;
  Json j = {
      .p = data, .begin = data, .end = (const char *)data + size, .path = path, .error = error};
  ok = ok && trace(&j, &t);
  if (ok) {
    space(&j);
    if (j.p != j.end)
      ok = fail(&j, "text after the trace");
  }
  for (uint32_t i = 0; ok && i < plan->numThunks; i++) {
    m->ns[i] = t.count[i] ? t.sum[i] / (double)t.count[i] : -1;
    m->issueNs[i] = t.issueCount[i] ? t.issueSum[i] / (double)t.issueCount[i] : -1;
    /* A loop the device pass could not time apart still counts its runs
     * by its issues. */
    m->runs[i] = t.count[i] > t.issueCount[i] ? t.count[i] : t.issueCount[i];
    m->matched += t.count[i] != 0;
    timed[i] = t.count[i] != 0;
  }
  /* A loop's events hold its body's (a drained trace's do), and a done's is
   * a wait: neither is the device's own work. */
  if (ok && !thunkyPlanMarkSpanning(plan, timed, spans))
    ok = thunkyErrorf(error, "out of memory reading %s", path);
  for (size_t i = 0; ok && i < t.numLaneEvents; i++)
    if (!spans[t.laneEvents[i].thunk])
      t.laneNs[t.laneEvents[i].lane] += t.laneEvents[i].ns;
  for (size_t i = 0; ok && i < t.numLanes; i++)
    m->busiestLaneNs = t.laneNs[i] > m->busiestLaneNs ? t.laneNs[i] : m->busiestLaneNs;
  if (ok && m->origin.steps >= 1)
    m->busiestLaneNs /= m->origin.steps;
  free(t.sum), free(t.issueSum), free(t.count), free(t.issueCount), free(t.laneNs);
  free(t.laneEvents), free(ids), free(timed), free(spans);
  thunkyHashMapDestroy(&t.lanes);
  if (!ok)
    destroy(m);
  else
    *out = m;
  return ok;
}
