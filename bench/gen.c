/*===- gen.c - synthetic XLA:GPU executables for benchmarks --------------===*
 *
 *   bench-gen --thunks N [--seed S] [--cubins K] [--cubin-bytes B] [--ranks R]
 *             [--profile NAME | --shape NAME] [--stats] -o FILE.pb
 *
 * Writes a bare xla.gpu.GpuExecutableProto with exactly N thunks, nested ones
 * included, shaped like what XLA at HEAD emits: mostly custom_kernel_thunk
 * with per-kernel cubins (K distinct blobs shared between kernels, as kernels
 * share modules), memzero and memset, device-to-device copies, collectives
 * (some in async start/done regions), while loops and conditionals with
 * nested sequences, replica ids; over parameters, outputs, constants and
 * temp allocations, every slice inside its allocation. The same arguments
 * give the same bytes.
 *
 * Memory stays bounded whatever N is: the allocations and the cubins are
 * made once, and each top-level thunk is built in its own ThunkyArena, packed,
 * written after the rest of the executable as one more field 13 and
 * forgotten. Protobuf concatenates repeated fields on the wire, so the file
 * is the message protobuf-c would have packed whole, in field order.
 *
 * Each custom_kernel_thunk carries its kernel's cubin on the wire (the schema
 * has no way to share one), so a file's size grows with N times the blob
 * size; --cubin-bytes makes blobs smaller for big N.
 *
 * --profile train-step draws from another mix, shaped like one training step
 * of a transformer (gemm_thunks, async collectives, long loops, kernel_thunks
 * whose code is the module's binary and PTX); bench/PROFILES.md has its
 * numbers and their sources. --profile synthetic is the default mix.
 *
 * --shape writes a crafted executable instead: N items (parameters, async
 * pairs, constants, kernel binaries or allocations) of one kind, so that a
 * cost growing faster than the count of one kind of item shows alone.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/base/Arena.h"
#include "thunky-c/base/ElementTypes.h"
#include "xla/backends/gpu/runtime/thunk.pb-c.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef Xla__Gpu__ThunkProto Thunk;
typedef Xla__BufferAssignment__BufferAllocationSliceProto Slice;

static const char usage[] =
    "usage: bench-gen --thunks N [--seed S] [--cubins K] [--cubin-bytes B]\n"
    "                 [--profile NAME | --shape NAME] [--ranks R] [--stats] -o FILE.pb\n"
    "  --thunks N       thunks in all, nested ones included; with --shape, N items\n"
    "  --seed S         PRNG seed (default 1); the same arguments give the same bytes\n"
    "  --cubins K       distinct cubin blobs (default max(4, N/250))\n"
    "  --cubin-bytes B  each blob holds B/2..B bytes (default 4096); with train-step,\n"
    "                   each kernel's code in the module's binary too\n"
    "  --ranks R        collectives over replica group {0, ..., R-1}, and R replicas\n"
    "                   recorded, so that runs and the model take R ranks (default 2)\n"
    "  --profile NAME   the mix: synthetic (the default), train-step (one training\n"
    "                   step of a transformer: bench/PROFILES.md) or llama3-8b (the\n"
    "                   same at Llama 3 8B's sizes: 128+ GB of allocations a rank)\n"
    "  --shape NAME     a crafted executable of N items of one kind instead of the mix:\n"
    "                   reverse-parameters  N 8-byte entry parameters, numbered in reverse\n"
    "                                       of allocation index, a memzero of each\n"
    "                   async-pairs         N/2 async start/done pairs, distinct ids, each\n"
    "                                       region one memzero\n"
    "                   async-overlapping   the same, every start before every done: N/2\n"
    "                                       regions in flight together\n"
    "                   constants           N 8-byte constants, each its own symbol and\n"
    "                                       content (and one memzero elsewhere)\n"
    "                   binaries            N custom kernel thunks, each its own 16-byte cubin\n"
    "                   allocations         N 8-byte temps, a memzero of each\n"
    "  --stats          print thunks per kind, depth and size to stderr\n"
    "  -o FILE          the executable (bare GpuExecutableProto); - is stdout\n";

/* Nested sequences (loop bodies, branches, async regions) go at most this
 * deep below the entry sequence. */
enum { MAX_DEPTH = 3 };
/* Async regions one sequence has in flight at once. */
enum { MAX_PENDING = 4 };
/* Arguments of a kernel, at most (a profile may use fewer). */
enum { MAX_ARGS = 8 };
/* Participants of every collective, unless --ranks says otherwise: one
 * replica group {0, ..., ranks - 1}. */
enum { DEFAULT_RANKS = 2 };

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  fputs("bench-gen: ", stderr);
  vfprintf(stderr, fmt, args);
  fputc('\n', stderr);
  va_end(args);
  exit(1);
}

/*--- randomness ----------------------------------------------------------*/

typedef struct {
  uint64_t state;
} Rng;

/* splitmix64: one multiply-xorshift step per draw, and a good mixer for
 * deriving independent streams from (seed, index). */
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t next(Rng *r) { return mix(r->state += 0x9e3779b97f4a7c15ull); }

/* Uniform in [0, n); the modulo bias is irrelevant at these sizes. */
static uint64_t below(Rng *r, uint64_t n) { return n ? next(r) % n : 0; }

static int64_t between(Rng *r, int64_t lo, int64_t hi) {
  return lo + (int64_t)below(r, (uint64_t)(hi - lo + 1));
}

static bool chance(Rng *r, unsigned percent) { return below(r, 100) < percent; }

/*--- memory -----------------------------------------------------------------*/

/* Zeroed memory from a ThunkyArena; out of memory is fatal here. */
static void *zalloc(ThunkyArena *a, size_t n) {
  void *p = thunkyArenaAlloc(a, n);
  if (!p)
    fatal("out of memory");
  return p;
}

static ThunkyArena *newArena(void) {
  ThunkyArena *a = thunkyArenaCreate();
  if (!a)
    fatal("out of memory");
  return a;
}

static char *printName(ThunkyArena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *printName(ThunkyArena *a, const char *fmt, ...) {
  char buffer[128];
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  if (n < 0 || (size_t)n >= sizeof buffer)
    fatal("name too long: %s", fmt);
  char *copy = thunkyArenaString(a, buffer, (size_t)n);
  if (!copy)
    fatal("out of memory");
  return copy;
}

static void *newMessage(ThunkyArena *a, const ProtobufCMessageDescriptor *desc) {
  void *m = zalloc(a, desc->sizeof_message);
  protobuf_c_message_init(desc, m);
  return m;
}

/*--- the generator's state ---------------------------------------------------*/

/* ALLOC_CONTROL is a temp that only loop counters, predicates and branch
 * indices live in: nothing rank-dependent (a replica id, a reduce-scatter's
 * share) is ever written there, so every rank takes the same branches and
 * meets the same collectives. ALLOC_ASYNC temps are where async regions
 * write, one per region that can be in flight at once (a slot per depth and
 * pending index) and nothing else touches, and they read only parameters,
 * which nothing writes: so no region races with the thunks beside it, as
 * in what XLA schedules. */
typedef enum {
  ALLOC_PARAMETER,
  ALLOC_OUTPUT,
  ALLOC_TUPLE,
  ALLOC_CONSTANT,
  ALLOC_TEMP,
  ALLOC_CONTROL,
  ALLOC_ASYNC,
  NUM_ALLOC_KINDS
} AllocKind;

/* An allocation, and the array a parameter, output or constant holds. */
typedef struct {
  AllocKind kind;
  uint64_t size;
  Xla__PrimitiveType type;
  uint64_t elements;
} Alloc;

/* What --stats counts, one entry per thunk kind written. */
typedef enum {
  STAT_KERNEL,
  STAT_MEMZERO,
  STAT_MEMSET,
  STAT_COPY,
  STAT_ALL_REDUCE,
  STAT_ALL_GATHER,
  STAT_REDUCE_SCATTER,
  STAT_ASYNC_START,
  STAT_ASYNC_DONE,
  STAT_WHILE,
  STAT_CONDITIONAL,
  STAT_REPLICA_ID,
  STAT_MODULE_KERNEL,
  STAT_GEMM,
  NUM_STATS
} Stat;

static const char *const statNames[NUM_STATS] = {
    "custom_kernel_thunk",  "memzero_thunk",    "memset32bit_value_thunk",
    "device_to_device_copy_thunk", "all_reduce_thunk", "all_gather_thunk",
    "reduce_scatter_thunk", "async_start_thunk", "async_done_thunk",
    "while_thunk",          "conditional_thunk", "replica_id_thunk",
    "kernel_thunk",         "gemm_thunk"};

typedef enum {
  KIND_KERNEL,
  KIND_MEMZERO,
  KIND_MEMSET,
  KIND_COPY,
  KIND_COLLECTIVE,
  KIND_ASYNC_COLLECTIVE,
  KIND_WHILE,
  KIND_CONDITIONAL,
  KIND_REPLICA_ID,
  KIND_GEMM
} Kind;

/* A kind's share of the thunks drawn, per thousand. */
typedef struct {
  Kind kind;
  unsigned perMille;
} Share;

/* What the executable looks like: the mix of thunks, the kernels, the
 * loops and async regions, the allocations. The tables (synthetic and
 * train-step) are below, with the mix. */
typedef struct {
  const char *name;
  const Share *mix;
  size_t mixLength;
  int maxArgs;              /* a kernel takes 2..maxArgs arguments */
  uint64_t thunksPerKernel; /* thunks per distinct kernel (16 kernels at least) */
  bool skewedKernels;       /* a few kernels launched often, most a few times */
  bool moduleKernels;       /* kernel_thunks whose code is the module's binary */
  unsigned ownCubinPercent; /* with moduleKernels: custom kernels, their own cubin */
  int64_t maxBody;          /* a while body holds 1..maxBody thunks ... */
  int64_t minBody;          /* ... and at least minBody when there is room */
  int64_t minTrips, maxTrips;
  int64_t doneLag;          /* an async done follows its start by 2..2 + doneLag thunks */
  unsigned allReducePercent, allGatherPercent; /* of collectives; reduce-scatter the rest */
  uint32_t minParams, maxParams, minOutputs, maxOutputs, minConstants, maxConstants;
  uint64_t thunksPerTemp; /* temps: 4 + thunks / thunksPerTemp, at most maxTemps */
  uint32_t maxTemps;
  int minLog2Elements, maxLog2Elements; /* of each parameter and output */
  unsigned f32Percent;                  /* parameters and outputs in f32, else bf16 */
  uint64_t bigTempBytes;                /* XLA's preallocated temp */
  /* A real model's arrays: then the parameters are each of them in each of
   * the element types, and the outputs their updated copies. */
  const uint64_t *modelArrays;
  size_t numModelArrays;
  const Xla__PrimitiveType *modelTypes;
  size_t numModelTypes;
} Profile;

typedef struct {
  const Profile *p;
  Rng rng;
  uint64_t seed;
  uint32_t ranks;       /* the replica group's size */
  ThunkyArena *scratch; /* the top-level thunk being built */
  ThunkyArena *keep;    /* the rest of the executable */
  Alloc *allocs;
  uint32_t numAllocs;
  uint32_t *byKind[NUM_ALLOC_KINDS]; /* allocation indices of each kind */
  uint32_t numByKind[NUM_ALLOC_KINDS];
  ProtobufCBinaryData *blobs; /* the distinct cubins */
  uint32_t numBlobs;
  uint64_t numKernels; /* distinct kernels the kernel thunks launch */
  ProtobufCBinaryData moduleBinary; /* their code, with p->moduleKernels */
  char *moduleText;                 /* and its PTX */
  int64_t nextThunkId;
  uint64_t nextAsyncId;
  uint64_t stats[NUM_STATS];
  int maxDepth;
  int enclosingInFlight; /* async regions in flight in the sequences around this one */
  FILE *out;
  uint8_t *packed; /* one top-level thunk on the wire */
  size_t packedCapacity;
  uint64_t bytesWritten;
} Gen;

/* proto3, as XLA writes it, leaves zeros out; so do these. */
static void setI64(protobuf_c_boolean *has, int64_t *field, int64_t value) {
  *field = value, *has = value != 0;
}

static void setU64(protobuf_c_boolean *has, uint64_t *field, uint64_t value) {
  *field = value, *has = value != 0;
}

/* What kernels read and write, by how often XLA's fusions use it. */
static Xla__PrimitiveType randomType(Rng *r) {
  static const Xla__PrimitiveType types[] = {
      XLA__PRIMITIVE_TYPE__F32, XLA__PRIMITIVE_TYPE__F32, XLA__PRIMITIVE_TYPE__F32,
      XLA__PRIMITIVE_TYPE__F32, XLA__PRIMITIVE_TYPE__F32, XLA__PRIMITIVE_TYPE__BF16,
      XLA__PRIMITIVE_TYPE__BF16, XLA__PRIMITIVE_TYPE__F16, XLA__PRIMITIVE_TYPE__S32,
      XLA__PRIMITIVE_TYPE__PRED};
  return types[below(r, sizeof types / sizeof *types)];
}

/* a, percent times in a hundred; b otherwise. */
static Xla__PrimitiveType either(Rng *r, unsigned percent, Xla__PrimitiveType a,
                                 Xla__PrimitiveType b) {
  return chance(r, percent) ? a : b;
}

/*--- shapes and slices -------------------------------------------------------*/

/* An array shape as XLA writes it (Shape::ToProto: the default layout,
 * dimensions major to minor, one is_dynamic_dimension flag each), a
 * power-of-two element count split over one to three dimensions. */
static Xla__ShapeProto *arrayShape(ThunkyArena *a, Rng *r, Xla__PrimitiveType type, uint64_t elements,
                                   int rank) {
  Xla__ShapeProto *s = newMessage(a, &xla__shape_proto__descriptor);
  s->has_element_type = true, s->element_type = type;
  s->n_dimensions = (size_t)rank;
  s->dimensions = zalloc(a, (size_t)(rank + 1) * sizeof *s->dimensions);
  bool powerOfTwo = (elements & (elements - 1)) == 0;
  uint64_t left = elements;
  for (int d = 0; d < rank - 1; d++) {
    int bits = 0;
    while (powerOfTwo && (left >> bits) > 1)
      bits++;
    uint64_t dim = UINT64_C(1) << between(r, 0, bits);
    s->dimensions[d] = (int64_t)dim;
    left /= dim;
  }
  if (rank > 0)
    s->dimensions[rank - 1] = (int64_t)left;
  s->n_is_dynamic_dimension = (size_t)rank;
  s->is_dynamic_dimension = zalloc(a, (size_t)(rank + 1) * sizeof *s->is_dynamic_dimension);
  Xla__LayoutProto *l = newMessage(a, &xla__layout_proto__descriptor);
  l->n_minor_to_major = (size_t)rank;
  l->minor_to_major = zalloc(a, (size_t)(rank + 1) * sizeof *l->minor_to_major);
  for (int d = 0; d < rank; d++)
    l->minor_to_major[d] = rank - 1 - d;
  l->has_tail_padding_alignment_in_elements = true;
  l->tail_padding_alignment_in_elements = 1;
  s->layout = l;
  return s;
}

/* A byte range of an allocation, and the array it holds. */
typedef struct {
  uint32_t alloc;
  uint64_t offset, size;
  Xla__PrimitiveType type;
  uint64_t elements;
} Span;

static Slice *slice(ThunkyArena *a, const Span *s, bool withType) {
  Slice *m = newMessage(a, &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor);
  setI64(&m->has_offset, &m->offset, (int64_t)s->offset);
  setI64(&m->has_size, &m->size, (int64_t)s->size);
  setI64(&m->has_buffer_allocation_index, &m->buffer_allocation_index, s->alloc);
  if (withType)
    m->has_element_type = true, m->element_type = s->type;
  return m;
}

/* The array a span holds: a scalar, or one to three dimensions. */
static Xla__ShapeProto *spanShape(Gen *g, const Span *s) {
  int rank = s->elements == 1 ? (int)below(&g->rng, 2) : (int)between(&g->rng, 1, 3);
  return arrayShape(g->scratch, &g->rng, s->type, s->elements, rank);
}

static Xla__ShapedSliceProto *shapedSlice(Gen *g, const Span *s) {
  ThunkyArena *a = g->scratch;
  Xla__ShapedSliceProto *m = newMessage(a, &xla__shaped_slice_proto__descriptor);
  m->slice = slice(a, s, true); /* XLA types the slice as its shape */
  m->shape = spanShape(g, s);
  return m;
}

/* A power of two of 16 to 64Ki elements, as kernels touch, halved until it
 * fits in `room`. */
static uint64_t pickElements(Rng *r, uint64_t room) {
  uint64_t want = UINT64_C(1) << between(r, 4, 16);
  while (want > room && want > 1)
    want /= 2;
  return want;
}

/* `elements` of `type` at a random 64-byte aligned offset of [lo, hi) in
 * allocation `a`; the caller made sure they fit. */
static Span spanAt(Gen *g, uint32_t a, uint64_t lo, uint64_t hi, Xla__PrimitiveType type,
                   uint64_t elements) {
  uint64_t size = elements * thunkyElementBytes(type);
  uint64_t slots = (hi - lo - size) / 64 + 1;
  return (Span){a, lo + below(&g->rng, slots) * 64, size, type, elements};
}

static Span wholeAlloc(const Gen *g, uint32_t a) {
  const Alloc *al = &g->allocs[a];
  return (Span){a, 0, al->size, al->type, al->elements};
}

/* A slice of `type` somewhere in allocation `a` (within [lo, hi)), of about
 * `elements`; parameters and outputs are often read or written whole, as
 * XLA's fusions do, and constants always are. */
static Span spanIn(Gen *g, uint32_t a, uint64_t lo, uint64_t hi, Xla__PrimitiveType type,
                   uint64_t elements, bool mayBeWhole) {
  const Alloc *al = &g->allocs[a];
  if (al->kind == ALLOC_CONSTANT ||
      (mayBeWhole && al->kind != ALLOC_TEMP && lo == 0 && hi == al->size && chance(&g->rng, 50)))
    return wholeAlloc(g, a);
  uint64_t room = (hi - lo) / thunkyElementBytes(type);
  while (elements > room && elements > 1)
    elements /= 2;
  return spanAt(g, a, lo, hi, type, elements);
}

static uint32_t allocOf(Gen *g, AllocKind kind) {
  return g->byKind[kind][below(&g->rng, g->numByKind[kind])];
}

/* Where a thunk reads: parameters, constants, or what earlier thunks wrote. */
static uint32_t readAlloc(Gen *g) {
  unsigned r = (unsigned)below(&g->rng, 100);
  return allocOf(g, r < 25 ? ALLOC_PARAMETER : r < 35 ? ALLOC_CONSTANT : ALLOC_TEMP);
}

/* Where a thunk writes: mostly temps, sometimes the program's outputs. */
static uint32_t writeAlloc(Gen *g) {
  return allocOf(g, chance(&g->rng, 15) ? ALLOC_OUTPUT : ALLOC_TEMP);
}

/* Byte ranges for a source and a destination that do not overlap: halves of
 * the allocation when both are in the same one. */
typedef struct {
  uint64_t lo, hi;
} Range;

static void disjoint(const Gen *g, uint32_t src, uint32_t dst, Range *s, Range *d) {
  uint64_t srcSize = g->allocs[src].size, dstSize = g->allocs[dst].size;
  *s = (Range){0, srcSize}, *d = (Range){0, dstSize};
  if (src == dst)
    s->hi = d->lo = srcSize / 2;
}

/* A small scalar in an allocation of `kind`. */
static Span scalarSpan(Gen *g, AllocKind kind, Xla__PrimitiveType type) {
  uint32_t a = allocOf(g, kind);
  return spanAt(g, a, 0, g->allocs[a].size, type, 1);
}

/*--- thunks ------------------------------------------------------------------*/

static Thunk *newThunk(Gen *g, Stat stat, const char *annotation) {
  ThunkyArena *a = g->scratch;
  Thunk *t = newMessage(a, &xla__gpu__thunk_proto__descriptor);
  Xla__Gpu__ThunkInfoProto *info = newMessage(a, &xla__gpu__thunk_info_proto__descriptor);
  int64_t id = ++g->nextThunkId;
  info->profile_annotation = printName(a, "%s.%" PRId64, annotation, id);
  info->has_thunk_id = true, info->thunk_id = id;
  t->thunk_info = info;
  g->stats[stat]++;
  return t;
}

/* A kernel of the executable: everything but its arguments' slices follows
 * from (seed, its number), so the many thunks that launch it agree without
 * a table of kernels. */
typedef struct {
  const char *kind;
  uint64_t number;
  int arity, writes; /* the last `writes` arguments are outputs */
  Xla__PrimitiveType types[MAX_ARGS];
  uint32_t blob;
  ProtobufCBinaryData cubin; /* its own bytes instead of blob's, when set */
  int64_t blocks, threads, sharedBytes;
  bool inModule; /* a kernel_thunk, its code in the module's binary */
} Kernel;

static Kernel kernel(const Gen *g, uint64_t number) {
  static const char *const kinds[] = {
      "loop_add_fusion",         "loop_multiply_fusion",    "loop_convert_fusion",
      "loop_select_fusion",      "loop_broadcast_fusion",   "loop_transpose_fusion",
      "loop_exponential_fusion", "loop_concatenate_fusion", "loop_dynamic_slice_fusion",
      "input_reduce_fusion",     "input_scatter_fusion",    "gemm_fusion_dot",
      "triton_softmax_fusion",   "fusion"};
  Rng r = {mix(g->seed ^ mix(number + 1))};
  Kernel k = {.kind = kinds[below(&r, sizeof kinds / sizeof *kinds)], .number = number};
  k.arity = (int)between(&r, 2, g->p->maxArgs);
  k.writes = k.arity > 3 && chance(&r, 30) ? 2 : 1;
  for (int i = 0; i < k.arity; i++)
    k.types[i] = randomType(&r);
  k.blob = (uint32_t)below(&r, g->numBlobs);
  k.blocks = INT64_C(1) << between(&r, 0, 14);
  k.threads = INT64_C(32) << between(&r, 0, 5);
  k.sharedBytes = chance(&r, 20) ? between(&r, 1, 48) * 1024 : 0;
  k.inModule = g->p->moduleKernels && !chance(&r, g->p->ownCubinPercent);
  return k;
}

/* Which kernel a launch runs: skewed, the low numbers far more often (as
 * elementwise converts and adds are), or uniform. */
static Kernel launchedKernel(Gen *g) {
  uint64_t n = g->numKernels;
  return kernel(g, g->p->skewedKernels ? below(&g->rng, 1 + below(&g->rng, n)) : below(&g->rng, n));
}

static char *kernelName(ThunkyArena *a, const Kernel *k) {
  return printName(a, "%s_%" PRIu64, k->kind, k->number);
}

static StreamExecutor__Dim3DProto *dim3(ThunkyArena *a, int64_t x) {
  StreamExecutor__Dim3DProto *d = newMessage(a, &stream_executor__dim3_dproto__descriptor);
  d->has_x = d->has_y = d->has_z = true;
  d->x = x, d->y = 1, d->z = 1;
  return d;
}

static Xla__Gpu__CustomKernelProto *customKernel(Gen *g, const Kernel *k) {
  ThunkyArena *a = g->scratch;
  Xla__Gpu__CustomKernelProto *ck = newMessage(a, &xla__gpu__custom_kernel_proto__descriptor);
  ck->name = kernelName(a, k);
  StreamExecutor__KernelLoaderSpecProto *spec =
      newMessage(a, &stream_executor__kernel_loader_spec_proto__descriptor);
  StreamExecutor__CudaCubinProto *cubin =
      newMessage(a, &stream_executor__cuda_cubin_proto__descriptor);
  cubin->has_data = true; /* shared, not copied */
  cubin->data = k->cubin.data ? k->cubin : g->blobs[k->blob];
  spec->payload_case = STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN;
  spec->cubin = cubin;
  spec->has_arity = true, spec->arity = k->arity;
  spec->kernel_name = ck->name;
  ck->kernel_spec = spec;
  ck->block_dims = newMessage(a, &stream_executor__block_dim_proto__descriptor);
  ck->block_dims->coordinates = dim3(a, k->blocks);
  ck->thread_dims = newMessage(a, &stream_executor__thread_dim_proto__descriptor);
  ck->thread_dims->coordinates = dim3(a, k->threads);
  setI64(&ck->has_shared_memory_bytes, &ck->shared_memory_bytes, k->sharedBytes);
  return ck;
}

/* A launch of module kernel `k` as XLA's KernelThunk::ToProto writes it:
 * typed slices and their shapes, the name the module's binary resolves,
 * and an always-present (empty) TMA metadata. */
static Thunk *moduleKernelLaunch(Gen *g, const Kernel *k, const Span *args) {
  ThunkyArena *a = g->scratch;
  Thunk *t = newThunk(g, STAT_MODULE_KERNEL, k->kind);
  Xla__Gpu__KernelThunkProto *kt = newMessage(a, &xla__gpu__kernel_thunk_proto__descriptor);
  kt->n_args = kt->n_args_shape = kt->n_written = (size_t)k->arity;
  kt->args = zalloc(a, (size_t)k->arity * sizeof *kt->args);
  kt->args_shape = zalloc(a, (size_t)k->arity * sizeof *kt->args_shape);
  kt->written = zalloc(a, (size_t)k->arity * sizeof *kt->written);
  for (int i = 0; i < k->arity; i++) {
    kt->args[i] = slice(a, &args[i], true);
    kt->args_shape[i] = spanShape(g, &args[i]);
    kt->written[i] = i >= k->arity - k->writes;
  }
  kt->kernel_name = kernelName(a, k);
  Xla__Gpu__LaunchDimensionsProto *l =
      newMessage(a, &xla__gpu__launch_dimensions_proto__descriptor);
  l->block_counts = newMessage(a, &stream_executor__block_dim_proto__descriptor);
  l->block_counts->coordinates = dim3(a, k->blocks);
  l->thread_counts_per_block = newMessage(a, &stream_executor__thread_dim_proto__descriptor);
  l->thread_counts_per_block->coordinates = dim3(a, k->threads);
  kt->launch_dimensions = l;
  setI64(&kt->has_shmem_bytes, &kt->shmem_bytes, k->sharedBytes);
  kt->tma_metadata = newMessage(a, &stream_executor__gpu__tma_metadata_proto__descriptor);
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK;
  t->kernel_thunk = kt;
  return t;
}

/* A launch of `k` over `args`, of which the last k->writes are written. */
static Thunk *kernelLaunch(Gen *g, const Kernel *k, const Span *args) {
  if (k->inModule)
    return moduleKernelLaunch(g, k, args);
  ThunkyArena *a = g->scratch;
  Thunk *t = newThunk(g, STAT_KERNEL, k->kind);
  Xla__Gpu__CustomKernelThunkProto *ckt =
      newMessage(a, &xla__gpu__custom_kernel_thunk_proto__descriptor);
  ckt->n_args = ckt->n_written = (size_t)k->arity;
  ckt->args = zalloc(a, (size_t)k->arity * sizeof *ckt->args);
  ckt->written = zalloc(a, (size_t)k->arity * sizeof *ckt->written);
  for (int i = 0; i < k->arity; i++) {
    ckt->args[i] = shapedSlice(g, &args[i]);
    ckt->written[i] = i >= k->arity - k->writes;
  }
  ckt->custom_kernel = customKernel(g, k);
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK;
  t->custom_kernel_thunk = ckt;
  return t;
}

/* One of the executable's kernels over fresh slices: elementwise-like, every
 * argument about the same number of elements. */
static Thunk *kernelThunk(Gen *g) {
  Kernel k = launchedKernel(g);
  Span args[MAX_ARGS];
  uint64_t elements = pickElements(&g->rng, UINT64_MAX);
  for (int i = 0; i < k.arity; i++) {
    uint32_t a = i >= k.arity - k.writes ? writeAlloc(g) : readAlloc(g);
    args[i] = spanIn(g, a, 0, g->allocs[a].size, k.types[i], elements, true);
  }
  return kernelLaunch(g, &k, args);
}

static Thunk *memzeroThunk(Gen *g) {
  Thunk *t = newThunk(g, STAT_MEMZERO, "memzero");
  Xla__Gpu__MemzeroThunkProto *m =
      newMessage(g->scratch, &xla__gpu__memzero_thunk_proto__descriptor);
  uint32_t a = writeAlloc(g);
  Span s = spanIn(g, a, 0, g->allocs[a].size, randomType(&g->rng),
                  pickElements(&g->rng, UINT64_MAX), true);
  m->dest_buffer = shapedSlice(g, &s);
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_MEMZERO_THUNK;
  t->memzero_thunk = m;
  return t;
}

/* The values XLA fills with: zeros, ones, and -inf before a max-reduction. */
static Thunk *memsetThunk(Gen *g) {
  static const uint32_t values[] = {0, 0x3f800000u, 0xff800000u};
  Thunk *t = newThunk(g, STAT_MEMSET, "memset");
  Xla__Gpu__Memset32BitValueThunkProto *m =
      newMessage(g->scratch, &xla__gpu__memset32_bit_value_thunk_proto__descriptor);
  uint32_t a = writeAlloc(g);
  Xla__PrimitiveType type = either(&g->rng, 80, XLA__PRIMITIVE_TYPE__F32, XLA__PRIMITIVE_TYPE__S32);
  Span s = spanIn(g, a, 0, g->allocs[a].size, type, pickElements(&g->rng, UINT64_MAX), false);
  m->dest_buffer = slice(g->scratch, &s, true);
  uint32_t value = values[below(&g->rng, 3)];
  m->value = value, m->has_value = value != 0;
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_MEMSET32BIT_VALUE_THUNK;
  t->memset32bit_value_thunk = m;
  return t;
}

static Thunk *copyThunk(Gen *g) {
  ThunkyArena *a = g->scratch;
  Thunk *t = newThunk(g, STAT_COPY, "copy");
  uint32_t src = readAlloc(g), dst = writeAlloc(g);
  Range rs, rd;
  disjoint(g, src, dst, &rs, &rd);
  Xla__PrimitiveType type = randomType(&g->rng);
  uint64_t bytes = thunkyElementBytes(type);
  uint64_t room = (rs.hi - rs.lo < rd.hi - rd.lo ? rs.hi - rs.lo : rd.hi - rd.lo) / bytes;
  Span from = spanIn(g, src, rs.lo, rs.hi, type, pickElements(&g->rng, room), false);
  if (from.size > rd.hi - rd.lo) /* a constant read whole, bigger than the room */
    from = spanAt(g, src, rs.lo, rs.hi, type, pickElements(&g->rng, room));
  Span to = spanAt(g, dst, rd.lo, rd.hi, from.type, from.elements);
  Xla__Gpu__CopyThunkProto *c = newMessage(a, &xla__gpu__copy_thunk_proto__descriptor);
  c->source_buffer = shapedSlice(g, &from);
  c->destination_buffer = shapedSlice(g, &to);
  setI64(&c->has_mem_size, &c->mem_size, (int64_t)from.size);
  Xla__Gpu__DeviceToDeviceCopyThunkProto *d =
      newMessage(a, &xla__gpu__device_to_device_copy_thunk_proto__descriptor);
  d->copy_thunk = c;
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_DEVICE_TO_DEVICE_COPY_THUNK;
  t->device_to_device_copy_thunk = d;
  return t;
}

static Xla__GemmConfigProto__MatrixLayout *matrixLayout(ThunkyArena *a, Xla__PrimitiveType type,
                                                        int64_t rows, int64_t cols) {
  Xla__GemmConfigProto__MatrixLayout *l =
      newMessage(a, &xla__gemm_config_proto__matrix_layout__descriptor);
  l->has_order = true, l->order = XLA__GEMM_CONFIG_PROTO__MATRIX_LAYOUT__ORDER__ORDER_ROW_MAJOR;
  setI64(&l->has_num_rows, &l->num_rows, rows);
  setI64(&l->has_num_cols, &l->num_cols, cols);
  setI64(&l->has_batch_size, &l->batch_size, 1);
  setI64(&l->has_leading_dim_stride, &l->leading_dim_stride, cols);
  l->has_dtype = true, l->dtype = type;
  return l;
}

/* A row-major rows x cols operand in allocation `a` within [r->lo, r->hi),
 * its rows halved until it fits. */
static Span matrixIn(Gen *g, uint32_t a, const Range *r, Xla__PrimitiveType type, int64_t *rows,
                     int64_t cols) {
  uint64_t bytes = thunkyElementBytes(type);
  while (*rows > 1 && (uint64_t)(*rows * cols) * bytes > r->hi - r->lo)
    *rows /= 2;
  return spanAt(g, a, r->lo, r->hi, type, (uint64_t)(*rows * cols));
}

/* A matmul operand: a weight (a parameter) or an activation (a temp). */
static uint32_t gemmOperand(Gen *g) {
  return allocOf(g, chance(&g->rng, 40) ? ALLOC_PARAMETER : ALLOC_TEMP);
}

/* A cuBLAS matmul, as XLA's GemmRewriter leaves a dot: out = lhs x rhs,
 * row-major, mostly bf16. An input in the allocation written takes its
 * lower half, the output the upper. */
static Thunk *gemmThunk(Gen *g) {
  ThunkyArena *a = g->scratch;
  Thunk *t = newThunk(g, STAT_GEMM, "gemm_fusion_dot");
  Xla__PrimitiveType type = either(&g->rng, 85, XLA__PRIMITIVE_TYPE__BF16, XLA__PRIMITIVE_TYPE__F32);
  uint32_t lhsAlloc = gemmOperand(g), rhsAlloc = gemmOperand(g), outAlloc = writeAlloc(g);
  Range lhsRange, rhsRange, outRange, outRangeToo;
  disjoint(g, lhsAlloc, outAlloc, &lhsRange, &outRange);
  disjoint(g, rhsAlloc, outAlloc, &rhsRange, &outRangeToo);
  if (outRangeToo.lo > outRange.lo)
    outRange = outRangeToo;
  int64_t m = INT64_C(1) << between(&g->rng, 4, 7), k = INT64_C(1) << between(&g->rng, 4, 7);
  int64_t n = INT64_C(1) << between(&g->rng, 4, 7);
  Span rhs = matrixIn(g, rhsAlloc, &rhsRange, type, &k, n);
  Span lhs = matrixIn(g, lhsAlloc, &lhsRange, type, &m, k);
  Span out = matrixIn(g, outAlloc, &outRange, type, &m, n);
  if (lhs.elements != (uint64_t)(m * k)) /* m shrank for the output */
    lhs = spanAt(g, lhsAlloc, lhsRange.lo, lhsRange.hi, type, (uint64_t)(m * k));
  Xla__GemmConfigProto *c = newMessage(a, &xla__gemm_config_proto__descriptor);
  c->lhs_layout = matrixLayout(a, type, m, k);
  c->rhs_layout = matrixLayout(a, type, k, n);
  c->c_layout = matrixLayout(a, type, m, n);
  c->output_layout = matrixLayout(a, type, m, n);
  c->has_alpha_real = true, c->alpha_real = 1;
  Xla__Gpu__GemmThunkProto *gt = newMessage(a, &xla__gpu__gemm_thunk_proto__descriptor);
  gt->gemm_config = c;
  gt->lhs_buffer = slice(a, &lhs, true);
  gt->rhs_buffer = slice(a, &rhs, true);
  gt->output_buffer = slice(a, &out, true);
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_GEMM_THUNK;
  t->gemm_thunk = gt;
  return t;
}

static Thunk *replicaIdThunk(Gen *g) {
  Thunk *t = newThunk(g, STAT_REPLICA_ID, "replica-id");
  Xla__Gpu__ReplicaIdThunkProto *m =
      newMessage(g->scratch, &xla__gpu__replica_id_thunk_proto__descriptor);
  Span s = scalarSpan(g, ALLOC_TEMP, XLA__PRIMITIVE_TYPE__U32);
  m->dest_buffer = slice(g->scratch, &s, true);
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_REPLICA_ID_THUNK;
  t->replica_id_thunk = m;
  return t;
}

/*--- collectives -------------------------------------------------------------*/

typedef enum { ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER } CollectiveKind;

static const char *const collectiveNames[] = {"all-reduce", "all-gather", "reduce-scatter"};

static Xla__Gpu__CollectiveConfigProto *collectiveConfig(ThunkyArena *a, Xla__PrimitiveType type,
                                                         uint32_t ranks) {
  Xla__Gpu__CollectiveConfigProto *c =
      newMessage(a, &xla__gpu__collective_config_proto__descriptor);
  c->n_operand_element_type = 1;
  c->operand_element_type = zalloc(a, sizeof *c->operand_element_type);
  c->operand_element_type[0] = type;
  Xla__ReplicaGroup *group = newMessage(a, &xla__replica_group__descriptor);
  group->n_replica_ids = ranks;
  group->replica_ids = zalloc(a, ranks * sizeof *group->replica_ids);
  for (uint32_t i = 0; i < ranks; i++)
    group->replica_ids[i] = i;
  c->n_replica_groups = 1;
  c->replica_groups = zalloc(a, sizeof *c->replica_groups);
  c->replica_groups[0] = group;
  return c; /* group_mode: cross-replica, proto3's zero */
}

/* One buffer pair: the gathered (or scattered) side holds `ranks` times
 * the other, and element_count counts the source's elements. In an async
 * region (asyncSlot >= 0) it reads a parameter and writes its slot. */
static Xla__Gpu__CollectiveBufferProto *collectiveBuffer(Gen *g, CollectiveKind kind,
                                                         Xla__PrimitiveType type,
                                                         int asyncSlot) {
  bool async = asyncSlot >= 0;
  uint32_t src = allocOf(g, !async && chance(&g->rng, 70) ? ALLOC_TEMP : ALLOC_PARAMETER);
  uint32_t dst = async ? g->byKind[ALLOC_ASYNC][asyncSlot] : writeAlloc(g);
  bool inPlace = kind == ALL_REDUCE && g->allocs[src].kind == ALLOC_TEMP && chance(&g->rng, 50);
  Range rs, rd;
  disjoint(g, src, inPlace ? src : dst, &rs, &rd);
  uint64_t srcScale = kind == REDUCE_SCATTER ? g->ranks : 1;
  uint64_t dstScale = kind == ALL_GATHER ? g->ranks : 1;
  uint64_t bytes = thunkyElementBytes(type);
  uint64_t srcRoom = (rs.hi - rs.lo) / bytes / srcScale;
  uint64_t dstRoom = (rd.hi - rd.lo) / bytes / dstScale;
  uint64_t unit = pickElements(&g->rng, srcRoom < dstRoom ? srcRoom : dstRoom);
  Span from = spanAt(g, src, rs.lo, rs.hi, type, unit * srcScale);
  Span to = inPlace ? from : spanAt(g, dst, rd.lo, rd.hi, type, unit * dstScale);
  Xla__Gpu__CollectiveBufferProto *b =
      newMessage(g->scratch, &xla__gpu__collective_buffer_proto__descriptor);
  setI64(&b->has_element_count, &b->element_count, (int64_t)from.elements);
  b->source_buffer = shapedSlice(g, &from);
  b->destination_buffer = shapedSlice(g, &to);
  return b;
}

static Thunk *collectiveThunk(Gen *g, CollectiveKind kind, int asyncSlot) {
  static const Stat stats[] = {STAT_ALL_REDUCE, STAT_ALL_GATHER, STAT_REDUCE_SCATTER};
  ThunkyArena *a = g->scratch;
  Thunk *t = newThunk(g, stats[kind], collectiveNames[kind]);
  Xla__PrimitiveType type =
      either(&g->rng, 90, XLA__PRIMITIVE_TYPE__F32, XLA__PRIMITIVE_TYPE__BF16);
  Xla__Gpu__CollectiveConfigProto *config = collectiveConfig(a, type, g->ranks);
  Xla__Gpu__CollectiveBufferProto **buffers = zalloc(a, sizeof *buffers);
  buffers[0] = collectiveBuffer(g, kind, type, asyncSlot);
  Xla__ReductionKindProto reduction =
      chance(&g->rng, 90) ? XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_SUM
                          : XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_MAX;
  switch (kind) {
  case ALL_REDUCE: {
    Xla__Gpu__AllReduceThunkProto *m = newMessage(a, &xla__gpu__all_reduce_thunk_proto__descriptor);
    m->collective_config = config, m->n_buffers = 1, m->buffers = buffers;
    m->has_reduction_kind = true, m->reduction_kind = reduction;
    t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_ALL_REDUCE_THUNK, t->all_reduce_thunk = m;
    break;
  }
  case ALL_GATHER: {
    Xla__Gpu__AllGatherThunkProto *m = newMessage(a, &xla__gpu__all_gather_thunk_proto__descriptor);
    m->collective_config = config, m->n_buffers = 1, m->buffers = buffers;
    t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_ALL_GATHER_THUNK, t->all_gather_thunk = m;
    break;
  }
  case REDUCE_SCATTER: {
    Xla__Gpu__ReduceScatterThunkProto *m =
        newMessage(a, &xla__gpu__reduce_scatter_thunk_proto__descriptor);
    m->collective_config = config, m->n_buffers = 1, m->buffers = buffers;
    m->has_reduction_kind = true, m->reduction_kind = reduction;
    t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_REDUCE_SCATTER_THUNK, t->reduce_scatter_thunk = m;
    break;
  }
  }
  return t;
}

static CollectiveKind randomCollective(Gen *g) {
  unsigned x = (unsigned)below(&g->rng, 100), allReduce = g->p->allReducePercent;
  return x < allReduce ? ALL_REDUCE : x < allReduce + g->p->allGatherPercent ? ALL_GATHER
                                                                           : REDUCE_SCATTER;
}

/*--- sequences ---------------------------------------------------------------*/

/* Where a sequence's thunks go: the file (the entry sequence) or a list in
 * the scratch arena (nested ones, which live inside their parent thunk). */
typedef struct {
  Thunk **items;
  size_t count;
  bool toFile;
} Sink;

static void writeThunk(Gen *g, const Thunk *t);

static void put(Gen *g, Sink *s, Thunk *t) {
  if (!s->toFile) {
    s->items[s->count++] = t;
    return;
  }
  writeThunk(g, t);
  thunkyArenaDestroy(g->scratch);
  g->scratch = newArena();
}

/* The least budget each kind takes, its nested thunks (and an async done)
 * included. */
static int64_t leastThunks(Kind k) {
  switch (k) {
  case KIND_ASYNC_COLLECTIVE: return 3; /* start, collective, done */
  case KIND_WHILE: return 3;            /* while, condition kernel, body */
  case KIND_CONDITIONAL: return 3;      /* conditional, two branches */
  default: return 1;
  }
}

/* The synthetic mix (the default), in thunks per thousand drawn: kernels
 * dominate, as in XLA's output at HEAD. An async collective also brings its
 * start and done. */
static const Share syntheticMix[] = {
    {KIND_KERNEL, 710},     {KIND_MEMZERO, 42},    {KIND_MEMSET, 42},
    {KIND_COPY, 85},       {KIND_COLLECTIVE, 32}, {KIND_ASYNC_COLLECTIVE, 24},
    {KIND_WHILE, 30},      {KIND_CONDITIONAL, 30}, {KIND_REPLICA_ID, 5}};

/* train-step: one training step of a Llama-style decoder, bf16 compute on
 * H100/H200 with FSDP and tensor parallelism, the layers a lax.scan. The
 * numbers and their sources are in bench/PROFILES.md; in short, why:
 * - Kernels are kernel_thunks whose code is the module's one cubin (field
 *   `binary`) and PTX (`asm_text`): KernelThunk::ToProto writes only a
 *   kernel name and KernelThunk::Initialize loads it from the executable's
 *   binary or text (xla/backends/gpu/runtime/kernel_thunk.cc). Own-cubin
 *   custom_kernel_thunks are XLA's custom fusions (TopK, L2 prefetch,
 *   CUTLASS): 1%. (The 2026 goldens compile every fusion to its own cubin
 *   instead, CubinCustomKernelCompiler: that is the synthetic mix.)
 * - Matmuls are cuBLAS gemm_thunks, their bytes beside the kernels': a
 *   layer's forward has about 7 (QKV, scores, context, output, gate, up,
 *   down), its backward twice that, against about 48 fusions (norms, RoPE,
 *   softmax, SiLU, converts, the scan's dynamic slices).
 * - Collectives are nearly all async (the latency hiding scheduler makes
 *   start/done pairs): per layer an all-gather of FSDP weights forward and
 *   backward, a reduce-scatter of gradients, two tensor-parallel all-reduces
 *   each way; the done is some tens of thunks after its start (estimate).
 * - Loops are few and long: scans over 16 to 126 layers (Llama 2/3 configs),
 *   bodies of a layer's 32 to 160 thunks; conditionals are rare. */
static const Share trainStepMix[] = {
    {KIND_KERNEL, 582},    {KIND_GEMM, 258},      {KIND_ASYNC_COLLECTIVE, 86},
    {KIND_COLLECTIVE, 6},  {KIND_MEMZERO, 12},    {KIND_MEMSET, 12},
    {KIND_COPY, 37},       {KIND_WHILE, 4},       {KIND_CONDITIONAL, 2},
    {KIND_REPLICA_ID, 1}};

/* llama3-8b: Meta-Llama-3-8B's arrays (hidden 4096, FFN 14336, 32 layers
 * stacked by the scan, 32 query heads and 8 key-value heads of 128, vocab
 * 128256), in elements: q, k, v, o, gate, up, down, the two norms, the
 * embedding, the final norm, the head; 8.03 billion in all. */
static const uint64_t llama3Arrays[] = {
    32ull * 4096 * 4096,  32ull * 4096 * 1024,  32ull * 4096 * 1024, 32ull * 4096 * 4096,
    32ull * 4096 * 14336, 32ull * 4096 * 14336, 32ull * 14336 * 4096, 32ull * 4096,
    32ull * 4096,         128256ull * 4096,     4096,                4096ull * 128256};
/* Each array as the bf16 weights the step computes with, and its f32 master
 * copy and Adam's two f32 moments: 14 bytes a parameter, 112 GB. */
static const Xla__PrimitiveType llama3Types[] = {
    XLA__PRIMITIVE_TYPE__BF16, XLA__PRIMITIVE_TYPE__F32, XLA__PRIMITIVE_TYPE__F32,
    XLA__PRIMITIVE_TYPE__F32};

enum { PROFILE_SYNTHETIC, PROFILE_TRAIN_STEP, PROFILE_LLAMA3_8B, NUM_PROFILES };

static const Profile profiles[NUM_PROFILES] = {
    [PROFILE_SYNTHETIC] = {.name = "synthetic", .mix = syntheticMix,
                           .mixLength = sizeof syntheticMix / sizeof *syntheticMix,
                           .maxArgs = 6, .thunksPerKernel = 8, .maxBody = 8, .minBody = 1,
                           .minTrips = 2, .maxTrips = 32, .doneLag = 5,
                           .allReducePercent = 60, .allGatherPercent = 25,
                           .minParams = 2, .maxParams = 4, .minOutputs = 1, .maxOutputs = 3,
                           .minConstants = 2, .maxConstants = 6, .thunksPerTemp = 2000,
                           .maxTemps = 128, .minLog2Elements = 10, .maxLog2Elements = 18,
                           .f32Percent = 80, .bigTempBytes = 16 << 20},
    /* Parameters: a dozen weight arrays (the layers' stacked by the scan),
     * Adam's two moments of each, the step and the batch; outputs the
     * updated ones. Sizes are scaled down some thousandfold (a real step
     * holds tens of GiB) so that the host backend can run it. */
    [PROFILE_TRAIN_STEP] = {.name = "train-step", .mix = trainStepMix,
                            .mixLength = sizeof trainStepMix / sizeof *trainStepMix,
                            .maxArgs = 8, .thunksPerKernel = 3, .skewedKernels = true,
                            .moduleKernels = true, .ownCubinPercent = 1, .maxBody = 160,
                            .minBody = 32, .minTrips = 16, .maxTrips = 126, .doneLag = 30,
                            .allReducePercent = 57, .allGatherPercent = 29,
                            .minParams = 36, .maxParams = 48, .minOutputs = 36,
                            .maxOutputs = 48, .minConstants = 1, .maxConstants = 4,
                            .thunksPerTemp = 5000, .maxTemps = 32, .minLog2Elements = 10,
                            .maxLog2Elements = 19, .f32Percent = 70, .bigTempBytes = 64 << 20},
    /* train-step's mix at a real step's sizes, data parallel: every rank
     * holds the whole model and optimizer state (112 GB), their updated
     * copies (XLA would alias them to donated parameters) and 16 GiB of
     * activations; the scan runs the 32 layers. */
    [PROFILE_LLAMA3_8B] = {.name = "llama3-8b", .mix = trainStepMix,
                           .mixLength = sizeof trainStepMix / sizeof *trainStepMix,
                           .maxArgs = 8, .thunksPerKernel = 3, .skewedKernels = true,
                           .moduleKernels = true, .ownCubinPercent = 1, .maxBody = 160,
                           .minBody = 32, .minTrips = 32, .maxTrips = 32, .doneLag = 30,
                           .allReducePercent = 57, .allGatherPercent = 29,
                           .minConstants = 1, .maxConstants = 4, .thunksPerTemp = 5000,
                           .maxTemps = 32, .bigTempBytes = 16ull << 30,
                           .modelArrays = llama3Arrays,
                           .numModelArrays = sizeof llama3Arrays / sizeof *llama3Arrays,
                           .modelTypes = llama3Types,
                           .numModelTypes = sizeof llama3Types / sizeof *llama3Types},
};

/* A kind drawn from the profile's mix; one that does not fit here (too
 * deep, too few thunks left, too many regions in flight) turns simpler. */
static Kind pickKind(Gen *g, int depth, int64_t avail, int pending) {
  const Share *mix = g->p->mix;
  unsigned r = (unsigned)below(&g->rng, 1000);
  Kind k = KIND_KERNEL;
  for (size_t i = 0; i < g->p->mixLength; r -= mix[i++].perMille)
    if (r < mix[i].perMille) {
      k = mix[i].kind;
      break;
    }
  bool nests = k == KIND_ASYNC_COLLECTIVE || k == KIND_WHILE || k == KIND_CONDITIONAL;
  if (nests && (depth >= MAX_DEPTH || avail < leastThunks(k)))
    return KIND_KERNEL;
  /* Collectives in flight together each get an async stream of their own,
   * as XLA emits them (openxla/xla#40520): none runs synchronously beside
   * a region in flight here or around this sequence. */
  bool inFlight = pending || g->enclosingInFlight;
  if (k == KIND_COLLECTIVE && inFlight)
    k = KIND_ASYNC_COLLECTIVE;
  if (k == KIND_ASYNC_COLLECTIVE &&
      (pending == MAX_PENDING || depth >= MAX_DEPTH || avail < leastThunks(k)))
    return inFlight ? KIND_KERNEL : KIND_COLLECTIVE;
  return k;
}

static Xla__Gpu__ThunkSequenceProto *sequence(Gen *g, int depth, int64_t budget);

/* XLA's while: the condition computes the predicate from a counter, the body
 * is a few thunks; trip_count is known, as XLA finds it for most loops. */
static Thunk *whileThunk(Gen *g, int depth, int64_t avail, int64_t *used) {
  ThunkyArena *a = g->scratch;
  Thunk *t = newThunk(g, STAT_WHILE, "while");
  Xla__Gpu__WhileThunkProto *w = newMessage(a, &xla__gpu__while_thunk_proto__descriptor);
  Span pred = scalarSpan(g, ALLOC_CONTROL, XLA__PRIMITIVE_TYPE__PRED);
  w->condition_result_buffer_index = slice(a, &pred, true);
  Kernel compare = launchedKernel(g);
  compare.kind = "loop_compare_fusion", compare.arity = 2, compare.writes = 1;
  compare.types[0] = XLA__PRIMITIVE_TYPE__S32, compare.types[1] = XLA__PRIMITIVE_TYPE__PRED;
  Span args[2] = {scalarSpan(g, ALLOC_CONTROL, XLA__PRIMITIVE_TYPE__S32), pred};
  Xla__Gpu__ThunkSequenceProto *cond =
      newMessage(a, &xla__gpu__thunk_sequence_proto__descriptor);
  cond->n_thunks = 1;
  cond->thunks = zalloc(a, sizeof *cond->thunks);
  cond->thunks[0] = kernelLaunch(g, &compare, args);
  w->condition_thunk_sequence = cond;
  int64_t most = avail - 2 < g->p->maxBody ? avail - 2 : g->p->maxBody;
  int64_t body = between(&g->rng, most < g->p->minBody ? most : g->p->minBody, most);
  w->body_thunk_sequence = sequence(g, depth + 1, body);
  setI64(&w->has_trip_count, &w->trip_count, between(&g->rng, g->p->minTrips, g->p->maxTrips));
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_WHILE_THUNK;
  t->while_thunk = w;
  *used = 2 + body;
  return t;
}

/* Two or three branches of one to four thunks, on an s32 index. */
static Thunk *conditionalThunk(Gen *g, int depth, int64_t avail, int64_t *used) {
  ThunkyArena *a = g->scratch;
  Thunk *t = newThunk(g, STAT_CONDITIONAL, "conditional");
  Xla__Gpu__ConditionalThunkProto *c =
      newMessage(a, &xla__gpu__conditional_thunk_proto__descriptor);
  Span index = scalarSpan(g, ALLOC_CONTROL, XLA__PRIMITIVE_TYPE__S32);
  c->branch_index_buffer = shapedSlice(g, &index);
  int branches = avail >= 4 && chance(&g->rng, 30) ? 3 : 2;
  c->n_branch_thunks = (size_t)branches;
  c->branch_thunks = zalloc(a, (size_t)branches * sizeof *c->branch_thunks);
  int64_t left = avail - 1;
  *used = 1;
  for (int b = 0; b < branches; b++) {
    int64_t most = left - (branches - 1 - b); /* one each for the rest */
    int64_t n = between(&g->rng, 1, most < 4 ? most : 4);
    c->branch_thunks[b] = sequence(g, depth + 1, n);
    left -= n, *used += n;
  }
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_CONDITIONAL_THUNK;
  t->conditional_thunk = c;
  return t;
}

/* An async region on communication stream `stream` holding `inner`; its
 * done comes later in the same sequence. */
static Thunk *asyncRegion(Gen *g, const char *name, uint64_t id, uint64_t stream,
                          Thunk *inner) {
  ThunkyArena *a = g->scratch;
  Thunk *t = newThunk(g, STAT_ASYNC_START, name);
  Xla__Gpu__AsyncStartThunkProto *s =
      newMessage(a, &xla__gpu__async_start_thunk_proto__descriptor);
  setU64(&s->has_async_execution_id, &s->async_execution_id, id);
  s->execution_stream_id_case =
      XLA__GPU__ASYNC_START_THUNK_PROTO__EXECUTION_STREAM_ID_COMMUNICATION_STREAM_ID;
  s->communication_stream_id = stream;
  Xla__Gpu__ThunkSequenceProto *region =
      newMessage(a, &xla__gpu__thunk_sequence_proto__descriptor);
  region->n_thunks = 1;
  region->thunks = zalloc(a, sizeof *region->thunks);
  region->thunks[0] = inner;
  s->thunks = region;
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_ASYNC_START_THUNK;
  t->async_start_thunk = s;
  return t;
}

/* Collectives in flight together each run on a communication stream of
 * their own, as XLA emits them (openxla/xla#40520): the slot's. */
static Thunk *asyncStart(Gen *g, CollectiveKind kind, uint64_t id, int slot) {
  Thunk *t = asyncRegion(g, printName(g->scratch, "%s-start", collectiveNames[kind]), id,
                         1 + (uint64_t)slot, NULL);
  t->async_start_thunk->thunks->thunks[0] = collectiveThunk(g, kind, slot);
  return t;
}

/* The done of async region `id`. */
static Thunk *asyncDoneNamed(Gen *g, const char *name, uint64_t id) {
  Thunk *t = newThunk(g, STAT_ASYNC_DONE, name);
  Xla__Gpu__AsyncDoneThunkProto *d =
      newMessage(g->scratch, &xla__gpu__async_done_thunk_proto__descriptor);
  setU64(&d->has_async_execution_id, &d->async_execution_id, id);
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_ASYNC_DONE_THUNK;
  t->async_done_thunk = d;
  return t;
}

static Thunk *asyncDone(Gen *g, CollectiveKind kind, uint64_t id) {
  return asyncDoneNamed(g, printName(g->scratch, "%s-done", collectiveNames[kind]), id);
}

/* A thunk of kind k, not an async one, using at most `avail` thunks. */
static Thunk *makeThunk(Gen *g, Kind k, int depth, int64_t avail, int64_t *used) {
  *used = 1;
  switch (k) {
  case KIND_MEMZERO: return memzeroThunk(g);
  case KIND_MEMSET: return memsetThunk(g);
  case KIND_COPY: return copyThunk(g);
  case KIND_COLLECTIVE: return collectiveThunk(g, randomCollective(g), -1);
  case KIND_WHILE: return whileThunk(g, depth, avail, used);
  case KIND_CONDITIONAL: return conditionalThunk(g, depth, avail, used);
  case KIND_REPLICA_ID: return replicaIdThunk(g);
  case KIND_GEMM: return gemmThunk(g);
  default: return kernelThunk(g);
  }
}

typedef struct {
  uint64_t id;
  CollectiveKind kind;
  int64_t due; /* emitted thunks after which the done goes */
  int slot;    /* its ALLOC_ASYNC temp */
} Pending;

/* A slot of this depth that no region in flight here holds. Deeper
 * sequences run inside a thunk of this one, so they have slots of their own. */
static int freeSlot(int depth, const Pending *pending, int numPending) {
  for (int i = 0;; i++) {
    int slot = depth * MAX_PENDING + i, taken = 0;
    for (int k = 0; k < numPending; k++)
      taken |= pending[k].slot == slot;
    if (!taken)
      return slot;
  }
}

/* Exactly `budget` thunks at `depth` into `sink`, every async region done
 * within the sequence that started it. */
static void fill(Gen *g, Sink *sink, int depth, int64_t budget) {
  Pending pending[MAX_PENDING];
  int numPending = 0;
  int64_t left = budget, emitted = 0; /* left counts the dones owed */
  if (depth > g->maxDepth)
    g->maxDepth = depth;
  while (left > 0) {
    if (numPending && (pending[0].due <= emitted || left == numPending)) {
      put(g, sink, asyncDone(g, pending[0].kind, pending[0].id));
      memmove(pending, pending + 1, (size_t)--numPending * sizeof *pending);
      left--, emitted++;
      continue;
    }
    int64_t avail = left - numPending, used;
    Kind k = pickKind(g, depth, avail, numPending);
    if (k == KIND_ASYNC_COLLECTIVE) {
      Pending p = {++g->nextAsyncId, randomCollective(g),
                   emitted + 2 + between(&g->rng, 0, g->p->doneLag),
                   freeSlot(depth, pending, numPending)};
      put(g, sink, asyncStart(g, p.kind, p.id, p.slot));
      if (depth + 1 > g->maxDepth)
        g->maxDepth = depth + 1;
      pending[numPending++] = p;
      left -= 2, emitted++; /* the start and its collective; the done is owed */
      continue;
    }
    g->enclosingInFlight += numPending; /* what a loop or branch body runs beside */
    Thunk *made = makeThunk(g, k, depth, avail, &used);
    g->enclosingInFlight -= numPending;
    put(g, sink, made);
    left -= used, emitted++;
  }
}

/* A nested sequence of exactly `budget` thunks. */
static Xla__Gpu__ThunkSequenceProto *sequence(Gen *g, int depth, int64_t budget) {
  Sink sink = {zalloc(g->scratch, (size_t)budget * sizeof(Thunk *)), 0, false};
  fill(g, &sink, depth, budget);
  Xla__Gpu__ThunkSequenceProto *s =
      newMessage(g->scratch, &xla__gpu__thunk_sequence_proto__descriptor);
  s->n_thunks = sink.count, s->thunks = sink.items;
  return s;
}

/*--- the executable around the thunks ---------------------------------------*/

static uint32_t addAlloc(Gen *g, AllocKind kind, uint64_t size, Xla__PrimitiveType type) {
  Alloc *al = &g->allocs[g->numAllocs];
  *al = (Alloc){kind, size, type, size / thunkyElementBytes(type)};
  g->byKind[kind][g->numByKind[kind]++] = g->numAllocs;
  return g->numAllocs++;
}

/* Parameters and outputs of f32 or bf16 (1Ki to 256Ki elements in the
 * synthetic mix), a few small f32 constants, XLA's big preallocated temp and
 * smaller temps; and for a tuple result, the tuple's index table, which XLA
 * allocates too. */
static void planAllocations(Gen *g, uint64_t thunks) {
  const Profile *p = g->p;
  uint32_t model = (uint32_t)(p->numModelArrays * p->numModelTypes);
  uint32_t params = model ? model : (uint32_t)between(&g->rng, p->minParams, p->maxParams);
  uint32_t outputs = model ? model : (uint32_t)between(&g->rng, p->minOutputs, p->maxOutputs);
  uint32_t constants = (uint32_t)between(&g->rng, p->minConstants, p->maxConstants);
  uint64_t t = 4 + thunks / p->thunksPerTemp;
  uint32_t temps = (uint32_t)(t > p->maxTemps ? p->maxTemps : t);
  uint32_t total = params + outputs + 1 + constants + temps + 1 + (MAX_DEPTH + 1) * MAX_PENDING;
  g->allocs = zalloc(g->keep, total * sizeof *g->allocs);
  for (int k = 0; k < NUM_ALLOC_KINDS; k++)
    g->byKind[k] = zalloc(g->keep, total * sizeof **g->byKind);
  for (uint32_t i = 0; i < params + outputs; i++) {
    Xla__PrimitiveType type;
    uint64_t size;
    if (model) {
      type = p->modelTypes[i % model / p->numModelArrays];
      size = thunkyElementBytes(type) * p->modelArrays[i % model % p->numModelArrays];
    } else {
      type = either(&g->rng, p->f32Percent, XLA__PRIMITIVE_TYPE__F32, XLA__PRIMITIVE_TYPE__BF16);
      size = thunkyElementBytes(type) << between(&g->rng, p->minLog2Elements, p->maxLog2Elements);
    }
    addAlloc(g, i < params ? ALLOC_PARAMETER : ALLOC_OUTPUT, size, type);
  }
  if (outputs > 1)
    addAlloc(g, ALLOC_TUPLE, 8 * outputs, XLA__PRIMITIVE_TYPE__U64);
  for (uint32_t i = 0; i < constants; i++)
    addAlloc(g, ALLOC_CONSTANT, 4 << between(&g->rng, 0, 8), XLA__PRIMITIVE_TYPE__F32);
  addAlloc(g, ALLOC_TEMP, p->bigTempBytes, XLA__PRIMITIVE_TYPE__U8);
  for (uint32_t i = 1; i < temps; i++)
    addAlloc(g, ALLOC_TEMP, (uint64_t)between(&g->rng, 256, 4096) * 256, XLA__PRIMITIVE_TYPE__U8);
  addAlloc(g, ALLOC_CONTROL, 4096, XLA__PRIMITIVE_TYPE__U8);
  for (int i = 0; i < (MAX_DEPTH + 1) * MAX_PENDING; i++)
    addAlloc(g, ALLOC_ASYNC, 64 << 10, XLA__PRIMITIVE_TYPE__U8);
}

static Xla__BufferAllocationProto *allocationProto(Gen *g, uint32_t i, int64_t parameter) {
  const Alloc *al = &g->allocs[i];
  Xla__BufferAllocationProto *m = newMessage(g->keep, &xla__buffer_allocation_proto__descriptor);
  setI64(&m->has_index, &m->index, i);
  setI64(&m->has_size, &m->size, (int64_t)al->size);
  if (al->kind == ALLOC_PARAMETER) {
    m->has_is_entry_computation_parameter = m->is_entry_computation_parameter = true;
    setI64(&m->has_parameter_number, &m->parameter_number, parameter);
  }
  if (al->kind == ALLOC_OUTPUT || al->kind == ALLOC_TUPLE)
    m->has_maybe_live_out = m->maybe_live_out = true;
  if (al->kind == ALLOC_TUPLE)
    m->has_is_tuple = m->is_tuple = true;
  if (al->kind == ALLOC_CONSTANT)
    m->has_is_constant = m->is_constant = true;
  return m;
}

static Xla__ShapeProto *allocShape(Gen *g, uint32_t i) {
  const Alloc *al = &g->allocs[i];
  return arrayShape(g->keep, &g->rng, al->type, al->elements, 2);
}

/* The program's signature, so that thunky-run reads and writes arrays. */
static Xla__ProgramShapeProto *programShape(Gen *g) {
  ThunkyArena *a = g->keep;
  Xla__ProgramShapeProto *p = newMessage(a, &xla__program_shape_proto__descriptor);
  uint32_t params = g->numByKind[ALLOC_PARAMETER], outputs = g->numByKind[ALLOC_OUTPUT];
  p->n_parameters = p->n_parameter_names = params;
  p->parameters = zalloc(a, params * sizeof *p->parameters);
  p->parameter_names = zalloc(a, params * sizeof *p->parameter_names);
  for (uint32_t i = 0; i < params; i++) {
    p->parameters[i] = allocShape(g, g->byKind[ALLOC_PARAMETER][i]);
    p->parameter_names[i] = printName(a, "arg%u", i);
  }
  if (outputs == 1) {
    p->result = allocShape(g, g->byKind[ALLOC_OUTPUT][0]);
    return p;
  }
  Xla__ShapeProto *tuple = newMessage(a, &xla__shape_proto__descriptor);
  tuple->has_element_type = true, tuple->element_type = XLA__PRIMITIVE_TYPE__TUPLE;
  tuple->n_tuple_shapes = outputs;
  tuple->tuple_shapes = zalloc(a, outputs * sizeof *tuple->tuple_shapes);
  for (uint32_t i = 0; i < outputs; i++)
    tuple->tuple_shapes[i] = allocShape(g, g->byKind[ALLOC_OUTPUT][i]);
  p->result = tuple;
  return p;
}

static Xla__Gpu__GpuExecutableProto__OutputInfoMapEntry *outputEntry(Gen *g, int64_t index,
                                                                     uint32_t alloc) {
  ThunkyArena *a = g->keep;
  Xla__Gpu__GpuExecutableProto__OutputInfoMapEntry *e =
      newMessage(a, &xla__gpu__gpu_executable_proto__output_info_map_entry__descriptor);
  e->shape_index = newMessage(a, &xla__shape_index_proto__descriptor);
  if (index >= 0) {
    e->shape_index->n_indexes = 1;
    e->shape_index->indexes = zalloc(a, sizeof *e->shape_index->indexes);
    e->shape_index->indexes[0] = index;
  }
  e->output_info = newMessage(a, &xla__gpu__gpu_executable_proto__output_info_proto__descriptor);
  setI64(&e->output_info->has_allocation_index, &e->output_info->allocation_index, alloc);
  return e;
}

/* Output i at shape index {i}, and the tuple itself at {} (XLA lists every
 * subshape); a single array output sits at {}. */
static void outputInfo(Gen *g, Xla__Gpu__GpuExecutableProto *exe) {
  uint32_t outputs = g->numByKind[ALLOC_OUTPUT];
  exe->output_info_map = zalloc(g->keep, (outputs + 1) * sizeof *exe->output_info_map);
  if (outputs == 1) {
    exe->output_info_map[exe->n_output_info_map++] = outputEntry(g, -1, g->byKind[ALLOC_OUTPUT][0]);
    return;
  }
  exe->output_info_map[exe->n_output_info_map++] = outputEntry(g, -1, g->byKind[ALLOC_TUPLE][0]);
  for (uint32_t i = 0; i < outputs; i++)
    exe->output_info_map[exe->n_output_info_map++] = outputEntry(g, i, g->byKind[ALLOC_OUTPUT][i]);
}

/* Each constant allocation's bytes, as XLA writes them when it keeps no HLO
 * module: small floats in [-1, 1]. */
static void constants(Gen *g, Xla__Gpu__GpuExecutableProto *exe) {
  ThunkyArena *a = g->keep;
  uint32_t n = g->numByKind[ALLOC_CONSTANT];
  exe->n_constants = n;
  exe->constants = zalloc(a, n * sizeof *exe->constants);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t alloc = g->byKind[ALLOC_CONSTANT][i];
    Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c =
        newMessage(a, &xla__gpu__gpu_executable_proto__constant_info_proto__descriptor);
    c->symbol_name = printName(a, "buffer_for_constant_%u", i);
    c->content = newMessage(a, &xla__gpu__dense_data_intermediate_proto__descriptor);
    size_t size = (size_t)g->allocs[alloc].size;
    float *values = zalloc(a, size);
    for (size_t k = 0; k < size / sizeof *values; k++)
      values[k] = (float)((int)below(&g->rng, 2001) - 1000) / 1000.0f;
    c->content->has_data = true;
    c->content->data = (ProtobufCBinaryData){size, (uint8_t *)values};
    setI64(&c->has_allocation_index, &c->allocation_index, alloc);
    exe->constants[i] = c;
  }
}

/* Everything but the thunks. */
static Xla__Gpu__GpuExecutableProto *executable(Gen *g, uint64_t thunks) {
  ThunkyArena *a = g->keep;
  Xla__Gpu__GpuExecutableProto *exe = newMessage(a, &xla__gpu__gpu_executable_proto__descriptor);
  /* XLA refuses an executable without a buffer assignment; empty will do. */
  exe->buffer_assignment = newMessage(a, &xla__buffer_assignment_proto__descriptor);
  exe->module_name = g->p->moduleKernels
                         ? printName(a, "jit_train_step_%" PRIu64 "_seed%" PRIu64, thunks, g->seed)
                         : printName(a, "jit_bench_%" PRIu64 "_seed%" PRIu64, thunks, g->seed);
  if (g->p->moduleKernels) {
    exe->has_asm_text = true;
    exe->asm_text = (ProtobufCBinaryData){strlen(g->moduleText), (uint8_t *)g->moduleText};
    exe->has_binary = true, exe->binary = g->moduleBinary;
  }
  exe->program_shape = programShape(g);
  /* The world its collectives span, as XLA records it: runs and the model
   * take their ranks from it. */
  exe->hlo_module_with_config = newMessage(a, &xla__hlo_module_proto_with_config__descriptor);
  Xla__HloModuleConfigProto *config = newMessage(a, &xla__hlo_module_config_proto__descriptor);
  config->has_replica_count = config->has_num_partitions = true;
  config->replica_count = g->ranks, config->num_partitions = 1;
  exe->hlo_module_with_config->config = config;
  Xla__Gpu__GpuExecutableProto__RepeatedBufferAllocations *allocs =
      newMessage(a, &xla__gpu__gpu_executable_proto__repeated_buffer_allocations__descriptor);
  allocs->n_values = g->numAllocs;
  allocs->values = zalloc(a, g->numAllocs * sizeof *allocs->values);
  for (uint32_t i = 0, parameter = 0; i < g->numAllocs; i++)
    allocs->values[i] =
        allocationProto(g, i, g->allocs[i].kind == ALLOC_PARAMETER ? parameter++ : -1);
  exe->buffer_allocations = allocs;
  outputInfo(g, exe);
  constants(g, exe);
  return exe;
}

/* `size` bytes (a multiple of 8) of cubin: an ELF identification as nvcc
 * writes it (64-bit, little-endian, CUDA's OS ABI), then noise. */
static ProtobufCBinaryData cubinBytes(Gen *g, size_t size) {
  static const uint8_t ident[8] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33};
  uint8_t *data = malloc(size);
  if (!data)
    fatal("out of memory");
  for (size_t k = 0; k < size; k += 8) {
    uint64_t word = next(&g->rng);
    memcpy(data + k, &word, 8);
  }
  memcpy(data, ident, sizeof ident);
  return (ProtobufCBinaryData){size, data};
}

/* B/2..B bytes, a multiple of 8: one kernel's code. */
static size_t codeBytes(Gen *g, uint32_t maxBytes) {
  return (size_t)between(&g->rng, maxBytes / 2, maxBytes) & ~(size_t)7;
}

/* K blobs of B/2..B bytes. */
static void makeBlobs(Gen *g, uint32_t count, uint32_t maxBytes) {
  g->numBlobs = count;
  g->blobs = zalloc(g->keep, count * sizeof *g->blobs);
  for (uint32_t i = 0; i < count; i++)
    g->blobs[i] = cubinBytes(g, codeBytes(g, maxBytes));
}

/* Appends to a growing string; out of memory is fatal. */
typedef struct {
  char *data;
  size_t length, capacity;
} Text;

static void append(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(Text *t, const char *fmt, ...) {
  for (;;) {
    va_list args;
    va_start(args, fmt);
    /* An empty Text has no buffer yet: measure only. */
    int n = vsnprintf(t->data ? t->data + t->length : NULL, t->capacity - t->length, fmt, args);
    va_end(args);
    if (n < 0)
      fatal("cannot format %s", fmt);
    if ((size_t)n < t->capacity - t->length) {
      t->length += (size_t)n;
      return;
    }
    t->capacity = 2 * (t->capacity + (size_t)n);
    if (!(t->data = realloc(t->data, t->capacity)))
      fatal("out of memory");
  }
}

/* The module every kernel_thunk's kernel lives in, as XLA compiles one LLVM
 * module per executable: one cubin of B/2..B bytes per kernel, and PTX of
 * an entry per kernel, about as long (an estimate). */
static void makeModule(Gen *g, uint32_t maxBytes) {
  Text ptx = {0};
  append(&ptx, "//\n// Generated by bench-gen\n//\n\n.version 8.4\n.target sm_90a\n"
               ".address_size 64\n");
  size_t binary = 0;
  for (uint64_t i = 0; i < g->numKernels; i++) {
    Kernel k = kernel(g, i);
    char *name = kernelName(g->scratch, &k);
    size_t code = codeBytes(g, maxBytes);
    binary += code;
    append(&ptx, "\n.visible .entry %s(", name);
    for (int p = 0; p < k.arity; p++)
      append(&ptx, "%s\n\t.param .u64 %s_param_%d", p ? "," : "", name, p);
    append(&ptx, "\n)\n{\n");
    for (size_t line = 0; line < code / 32; line++) /* 32 bytes a line */
      append(&ptx, "\tfma.rn.f32 \t%%f%05zu, %%f1, %%f2, %%f3;\n", line % 100000);
    append(&ptx, "\tret;\n}\n");
  }
  thunkyArenaDestroy(g->scratch);
  g->scratch = newArena();
  g->moduleText = ptx.data;
  g->moduleBinary = cubinBytes(g, binary);
}

/*--- crafted shapes ------------------------------------------------------------*/

/* Executables of N items of one kind, for costs that grow with one count:
 * parameters, async regions, constants, kernel binaries, allocations. */
typedef enum {
  SHAPE_MIXED, /* the synthetic mix above; no --shape */
  SHAPE_REVERSE_PARAMETERS,
  SHAPE_ASYNC_PAIRS,
  SHAPE_ASYNC_OVERLAPPING,
  SHAPE_CONSTANTS,
  SHAPE_BINARIES,
  SHAPE_ALLOCATIONS,
  NUM_SHAPES
} Shape;

static const char *const shapeNames[NUM_SHAPES] = {
    "mixed",     "reverse-parameters", "async-pairs", "async-overlapping",
    "constants", "binaries",           "allocations"};

/* Every crafted item is 8 bytes: an f32[2]. */
enum { ITEM_BYTES = 8 };

static uint32_t craftAlloc(Gen *g, AllocKind kind, uint64_t size) {
  g->allocs[g->numAllocs] = (Alloc){kind, size, XLA__PRIMITIVE_TYPE__F32, size / 4};
  g->numByKind[kind]++;
  return g->numAllocs++;
}

static Xla__ShapeProto *itemShape(ThunkyArena *a, Rng *r) {
  return arrayShape(a, r, XLA__PRIMITIVE_TYPE__F32, ITEM_BYTES / 4, 1); /* draws nothing */
}

static Xla__ShapedSliceProto *itemSlice(Gen *g, uint32_t alloc, uint64_t offset) {
  ThunkyArena *a = g->scratch;
  Span s = {alloc, offset, ITEM_BYTES, XLA__PRIMITIVE_TYPE__F32, ITEM_BYTES / 4};
  Xla__ShapedSliceProto *m = newMessage(a, &xla__shaped_slice_proto__descriptor);
  m->slice = slice(a, &s, false);
  m->shape = itemShape(a, &g->rng);
  return m;
}

static Thunk *memzeroAt(Gen *g, uint32_t alloc, uint64_t offset) {
  Thunk *t = newThunk(g, STAT_MEMZERO, "memzero");
  Xla__Gpu__MemzeroThunkProto *m =
      newMessage(g->scratch, &xla__gpu__memzero_thunk_proto__descriptor);
  m->dest_buffer = itemSlice(g, alloc, offset);
  t->impl_case = XLA__GPU__THUNK_PROTO__IMPL_MEMZERO_THUNK;
  t->memzero_thunk = m;
  return t;
}

/* An async region on the communication stream holding one memzero. */
static Thunk *asyncMemzero(Gen *g, uint64_t id, uint32_t alloc, uint64_t offset) {
  Thunk *t = asyncRegion(g, "memzero-start", id, 1, NULL);
  t->async_start_thunk->thunks->thunks[0] = memzeroAt(g, alloc, offset);
  return t;
}


/* Kernel i over one item, with a cubin of its own: an ELF identification
 * and i, 16 bytes. */
static Thunk *kernelWithOwnCubin(Gen *g, uint64_t i, uint32_t alloc) {
  static const uint8_t ident[8] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33};
  uint8_t *bytes = zalloc(g->scratch, 16);
  memcpy(bytes, ident, sizeof ident);
  for (int b = 0; b < 8; b++)
    bytes[8 + b] = (uint8_t)(i >> (8 * b));
  Kernel k = {.kind = "crafted_kernel", .number = i, .arity = 1, .writes = 1,
              .types = {XLA__PRIMITIVE_TYPE__F32}, .cubin = {16, bytes},
              .blocks = 1, .threads = 32};
  Span arg = {alloc, 0, ITEM_BYTES, XLA__PRIMITIVE_TYPE__F32, ITEM_BYTES / 4};
  return kernelLaunch(g, &k, &arg);
}

/* Everything but the thunks: the allocations, a program shape for the
 * parameters, the constants' contents. */
static Xla__Gpu__GpuExecutableProto *craftedExecutable(Gen *g, Shape shape, uint64_t n) {
  ThunkyArena *a = g->keep;
  uint64_t total = shape == SHAPE_REVERSE_PARAMETERS || shape == SHAPE_ALLOCATIONS ? n
                   : shape == SHAPE_CONSTANTS                                       ? n + 1
                                                                                    : 1;
  g->allocs = zalloc(a, total * sizeof *g->allocs);
  switch (shape) {
  case SHAPE_REVERSE_PARAMETERS:
  case SHAPE_ALLOCATIONS:
    for (uint64_t i = 0; i < n; i++)
      craftAlloc(g, shape == SHAPE_ALLOCATIONS ? ALLOC_TEMP : ALLOC_PARAMETER, ITEM_BYTES);
    break;
  case SHAPE_ASYNC_PAIRS: /* one temp, an item per pair */
  case SHAPE_ASYNC_OVERLAPPING:
    craftAlloc(g, ALLOC_TEMP, ITEM_BYTES * (n / 2 ? n / 2 : 1));
    break;
  case SHAPE_CONSTANTS:
    for (uint64_t i = 0; i < n; i++)
      craftAlloc(g, ALLOC_CONSTANT, ITEM_BYTES);
    craftAlloc(g, ALLOC_TEMP, ITEM_BYTES);
    break;
  default:
    craftAlloc(g, ALLOC_TEMP, ITEM_BYTES);
    break;
  }
  Xla__Gpu__GpuExecutableProto *exe = newMessage(a, &xla__gpu__gpu_executable_proto__descriptor);
  exe->buffer_assignment = newMessage(a, &xla__buffer_assignment_proto__descriptor);
  exe->module_name = printName(a, "jit_crafted_%s_%" PRIu64, shapeNames[shape], n);
  Xla__Gpu__GpuExecutableProto__RepeatedBufferAllocations *allocs =
      newMessage(a, &xla__gpu__gpu_executable_proto__repeated_buffer_allocations__descriptor);
  allocs->n_values = g->numAllocs;
  allocs->values = zalloc(a, g->numAllocs * sizeof *allocs->values);
  for (uint32_t i = 0; i < g->numAllocs; i++)
    allocs->values[i] = allocationProto(
        g, i, g->allocs[i].kind == ALLOC_PARAMETER ? (int64_t)(g->numAllocs - 1 - i) : -1);
  exe->buffer_allocations = allocs;
  if (shape == SHAPE_REVERSE_PARAMETERS) {
    Xla__ProgramShapeProto *p = newMessage(a, &xla__program_shape_proto__descriptor);
    p->n_parameters = p->n_parameter_names = n;
    p->parameters = zalloc(a, n * sizeof *p->parameters);
    p->parameter_names = zalloc(a, n * sizeof *p->parameter_names);
    for (uint64_t i = 0; i < n; i++) {
      p->parameters[i] = itemShape(a, &g->rng);
      p->parameter_names[i] = printName(a, "arg%" PRIu64, i);
    }
    exe->program_shape = p;
  }
  if (shape == SHAPE_CONSTANTS) {
    exe->n_constants = n;
    exe->constants = zalloc(a, n * sizeof *exe->constants);
    for (uint64_t i = 0; i < n; i++) {
      Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c =
          newMessage(a, &xla__gpu__gpu_executable_proto__constant_info_proto__descriptor);
      c->symbol_name = printName(a, "buffer_for_constant_%" PRIu64, i);
      c->content = newMessage(a, &xla__gpu__dense_data_intermediate_proto__descriptor);
      float *values = zalloc(a, ITEM_BYTES);
      values[0] = (float)i, values[1] = -(float)i;
      c->content->has_data = true;
      c->content->data = (ProtobufCBinaryData){ITEM_BYTES, (uint8_t *)values};
      setI64(&c->has_allocation_index, &c->allocation_index, (int64_t)i);
      exe->constants[i] = c;
    }
  }
  return exe;
}

static void craftedThunks(Gen *g, Shape shape, uint64_t n) {
  Sink entry = {.toFile = true};
  switch (shape) {
  case SHAPE_REVERSE_PARAMETERS:
  case SHAPE_ALLOCATIONS:
    for (uint32_t i = 0; i < g->numAllocs; i++)
      put(g, &entry, memzeroAt(g, i, 0));
    break;
  case SHAPE_ASYNC_PAIRS:
    for (uint64_t i = 0; i < (n / 2 ? n / 2 : 1); i++) {
      put(g, &entry, asyncMemzero(g, i + 1, 0, i * ITEM_BYTES));
      put(g, &entry, asyncDoneNamed(g, "memzero-done", i + 1));
    }
    g->maxDepth = 1;
    break;
  case SHAPE_ASYNC_OVERLAPPING:
    for (uint64_t i = 0; i < (n / 2 ? n / 2 : 1); i++)
      put(g, &entry, asyncMemzero(g, i + 1, 0, i * ITEM_BYTES));
    for (uint64_t i = 0; i < (n / 2 ? n / 2 : 1); i++)
      put(g, &entry, asyncDoneNamed(g, "memzero-done", i + 1));
    g->maxDepth = 1;
    break;
  case SHAPE_CONSTANTS:
    put(g, &entry, memzeroAt(g, g->numAllocs - 1, 0));
    break;
  case SHAPE_BINARIES:
    for (uint64_t i = 0; i < n; i++)
      put(g, &entry, kernelWithOwnCubin(g, i, 0));
    break;
  default:
    break;
  }
}

/*--- writing -----------------------------------------------------------------*/

static void writeBytes(Gen *g, const void *data, size_t size) {
  if (fwrite(data, 1, size, g->out) != size)
    fatal("write failed: %s", strerror(errno));
  g->bytesWritten += size;
}

/* A length-delimited field's tag and length. */
static void writeHeader(Gen *g, uint32_t field, uint64_t length) {
  uint8_t bytes[16];
  size_t n = 0;
  for (uint64_t v = (uint64_t)field << 3 | 2;; v >>= 7) {
    bytes[n++] = (uint8_t)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
    if (v < 0x80)
      break;
  }
  for (uint64_t v = length;; v >>= 7) {
    bytes[n++] = (uint8_t)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
    if (v < 0x80)
      break;
  }
  writeBytes(g, bytes, n);
}

/* One more GpuExecutableProto.thunks (field 13). */
static void writeThunk(Gen *g, const Thunk *t) {
  size_t size = protobuf_c_message_get_packed_size(&t->base);
  if (size > g->packedCapacity) {
    free(g->packed);
    g->packedCapacity = size * 2;
    if (!(g->packed = malloc(g->packedCapacity)))
      fatal("out of memory");
  }
  protobuf_c_message_pack(&t->base, g->packed);
  writeHeader(g, 13, size);
  writeBytes(g, g->packed, size);
}

static void writeMessage(Gen *g, const ProtobufCMessage *m) {
  size_t size = protobuf_c_message_get_packed_size(m);
  uint8_t *bytes = malloc(size + 1);
  if (!bytes)
    fatal("out of memory");
  protobuf_c_message_pack(m, bytes);
  writeBytes(g, bytes, size);
  free(bytes);
}

/*--- the command line --------------------------------------------------------*/

typedef struct {
  uint64_t thunks, seed, cubins, cubinBytes, ranks;
  const char *output;
  Shape shape;
  const Profile *profile; /* NULL: none named, the synthetic mix */
  bool stats;
} Args;

static bool number(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end || *s == '-')
    return false;
  *out = v;
  return true;
}

static bool parseShape(const char *s, Shape *out) {
  for (int i = SHAPE_MIXED + 1; i < NUM_SHAPES; i++)
    if (!strcmp(s, shapeNames[i]))
      return *out = (Shape)i, true;
  return false;
}

static const Profile *parseProfile(const char *s) {
  for (int i = 0; i < NUM_PROFILES; i++)
    if (!strcmp(s, profiles[i].name))
      return &profiles[i];
  fatal("unknown profile '%s' (synthetic, train-step or llama3-8b)", s);
}

static bool parseArgs(int argc, char **argv, Args *a) {
  *a = (Args){.seed = 1, .cubinBytes = 4096, .ranks = DEFAULT_RANKS};
  bool haveThunks = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(arg, "--stats")) {
      a->stats = true;
      continue;
    }
    if (!value)
      return false;
    i++;
    bool ok = !strcmp(arg, "--thunks")        ? (haveThunks = number(value, &a->thunks))
              : !strcmp(arg, "--seed")        ? number(value, &a->seed)
              : !strcmp(arg, "--cubins")      ? number(value, &a->cubins) && a->cubins > 0
              : !strcmp(arg, "--cubin-bytes") ? number(value, &a->cubinBytes)
              : !strcmp(arg, "--ranks")       ? number(value, &a->ranks) && a->ranks >= 1 &&
                                                    a->ranks <= 4096
              : !strcmp(arg, "--shape")       ? parseShape(value, &a->shape)
              : !strcmp(arg, "--profile")     ? (a->profile = parseProfile(value)) != NULL
              : !strcmp(arg, "-o")            ? (a->output = value) != NULL
                                              : false;
    if (!ok)
      return false;
  }
  if (a->profile && a->shape != SHAPE_MIXED)
    fatal("--profile and --shape are mutually exclusive: a profile is a mix, a shape one kind");
  if (!a->profile)
    a->profile = &profiles[PROFILE_SYNTHETIC];
  if (!a->cubins)
    a->cubins = a->thunks / 250 > 4 ? a->thunks / 250 : 4;
  if (a->shape != SHAPE_MIXED && a->thunks >= UINT32_MAX)
    return false; /* allocation indices */
  return haveThunks && a->thunks >= 1 && a->thunks <= INT64_MAX / 2 && a->output &&
         a->cubins <= UINT32_MAX && a->cubinBytes >= 16 && a->cubinBytes <= (1u << 30);
}

static void printStats(const Gen *g) {
  uint64_t total = 0;
  for (int s = 0; s < NUM_STATS; s++)
    total += g->stats[s];
  fprintf(stderr, "bench-gen: %" PRIu64 " thunks, nesting depth %d, %u allocations, %u cubins, "
          "%" PRIu64 " bytes\n", total, g->maxDepth, g->numAllocs, g->numBlobs, g->bytesWritten);
  for (int s = 0; s < NUM_STATS; s++)
    fprintf(stderr, "  %-28s %10" PRIu64 "  %5.1f%%\n", statNames[s], g->stats[s],
            100.0 * (double)g->stats[s] / (double)total);
}

/* Writes a file to a temporary name and renames, so that a failed run
 * leaves no half file under the name asked for. Anything else (stdout,
 * /dev/null, a pipe) is written as it is: renaming onto it would replace it. */
static int generate(const Args *a) {
  Gen g = {.p = a->profile, .rng = {mix(a->seed)}, .seed = a->seed, .ranks = (uint32_t)a->ranks,
           .scratch = newArena(), .keep = newArena()};
  struct stat st;
  bool toStdout = !strcmp(a->output, "-");
  bool direct = toStdout || (stat(a->output, &st) == 0 && !S_ISREG(st.st_mode));
  char temporary[4096];
  snprintf(temporary, sizeof temporary, "%s%s", a->output, direct ? "" : ".partial");
  g.out = toStdout ? stdout : fopen(temporary, "wb");
  if (!g.out)
    fatal("cannot open %s: %s", temporary, strerror(errno));
  static char buffer[1 << 20];
  setvbuf(g.out, buffer, _IOFBF, sizeof buffer);
  if (a->shape != SHAPE_MIXED) {
    writeMessage(&g, &craftedExecutable(&g, a->shape, a->thunks)->base);
    craftedThunks(&g, a->shape, a->thunks);
  } else {
    makeBlobs(&g, (uint32_t)a->cubins, (uint32_t)a->cubinBytes);
    planAllocations(&g, a->thunks);
    uint64_t kernels = a->thunks / g.p->thunksPerKernel;
    g.numKernels = kernels > 16 ? kernels : 16;
    if (g.p->moduleKernels)
      makeModule(&g, (uint32_t)a->cubinBytes);
    writeMessage(&g, &executable(&g, a->thunks)->base);
    Sink entry = {.toFile = true};
    fill(&g, &entry, 0, (int64_t)a->thunks);
  }
  if (fflush(g.out) != 0 || (!toStdout && fclose(g.out) != 0))
    fatal("cannot write %s: %s", a->output, strerror(errno));
  if (!direct && rename(temporary, a->output) != 0)
    fatal("cannot rename %s to %s: %s", temporary, a->output, strerror(errno));
  if (a->stats)
    printStats(&g);
  for (uint32_t i = 0; i < g.numBlobs; i++)
    free(g.blobs[i].data);
  free(g.moduleBinary.data);
  free(g.moduleText);
  free(g.packed);
  thunkyArenaDestroy(g.scratch);
  thunkyArenaDestroy(g.keep);
  return 0;
}

int main(int argc, char **argv) {
  Args a;
  if (!parseArgs(argc, argv, &a)) {
    fputs(usage, stderr);
    return 2;
  }
  return generate(&a);
}
