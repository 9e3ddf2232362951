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
#include "thunky-c/Schedule.h"

#include "thunky-c/Container.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct {
  const char *p, *begin, *end;
  const char *path;
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

static bool value(Json *j, int depth);

static bool literal(Json *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
    return fail(j, "expected a value");
  j->p += n;
  return true;
}

static bool members(Json *j, int depth, char close, bool keys) {
  space(j);
  if (j->p < j->end && *j->p == close)
    return j->p++, true;
  for (;;) {
    const char *k;
    size_t n;
    if (keys && !(string(j, &k, &n) && expect(j, ':')))
      return false;
    if (!value(j, depth + 1))
      return false;
    space(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    return expect(j, close);
  }
}

static bool value(Json *j, int depth) {
  if (depth > MAX_DEPTH)
    return fail(j, "nested deeper than 64");
  space(j);
  if (j->p == j->end)
    return fail(j, "unexpected end");
  const char *s;
  size_t n;
  double v;
  switch (*j->p) {
  case '{':
    return j->p++, members(j, depth, '}', true);
  case '[':
    return j->p++, members(j, depth, ']', false);
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

static bool eventArgs(Json *j, TraceEvent *e) {
  space(j);
  if (j->p < j->end && *j->p != '{')
    return value(j, 2); /* not ours: any JSON */
  if (!expect(j, '{'))
    return false;
  space(j);
  if (j->p < j->end && *j->p == '}')
    return j->p++, true;
  for (;;) {
    const char *k;
    size_t n;
    if (!string(j, &k, &n) || !expect(j, ':'))
      return false;
    bool ok = isKey(k, n, "thunk_id")  ? integer(j, &e->thunkId)
              : isKey(k, n, "thunk")   ? integer(j, &e->thunk)
                                       : value(j, 3);
    if (!ok)
      return false;
    space(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    return expect(j, '}');
  }
}

static bool event(Json *j, TraceEvent *e) {
  *e = (TraceEvent){.thunk = -1, .thunkId = -1};
  if (!expect(j, '{'))
    return false;
  space(j);
  if (j->p < j->end && *j->p == '}')
    return j->p++, true;
  for (;;) {
    const char *k, *s;
    size_t n, m;
    if (!string(j, &k, &n) || !expect(j, ':'))
      return false;
    bool ok;
    if (isKey(k, n, "dur")) {
      ok = number(j, &e->dur), e->hasDur = true;
    } else if (isKey(k, n, "ph")) {
      ok = string(j, &s, &m), e->complete = m == 1 && *s == 'X';
    } else if (isKey(k, n, "name")) {
      ok = string(j, &s, &m);
      if (ok && m > 6 && !memcmp(s, "thunk ", 6) && e->thunk < 0 &&
          isdigit((unsigned char)s[6]))
        e->thunk = strtoll(s + 6, NULL, 10);
    } else if (isKey(k, n, "args")) {
      ok = eventArgs(j, e);
    } else {
      ok = value(j, 2);
    }
    if (!ok)
      return false;
    space(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    return expect(j, '}');
  }
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

static bool events(Json *j, const ThunkyPlan *plan, const IdEntry *ids, size_t numIds,
                   double *sum, uint64_t *count) {
  if (!expect(j, '['))
    return false;
  space(j);
  if (j->p < j->end && *j->p == ']')
    return j->p++, true;
  for (;;) {
    TraceEvent e;
    if (!event(j, &e))
      return false;
    if (e.complete && e.hasDur && e.dur >= 0) {
      uint32_t t = e.thunkId > 0 ? thunkOfId(ids, numIds, e.thunkId)
                   : e.thunk >= 0 && (uint64_t)e.thunk < plan->numThunks ? (uint32_t)e.thunk
                                                                         : UINT32_MAX;
      if (t != UINT32_MAX)
        sum[t] += e.dur * 1e3, count[t]++; /* microseconds in the trace */
    }
    space(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    return expect(j, ']');
  }
}

static bool trace(Json *j, const ThunkyPlan *plan, const IdEntry *ids, size_t numIds,
                  double *sum, uint64_t *count) {
  space(j);
  if (j->p < j->end && *j->p == '[')
    return events(j, plan, ids, numIds, sum, count);
  if (!expect(j, '{'))
    return false;
  bool found = false;
  space(j);
  if (j->p < j->end && *j->p == '}')
    return fail(j, "no traceEvents");
  for (;;) {
    const char *k;
    size_t n;
    if (!string(j, &k, &n) || !expect(j, ':'))
      return false;
    bool ok = isKey(k, n, "traceEvents") ? (found = true, events(j, plan, ids, numIds, sum, count))
                                         : value(j, 1);
    if (!ok)
      return false;
    space(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    if (!expect(j, '}'))
      return false;
    return found || fail(j, "no traceEvents");
  }
}

bool thunkyMeasuredDurationsRead(const char *path, const ThunkyPlan *plan, double *ns,
                                 uint64_t *runs, uint32_t *matched, ThunkyError *error) {
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
  ok = ok && trace(&j, plan, ids, numIds, sum, count);
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
