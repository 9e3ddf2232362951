/*===- fuzz_programs.c - programs written to break the passes and checks -===*
 *
 * The input is a list of choices. From them a grammar writes a valid thunk
 * program: copies, memsets, kernels that compute for real
 * (test/Runtime/Inputs/test_kernels.c: in-place updates, partial writes,
 * reductions), conditionals with empty branches and branch indices computed
 * from the inputs, loops of zero to three iterations, async regions on two
 * streams, and all-reduce, all-gather, reduce-scatter, all-to-all and
 * collective-permute on 1, 2, 4 or 8 ranks, over values in scratch slices and
 * slices of slices at offsets that are not 64-byte aligned. The grammar
 * reads only bytes something wrote, so every program it writes means one
 * thing on a GPU.
 *
 * Each program runs with the real kernels on two inputs, with scratch
 * starting as two contents, with its async regions at their start and at
 * their done. Then:
 *  - outputs that change with the schedule are a race, which
 *    thunky-check-races must report;
 *  - on a race-free program every pass, and thunky-optimize, must keep every
 *    output of every run bit for bit, make no race, and put no two
 *    collectives in flight together where none were;
 *  - each of four mutants, the program with one statement left out (the
 *    last choice picks the first), is compared with it: where the real runs differ, neither `thunky-run
 *    --compare` on fingerprints nor on symbols may say `same`, unless the
 *    program holds a kernel outside the checks' model (docs/checking.md: a
 *    partial write, an in-place update of scratch where no HLO says so).
 * A broken promise aborts, showing the module(s), so the fuzzer keeps it.
 *
 *===--------------------------------------------------------------------===*/
#include "fuzz_mlir.h"

#include "thunky-c/runtime/Compare.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/passes/Passes.h"


#include <stdarg.h>
#include <string.h>

/* thunky_register_v1: test_kernels.c, declared in thunky-c/runtime/Runtime.h. */

/*--- the grammar -------------------------------------------------------------*/

enum {
  INPUTS = 2, OUTPUTS = 2, SCRATCH = 6, SLOTS = INPUTS + OUTPUTS + SCRATCH,
  VALUE = 16,         /* bytes of every value: f32[4] */
  DEPTH = 2,          /* loops and conditionals nest this deep */
  STATEMENTS = 40,    /* at most, in all */
  MAX_ITERATIONS = 3, /* a loop's trip count: 0 to this */
};

typedef struct Defined {
  bool slot[SLOTS];
} Defined;

typedef struct Gen {
  const uint8_t *data;
  size_t size, at;
  ThunkyBuffer *text; /* NULL: choose only (the statement count) */
  uint32_t ranks;
  int omit;       /* the statement left out, -1: none */
  int statements; /* numbered as chosen */
  int names;      /* fresh SSA names */
  int mute;       /* > 0: inside the statement left out */
  bool exact;     /* hold no kernel outside the checks' model */
  bool inexact;   /* holds one */
  bool inAsync;   /* in an async region */
  bool beside;    /* beside one */
} Gen;

static unsigned pick(Gen *g, unsigned n) {
  unsigned v = g->at < g->size ? g->data[g->at++] : 0;
  return n > 1 ? v % n : 0;
}

static bool exhausted(const Gen *g) {
  return g->at >= g->size || g->statements >= STATEMENTS;
}

static void emit(Gen *g, int depth, const char *format, ...) {
  if (!g->text || g->mute)
    return;
  char line[1024];
  int indent = 4 + 2 * depth;
  memset(line, ' ', (size_t)indent);
  va_list args;
  va_start(args, format);
  vsnprintf(line + indent, sizeof line - (size_t)indent, format, args);
  va_end(args);
  if (!thunkyBufferAppend(g->text, line, strlen(line)) || !thunkyBufferAppend(g->text, "\n", 1))
    abort();
}

static const char *slotName(int slot, char *out) {
  static const char *const fixed[] = {"%in0", "%in1", "%out0", "%out1"};
  if (slot < INPUTS + OUTPUTS)
    return fixed[slot];
  snprintf(out, 16, "%%v%d", slot);
  return out;
}

static bool isScratch(int slot) { return slot >= INPUTS + OUTPUTS; }

/* A slot something wrote (inputs always), other than `not`, or -1. */
static int readable(Gen *g, const Defined *d, int not) {
  int choices[SLOTS], n = 0;
  for (int s = 0; s < SLOTS; s++)
    if (s != not && d->slot[s])
      choices[n++] = s;
  return n ? choices[pick(g, (unsigned)n)] : -1;
}

/* A slot a statement may write (never an input), other than the two. */
static int writable(Gen *g, int not1, int not2) {
  int choices[SLOTS], n = 0;
  for (int s = INPUTS; s < SLOTS; s++)
    if (s != not1 && s != not2)
      choices[n++] = s;
  return choices[pick(g, (unsigned)n)];
}

static const char *const buf16 = "!thunky.buffer<16>";

static void launch(Gen *g, int depth, const char *kernel, int n, const int *slots,
                   const char *written) {
  char names[3][16], args[96] = "", types[96] = "";
  for (int i = 0; i < n; i++) {
    strcat(args, slotName(slots[i], names[i]));
    strcat(types, buf16);
    if (i + 1 < n)
      strcat(args, ", "), strcat(types, ", ");
  }
  emit(g, depth, "thunky.launch \"%s\"(%s : %s) <grid = [1, 1, 1], block = [4, 1, 1], "
                 "written = [%s]>", kernel, args, types, written);
}

static void statements(Gen *g, int depth, Defined *d, int most);

/* Whether the in-place update of `slot` is one the checks model: of an
 * output, not of scratch (docs/checking.md). */
static bool modelled(Gen *g, int slot) {
  if (g->exact && isScratch(slot))
    return false;
  g->inexact |= isScratch(slot);
  return true;
}

/* A kernel: out of place, in place, a partial write or a reduction. Half
 * the programs keep to what the checks model, so that their verdicts can be
 * put to the test. */
static void kernel(Gen *g, int depth, Defined *d) {
  unsigned which = pick(g, g->exact ? 6 : 7);
  int a = readable(g, d, -1);
  int slots[3];
  switch (which) {
  case 0: case 1: case 2: { /* add_one, add_two, reduce_sum: out = f(a) */
    static const char *const names[] = {"add_one_fusion", "add_two_fusion", "reduce_sum_f32"};
    slots[0] = a, slots[1] = writable(g, a, -1);
    launch(g, depth, names[which], 2, slots, "false, true");
    d->slot[slots[1]] = true;
    return;
  }
  case 3: { /* out = a + b */
    int b = readable(g, d, -1);
    slots[0] = a, slots[1] = b, slots[2] = writable(g, a, b);
    launch(g, depth, "add_f32", 3, slots, "false, false, true");
    d->slot[slots[2]] = true;
    return;
  }
  case 4: { /* out += a, in place */
    int out = readable(g, d, a);
    if (out < INPUTS || !modelled(g, out))
      return;
    slots[0] = a, slots[1] = out;
    launch(g, depth, "accumulate_f32", 2, slots, "false, true");
    return;
  }
  case 5: { /* x += 1, in place */
    if (a < INPUTS || !modelled(g, a))
      return;
    launch(g, depth, "increment_f32", 1, &a, "true");
    return;
  }
  default: /* the first half of out = 2 a; the rest stays */
    slots[0] = a, slots[1] = writable(g, a, -1);
    g->inexact = true;
    launch(g, depth, "write_head_f32", 2, slots, "false, true");
    return;
  }
}

static void collective(Gen *g, int depth, Defined *d) {
  char x[16], y[16];
  int a = readable(g, d, -1), share = VALUE / (int)g->ranks;
  unsigned which = pick(g, 5);
  if (share < 4 && (which == 1 || which == 2 || which == 4))
    which = 0; /* on 8 ranks a share is less than an f32 */
  /* An all-reduce may reduce in place. */
  int b = writable(g, which == 0 && pick(g, 4) == 0 ? -1 : a, -1);
  switch (which) {
  case 0:
    emit(g, depth, "thunky.all_reduce %s, %s <reduction_kind = \"sum\", element_type = f32, "
                   "replica_groups = [], group_mode = \"cross_replica\"> : <16>, <16>",
         slotName(a, x), slotName(b, y));
    d->slot[b] = true;
    return;
  case 1:
    emit(g, depth, "thunky.all_gather %%h%d, %s <element_type = f32, replica_groups = [], "
                   "group_mode = \"cross_replica\"> : <%d>, <16>", a, slotName(b, y), share);
    d->slot[b] = true;
    return;
  case 2: /* writes b's head: b is defined only if it was */
    emit(g, depth, "thunky.reduce_scatter %s, %%h%d <reduction_kind = \"sum\", "
                   "element_type = f32, replica_groups = [], group_mode = \"cross_replica\"> : "
                   "<16>, <%d>", slotName(a, x), b, share);
    return;
  case 4:
    emit(g, depth, "thunky.all_to_all(%s), (%s) <element_type = f32, replica_groups = [], "
                   "group_mode = \"cross_replica\", has_split_dimension = true> : "
                   "(!thunky.buffer<16>), (!thunky.buffer<16>)", slotName(a, x), slotName(b, y));
    d->slot[b] = true;
    return;
  default: {
    bool back = pick(g, 2);
    char pairs[8 * 32] = "";
    for (uint32_t r = 0, at = 0; r < g->ranks; r++) {
      uint32_t to = back ? (r + g->ranks - 1) % g->ranks : (r + 1) % g->ranks;
      at += (uint32_t)snprintf(pairs + at, sizeof pairs - at, "%sarray<i64: %u, %u>",
                               r ? ", " : "", r, to);
    }
    emit(g, depth, "thunky.collective_permute %s, %s <element_type = f32, source_target_pairs "
                   "= [%s], group_mode = \"cross_replica\"> : <16>, <16>",
         slotName(a, x), slotName(b, y), pairs);
    d->slot[b] = true;
  }
  }
}

/* A conditional: a constant index (in range or not), or, on one rank, a
 * predicate computed from values (every rank must take one path). */
static void conditional(Gen *g, int depth, Defined *d) {
  int name = g->names++;
  if (g->ranks == 1 && pick(g, 2)) {
    int a = readable(g, d, -1), b = readable(g, d, -1);
    emit(g, depth, "thunky.launch \"less_than\"(%%q%d, %%q%d, %%cp%d : !thunky.buffer<4>, "
                   "!thunky.buffer<4>, !thunky.buffer<1>) <grid = [1, 1, 1], block = [1, 1, 1], "
                   "written = [false, false, true]>", a, b, depth);
    emit(g, depth, "thunky.cond %%cp%d : <1> {", depth);
  } else {
    emit(g, depth, "%%c%d = thunky.constant <value = \"\\0%u\\00\\00\\00\"> : <4>", name,
         pick(g, 3));
    emit(g, depth, "thunky.cond %%c%d : <4> {", name);
  }
  /* Each branch starts from what was written before; after it, only what
   * both wrote is. */
  Defined first = *d, second = *d;
  statements(g, depth + 1, &first, (int)pick(g, 4));
  emit(g, depth, "}, {");
  statements(g, depth + 1, &second, (int)pick(g, 3));
  emit(g, depth, "}");
  for (int s = 0; s < SLOTS; s++)
    d->slot[s] = first.slot[s] && second.slot[s];
}

/* A counted loop: its counter and predicate live in scratch of their own. */
static void loop(Gen *g, int depth, Defined *d) {
  int name = g->names++;
  emit(g, depth, "thunky.memset32 %%cnt%d, 0 : <4>", depth);
  emit(g, depth, "%%lim%d = thunky.constant <value = \"\\0%u\\00\\00\\00\"> : <4>", name,
       pick(g, MAX_ITERATIONS + 1));
  emit(g, depth, "thunky.while %%lp%d : <1> cond {", depth);
  emit(g, depth + 1, "thunky.launch \"less_than\"(%%cnt%d, %%lim%d, %%lp%d : !thunky.buffer<4>, "
                     "!thunky.buffer<4>, !thunky.buffer<1>) <grid = [1, 1, 1], block = [1, 1, 1], "
                     "written = [false, false, true]>", depth, name, depth);
  emit(g, depth, "} body {");
  /* The body may run no time: what it writes is not written after it. */
  Defined body = *d;
  statements(g, depth + 1, &body, 1 + (int)pick(g, 4));
  emit(g, depth + 1, "thunky.launch \"increment\"(%%cnt%d : !thunky.buffer<4>) <grid = [1, 1, 1], "
                     "block = [1, 1, 1], written = [true]>", depth);
  emit(g, depth, "}");
}

/* An async region, statements beside it, and its done. Left out, the start
 * and the done go, the statements beside stay. */
static void async(Gen *g, int depth, Defined *d, bool muted) {
  int name = g->names++;
  emit(g, depth, "%%t%d = thunky.async_start stream = %u {", name, 1 + pick(g, 2));
  Defined region = *d, beside = *d;
  g->inAsync = true;
  statements(g, depth + 1, &region, 1 + (int)pick(g, 3));
  g->inAsync = false;
  emit(g, depth, "} : !thunky.token");
  g->mute -= muted, g->beside = true;
  statements(g, depth, &beside, (int)pick(g, 3));
  g->mute += muted, g->beside = false;
  emit(g, depth, "thunky.async_done %%t%d : !thunky.token", name);
  for (int s = 0; s < SLOTS; s++)
    d->slot[s] = region.slot[s] || beside.slot[s];
}

static void statement(Gen *g, int depth, Defined *d) {
  bool muted = g->statements++ == g->omit;
  g->mute += muted;
  char x[16], y[16];
  unsigned kind = pick(g, 11);
  bool nests = depth < DEPTH;
  switch (kind) {
  case 0: case 1: { /* copy */
    int a = readable(g, d, -1), b = writable(g, a, -1);
    emit(g, depth, "thunky.copy %s, %s : %s, %s", slotName(a, x), slotName(b, y), buf16, buf16);
    d->slot[b] = true;
    break;
  }
  case 2: { /* memset or memzero */
    int b = writable(g, -1, -1);
    if (pick(g, 2))
      emit(g, depth, "thunky.memzero %s : <16>", slotName(b, x));
    else
      emit(g, depth, "thunky.memset32 %s, %u : <16>", slotName(b, x), 0x3f800000u + pick(g, 4));
    d->slot[b] = true;
    break;
  }
  case 7: /* regions hold no conditional */
    if (nests && !g->inAsync) {
      conditional(g, depth, d);
      break;
    }
    kernel(g, depth, d);
    break;
  case 8:
    if (g->ranks > 1) {
      collective(g, depth, d);
      break;
    }
    kernel(g, depth, d);
    break;
  case 9: case 10: /* an async region only at the top, not beside another */
    if (kind == 10 && depth == 0 && !g->inAsync && !g->beside) {
      async(g, depth, d, muted);
      break;
    }
    if (nests) {
      loop(g, depth, d);
      break;
    }
    kernel(g, depth, d);
    break;
  default:
    kernel(g, depth, d);
    break;
  }
  g->mute -= muted;
}

static void statements(Gen *g, int depth, Defined *d, int most) {
  for (int i = 0; i < most && !exhausted(g); i++)
    statement(g, depth, d);
}

/* The whole program; returns the number of statements it chose. */
static int program(Gen *g) {
  g->ranks = (uint32_t[]){1, 2, 4, 8}[pick(g, 4)];
  g->exact = pick(g, 2);
  int pad = 8 * (int)pick(g, 2), nested = (int)pick(g, 8);
  int scratchBytes = pad + SCRATCH * VALUE;
  emit(g, -2, "module {");
  emit(g, -1, "func.func @main(");
  for (int i = 0; i < INPUTS; i++)
    emit(g, 2, "%%in%d: !thunky.buffer<16> {thunky.role = \"parameter %d\", thunky.shape = "
               "tensor<4xf32>},", i, i);
  for (int i = 0; i < OUTPUTS; i++)
    emit(g, 2, "%%out%d: !thunky.buffer<16> {thunky.role = \"output {%d}\", thunky.shape = "
               "tensor<4xf32>},", i, i);
  emit(g, 2, "%%s: !thunky.buffer<%d> {thunky.role = \"scratch\"},", scratchBytes);
  emit(g, 2, "%%ctl: !thunky.buffer<%d> {thunky.role = \"scratch\"}) {", 16 * (DEPTH + 1));
  /* Values in scratch, some through a 32-byte slice (a slice of a slice). */
  for (int k = 0; k < SCRATCH; k += 2) {
    int at = pad + k * VALUE;
    if (nested >> (k / 2) & 1) {
      emit(g, 0, "%%w%d = thunky.slice_buffer %%s offset = %d : <%d> -> <32>", k, at,
           scratchBytes);
      for (int j = 0; j < 2; j++)
        emit(g, 0, "%%v%d = thunky.slice_buffer %%w%d offset = %d : <32> -> <16>",
             INPUTS + OUTPUTS + k + j, k, 16 * j);
    } else {
      for (int j = 0; j < 2; j++)
        emit(g, 0, "%%v%d = thunky.slice_buffer %%s offset = %d : <%d> -> <16>",
             INPUTS + OUTPUTS + k + j, at + 16 * j, scratchBytes);
    }
  }
  /* Each value's first element (a loop or branch reads it as s32) and its
   * share of a collective. */
  for (int s = 0; s < SLOTS; s++) {
    char x[16];
    emit(g, 0, "%%q%d = thunky.slice_buffer %s offset = 0 : <16> -> <4>", s, slotName(s, x));
    if (g->ranks > 1 && VALUE / g->ranks >= 4)
      emit(g, 0, "%%h%d = thunky.slice_buffer %s offset = 0 : <16> -> <%u>", s, slotName(s, x),
           VALUE / g->ranks);
  }
  for (int d = 0; d <= DEPTH; d++) {
    emit(g, 0, "%%cnt%d = thunky.slice_buffer %%ctl offset = %d : <%d> -> <4>", d, 16 * d,
         16 * (DEPTH + 1));
    emit(g, 0, "%%lp%d = thunky.slice_buffer %%ctl offset = %d : <%d> -> <1>", d, 16 * d + 4,
         16 * (DEPTH + 1));
    emit(g, 0, "%%cp%d = thunky.slice_buffer %%ctl offset = %d : <%d> -> <1>", d, 16 * d + 8,
         16 * (DEPTH + 1));
  }
  Defined d = {{true, true}};
  statements(g, 0, &d, STATEMENTS);
  /* Every output ends as a function of the values. */
  for (int o = INPUTS; o < INPUTS + OUTPUTS; o++) {
    bool muted = g->statements++ == g->omit;
    g->mute += muted;
    int slots[3] = {readable(g, &d, o), readable(g, &d, o), o};
    if (!d.slot[o] || pick(g, 2))
      launch(g, 0, "add_f32", 3, slots, "false, false, true");
    g->mute -= muted;
  }
  emit(g, 0, "return");
  emit(g, -1, "}");
  emit(g, -2, "}");
  return g->statements;
}

/*--- running -----------------------------------------------------------------*/

enum { SEEDS = 2, FILLS = 2, SCHEDULES = 2, RUNS = SEEDS * FILLS * SCHEDULES, MUTANTS = 4 };

/* Every output of every rank after each run, one after another. */
typedef struct Results {
  uint8_t *bytes[RUNS];
  size_t size;
} Results;

static void resultsFree(Results *r) {
  for (int i = 0; i < RUNS; i++)
    free(r->bytes[i]);
  *r = (Results){0};
}

static ThunkyRegistry *kernels(void) {
  static ThunkyRegistry *registry;
  ThunkyError error;
  if (!registry && (!(registry = thunkyRegistryCreate()) || !thunky_register_v1(registry, &error)))
    abort();
  return registry;
}

static ThunkyRunConfig configFor(uint32_t ranks, int run, const ThunkyRegistry *registry) {
  return (ThunkyRunConfig){.ranks = ranks, .partitions = 1, .maxIterations = 64,
                           .maxHostMemory = 64 << 20, .registry = registry,
                           .undefinedInitial = true,
                           .scratchByte = (run / SCHEDULES) % FILLS ? 0xa5 : 0,
                           .asyncAtDone = run % SCHEDULES};
}

static uint64_t seedOf(int run) { return 1 + (uint64_t)(run / (SCHEDULES * FILLS)); }

/* Rank 0's inputs of a seeded run, as thunky-run --seed makes them. */
static bool inputsFor(const ThunkyPlan *plan, uint64_t seed, ThunkyNpyArray *arrays) {
  ThunkyError error;
  for (uint32_t i = 0; i < plan->numParameters; i++)
    if (!thunkyRandomInput(&plan->parameters[i], seed, i, &arrays[i], &error))
      return false;
  return true;
}

/* Runs `plan` every way with the real kernels; false (with why) when a run fails. */
static bool runAll(const ThunkyPlan *plan, uint32_t ranks, Results *out, ThunkyError *error) {
  uint64_t perRank = 0;
  for (uint32_t i = 0; i < plan->numOutputs; i++)
    perRank += plan->outputs[i].slice.size;
  out->size = perRank * ranks;
  for (int run = 0; run < RUNS; run++) {
    ThunkyRunConfig config = configFor(ranks, run, kernels());
    ThunkyNpyArray arrays[INPUTS] = {{0}};
    ThunkyInputs inputs = {arrays, true, seedOf(run)};
    void *state = NULL;
    bool ok = plan->numParameters <= INPUTS && inputsFor(plan, seedOf(run), arrays) &&
              (out->bytes[run] = malloc(out->size + 1)) != NULL &&
              thunkyHostBackend.create(plan, &config, &state, error) &&
              thunkyWriteInputs(&thunkyHostBackend, state, plan, ranks, &inputs, error) &&
              thunkyHostBackend.run(state, error);
    for (uint32_t r = 0, at = 0; ok && r < ranks; r++)
      for (uint32_t i = 0; ok && i < plan->numOutputs; i++) {
        ok = thunkyHostBackend.read(state, r, plan->outputs[i].slice, out->bytes[run] + at, error);
        at += plan->outputs[i].slice.size;
      }
    if (state)
      thunkyHostBackend.destroy(state);
    for (uint32_t i = 0; i < INPUTS; i++)
      thunkyNpyArrayDestroy(&arrays[i]);
    if (!ok)
      return false;
  }
  return true;
}

static bool sameRun(const Results *a, int i, const Results *b, int j) {
  return a->size == b->size && memcmp(a->bytes[i], b->bytes[j], a->size) == 0;
}

/* What a run of the target did, printed at exit when THUNKY_FUZZ_STATS=1. */
static struct {
  unsigned long programs, racy, rewrites, mutants, differing, verdicts;
} stats;

static void printStats(void) {
  fprintf(stderr, "programs: %lu generated, %lu with a race (each reported), %lu rewrites "
                  "compared over %d runs each; %lu mutants checked, %lu computing something "
                  "else, %lu verdicts of the checks tested\n",
          stats.programs, stats.racy, stats.rewrites, RUNS, stats.mutants, stats.differing,
          stats.verdicts);
}

/*--- MLIR ---------------------------------------------------------------------*/

typedef struct Diagnosed {
  int warnings;
} Diagnosed;

static void toStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static MlirLogicalResult countWarnings(MlirDiagnostic diagnostic, void *userData) {
  if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticWarning)
    ((Diagnosed *)userData)->warnings++;
  const char *verbose = getenv("THUNKY_FUZZ_VERBOSE");
  if (verbose && *verbose == '1')
    mlirDiagnosticPrint(diagnostic, toStderr, NULL), fputc('\n', stderr);
  return mlirLogicalResultSuccess();
}

static MlirOperation parse(MlirContext ctx, const ThunkyBuffer *text) {
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreate((const char *)text->data, text->size));
  return mlirModuleIsNull(m) ? (MlirOperation){NULL} : mlirModuleGetOperation(m);
}

static ThunkyPlan *planOf(MlirOperation module) {
  ThunkyBuffer bytes = {0};
  ThunkyPlan *plan = NULL;
  ThunkyLimits limits = thunkyLimitsDefault();
  ThunkyError error;
  if (mlirLogicalResultIsSuccess(thunkyExportExecutable(module, thunkyFuzzAppend, &bytes)) &&
      !thunkyPlanCreate(bytes.data, bytes.size, &limits, &plan, &error))
    plan = NULL;
  thunkyBufferDestroy(&bytes);
  return plan;
}

/* A broken promise: the program (and what it became), then abort. */
static void broken(const char *what, const ThunkyError *error, const ThunkyBuffer *original,
                   MlirOperation changed) {
  fprintf(stderr, "thunky fuzz: %s%s%s\nthunky fuzz: the program\n%.*s\n", what,
          error ? ": " : "", error ? error->message : "", (int)original->size,
          (const char *)original->data);
  thunkyFuzzFail(mlirOperationIsNull(changed) ? "(no rewrite)" : "what it became", changed);
}

static const char *const passes[] = {
    "thunky-elide-copies",        "thunky-fold-slices",
    "thunky-flatten-sequential",  "thunky-pack-scratch",
    "thunky-expand-async-scope",  "thunky-remove-redundant-async",
    "thunky-strip-metadata",      "thunky-optimize",
};

/* Every pass keeps what the race-free program computes on every run. */
static void checkPasses(MlirContext ctx, Diagnosed *diagnosed, const ThunkyBuffer *text,
                        uint32_t ranks, const Results *expected, int warnings) {
  for (size_t i = 0; i < sizeof passes / sizeof *passes; i++) {
    char pipeline[96], what[160];
    snprintf(pipeline, sizeof pipeline, "builtin.module(%s)", passes[i]);
    MlirOperation module = parse(ctx, text);
    if (!thunkyFuzzRunPipeline(ctx, module, pipeline))
      snprintf(what, sizeof what, "%s failed on a valid module", passes[i]),
          broken(what, NULL, text, module);
    diagnosed->warnings = 0;
    if (!thunkyFuzzRunPipeline(ctx, module, "builtin.module(thunky-check-races)"))
      snprintf(what, sizeof what, "%s made a race", passes[i]), broken(what, NULL, text, module);
    if (diagnosed->warnings > warnings)
      snprintf(what, sizeof what, "%s made a warning the program had not (collectives in flight "
                                  "together?)", passes[i]),
          broken(what, NULL, text, module);
    ThunkyPlan *plan = planOf(module);
    Results got = {0};
    ThunkyError error = {0};
    if (!plan)
      snprintf(what, sizeof what, "%s made a module that does not export", passes[i]),
          broken(what, NULL, text, module);
    if (!runAll(plan, ranks, &got, &error))
      snprintf(what, sizeof what, "%s made a program that fails", passes[i]),
          broken(what, &error, text, module);
    for (int run = 0; run < RUNS; run++)
      if (!sameRun(expected, run, &got, run)) {
        snprintf(what, sizeof what, "%s changed what the program computes (seed %llu, scratch "
                                    "%s, async regions at their %s)", passes[i],
                 (unsigned long long)seedOf(run), (run / SCHEDULES) % FILLS ? "0xa5" : "undefined",
                 run % SCHEDULES ? "done" : "start");
        broken(what, NULL, text, module);
      }
    resultsFree(&got);
    thunkyPlanDestroy(plan);
    mlirOperationDestroy(module);
    stats.rewrites++;
  }
}

/* Where the mutant computes something else on some run, neither check may
 * say `same`: on fingerprints, for the inputs of seed 1; on symbols, at all. */
static void checkChecks(const ThunkyBuffer *text, const ThunkyBuffer *mutantText,
                        const ThunkyPlan *original, const ThunkyPlan *mutant, uint32_t ranks,
                        const Results *expected, const Results *got) {
  bool differs[SEEDS] = {false};
  for (int run = 0; run < RUNS; run++)
    differs[seedOf(run) - 1] |= !sameRun(expected, run, got, run);
  stats.mutants++;
  if (!differs[0] && !differs[1])
    return;
  stats.differing++;
  ThunkyRegistry *none = thunkyRegistryCreate();
  if (!none)
    abort();
  ThunkyRunConfig config = {.ranks = ranks, .partitions = 1, .maxIterations = 64,
                            .maxHostMemory = 64 << 20, .registry = none, .fingerprint = true,
                            .undefinedInitial = true};
  ThunkyRunSide a = {"the program", original, config}, b = {"the mutant", mutant, config};
  ThunkyNpyArray arrays[INPUTS] = {{0}};
  ThunkyInputs inputs = {arrays, true, 1};
  FILE *sink = fopen("/dev/null", "w");
  ThunkyError error;
  if (!sink || !inputsFor(original, 1, arrays))
    abort();
  const char *wrong = NULL;
  if (differs[0] && thunkyCompareRuns(&thunkyHostBackend, &a, &b, &inputs, sink, &error) == 0)
    wrong = "the fingerprint check says same where the real runs differ";
  else if (thunkyCompareRuns(&thunkySymbolicBackend, &a, &b, NULL, sink, &error) == 0)
    wrong = "the symbolic check says same where the real runs differ";
  stats.verdicts += 1 + differs[0];
  fclose(sink);
  for (uint32_t i = 0; i < INPUTS; i++)
    thunkyNpyArrayDestroy(&arrays[i]);
  thunkyRegistryDestroy(none);
  if (wrong) {
    fprintf(stderr, "thunky fuzz: the mutant\n%.*s\n", (int)mutantText->size,
            (const char *)mutantText->data);
    broken(wrong, NULL, text, (MlirOperation){NULL});
  }
}

/* The mutants: the program with one statement left out each, the last
 * byte of the input picking the first. */
static void checkMutants(MlirContext ctx, const uint8_t *data, size_t size, int count,
                         const ThunkyBuffer *text, const ThunkyPlan *plan, uint32_t ranks,
                         const Results *expected) {
  for (int j = 0; j < MUTANTS && j < count; j++) {
    ThunkyBuffer mutantText = {0};
    Gen m = {.data = data, .size = size - 1, .text = &mutantText,
             .omit = (data[size - 1] + j * (count / MUTANTS + 1)) % count};
    program(&m);
    MlirOperation mutant = parse(ctx, &mutantText);
    if (mlirOperationIsNull(mutant))
      broken("the grammar wrote a mutant that does not parse or verify", NULL, &mutantText,
             mutant);
    ThunkyPlan *mutantPlan = planOf(mutant);
    Results got = {0};
    ThunkyError error;
    if (!mutantPlan)
      broken("the grammar's mutant does not export", NULL, &mutantText, mutant);
    if (thunkyFuzzRunPipeline(ctx, mutant, "builtin.module(thunky-check-races)") &&
        runAll(mutantPlan, ranks, &got, &error))
      checkChecks(text, &mutantText, plan, mutantPlan, ranks, expected, &got);
    resultsFree(&got);
    thunkyPlanDestroy(mutantPlan);
    mlirOperationDestroy(mutant);
    thunkyBufferDestroy(&mutantText);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool registered;
  if (!registered) {
    thunkyRegisterPasses(), registered = true;
    const char *wanted = getenv("THUNKY_FUZZ_STATS");
    if (wanted && *wanted == '1')
      atexit(printStats);
  }
  if (size < 2)
    return 0;
  stats.programs++;
  ThunkyBuffer text = {0};
  Gen g = {.data = data, .size = size - 1, .text = &text, .omit = -1};
  int count = program(&g);

  MlirContext ctx = mlirContextCreateWithThreading(false);
  thunkyContextLoadDialects(ctx);
  Diagnosed diagnosed = {0};
  mlirContextAttachDiagnosticHandler(ctx, countWarnings, &diagnosed, NULL);
  MlirOperation module = parse(ctx, &text);
  if (mlirOperationIsNull(module))
    broken("the grammar wrote a module that does not parse or verify", NULL, &text, module);
  ThunkyPlan *plan = planOf(module);
  if (!plan)
    broken("the grammar's module does not export", NULL, &text, module);
  Results expected = {0};
  ThunkyError error = {0};
  if (!runAll(plan, g.ranks, &expected, &error))
    broken("the grammar's program fails", &error, &text, module);
  /* The grammar reads only what was written: scratch's start never shows. */
  for (int run = 0; run < RUNS; run++)
    if (!sameRun(&expected, run, &expected, run ^ SCHEDULES))
      broken("the grammar's program reads scratch nothing wrote", NULL, &text, module);
  diagnosed.warnings = 0;
  bool raceFree = thunkyFuzzRunPipeline(ctx, module, "builtin.module(thunky-check-races)");
  int warnings = diagnosed.warnings;
  bool racy = false;
  for (int run = 0; run < RUNS; run += SCHEDULES)
    racy |= !sameRun(&expected, run, &expected, run + 1);
  stats.racy += racy;
  if (racy && raceFree)
    broken("the outputs change with the schedule, and thunky-check-races reports no race", NULL,
           &text, module);
  if (raceFree)
    checkPasses(ctx, &diagnosed, &text, g.ranks, &expected, warnings);
  if (raceFree && !g.inexact)
    checkMutants(ctx, data, size, count, &text, plan, g.ranks, &expected);
  resultsFree(&expected);
  thunkyPlanDestroy(plan);
  mlirOperationDestroy(module);
  mlirContextDestroy(ctx);
  thunkyBufferDestroy(&text);
  return 0;
}
