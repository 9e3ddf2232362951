/*===- compare_runs.c - two runs, compared bit for bit ------------------===*/
#include "thunky-c/base/Arena.h"
#include "thunky-c/runtime/Compare.h"

#include "thunky-c/runtime/Check.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/base/HashMap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rank traces keep at most this many thunk runs each: a long loop is cut,
 * and the search says so. */
enum { MAX_TRACED = 1 << 24 };

bool thunkySameParameters(const ThunkyPlan *a, const ThunkyPlan *b, ThunkyError *error) {
  if (a->numParameters != b->numParameters)
    return thunkyErrorf(error, "the two take %u and %u parameters", a->numParameters,
                        b->numParameters);
  for (uint32_t i = 0; i < a->numParameters; i++)
    if (a->parameters[i].slice.size != b->parameters[i].slice.size)
      return thunkyErrorf(error, "parameter %u is %" PRIu64 " bytes in one and %" PRIu64
                                 " in the other", i, a->parameters[i].slice.size,
                          b->parameters[i].slice.size);
  return true;
}

uint64_t thunkyRankSeed(uint64_t seed, uint32_t rank) {
  return rank ? thunkyFingerprintHash(seed, &rank, sizeof rank) : seed;
}

bool thunkyWriteInputs(const ThunkyBackendOps *backend, void *state, const ThunkyPlan *plan,
                       uint32_t ranks, const ThunkyInputs *inputs, ThunkyError *error) {
  /* A backend without bytes takes every parameter as a symbol. */
  if (!inputs || !inputs->arrays || backend->contents)
    return true;
  for (uint32_t i = 0; i < plan->numParameters; i++)
    for (uint32_t r = 0; r < ranks; r++) {
      /* One rank's array at a time: the memory check counted one copy. */
      ThunkyNpyArray own = {0};
      bool made = inputs->seeded && r;
      if (made && !thunkyRandomInput(&plan->parameters[i], thunkyRankSeed(inputs->seed, r), i,
                                     &own, error))
        return false;
      bool ok = backend->write(state, r, plan->parameters[i].slice,
                               made ? own.data : inputs->arrays[i].data, error);
      thunkyNpyArrayDestroy(&own);
      if (!ok)
        return false;
    }
  return true;
}

static uint64_t outputBytes(const ThunkyPlan *plan) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < plan->numOutputs; i++)
    total += plan->outputs[i].slice.size;
  return total;
}

/* One side's outputs, every output of every rank (rank-major): bytes, or
 * for a backend without bytes their contents as pieces. */
typedef struct Outputs {
  uint8_t *bytes;
  ThunkyPiece **pieces;
  size_t *counts;
  size_t n;
  uint64_t *sent; /* per rank, its sent digest (ThunkyBackendOps.sent); NULL: none */
} Outputs;

static void outputsFree(Outputs *o) {
  for (size_t i = 0; o->pieces && i < o->n; i++)
    free(o->pieces[i]);
  free(o->bytes), free(o->pieces), free(o->counts), free(o->sent);
  *o = (Outputs){0};
}

static bool readOutputs(const ThunkyBackendOps *backend, void *state, const ThunkyPlan *plan,
                        uint32_t ranks, Outputs *o, ThunkyError *error) {
  o->n = (size_t)ranks * plan->numOutputs;
  if (backend->sent) {
    if (!(o->sent = calloc(ranks, sizeof *o->sent)))
      return thunkyErrorf(error, "out of memory");
    for (uint32_t r = 0; r < ranks; r++)
      if (!backend->sent(state, r, &o->sent[r]))
        return thunkyErrorf(error, "rank %u: what it sent is not known", r);
  }
  if (backend->contents) {
    o->pieces = calloc(o->n + 1, sizeof *o->pieces);
    o->counts = calloc(o->n + 1, sizeof *o->counts);
    if (!o->pieces || !o->counts)
      return thunkyErrorf(error, "out of memory");
    for (uint32_t r = 0, k = 0; r < ranks; r++)
      for (uint32_t i = 0; i < plan->numOutputs; i++, k++)
        if (!backend->contents(state, r, plan->outputs[i].slice, &o->pieces[k], &o->counts[k],
                               error))
          return false;
    return true;
  }
  uint64_t bytes = outputBytes(plan) * ranks;
  uint8_t *at = o->bytes = malloc(bytes ? bytes : 1);
  if (!at)
    return thunkyErrorf(error, "out of memory");
  for (uint32_t r = 0; r < ranks; r++)
    for (uint32_t i = 0; i < plan->numOutputs; i++) {
      if (!backend->read(state, r, plan->outputs[i].slice, at, error))
        return false;
      at += plan->outputs[i].slice.size;
    }
  return true;
}

/* Runs one side once; with `trace`, records what each thunk wrote, else
 * reads every output of every rank into *outputs. */
static bool runSide(const ThunkyBackendOps *backend, const ThunkyRunSide *side,
                    const ThunkyInputs *inputs, ThunkyWriteLog *trace, Outputs *outputs,
                    ThunkyError *error) {
  ThunkyRunConfig config = side->config;
  config.writeLog = trace;
  void *state = NULL;
  uint32_t ranks = config.ranks ? config.ranks : 1;
  bool ok = backend->create(side->plan, &config, &state, error) &&
            thunkyWriteInputs(backend, state, side->plan, ranks, inputs, error) &&
            backend->run(state, error);
  ok = ok && (!outputs || readOutputs(backend, state, side->plan, ranks, outputs, error));
  if (state)
    backend->destroy(state);
  return ok || thunkyErrorContext(error, "%s", side->name);
}

static void describeThunk(FILE *out, const ThunkyRunSide *side, uint32_t thunk) {
  char name[200];
  thunkyPlanThunkName(side->plan, thunk, name, sizeof name);
  fprintf(out, "%s of %s (%s)", name, side->name, side->plan->thunks[thunk].kind);
}

/* Both sides again with write logs, and where they part on `rank`. */
static bool reportDivergence(const ThunkyBackendOps *backend, const ThunkyRunSide *a,
                             const ThunkyRunSide *b, const ThunkyInputs *inputs,
                             uint32_t rank, FILE *out, ThunkyError *error) {
  uint32_t ranks = a->config.ranks ? a->config.ranks : 1;
  ThunkyWriteLog *ta = thunkyWriteLogCreate(ranks, MAX_TRACED);
  ThunkyWriteLog *tb = thunkyWriteLogCreate(ranks, MAX_TRACED);
  bool ok = (ta && tb) || thunkyErrorf(error, "out of memory");
  ok = ok && runSide(backend, a, inputs, ta, NULL, error) &&
       runSide(backend, b, inputs, tb, NULL, error);
  uint32_t x, y;
  ThunkyDivergence d = ok ? thunkyWriteLogDivergence(a->plan, ta, b->plan, tb, rank, &x, &y)
                          : THUNKY_DIVERGENCE_NONE;
  if (d != THUNKY_DIVERGENCE_NONE && d != THUNKY_DIVERGENCE_FAILED)
    fprintf(out, "first divergent thunk on rank %u: ", rank);
  switch (d) {
  case THUNKY_DIVERGENCE_WRITES:
  case THUNKY_DIVERGENCE_ORDER:
    describeThunk(out, a, x);
    fputs(" and ", out);
    describeThunk(out, b, y);
    fputs(d == THUNKY_DIVERGENCE_WRITES ? " wrote different bytes\n"
                                        : " ran in each other's place\n", out);
    break;
  case THUNKY_DIVERGENCE_ONLY_A:
  case THUNKY_DIVERGENCE_ONLY_B: {
    bool inA = d == THUNKY_DIVERGENCE_ONLY_A;
    describeThunk(out, inA ? a : b, inA ? x : y);
    fprintf(out, " ran there and has no counterpart in %s\n", inA ? b->name : a->name);
    break;
  }
  case THUNKY_DIVERGENCE_FAILED:
    ok = thunkyErrorf(error, "out of memory matching the two traces");
    break;
  case THUNKY_DIVERGENCE_NONE:
    if (ok) {
      size_t n;
      bool truncated;
      thunkyWriteLogGet(ta, rank, &n, &truncated);
      fprintf(out, "no thunk wrote different bytes on rank %u%s\n", rank,
              truncated ? " in the traced part (traces keep 16M thunk runs)" : "");
    }
    break;
  }
  thunkyWriteLogDestroy(ta);
  thunkyWriteLogDestroy(tb);
  return ok;
}

static void describeOutput(FILE *out, const ThunkyPlan *plan, uint32_t i) {
  char type[128];
  const ThunkyPlanArray *o = &plan->outputs[i];
  int64_t bytes[1] = {(int64_t)o->slice.size};
  if (o->elementType)
    thunkyNpyDescribe(o->elementType, o->rank, o->dims, type, sizeof type);
  else
    thunkyNpyDescribe(0, 1, bytes, type, sizeof type);
  fprintf(out, "output %u (%s)", i, type);
}

/* Where two lists of pieces first part: the byte, and the pieces there.
 * Where both terms' bytes are known, the first byte that differs. */
static bool piecesDiffer(const ThunkyPiece *x, size_t nx, const ThunkyPiece *y, size_t ny,
                         uint64_t *byte, const ThunkyPiece **px, const ThunkyPiece **py) {
  uint64_t at = 0, dx = 0, dy = 0;
  size_t i = 0, j = 0;
  while (i < nx && j < ny) {
    const ThunkyPiece *a = &x[i], *b = &y[j];
    uint64_t step = a->size - dx < b->size - dy ? a->size - dx : b->size - dy;
    if (a->term[0] != b->term[0] || a->term[1] != b->term[1] || a->offset + dx != b->offset + dy) {
      uint8_t u, v;
      uint64_t k = 0;
      for (; k < step && thunkyPieceByte(a, a->offset + dx + k, &u) &&
             thunkyPieceByte(b, b->offset + dy + k, &v) && u == v;
           k++)
        ;
      if (k < step) {
        *byte = at + k, *px = a, *py = b;
        return true;
      }
    }
    at += step, dx += step, dy += step;
    if (dx == a->size)
      i++, dx = 0;
    if (dy == b->size)
      j++, dy = 0;
  }
  return false;
}

/* The first difference of two runs' outputs, rank-major: its rank, output
 * and byte; false when there is none. */
static bool firstDifference(const ThunkyPlan *plan, uint32_t ranks, const Outputs *x,
                            const Outputs *y, uint32_t *rank, uint32_t *output, uint64_t *byte,
                            const ThunkyPiece **px, const ThunkyPiece **py) {
  uint64_t at = 0;
  for (uint32_t r = 0, k = 0; r < ranks; r++)
    for (uint32_t i = 0; i < plan->numOutputs; i++, k++) {
      uint64_t size = plan->outputs[i].slice.size;
      *rank = r, *output = i;
      if (x->pieces) {
        if (piecesDiffer(x->pieces[k], x->counts[k], y->pieces[k], y->counts[k], byte, px, py))
          return true;
      } else if (memcmp(x->bytes + at, y->bytes + at, size)) {
        uint64_t b = 0;
        while (x->bytes[at + b] == y->bytes[at + b])
          b++;
        *byte = b;
        return true;
      }
      at += size;
    }
  return false;
}

/* Where, in output `output` of rank `rank`, the piece holding byte `byte`
 * begins. */
static uint64_t pieceStart(const Outputs *o, uint32_t rank, uint32_t output,
                           const ThunkyPlan *plan, uint64_t byte) {
  size_t k = (size_t)rank * plan->numOutputs + output;
  uint64_t start = 0;
  for (size_t i = 0; i < o->counts[k]; i++) {
    if (byte < start + o->pieces[k][i].size)
      return start;
    start += o->pieces[k][i].size;
  }
  return start;
}

/* Who made a piece's term: a thunk, a parameter, or neither (a fill or a
 * constant's bytes, there from the start or written by a memset). */
static void describeOrigin(FILE *out, const ThunkyRunSide *side, const ThunkyPiece *p) {
  char name[200];
  if (p->thunk != UINT32_MAX) {
    thunkyPlanThunkName(side->plan, p->thunk, name, sizeof name);
    fprintf(out, "a value of %s", name);
  } else if (p->parameter != UINT32_MAX) {
    fprintf(out, "parameter %u", p->parameter);
  } else if (p->undefined) {
    fputs("bytes no thunk wrote (undefined on a GPU)", out);
  } else {
    fputs("a fill or constant", out);
  }
  fprintf(out, " in %s", side->name);
}

/* Whether `plan` holds a thunk that sends to other ranks, which a
 * comparison compares as it compares outputs. */
static bool exchanges(const ThunkyPlan *plan) {
  for (uint32_t i = 0; i < plan->numThunks; i++)
    if (plan->thunks[i].exchange)
      return true;
  return false;
}

static int compareOnce(const ThunkyBackendOps *backend, const ThunkyRunSide *a,
                       const ThunkyRunSide *b, const ThunkyInputs *inputs, FILE *out,
                       ThunkyError *error) {
  const ThunkyPlan *pa = a->plan, *pb = b->plan;
  uint32_t ranks = a->config.ranks ? a->config.ranks : 1;
  if (!thunkySameParameters(pa, pb, error))
    return thunkyErrorContext(error, "%s and %s cannot be compared", a->name, b->name), 2;
  if (!pa->numOutputs && !pb->numOutputs && !exchanges(pa) && !exchanges(pb))
    return thunkyErrorf(error, "%s and %s have no outputs (output_info_map) and send nothing "
                               "to other ranks: nothing to compare", a->name, b->name), 2;
  Outputs x = {0}, y = {0};
  if (!runSide(backend, a, inputs, NULL, &x, error) ||
      !runSide(backend, b, inputs, NULL, &y, error)) {
    outputsFree(&x), outputsFree(&y);
    return 2;
  }
  int status = 0;
  uint32_t rank = 0, output = 0;
  uint64_t byte = 0;
  const ThunkyPiece *px = NULL, *py = NULL;
  if (pa->numOutputs != pb->numOutputs) {
    fprintf(out, "different: %s has %u outputs, %s %u\n", a->name, pa->numOutputs, b->name,
            pb->numOutputs);
    status = 1;
  }
  for (uint32_t i = 0; !status && i < pa->numOutputs; i++)
    if (pa->outputs[i].slice.size != pb->outputs[i].slice.size) {
      fprintf(out, "different: output %u is %" PRIu64 " bytes in %s and %" PRIu64 " in %s\n", i,
              pa->outputs[i].slice.size, a->name, pb->outputs[i].slice.size, b->name);
      status = 1;
    }
  if (!status && firstDifference(pa, ranks, &x, &y, &rank, &output, &byte, &px, &py)) {
    uint32_t width = thunkyElementBytes(pa->outputs[output].elementType);
    fputs("different: ", out);
    describeOutput(out, pa, output);
    fprintf(out, " of rank %u differs first at byte %" PRIu64, rank, byte);
    if (width > 1)
      fprintf(out, " (element %" PRIu64 ")", byte / width);
    uint8_t u, v;
    if (px && thunkyPieceByte(px, px->offset + byte - pieceStart(&x, rank, output, pa, byte), &u) &&
        thunkyPieceByte(py, py->offset + byte - pieceStart(&y, rank, output, pa, byte), &v)) {
      fprintf(out, ": 0x%02x in %s, 0x%02x in %s\n", u, a->name, v, b->name);
    } else if (px) {
      fputs(": ", out);
      describeOrigin(out, a, px);
      fputs(", ", out);
      describeOrigin(out, b, py);
      fputc('\n', out);
    } else {
      uint64_t at = byte;
      for (uint32_t r = 0; r < rank; r++)
        at += outputBytes(pa);
      for (uint32_t i = 0; i < output; i++)
        at += pa->outputs[i].slice.size;
      fprintf(out, ": 0x%02x in %s, 0x%02x in %s\n", x.bytes[at], a->name, y.bytes[at], b->name);
    }
    status = 1;
  }
  /* Outputs alike, what went to other ranks may not be: a peer that
   * receives it computes with it. */
  for (uint32_t r = 0; !status && x.sent && r < ranks; r++)
    if (x.sent[r] != y.sent[r]) {
      fprintf(out, "different: rank %u sends other bytes out (what its sends, outfeeds and "
                   "other thunks that move bytes to other ranks or the host read)\n", r);
      rank = r, status = 1;
    }
  outputsFree(&x), outputsFree(&y);
  if (status == 0)
    return 0;
  return reportDivergence(backend, a, b, inputs, rank, out, error) ? 1 : 2;
}

/* Whether a run of `plan` may take another path for other inputs, or for
 * another reading of the thunks the host does not run: a conditional, or a
 * loop without a known trip count, decides on bytes. */
static bool decidesOnBytes(const ThunkyPlan *plan) {
  for (uint32_t i = 0; i < plan->numCommands; i++) {
    const ThunkyCommand *c = &plan->commands[i];
    if (c->kind == THUNKY_CMD_CONDITIONAL ||
        (c->kind == THUNKY_CMD_WHILE && c->loop.tripCount < 0))
      return true;
  }
  return false;
}

/* Both schedules the async regions allow at their ends, unless one is
 * asked for: a region that may race with what runs beside it gives other
 * outputs at its done than at its start. */
static int compareSchedules(const ThunkyBackendOps *backend, const ThunkyRunSide *a,
                            const ThunkyRunSide *b, const ThunkyInputs *inputs, FILE *out,
                            bool *both, ThunkyError *error) {
  int status = compareOnce(backend, a, b, inputs, out, error);
  *both = !a->config.oneSchedule && !a->config.asyncAtDone && !b->config.asyncAtDone &&
          (a->plan->numAsyncSlots || b->plan->numAsyncSlots);
  if (status == 0 && *both) {
    char nameA[512], nameB[512];
    ThunkyRunSide lateA = *a, lateB = *b;
    snprintf(nameA, sizeof nameA, "%s (async regions at their done)", a->name);
    snprintf(nameB, sizeof nameB, "%s (async regions at their done)", b->name);
    lateA.name = nameA, lateB.name = nameB;
    lateA.config.asyncAtDone = lateB.config.asyncAtDone = true;
    status = compareOnce(backend, &lateA, &lateB, inputs, out, error);
  }
  return status;
}

/* What the HLO of one side shows of a kernel (ThunkyPlanThunk.written),
 * the other side, which may have lost its HLO (thunky-strip-metadata),
 * learns for its kernels of the same key: the same code, launched the same
 * way, updates in place or not whichever program runs it. Where the two
 * disagree, the written arguments are read. A side with something to
 * learn gets a copy of its plan (*own, freed by the caller). */
static bool learn(ThunkyRunSide *side, const ThunkyHashMap *shown, ThunkyPlan **own) {
  const ThunkyPlan *p = side->plan;
  for (uint32_t i = 0; i < p->numThunks; i++) {
    uint32_t written;
    if (p->thunks[i].written != THUNKY_WRITTEN_UNKNOWN ||
        !thunkyHashMapGet(shown, p->thunks[i].key, &written))
      continue;
    if (!*own) {
      ThunkyPlanThunk *thunks = malloc(p->numThunks * sizeof *thunks);
      *own = malloc(sizeof **own);
      if (!thunks || !*own)
        return free(thunks), false;
      memcpy(thunks, p->thunks, p->numThunks * sizeof *thunks);
      **own = *p;
      (*own)->thunks = thunks;
      side->plan = *own;
    }
    (*own)->thunks[i].written = (uint8_t)written;
  }
  return true;
}

static void forget(ThunkyPlan *own) {
  if (own)
    free(own->thunks), free(own);
}

static bool share(ThunkyRunSide *a, ThunkyRunSide *b, ThunkyPlan **ownA, ThunkyPlan **ownB) {
  ThunkyHashMap shown = {0};
  bool ok = true;
  for (int side = 0; side < 2 && ok; side++) {
    const ThunkyPlan *p = side ? b->plan : a->plan;
    for (uint32_t i = 0; i < p->numThunks && ok; i++) {
      uint32_t known, written = p->thunks[i].written;
      if (written == THUNKY_WRITTEN_UNKNOWN || p->thunks[i].exchange)
        continue;
      if (thunkyHashMapGet(&shown, p->thunks[i].key, &known) && known != written)
        written = THUNKY_WRITTEN_UPDATED;
      ok = thunkyHashMapPut(&shown, p->thunks[i].key, written);
    }
  }
  ok = ok && learn(a, &shown, ownA) && learn(b, &shown, ownB);
  thunkyHashMapDestroy(&shown);
  return ok;
}

/* A fingerprint run follows one path: where a loop or conditional decides
 * on bytes, its `same` holds for that path only, so the comparison is made
 * on symbols too, where loops and conditionals are taken as functions, and
 * `same` needs both. */
int thunkyCompareRuns(const ThunkyBackendOps *backend, const ThunkyRunSide *sideA,
                      const ThunkyRunSide *sideB, const ThunkyInputs *inputs, FILE *out,
                      ThunkyError *error) {
  ThunkyRunSide sharedA = *sideA, sharedB = *sideB, *a = &sharedA, *b = &sharedB;
  ThunkyPlan *ownA = NULL, *ownB = NULL;
  if (!share(a, b, &ownA, &ownB)) {
    forget(ownA), forget(ownB);
    return thunkyErrorf(error, "out of memory"), 2;
  }
  bool both = false;
  int status = compareSchedules(backend, a, b, inputs, out, &both, error);
  bool paths = status == 0 && !backend->contents && a->config.fingerprint &&
               (decidesOnBytes(a->plan) || decidesOnBytes(b->plan));
  if (paths && (status = compareSchedules(&thunkySymbolicBackend, a, b, NULL, out, &both,
                                          error)) == 2)
    thunkyErrorContext(error, "cannot prove: the fingerprint run follows one path of a loop or "
                              "conditional that decides on bytes, and on symbols");
  if (status == 0)
    fprintf(out, "same: %u output(s)%s on %u rank(s), %s%s%s\n", a->plan->numOutputs,
            exchanges(a->plan) || exchanges(b->plan) ? " and what each rank sends" : "",
            a->config.ranks ? a->config.ranks : 1,
            backend->contents ? "term for term" : "bit for bit",
            paths ? " and term for term (a loop or conditional decides on bytes)" : "",
            both ? ", with async regions at their start and at their done" : "");
  forget(ownA), forget(ownB);
  return status;
}

/* For each async start, the command index of its done (the first done of
 * its slot after it in its list), else UINT32_MAX: one walk of each list.
 * NULL when out of memory; the caller frees it. */
static uint32_t *donesOf(const ThunkyPlan *plan) {
  uint32_t *done = malloc((plan->numCommands + 1) * sizeof *done);
  uint32_t *open = malloc((plan->numAsyncSlots + 1) * sizeof *open);
  if (!done || !open)
    return free(done), free(open), NULL;
  for (uint32_t i = 0; i < plan->numCommands; i++)
    done[i] = UINT32_MAX;
  for (uint32_t l = 0; l < plan->numLists; l++) {
    ThunkyRange list = plan->lists[l];
    for (uint32_t k = 0; k < plan->numAsyncSlots; k++)
      open[k] = UINT32_MAX;
    for (uint32_t i = list.first; i < list.first + list.count; i++) {
      const ThunkyCommand *c = &plan->commands[i];
      if (c->kind == THUNKY_CMD_ASYNC_START && c->asyncStart.slot < plan->numAsyncSlots)
        open[c->asyncStart.slot] = i;
      else if (c->kind == THUNKY_CMD_ASYNC_DONE && c->asyncDone.slot < plan->numAsyncSlots &&
               open[c->asyncDone.slot] != UINT32_MAX)
        done[open[c->asyncDone.slot]] = i, open[c->asyncDone.slot] = UINT32_MAX;
    }
  }
  free(open);
  return done;
}

/* Byte ranges a command touches, with what it does to them. */
typedef struct Touches {
  ThunkyPlanAccess *items;
  size_t count, capacity;
  bool failed;
} Touches;

static void touchList(const ThunkyPlan *p, uint32_t list, Touches *t);

/* Its thunk's accesses, and those of every list it runs. */
static void touchCommand(const ThunkyPlan *p, const ThunkyCommand *c, Touches *t) {
  ThunkyRange own = p->thunks[c->thunk].accesses;
  for (uint32_t i = 0; i < own.count && !t->failed; i++) {
    if (!thunkyArrayGrow((void **)&t->items, &t->capacity, t->count, sizeof *t->items)) {
      t->failed = true;
      return;
    }
    t->items[t->count++] = p->accesses[own.first + i];
  }
  switch (c->kind) {
  case THUNKY_CMD_CONDITIONAL:
    for (uint32_t b = 0; b < c->conditional.branches.count; b++)
      touchList(p, p->ids[c->conditional.branches.first + b], t);
    break;
  case THUNKY_CMD_WHILE:
    touchList(p, c->loop.condition, t), touchList(p, c->loop.body, t);
    break;
  case THUNKY_CMD_ASYNC_START:
    touchList(p, c->asyncStart.list, t);
    break;
  case THUNKY_CMD_COLLECTIVE_GROUP:
    touchList(p, c->group.list, t);
    break;
  default:
    break;
  }
}

static void touchList(const ThunkyPlan *p, uint32_t list, Touches *t) {
  ThunkyRange r = p->lists[list];
  for (uint32_t i = 0; i < r.count && !t->failed; i++)
    touchCommand(p, &p->commands[r.first + i], t);
}

/* Byte ranges the search for the ops that touch a region's bytes may
 * collect and pairs of them it may look at, together: regions whose
 * windows overlap see the same ops again, so without a bound the search
 * could cost the regions times the ops. */
enum { CONFLICT_BUDGET = 1 << 24 };

static void charge(uint64_t *budget, size_t n) { *budget -= n < *budget ? n : *budget; }

/* Whether two sets of ranges overlap where one writes, counting the pairs
 * looked at against *budget; false, with *budget 0, when it ran out. */
static bool conflict(const Touches *x, const Touches *y, uint64_t *budget) {
  for (size_t i = 0; i < x->count && *budget; i++)
    for (size_t j = 0; j < y->count && *budget; j++) {
      charge(budget, 1);
      const ThunkyPlanSlice *a = &x->items[i].slice, *b = &y->items[j].slice;
      if (a->allocation == b->allocation && a->offset < b->offset + b->size &&
          b->offset < a->offset + a->size &&
          ((x->items[i].access | y->items[j].access) & THUNKY_ACCESS_WRITE))
        return true;
    }
  return false;
}

int thunkyCompareLateRegions(const ThunkyBackendOps *backend, const ThunkyRunSide *side,
                             const ThunkyInputs *inputs, FILE *out, uint32_t most,
                             uint32_t *explored, uint32_t *total, bool *complete,
                             ThunkyError *error) {
  const ThunkyPlan *p = side->plan;
  uint32_t *done = donesOf(p);
  FILE *sink = done ? fopen("/dev/null", "w") : NULL;
  if (!sink)
    return free(done), thunkyErrorf(error, "out of memory"), 2;
  ThunkyRunSide early = *side;
  early.config.asyncAtDone = false, early.config.oneSchedule = true;
  *explored = *total = 0, *complete = true;
  uint64_t budget = CONFLICT_BUDGET;
  Touches region = {0}, op = {0};
  int status = 0;
  for (uint32_t s = 0; s < p->numCommands && status == 0 && *complete; s++) {
    if (p->commands[s].kind != THUNKY_CMD_ASYNC_START || done[s] == UINT32_MAX)
      continue;
    region.count = 0;
    touchList(p, p->commands[s].asyncStart.list, &region);
    charge(&budget, region.count);
    /* Just after each op beside it that touches its bytes; just after the
     * last op, it runs at its done: the other schedule, run already. */
    for (uint32_t x = s + 1; x < done[s] && status == 0; x++) {
      op.count = 0;
      touchCommand(p, &p->commands[x], &op);
      charge(&budget, op.count);
      if (region.failed || op.failed) {
        status = 2, thunkyErrorf(error, "out of memory");
        break;
      }
      bool touches = budget && conflict(&region, &op, &budget);
      if (!budget) {
        *complete = false;
        break;
      }
      if (!touches)
        continue;
      if (++*total > most) {
        *complete = false;
        continue;
      }
      ++*explored;
      if (x + 1 == done[s])
        continue;
      char startName[200], afterName[200], name[600];
      thunkyPlanThunkName(p, p->commands[s].thunk, startName, sizeof startName);
      thunkyPlanThunkName(p, p->commands[x].thunk, afterName, sizeof afterName);
      snprintf(name, sizeof name, "the run with the region of %s run just after %s", startName,
               afterName);
      ThunkyRunSide late = early;
      late.name = name;
      late.config.lateRegion = s + 1, late.config.lateBefore = x + 1;
      status = thunkyCompareRuns(backend, &early, &late, inputs, sink, error);
      if (status == 1)
        thunkyCompareRuns(backend, &early, &late, inputs, out, error);
    }
  }
  free(region.items), free(op.items);
  fclose(sink);
  free(done);
  return status;
}
