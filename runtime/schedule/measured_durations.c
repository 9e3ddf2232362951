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
  int64_t thunk, thunkId; /* -1: not given */
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
  return isKey(k, n, "thunk_id") ? integer(j, &e->thunkId)
         : isKey(k, n, "thunk")  ? integer(j, &e->thunk)
                                 : value(j);
}

static bool eventMember(Json *j, const char *k, size_t n, void *ctx) {
  TraceEvent *e = ctx;
  const char *s;
  size_t m;
  if (isKey(k, n, "dur"))
    return e->hasDur = true, number(j, &e->dur);
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

typedef struct {
  const ThunkyPlan *plan;
  const IdEntry *ids;
  size_t numIds;
  double *sum;
  uint64_t *count;
  ThunkyTraceOrigin *origin;
  bool found; /* a traceEvents array */
} Trace;

static bool eventItem(Json *j, const char *k, size_t n, void *ctx) {
  (void)k, (void)n;
  Trace *t = ctx;
  TraceEvent e = {.thunk = -1, .thunkId = -1};
  if (!expect(j, '{') || !collection(j, '}', eventMember, &e))
    return false;
  if (e.complete && e.hasDur && e.dur >= 0) {
    uint32_t thunk = e.thunkId > 0 ? thunkOfId(t->ids, t->numIds, e.thunkId)
                     : e.thunk >= 0 && (uint64_t)e.thunk < t->plan->numThunks ? (uint32_t)e.thunk
                                                                              : UINT32_MAX;
    if (thunk != UINT32_MAX)
      t->sum[thunk] += e.dur * 1e3, t->count[thunk]++; /* microseconds in the trace */
  }
  return true;
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

static bool originMember(Json *j, const char *k, size_t n, void *ctx) {
  ThunkyTraceOrigin *o = ctx;
  return isKey(k, n, "backend") ? copyString(j, o->backend, sizeof o->backend)
         : isKey(k, n, "clock") ? copyString(j, o->clock, sizeof o->clock)
         : isKey(k, n, "method") ? copyString(j, o->method, sizeof o->method)
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

bool thunkyMeasuredDurationsRead(const char *path, const ThunkyPlan *plan, double *ns,
                                 uint64_t *runs, uint32_t *matched, ThunkyTraceOrigin *origin,
                                 ThunkyError *error) {
  ThunkyTraceOrigin unused;
  origin = origin ? origin : &unused;
  memset(origin, 0, sizeof *origin);
  ThunkyFileBytes bytes;
  if (!thunkyFileBytesCreate(&bytes, path, error))
    return false;
  size_t thunks = plan->numThunks + 1;
  double *sum = calloc(thunks, sizeof *sum);
  uint64_t *count = calloc(thunks, sizeof *count);
  IdEntry *ids = malloc(thunks * sizeof *ids);
  size_t numIds = 0;
  bool ok = sum && count && ids;
  if (!ok)
    thunkyErrorf(error, "out of memory reading %s", path);
  for (uint32_t t = 0; ok && t < plan->numThunks; t++)
    if (plan->thunks[t].id > 0)
      ids[numIds++] = (IdEntry){plan->thunks[t].id, t};
  if (ok)
    qsort(ids, numIds, sizeof *ids, byId);
  Json j = {.p = (const char *)bytes.data, .begin = (const char *)bytes.data,
            .end = (const char *)bytes.data + bytes.size, .path = path, .error = error};
  Trace t = {.plan = plan, .ids = ids, .numIds = numIds, .sum = sum, .count = count,
             .origin = origin};
  ok = ok && trace(&j, &t);
  if (ok) {
    space(&j);
    if (j.p != j.end)
      ok = fail(&j, "text after the trace");
  }
  *matched = 0;
  for (uint32_t t = 0; ok && t < plan->numThunks; t++) {
    ns[t] = count[t] ? sum[t] / (double)count[t] : -1;
    runs[t] = count[t];
    *matched += count[t] != 0;
  }
  free(sum);
  free(count);
  free(ids);
  thunkyFileBytesDestroy(&bytes);
  return ok;
}
