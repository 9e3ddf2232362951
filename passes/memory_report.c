/*===- memory_report.c - how an executable's memory is used over time ---===*
 *
 * An analysis: XLA's users ask how much memory an executable holds as it
 * runs, when the peak comes and what makes it up. Thunks are numbered depth
 * first in program order, as the planner and profiles number them: every
 * thunky op but slices, constants and yields, an op with regions before
 * the thunks nested in it. Each allocation of @main (an argument or a
 * thunky.constant) is live over a range of those thunks:
 *
 * - a constant lives the whole program;
 * - an argument that is not scratch may be an output (access.h), so it
 *   stays live to the end; it is live from the start unless import's
 *   its role says it is only an output ("output {...}"), which is live
 *   from its first use: a parameter, or one without a role, may be read at
 *   any time;
 * - a scratch argument is live from its first to its last use, and one
 *   carved into slices per group of overlapping slices (scratch_groups.h),
 *   so XLA's one big temp allocation shows the lifetimes of what it holds.
 *
 * A use counts as pack-scratch counts it, so the two agree on what may
 * share bytes: an op of the entry block is one step over all the thunks in
 * it (a loop runs its body again; an async region is in flight until its
 * async_done, whose step it also takes).
 *
 * On stderr: every allocation with its role, shape, bytes, uses and live
 * range, and the peak of live bytes, its thunk and what is live there,
 * largest first. json=true prints one JSON object instead, with the live
 * bytes at every thunk; svg=<path> plots them over the thunk sequence,
 * stacked by role (memory_plot.c); output=<path> writes the report there
 * instead of stderr. The text and the plot stay bounded for
 * a million thunks; the work is linear but for sorting. Changes nothing.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/passes/Access.h"
#include "memory_plot.h"
#include "op_map.h"
#include "report_file.h"
#include "scratch_groups.h"
#include "thunk_info.h"

#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/Json.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

#include "mlir-c/BuiltinAttributes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPTION_JSON, OPTION_SVG, OPTION_OUTPUT };

/* The text lists this many entries of what is live at the peak: it stays
 * readable, and small, for a million thunks. */
enum { TEXT_LIVE = 16 };

/* Room for any role's text: 16 output indices of 20 digits and more. */
enum { ROLE_TEXT = 512 };

typedef struct Allocation {
  MlirValue value;           /* a @main argument or a thunky.constant's result */
  intptr_t argument;         /* its position, or -1 for a constant */
  intptr_t constant;         /* among the constants in walk order, or -1 */
  MlirType shape;            /* the logical array it holds, or null */
  int holds;                 /* a ThunkyRole, or THUNKY_HOLDS_CONSTANT */
  int64_t bytes;
  int64_t firstUse, lastUse; /* thunk numbers; firstUse > lastUse: unused */
  int64_t from, to;          /* live at thunks [from, to]; from > to: never */
  bool grouped;              /* live per group of slices, not whole */
  ThunkyScratchGroups groups;
} Allocation;

/* One thing live at the peak: an allocation, or one group of one. */
typedef struct Live {
  const Allocation *allocation;
  const ThunkyScratchGroup *group; /* NULL: the whole allocation */
  int64_t offset, bytes;
} Live;

typedef struct Report {
  MlirOperation main;
  Allocation *allocations;
  size_t count;
  ThunkyOpMap byValue; /* an access's root to its Allocation */
  int64_t thunks;
  int64_t first, last;          /* the thunks of the step being counted */
  int64_t *live;                /* live bytes at each thunk */
  int64_t peak, peakThunk;      /* peakThunk < 0: there are no thunks */
  MlirOperation peakOp;
  Live *atPeak;
  size_t numAtPeak;
} Report;

static ThunkyOpMapKey keyOf(MlirValue v) { return (ThunkyOpMapKey){v.ptr, 0, 0}; }

static MlirWalkResult findMain(MlirOperation op, void *userData) {
  if (!thunkyIsFunction(op))
    return MlirWalkResultAdvance;
  MlirStringRef s = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name")));
  if (s.length == 4 && memcmp(s.data, "main", 4) == 0) {
    *(MlirOperation *)userData = op;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultSkip;
}

/* Its role's text in `text`; false when it has none. */
static bool roleOf(const Allocation *a, char text[ROLE_TEXT]) {
  return a->argument >= 0 ? thunkyValueGetRoleText(a->value, text, ROLE_TEXT) : (text[0] = 0);
}

/* Arguments first, then constants; the map finds them by value. */
static bool collectAllocations(Report *r, MlirBlock entry) {
  ThunkyOpList constants = {0};
  if (!thunkyCollectOps(r->main, THUNKY_OP_CONSTANT, MlirWalkPreOrder, &constants))
    return false;
  intptr_t arguments = mlirBlockGetNumArguments(entry);
  r->allocations = calloc((size_t)arguments + constants.count + 1, sizeof *r->allocations);
  bool ok = r->allocations != NULL;
  for (intptr_t i = 0; ok && i < arguments; ++i) {
    MlirValue arg = mlirBlockGetArgument(entry, i);
    if (thunkyValueGetBufferSize(arg) < 0)
      continue;
    ThunkyAllocation declared;
    thunkyValueGetAllocation(arg, &declared);
    r->allocations[r->count++] = (Allocation){
        .value = arg, .argument = i, .constant = -1, .holds = (int)thunkyArgumentRole(arg),
        .shape = declared.shape};
  }
  for (size_t c = 0; ok && c < constants.count; ++c)
    r->allocations[r->count++] = (Allocation){
        .value = mlirOperationGetResult(constants.ops[c], 0), .argument = -1,
        .constant = (intptr_t)c, .holds = THUNKY_HOLDS_CONSTANT};
  thunkyOpListClear(&constants);
  for (size_t i = 0; ok && i < r->count; ++i) {
    Allocation *a = &r->allocations[i];
    a->bytes = thunkyValueGetBufferSize(a->value);
    a->firstUse = INT64_MAX, a->lastUse = -1;
    /* Used whole or through slices of slices, scratch is live whole. */
    if (a->holds == THUNKY_ROLE_SCRATCH || a->holds == THUNKY_ROLE_THREAD_LOCAL_SCRATCH) {
      ok = thunkyGroupSlices(a->value, &a->groups, &a->grouped);
      if (!a->grouped)
        thunkyScratchGroupsClear(&a->groups);
    }
    ok = ok && thunkyOpMapPut(&r->byValue, keyOf(a->value), a);
  }
  return ok;
}

static MlirWalkResult countThunk(MlirOperation op, void *userData) {
  *(int64_t *)userData += thunkyOpKindIsThunk(thunkyOpGetKind(op));
  return MlirWalkResultAdvance;
}

static void useAllocation(ThunkyByteRange b, bool write, void *userData) {
  Report *r = userData;
  Allocation *al = thunkyOpMapGet(&r->byValue, keyOf(b.root));
  if (!al)
    return;
  al->firstUse = r->first < al->firstUse ? r->first : al->firstUse;
  al->lastUse = r->last > al->lastUse ? r->last : al->lastUse;
  if (al->grouped)
    thunkyScratchGroupsTouch(&al->groups, b.offset, b.offset + b.size, r->first, r->last, write);
}

/* Each op of the entry block is one step over the thunks in it. */
static bool countUses(Report *r, MlirBlock entry) {
  for (MlirOperation op = mlirBlockGetFirstOperation(entry); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    int64_t n = 0;
    mlirOperationWalk(op, countThunk, &n, MlirWalkPreOrder);
    if (n == 0)
      continue; /* a slice, a constant, the return: no thunk runs */
    r->first = r->thunks, r->last = r->thunks + n - 1;
    r->thunks += n;
    if (!thunkyVisitAccesses(op, useAllocation, r))
      return false;
  }
  return true;
}

static void liveRanges(Report *r) {
  int64_t end = r->thunks - 1;
  for (size_t i = 0; i < r->count; ++i) {
    Allocation *a = &r->allocations[i];
    if (a->holds == THUNKY_ROLE_SCRATCH || a->holds == THUNKY_ROLE_THREAD_LOCAL_SCRATCH)
      a->from = a->firstUse, a->to = a->lastUse;
    else if (a->holds == THUNKY_ROLE_OUTPUT)
      a->from = a->firstUse <= a->lastUse ? a->firstUse : end, a->to = end;
    else
      a->from = 0, a->to = end;
  }
}

/* Live bytes at every thunk from the ranges' ends, then the first thunk
 * where they peak. */
static bool liveBytes(Report *r) {
  liveRanges(r);
  r->live = calloc((size_t)r->thunks + 1, sizeof *r->live);
  if (!r->live)
    return false;
  for (size_t i = 0; i < r->count; ++i) {
    const Allocation *a = &r->allocations[i];
    if (!a->grouped && a->from <= a->to)
      r->live[a->from] += a->bytes, r->live[a->to + 1] -= a->bytes;
    for (size_t g = 0; a->grouped && g < a->groups.count; ++g) {
      const ThunkyScratchGroup *grp = &a->groups.items[g];
      int64_t bytes = grp->end - grp->start;
      if (grp->first <= grp->last)
        r->live[grp->first] += bytes, r->live[grp->last + 1] -= bytes;
    }
  }
  r->peakThunk = r->thunks ? 0 : -1;
  for (int64_t t = 0, running = 0; t < r->thunks; ++t) {
    running += r->live[t];
    r->live[t] = running;
    if (running > r->peak)
      r->peak = running, r->peakThunk = t;
  }
  return true;
}

typedef struct FindThunk {
  int64_t left; /* thunks to pass before the one wanted */
  MlirOperation found;
} FindThunk;

static MlirWalkResult findThunk(MlirOperation op, void *userData) {
  FindThunk *f = userData;
  if (!thunkyOpKindIsThunk(thunkyOpGetKind(op)) || f->left--)
    return MlirWalkResultAdvance;
  f->found = op;
  return MlirWalkResultInterrupt;
}

static int largestFirst(const void *x, const void *y) {
  const Live *a = x, *b = y;
  if (a->bytes != b->bytes)
    return (a->bytes < b->bytes) - (a->bytes > b->bytes);
  if (a->allocation != b->allocation)
    return (a->allocation > b->allocation) - (a->allocation < b->allocation);
  return (a->offset > b->offset) - (a->offset < b->offset);
}

/* What is live at the peak, largest first, and the op that is the peak's
 * thunk. */
static bool atPeak(Report *r) {
  if (r->peakThunk < 0)
    return true;
  FindThunk f = {r->peakThunk, {NULL}};
  mlirOperationWalk(r->main, findThunk, &f, MlirWalkPreOrder);
  r->peakOp = f.found;
  size_t capacity = 1;
  for (size_t i = 0; i < r->count; ++i)
    capacity += r->allocations[i].grouped ? r->allocations[i].groups.count : 1;
  r->atPeak = malloc(capacity * sizeof *r->atPeak);
  if (!r->atPeak)
    return false;
  int64_t p = r->peakThunk;
  for (size_t i = 0; i < r->count; ++i) {
    const Allocation *a = &r->allocations[i];
    if (!a->grouped && a->from <= p && p <= a->to)
      r->atPeak[r->numAtPeak++] = (Live){a, NULL, 0, a->bytes};
    for (size_t g = 0; a->grouped && g < a->groups.count; ++g) {
      const ThunkyScratchGroup *grp = &a->groups.items[g];
      if (grp->first <= p && p <= grp->last)
        r->atPeak[r->numAtPeak++] = (Live){a, grp, grp->start, grp->end - grp->start};
    }
  }
  qsort(r->atPeak, r->numAtPeak, sizeof *r->atPeak, largestFirst);
  return true;
}

/*--- writing it out ------------------------------------------------------*/

static void writeText(MlirStringRef s, void *userData) { fwrite(s.data, 1, s.length, userData); }

static void writeJson(MlirStringRef s, void *userData) {
  thunkyJsonWriteString(userData, s.data, s.length);
}

static void printName(FILE *out, const Allocation *a) {
  if (a->argument >= 0)
    fprintf(out, "argument %" PRIdPTR, a->argument);
  else
    fprintf(out, "constant %" PRIdPTR, a->constant);
}

/* " (parameter 0, tensor<4xf32>)", or nothing when it has neither. */
static void printRoleAndShape(FILE *out, const Allocation *a) {
  char role[ROLE_TEXT];
  roleOf(a, role);
  if (!role[0] && mlirTypeIsNull(a->shape))
    return;
  fprintf(out, " (%s%s", role, role[0] && !mlirTypeIsNull(a->shape) ? ", " : "");
  if (!mlirTypeIsNull(a->shape))
    mlirTypePrint(a->shape, writeText, out);
  fputc(')', out);
}

/* "used 2-5", or `none` for an empty range. */
static void printRange(FILE *out, const char *what, int64_t from, int64_t to, const char *none) {
  if (from <= to)
    fprintf(out, "%s %" PRId64 "-%" PRId64, what, from, to);
  else
    fputs(none, out);
}

/* "thunk 2 (wrapped_broadcast): launch", and for an op without import's
 * name (hand-written, or printed without --mlir-print-debuginfo) the
 * kernel it launches and its location. */
static void printThunkText(FILE *out, const Report *r) {
  MlirOperation op = r->peakOp;
  char name[160];
  thunkyOpThunkName(op, r->peakThunk, name, sizeof name);
  fprintf(out, "%s: %s", name, thunkyOpKindGetMnemonic(thunkyOpGetKind(op)));
  if (thunkyThunkAnnotation(op).length)
    return;
  MlirStringRef kernel = thunkyKernelName(op);
  if (kernel.length)
    fprintf(out, " %.*s", (int)kernel.length, kernel.data);
  fputc(' ', out);
  thunkyPrintOpSource(op, writeText, out);
}

static void printText(FILE *out, const Report *r) {
  int64_t total = 0;
  for (size_t i = 0; i < r->count; ++i)
    total += r->allocations[i].bytes;
  fprintf(out,
          "thunky-memory-report: %" PRId64 " thunk%s, %zu allocation%s (%" PRId64 " bytes)\n",
          r->thunks, r->thunks == 1 ? "" : "s", r->count, r->count == 1 ? "" : "s", total);
  for (size_t i = 0; i < r->count; ++i) {
    const Allocation *a = &r->allocations[i];
    fputs("  ", out);
    printName(out, a);
    printRoleAndShape(out, a);
    fprintf(out, ": %" PRId64 " bytes, ", a->bytes);
    printRange(out, "used", a->firstUse, a->lastUse, "unused");
    if (a->grouped && a->firstUse <= a->lastUse)
      fprintf(out, ", live in %zu group%s of slices\n", a->groups.count,
              a->groups.count == 1 ? "" : "s");
    else
      printRange(out, ", live", a->from, a->to, ", never live"), fputc('\n', out);
  }
  char human[32];
  thunkyHumanBytes(r->peak, human, sizeof human);
  fprintf(out, "  peak: %" PRId64 " bytes", r->peak);
  if (r->peak >= 1024)
    fprintf(out, " (%s)", human);
  if (r->peakThunk < 0) {
    fputs(", no thunks\n", out);
    return;
  }
  fputs(" at ", out);
  printThunkText(out, r);
  fputc('\n', out);
  int64_t restBytes = 0;
  for (size_t i = 0; i < r->numAtPeak; ++i) {
    const Live *l = &r->atPeak[i];
    if (i >= TEXT_LIVE) {
      restBytes += l->bytes;
      continue;
    }
    fputs("    ", out);
    printName(out, l->allocation);
    if (l->group)
      fprintf(out, " bytes [%" PRId64 ", %" PRId64 ")", l->offset, l->offset + l->bytes);
    printRoleAndShape(out, l->allocation);
    fprintf(out, ": %" PRId64 " bytes, ", l->bytes);
    if (l->group)
      printRange(out, "live", l->group->first, l->group->last, "");
    else
      printRange(out, "live", l->allocation->from, l->allocation->to, "");
    fputc('\n', out);
  }
  if (r->numAtPeak > TEXT_LIVE)
    fprintf(out, "    and %zu more (%" PRId64 " bytes; json=true lists all)\n",
            r->numAtPeak - TEXT_LIVE, restBytes);
}

static void jsonNumberOrNull(FILE *out, const char *key, int64_t value, bool present) {
  if (present)
    fprintf(out, ", \"%s\": %" PRId64, key, value);
  else
    fprintf(out, ", \"%s\": null", key);
}

/* "name", "role" and "shape" of an allocation, null where it has none. */
static void jsonAllocationFields(FILE *out, const Allocation *a) {
  fputs("\"name\": \"", out);
  printName(out, a);
  fputs("\", \"role\": ", out);
  char role[ROLE_TEXT];
  if (!roleOf(a, role)) {
    fputs("null", out);
  } else {
    fputc('"', out);
    thunkyJsonWriteString(out, role, strlen(role));
    fputc('"', out);
  }
  fputs(", \"shape\": ", out);
  if (mlirTypeIsNull(a->shape)) {
    fputs("null", out);
  } else {
    fputc('"', out);
    mlirTypePrint(a->shape, writeJson, out);
    fputc('"', out);
  }
}

static void printJson(FILE *out, const Report *r) {
  fprintf(out, "{\"thunks\": %" PRId64 ", \"allocations\": [", r->thunks);
  for (size_t i = 0; i < r->count; ++i) {
    const Allocation *a = &r->allocations[i];
    fputs(i ? ", {" : "{", out);
    jsonAllocationFields(out, a);
    fprintf(out, ", \"bytes\": %" PRId64, a->bytes);
    jsonNumberOrNull(out, "first_use", a->firstUse, a->firstUse <= a->lastUse);
    jsonNumberOrNull(out, "last_use", a->lastUse, a->firstUse <= a->lastUse);
    if (a->grouped) {
      fputs(", \"groups\": [", out);
      for (size_t g = 0; g < a->groups.count; ++g) {
        const ThunkyScratchGroup *grp = &a->groups.items[g];
        fprintf(out, "%s{\"offset\": %" PRId64 ", \"bytes\": %" PRId64, g ? ", " : "",
                grp->start, grp->end - grp->start);
        jsonNumberOrNull(out, "live_from", grp->first, grp->first <= grp->last);
        jsonNumberOrNull(out, "live_to", grp->last, grp->first <= grp->last);
        fputc('}', out);
      }
      fputc(']', out);
    } else {
      jsonNumberOrNull(out, "live_from", a->from, a->from <= a->to);
      jsonNumberOrNull(out, "live_to", a->to, a->from <= a->to);
    }
    fputc('}', out);
  }
  fprintf(out, "], \"peak\": {\"bytes\": %" PRId64, r->peak);
  jsonNumberOrNull(out, "thunk", r->peakThunk, r->peakThunk >= 0);
  if (r->peakThunk >= 0) {
    char name[160];
    thunkyOpThunkName(r->peakOp, r->peakThunk, name, sizeof name);
    fputs(", \"name\": \"", out);
    thunkyJsonWriteString(out, name, strlen(name));
    MlirStringRef kernel = thunkyKernelName(r->peakOp);
    fprintf(out, "\", \"op\": \"%s\", \"kernel_name\": ",
            thunkyOpKindGetMnemonic(thunkyOpGetKind(r->peakOp)));
    if (kernel.length) {
      fputc('"', out);
      thunkyJsonWriteString(out, kernel.data, kernel.length);
      fputs("\", ", out);
    } else {
      fputs("null, ", out);
    }
    fputs("\"location\": \"", out);
    thunkyPrintOpSource(r->peakOp, writeJson, out);
    fputc('"', out);
  }
  fputs(", \"live\": [", out);
  for (size_t i = 0; i < r->numAtPeak; ++i) {
    const Live *l = &r->atPeak[i];
    fputs(i ? ", {" : "{", out);
    jsonAllocationFields(out, l->allocation);
    fprintf(out, ", \"offset\": %" PRId64 ", \"bytes\": %" PRId64 "}", l->offset, l->bytes);
  }
  fputs("]}, \"live_bytes\": [", out);
  for (int64_t t = 0; t < r->thunks; ++t)
    fprintf(out, t ? ", %" PRId64 : "%" PRId64, r->live[t]);
  fputs("]}\n", out);
}

/*--- the plot ------------------------------------------------------------*/

/* The module's name (module @name), else the executable's (import keeps
 * GpuExecutableProto.module_name in thunky.executable), else empty. */
static MlirStringRef programName(MlirOperation main) {
  MlirOperation module = mlirOperationGetParentOperation(main);
  MlirStringRef none = {"", 0};
  if (mlirOperationIsNull(module))
    return none;
  MlirAttribute name =
      mlirOperationGetAttributeByName(module, mlirStringRefCreateFromCString("sym_name"));
  if (!mlirAttributeIsNull(name) && mlirAttributeIsAString(name))
    return mlirStringAttrGetValue(name);
  MlirAttribute exe =
      mlirOperationGetAttributeByName(module, mlirStringRefCreateFromCString("thunky.executable"));
  if (mlirAttributeIsNull(exe) || !mlirAttributeIsADictionary(exe))
    return none;
  name = mlirDictionaryAttrGetElementByName(exe, mlirStringRefCreateFromCString("module_name"));
  return !mlirAttributeIsNull(name) && mlirAttributeIsAString(name) ? mlirStringAttrGetValue(name)
                                                                     : none;
}

/* Every allocation, or each group of one, as a span for the plot. */
static bool writePlot(const Report *r, FILE *f) {
  size_t capacity = 1;
  for (size_t i = 0; i < r->count; ++i)
    capacity += r->allocations[i].grouped ? r->allocations[i].groups.count : 1;
  ThunkyLiveSpan *spans = malloc(capacity * sizeof *spans);
  if (!spans)
    return false;
  size_t n = 0;
  for (size_t i = 0; i < r->count; ++i) {
    const Allocation *a = &r->allocations[i];
    if (!a->grouped)
      spans[n++] = (ThunkyLiveSpan){a->from, a->to, a->bytes, a->holds};
    for (size_t g = 0; a->grouped && g < a->groups.count; ++g) {
      const ThunkyScratchGroup *grp = &a->groups.items[g];
      spans[n++] = (ThunkyLiveSpan){grp->first, grp->last, grp->end - grp->start, a->holds};
    }
  }
  ThunkyMemoryPlot plot = {programName(r->main), r->thunks, r->live, r->peak, r->peakThunk,
                           spans, n};
  bool ok = thunkyWriteMemoryPlot(&plot, f);
  free(spans);
  return ok;
}

static bool saveSvg(const Report *r, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return false;
  bool ok = writePlot(r, f);
  ok = fclose(f) == 0 && ok;
  if (!ok) {
    int saved = errno;
    remove(path); /* no half plot */
    errno = saved;
  }
  return ok;
}

/*--- the pass ------------------------------------------------------------*/

static void report(Report *r, ThunkyPassState *state) {
  MlirLocation loc = mlirOperationGetLocation(r->main);
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(r->main, 0));
  if (mlirBlockIsNull(entry)) {
    thunkyEmitError(loc, "thunky-memory-report: @main has no body");
    thunkyPassSignalFailure(state);
    return;
  }
  if (!collectAllocations(r, entry) || !countUses(r, entry) || !liveBytes(r) || !atPeak(r)) {
    thunkyEmitError(loc, "thunky-memory-report: out of memory");
    thunkyPassSignalFailure(state);
    return;
  }
  const char *path = thunkyPassGetStringOption(state, OPTION_OUTPUT);
  FILE *out = thunkyReportFileOpen(loc, "thunky-memory-report", path);
  if (out && thunkyPassGetOption(state, OPTION_JSON))
    printJson(out, r);
  else if (out)
    printText(out, r);
  if (!out || !thunkyReportFileClose(out, loc, "thunky-memory-report", path)) {
    thunkyPassSignalFailure(state);
    return;
  }
  const char *svg = thunkyPassGetStringOption(state, OPTION_SVG);
  if (*svg && !saveSvg(r, svg)) {
    thunkyEmitError(loc, "thunky-memory-report: cannot write the plot to %s: %s", svg,
                    strerror(errno));
    thunkyPassSignalFailure(state);
  }
}

static void run(MlirOperation root, ThunkyPassState *state) {
  thunkyPassMarkUnchanged(state);
  Report r = {.main = {NULL}};
  mlirOperationWalk(root, findMain, &r.main, MlirWalkPreOrder);
  if (mlirOperationIsNull(r.main)) {
    thunkyEmitError(mlirOperationGetLocation(root),
                    "thunky-memory-report: no func.func @main to report on");
    thunkyPassSignalFailure(state);
    return;
  }
  report(&r, state);
  for (size_t i = 0; i < r.count; ++i)
    thunkyScratchGroupsClear(&r.allocations[i].groups);
  free(r.allocations), free(r.live), free(r.atPeak);
  thunkyOpMapClear(&r.byValue);
}

MlirPass thunkyCreateMemoryReportPass(void) {
  static const ThunkyPassOption options[] = {
      [OPTION_JSON] = {"json", "Print one JSON object, with the live bytes at every thunk",
                       THUNKY_OPTION_BOOL, 0},
      [OPTION_SVG] = {"svg", "Also plot live bytes over the thunks to this SVG file",
                      THUNKY_OPTION_STRING, 0},
      [OPTION_OUTPUT] = {"output", "Write the report to this file instead of stderr",
                         THUNKY_OPTION_STRING, 0},
  };
  static const ThunkyPassInfo info = {
      "ThunkyMemoryReport", "thunky-memory-report",
      "Print each allocation's live range and the peak of live bytes (stderr)",
      run, options, 3};
  return thunkyPassCreate(&info);
}
