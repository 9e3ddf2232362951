/*===- sim_driver.c - a SIMULATED CUDA driver (libcuda.so.1), for tests ----===*
 *
 * The entry points the CUDA backend loads, on host memory (sim.h says what
 * the simulation is and how it is driven). One lock and one condition
 * variable guard all of its state: it is for tests, and correctness is
 * what matters; streams are worker threads that run their queue in order,
 * and an event orders two streams through the generation it was recorded
 * at, as the real driver does. Graph capture records what a stream (and
 * every stream that joins it through an event) enqueues; a launch of the
 * instantiated graph enqueues it again on the same streams, the origin's
 * work on the launch stream, which then waits for all of it.
 *
 * Time is virtual (sim.h): each context has a host clock that calls
 * advance by fixed costs, each stream a device clock that its operations
 * advance by fixed durations, never read from the machine's clock.
 *
 *===--------------------------------------------------------------------===*/
#define _GNU_SOURCE /* strdup, strtok_r, nanosleep */
#include "sim.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/base/Error.h"
#include "thunky-c/base/Hash.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/base/Limits.h"
#include "thunky-c/format/Container.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SIM_EXPORT __attribute__((visibility("default")))

/*--- state -----------------------------------------------------------------*/

typedef struct Payload {
  atomic_int refs;
  ThunkySimRun run;
  void *data;
  void (*release)(void *data);
} Payload;

/* The virtual clock's costs, in ns (sim.h): what a call takes of its
 * context's host clock, and what its work takes of its stream's. */
enum {
  LAUNCH_HOST_NS = 2000,
  KERNEL_NS = 2000, /* and KERNEL_STEP_NS for each step of the name's hash, mod 8 */
  KERNEL_STEP_NS = 500,
  MEMORY_HOST_NS = 1000, /* an async memset or copy, or a synchronous legacy one */
  MEMORY_NS = 500,       /* and a ns for each MEMORY_BYTES_PER_NS bytes */
  MEMORY_BYTES_PER_NS = 2000,
  EVENT_HOST_NS = 200,
  GRAPH_HOST_NS = 2000,
  VALUE_HOST_NS = 500, /* cuStreamWaitValue32 and cuStreamWriteValue32 */
  WORK_NS = 1000,      /* thunkySimEnqueue's host and device costs */
  SYNC_HOST_NS = 500,  /* a wait that saw its work done */
};

typedef enum { OP_HOST, OP_RECORD, OP_WAIT, OP_WAIT_VALUE, OP_WRITE_VALUE } OpKind;

struct CUevent_st {
  unsigned long long recorded, done; /* generations: enqueued, reached */
  uint64_t ns;                       /* the virtual time `done` was reached at */
  unsigned long long capturedIn;     /* the capture it was last recorded into, or 0 */
};

typedef struct Op {
  OpKind kind;
  struct CUevent_st *event;
  unsigned long long generation; /* OP_WAIT: wait for event->done >= it */
  Payload *payload;
  struct CUstream_st *stream; /* in a graph: the stream it was captured from */
  uint32_t *word;             /* OP_WAIT_VALUE, OP_WRITE_VALUE */
  uint32_t value;
  bool equal; /* OP_WAIT_VALUE: for word == value, not word >= value */
  /* OP_HOST, for the activity hooks (sim.h): what device work it stands
   * for, the call that enqueued it, and its graph node (0: none). */
  ThunkySimActivity activity;
  bool runtime; /* enqueued through the runtime (NCCL, cuBLASLt), not the driver */
  uint32_t correlation;
  uint64_t node;
  /* Virtual times: the op starts once its stream's clock, its issue and
   * what it waits for (afterNs) have all passed, and takes durationNs. */
  uint64_t issueNs, durationNs, afterNs;
} Op;

typedef struct Ops {
  Op *at;
  size_t head, count, capacity; /* a queue uses head; a graph does not */
} Ops;

struct CUctx_st {
  int device;
  int retained;
  CUresult sticky; /* a fault poisons the context, as on a GPU */
  uint64_t hostNs; /* the virtual host clock of the calls made in it */
};

struct CUstream_st {
  struct CUctx_st *ctx;
  pthread_t thread;
  Ops queue;
  bool busy, stop;
  struct CUgraph_st *capture;
  unsigned seed;
  uint64_t clockNs;         /* the virtual time its last op ended at */
  uint32_t id;              /* for activity records */
  struct CUstream_st *next; /* every live stream, for capture and sync */
};

struct CUgraph_st {
  unsigned long long id; /* never 0 */
  Ops ops;
  struct CUstream_st *origin;
  bool capturing, invalidated;
};

struct CUgraphExec_st {
  Ops ops;
  struct CUstream_st *origin;
  struct CUstream_st **others; /* streams besides the origin that it uses */
  struct CUevent_st *joins;    /* one per other stream: the launch waits for it */
  size_t numOthers;
};

/* A kernel's parameter layout, as a real driver reads it from the cubin:
 * a pointer to a buffer of sizes[i] bytes, or sizes[i] bytes by value. */
typedef struct Kernel {
  bool consistent; /* every launch of it in the executable has the same layout */
  uint32_t numArgs;
  uint64_t *sizes;
  bool *byValue;
  bool *tensorMap; /* a CUtensorMap by value: the kernel reads its tensor through it */
} Kernel;

/* The layout the executable declares for the kernel of a name. */
typedef struct Declared {
  const char *name;
  size_t length;
  Kernel layout;
} Declared;

struct CUmod_st {
  uint32_t binary; /* in the plan */
};

struct CUfunc_st {
  char *name;
  ThunkyHostKernelFn fn;
  void *userData;
  const Kernel *kernel;
  int maxDynamicShared;
  struct CUfunc_st *next;
};

typedef struct Allocation {
  uintptr_t base;
  size_t size;
  bool host;
  bool global; /* a stand-in library's global: never freed, never a leak */
} Allocation;

/* When a cuStreamWriteValue32 last wrote a word, in virtual time. */
typedef struct Written {
  uintptr_t address;
  uint64_t ns;
} Written;

static struct {
  pthread_mutex_t lock;
  pthread_cond_t progress;
  bool initialized;
  int devices;
  int capability[2]; /* every device's compute capability, major and minor */
  bool delay;
  struct CUctx_st *contexts; /* per device: its primary context */
  struct CUstream_st *streams;
  Allocation *allocations;   /* sorted by base */
  size_t numAllocations, capacity, numGlobals;
  Written *written; /* few: a word per stream that signals */
  size_t numWritten, writtenCapacity;
  long liveEvents, liveModules, liveGraphs, liveExecs;
  unsigned long long captures; /* ids given to graphs */
  uint64_t nodes;              /* ids given to graph nodes */
  uint32_t streamIds;          /* ids given to streams */
  const ThunkySimActivityHooks *hooks; /* the simulated CUPTI's, or NULL */
  unsigned long long instantiated, launches; /* THUNKY_CUDA_SIM_GRAPHS=1 prints them */
  struct CUfunc_st *functions;
  /* What kernels are: the executable's plan and the host kernels. */
  ThunkyPlan *plan;
  ThunkyExecutable *executable; /* its own reading of the same bytes, for the kernels' layouts */
  ThunkyBuffer bytes;
  Declared *declared;
  size_t numDeclared, declaredCapacity;
  ThunkyHashMap declaredIndex; /* a name's hash (probed) -> sim.declared */
  Kernel *kernels;
  ThunkyRegistry *registry;
  bool loaded;
  CUresult loadResult;
  /* THUNKY_CUDA_SIM_FAIL */
  char failCall[64];
  long failAt;
  atomic_long failCount;
} sim = {.lock = PTHREAD_MUTEX_INITIALIZER, .progress = PTHREAD_COND_INITIALIZER};

/* Counts live objects for the leak report. */
static void count(long *live, long delta) {
  pthread_mutex_lock(&sim.lock);
  *live += delta;
  pthread_mutex_unlock(&sim.lock);
}

/* What the driver holds of each module and event it made: a real one keeps
 * them in its context until they are destroyed or the process ends, as the
 * CUDA backend leaves them after a kernel that never ends (so LeakSanitizer,
 * like the driver, finds them held). */
typedef struct Made {
  struct Made *prev, *next;
  max_align_t object[]; /* what the caller gets */
} Made;
static Made made = {&made, &made};

/* A zeroed object the leak report counts, or NULL when out of memory. */
static void *make(size_t size, long *live) {
  Made *m = calloc(1, sizeof *m + size);
  if (!m)
    return NULL;
  pthread_mutex_lock(&sim.lock);
  m->prev = &made, m->next = made.next;
  made.next->prev = m, made.next = m;
  *live += 1;
  pthread_mutex_unlock(&sim.lock);
  return m->object;
}

/* Frees an object made by make(). */
static CUresult unmake(void *object, long *live) {
  if (!object)
    return CUDA_ERROR_INVALID_HANDLE;
  Made *m = (Made *)((char *)object - offsetof(Made, object));
  pthread_mutex_lock(&sim.lock);
  m->prev->next = m->next, m->next->prev = m->prev;
  *live -= 1;
  pthread_mutex_unlock(&sim.lock);
  free(m);
  return CUDA_SUCCESS;
}

static __thread struct CUctx_st *current;
static __thread struct CUgraph_st *capturing; /* this thread's capture */

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  fputs("cuda-sim: ", stderr);
  vfprintf(stderr, fmt, args);
  fputc('\n', stderr);
  va_end(args);
}

static uint64_t maxNs(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Charges the caller's host clock for a call that succeeded; with the lock
 * held. */
static void charge(uint64_t ns) {
  if (current)
    current->hostNs += ns;
}

/* Charges a wait that saw work done that ended at `ns`: the host cannot
 * have seen it before then, and noticing takes it SYNC_HOST_NS. Work that
 * was done before the host asked costs nothing more: a stream found idle
 * is a cheap query, and a step's end checks every stream. With the lock
 * held. */
static void chargeWait(uint64_t ns) {
  if (current && ns > current->hostNs)
    current->hostNs = ns + SYNC_HOST_NS;
}

SIM_EXPORT uint64_t thunkySimClockNs(void) {
  pthread_mutex_lock(&sim.lock);
  uint64_t ns = current ? current->hostNs : 0;
  pthread_mutex_unlock(&sim.lock);
  return ns;
}

/*--- failures on purpose ---------------------------------------------------*/

static void readEnvironment(void) {
  const char *devices = getenv("THUNKY_CUDA_SIM_DEVICES");
  sim.devices = devices && atoi(devices) > 0 ? atoi(devices) : 4;
  /* An H200's, unless THUNKY_CUDA_SIM_COMPUTE_CAPABILITY=M.m says another. */
  const char *capability = getenv("THUNKY_CUDA_SIM_COMPUTE_CAPABILITY");
  if (!capability || sscanf(capability, "%d.%d", &sim.capability[0], &sim.capability[1]) != 2)
    sim.capability[0] = 9, sim.capability[1] = 0;
  const char *delay = getenv("THUNKY_CUDA_SIM_DELAY");
  sim.delay = delay && *delay && strcmp(delay, "0") != 0;
  const char *fail = getenv("THUNKY_CUDA_SIM_FAIL");
  sim.failAt = 0;
  if (fail && *fail) {
    const char *colon = strchr(fail, ':');
    size_t length = colon ? (size_t)(colon - fail) : strlen(fail);
    if (length >= sizeof sim.failCall)
      length = sizeof sim.failCall - 1;
    memcpy(sim.failCall, fail, length);
    sim.failCall[length] = 0;
    sim.failAt = colon ? atol(colon + 1) : 1;
  }
}

static pthread_once_t environmentRead = PTHREAD_ONCE_INIT;

SIM_EXPORT bool thunkySimInjected(const char *call) {
  pthread_once(&environmentRead, readEnvironment);
  return sim.failAt > 0 && !strcmp(call, sim.failCall) &&
         atomic_fetch_add(&sim.failCount, 1) + 1 == sim.failAt;
}

/*--- queues ----------------------------------------------------------------*/

static bool push(Ops *o, Op op) {
  if (o->count == o->capacity) {
    size_t capacity = o->capacity ? 2 * o->capacity : 16;
    Op *grown = malloc(capacity * sizeof *grown);
    if (!grown)
      return false;
    for (size_t i = 0; i < o->count; i++)
      grown[i] = o->at[(o->head + i) % (o->capacity ? o->capacity : 1)];
    free(o->at);
    o->at = grown, o->head = 0, o->capacity = capacity;
  }
  o->at[(o->head + o->count++) % o->capacity] = op;
  return true;
}

static void releasePayload(Payload *p) {
  if (p && atomic_fetch_sub(&p->refs, 1) == 1) {
    if (p->release)
      p->release(p->data);
    free(p);
  }
}

static void clearOps(Ops *o) {
  for (size_t i = 0; i < o->count; i++)
    releasePayload(o->at[(o->head + i) % o->capacity].payload);
  free(o->at);
  *o = (Ops){0};
}

/* Appends op to what `stream` runs next, or to the graph it is capturing.
 * Called with the lock held; takes the op's payload reference. A wait for
 * an event already reached takes that record's time now, as a later record
 * would move the event's. */
static CUresult enqueue(struct CUstream_st *stream, Op op) {
  Ops *target = &stream->queue;
  if (stream->capture) {
    op.stream = stream;
    target = &stream->capture->ops;
    if (op.kind == OP_HOST) {
      op.node = ++sim.nodes;
      if (sim.hooks)
        sim.hooks->nodeCreated((CUgraph)stream->capture, (CUgraphNode)(uintptr_t)op.node);
    }
  } else if (op.kind == OP_HOST && sim.hooks && !op.correlation) {
    op.correlation = sim.hooks->call(op.runtime, current ? current->hostNs : 0);
  }
  if (op.kind == OP_WAIT)
    op.afterNs = op.event->done >= op.generation ? op.event->ns : 0;
  if (!push(target, op)) {
    releasePayload(op.payload);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  pthread_cond_broadcast(&sim.progress);
  return CUDA_SUCCESS;
}

/* Enqueues op for a call that costs the caller `hostNs`, issued once the
 * call is charged; with the lock held. */
static CUresult enqueueCall(struct CUstream_st *stream, Op op, uint64_t hostNs) {
  op.issueNs = stream->ctx->hostNs + hostNs;
  CUresult r = enqueue(stream, op);
  if (r == CUDA_SUCCESS)
    charge(hostNs);
  return r;
}

/* Whether the word an OP_WAIT_VALUE waits on holds what it waits for: the
 * same comparison as a GPU's, cyclic for CU_STREAM_WAIT_VALUE_GEQ. */
static bool holds(const Op *op) {
  uint32_t word = __atomic_load_n(op->word, __ATOMIC_ACQUIRE);
  return op->equal ? word == op->value : (int32_t)(word - op->value) >= 0;
}

static bool runnable(const Op *op) {
  switch (op->kind) {
  case OP_WAIT:
    return op->event->done >= op->generation;
  case OP_WAIT_VALUE:
    return holds(op);
  case OP_HOST:
  case OP_RECORD:
  case OP_WRITE_VALUE:
    break;
  }
  return true;
}

/* When a cuStreamWriteValue32 last wrote the word at `address` (0: never);
 * with the lock held. */
static Written *written(uintptr_t address) {
  for (size_t i = 0; i < sim.numWritten; i++)
    if (sim.written[i].address == address)
      return &sim.written[i];
  return NULL;
}

static uint64_t writtenAt(uintptr_t address) {
  const Written *w = written(address);
  return w ? w->ns : 0;
}

/* Records that the word at `address` was written at virtual time ns; with
 * the lock held. Out of memory, a wait for it starts as if it were written
 * earlier: time, not order, is all that is lost. */
static void noteWritten(uintptr_t address, uint64_t ns) {
  Written *w = written(address);
  if (!w && thunkyArrayGrow((void **)&sim.written, &sim.writtenCapacity, sim.numWritten,
                            sizeof *sim.written))
    w = &sim.written[sim.numWritten++];
  if (w)
    *w = (Written){address, ns};
}

/* Marks e reached at `generation`, at virtual time ns, and gives that time
 * to the waits for it already queued, so that each sees its own record's
 * time however late its stream runs. With the lock held. */
static void reach(struct CUevent_st *e, unsigned long long generation, uint64_t ns) {
  for (struct CUstream_st *s = sim.streams; s; s = s->next)
    for (size_t i = 0; i < s->queue.count; i++) {
      Op *op = &s->queue.at[(s->queue.head + i) % s->queue.capacity];
      if (op->kind == OP_WAIT && op->event == e && op->generation > e->done &&
          op->generation <= generation)
        op->afterNs = ns;
    }
  e->done = generation;
  e->ns = ns;
}

static void dawdle(struct CUstream_st *s) {
  /* Up to half a millisecond, different for every stream and operation. */
  s->seed = s->seed * 1103515245u + 12345u;
  struct timespec t = {0, (long)((s->seed >> 8) % 500000)};
  nanosleep(&t, NULL);
}

/* Waits, with the lock held, for progress. A word a stream waits on may
 * also change by a store of the host's or a kernel's, which signals
 * nothing, so such a wait looks again each millisecond. */
static void await(const struct CUstream_st *s) {
  if (!s->queue.count || s->queue.at[s->queue.head].kind != OP_WAIT_VALUE) {
    pthread_cond_wait(&sim.progress, &sim.lock);
    return;
  }
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_nsec += 1000000;
  if (t.tv_nsec >= 1000000000)
    t.tv_sec++, t.tv_nsec -= 1000000000;
  pthread_cond_timedwait(&sim.progress, &sim.lock, &t);
}

static void *work(void *arg) {
  struct CUstream_st *s = arg;
  pthread_mutex_lock(&sim.lock);
  for (;;) {
    while (!s->stop && (!s->queue.count || !runnable(&s->queue.at[s->queue.head])))
      await(s);
    if (s->stop && (!s->queue.count || !runnable(&s->queue.at[s->queue.head])))
      break;
    Op op = s->queue.at[s->queue.head];
    if (op.kind == OP_WAIT_VALUE)
      op.afterNs = writtenAt((uintptr_t)op.word);
    s->busy = true;
    pthread_mutex_unlock(&sim.lock);
    if (sim.delay)
      dawdle(s);
    bool ok = true;
    char why[512] = "";
    if (op.kind == OP_HOST && s->ctx->sticky == CUDA_SUCCESS)
      ok = op.payload->run(op.payload->data, why, sizeof why);
    pthread_mutex_lock(&sim.lock);
    if (!ok) {
      note("%s", why);
      s->ctx->sticky = CUDA_ERROR_LAUNCH_FAILED;
    }
    uint64_t startNs = maxNs(maxNs(s->clockNs, op.issueNs), op.afterNs);
    s->clockNs = startNs + op.durationNs;
    if (op.kind == OP_HOST && op.activity && sim.hooks)
      sim.hooks->done(op.activity, op.correlation, op.node, (uint32_t)s->ctx->device, s->id,
                      startNs, s->clockNs);
    if (op.kind == OP_RECORD && op.event->done < op.generation)
      reach(op.event, op.generation, s->clockNs);
    if (op.kind == OP_WRITE_VALUE && s->ctx->sticky == CUDA_SUCCESS) {
      __atomic_store_n(op.word, op.value, __ATOMIC_RELEASE);
      noteWritten((uintptr_t)op.word, s->clockNs);
    }
    s->queue.head = (s->queue.head + 1) % s->queue.capacity;
    s->queue.count--;
    s->busy = false;
    releasePayload(op.payload);
    pthread_cond_broadcast(&sim.progress);
  }
  pthread_mutex_unlock(&sim.lock);
  return NULL;
}

static bool idle(const struct CUstream_st *s) { return !s->queue.count && !s->busy; }

/* Enqueues device work of an activity kind, for a driver call or (runtime)
 * one of NCCL's or cuBLASLt's. */
static CUresult enqueueWork(CUstream stream, ThunkySimRun run, void *data,
                            void (*release)(void *), uint64_t hostNs, uint64_t deviceNs,
                            ThunkySimActivity activity, bool runtime) {
  Payload *p = malloc(sizeof *p);
  if (!p) {
    if (release)
      release(data);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  atomic_init(&p->refs, 1);
  p->run = run, p->data = data, p->release = release;
  pthread_mutex_lock(&sim.lock);
  CUresult r =
      stream
          ? enqueueCall(stream,
                        (Op){.kind = OP_HOST, .payload = p, .durationNs = deviceNs,
                             .activity = activity, .runtime = runtime},
                        hostNs)
          : CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_unlock(&sim.lock);
  if (!stream)
    releasePayload(p);
  return r;
}

/* NCCL's and cuBLASLt's work runs as kernels, launched through the runtime. */
SIM_EXPORT CUresult thunkySimEnqueueTimed(CUstream stream, ThunkySimRun run, void *data,
                                          void (*release)(void *), uint64_t hostNs,
                                          uint64_t deviceNs) {
  return enqueueWork(stream, run, data, release, hostNs, deviceNs, THUNKY_SIM_KERNEL, true);
}

SIM_EXPORT CUresult thunkySimEnqueue(CUstream stream, ThunkySimRun run, void *data,
                                     void (*release)(void *)) {
  return thunkySimEnqueueTimed(stream, run, data, release, WORK_NS, WORK_NS);
}

/*--- memory ----------------------------------------------------------------*/

/* The allocation holding p, or NULL; with the lock held. */
static Allocation *find(uintptr_t p) {
  size_t lo = 0, hi = sim.numAllocations;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sim.allocations[mid].base <= p)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (!lo)
    return NULL;
  Allocation *a = &sim.allocations[lo - 1];
  return p - a->base < a->size ? a : NULL;
}

SIM_EXPORT bool thunkySimValid(const void *p, size_t size) {
  if (!size)
    return true;
  pthread_mutex_lock(&sim.lock);
  Allocation *a = find((uintptr_t)p);
  bool ok = a && size <= a->size - ((uintptr_t)p - a->base);
  pthread_mutex_unlock(&sim.lock);
  return ok;
}

/* Records `a` in address order; false when out of memory. With the lock held. */
static bool insertAllocation(Allocation a) {
  if (sim.numAllocations == sim.capacity) {
    size_t capacity = sim.capacity ? 2 * sim.capacity : 64;
    Allocation *grown = realloc(sim.allocations, capacity * sizeof *grown);
    if (!grown)
      return false;
    sim.allocations = grown, sim.capacity = capacity;
  }
  size_t i = sim.numAllocations;
  while (i > 0 && sim.allocations[i - 1].base > a.base) {
    sim.allocations[i] = sim.allocations[i - 1];
    i--;
  }
  sim.allocations[i] = a;
  sim.numAllocations++;
  sim.numGlobals += a.global;
  return true;
}

static CUresult allocate(size_t size, bool host, void **out) {
  if (!size)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = aligned_alloc(256, (size + 255) & ~(size_t)255);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_lock(&sim.lock);
  bool ok = insertAllocation((Allocation){(uintptr_t)p, size, host, false});
  pthread_mutex_unlock(&sim.lock);
  if (!ok) {
    free(p);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *out = p;
  return CUDA_SUCCESS;
}

static CUresult freeAllocation(uintptr_t p, bool host) {
  pthread_mutex_lock(&sim.lock);
  Allocation *a = find(p);
  if (!a || a->base != p || a->host != host || a->global) {
    pthread_mutex_unlock(&sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  size_t i = (size_t)(a - sim.allocations);
  /* Its words' write times go with it, so that memory allocated again
   * there starts afresh. */
  for (size_t w = sim.numWritten; w-- > 0;)
    if (sim.written[w].address - a->base < a->size)
      sim.written[w] = sim.written[--sim.numWritten];
  memmove(a, a + 1, (sim.numAllocations - i - 1) * sizeof *a);
  sim.numAllocations--;
  pthread_mutex_unlock(&sim.lock);
  free((void *)p);
  return CUDA_SUCCESS;
}

/*--- calls that need a context ---------------------------------------------*/

/* Whether a call may proceed: initialized, a current context that no fault
 * has poisoned, and not an unsafe call during this thread's capture. */
static CUresult ready(bool unsafeInCapture) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (current->sticky != CUDA_SUCCESS)
    return current->sticky;
  if (unsafeInCapture && capturing) {
    capturing->invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  return CUDA_SUCCESS;
}

/* Waits with the lock held until every stream of ctx is idle. */
static void drain(const struct CUctx_st *ctx) {
  for (;;) {
    bool busy = false;
    for (struct CUstream_st *s = sim.streams; s && !busy; s = s->next)
      busy = s->ctx == ctx && !idle(s);
    if (!busy)
      return;
    pthread_cond_wait(&sim.progress, &sim.lock);
  }
}

/*--- the entry points: device and context ----------------------------------*/

SIM_EXPORT CUresult cuInit(unsigned int flags) {
  if (flags)
    return CUDA_ERROR_INVALID_VALUE;
  if (thunkySimInjected("cuInit"))
    return CUDA_ERROR_NO_DEVICE;
  pthread_mutex_lock(&sim.lock);
  if (!sim.initialized) {
    sim.contexts = calloc((size_t)sim.devices, sizeof *sim.contexts);
    for (int i = 0; sim.contexts && i < sim.devices; i++)
      sim.contexts[i].device = i;
    sim.initialized = sim.contexts != NULL;
  }
  CUresult r = sim.initialized ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_unlock(&sim.lock);
  return r;
}

static const struct {
  CUresult code;
  const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation is not permitted"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE",
     "invalid cluster size"},
};

SIM_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
    if (errors[i].code == error) {
      *text = errors[i].text;
      return CUDA_SUCCESS;
    }
  *text = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
    if (errors[i].code == error) {
      *name = errors[i].name;
      return CUDA_SUCCESS;
    }
  *name = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  *count = sim.devices;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= sim.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (device < 0 || device >= sim.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  if (!name || length <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  snprintf(name, (size_t)length, "thunky CUDA simulation");
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                                         CUdevice device) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (device < 0 || device >= sim.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  /* Only what the runtime asks; anything else is a backend asking more of
   * the simulation than it models. */
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = sim.capability[0];
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = sim.capability[1];
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (device < 0 || device >= sim.devices)
    return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&sim.lock);
  sim.contexts[device].retained++;
  pthread_mutex_unlock(&sim.lock);
  *ctx = &sim.contexts[device];
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (device < 0 || device >= sim.devices || !sim.contexts[device].retained)
    return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&sim.lock);
  if (--sim.contexts[device].retained == 0)
    sim.contexts[device].sticky = CUDA_SUCCESS; /* a fresh context next time */
  pthread_mutex_unlock(&sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (ctx && !ctx->retained)
    return CUDA_ERROR_INVALID_CONTEXT;
  current = ctx;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSynchronize(void) {
  CUresult r = ready(true);
  if (r != CUDA_SUCCESS)
    return r;
  pthread_mutex_lock(&sim.lock);
  drain(current);
  r = current->sticky;
  uint64_t ns = 0;
  for (const struct CUstream_st *s = sim.streams; s; s = s->next)
    if (s->ctx == current)
      ns = maxNs(ns, s->clockNs);
  if (r == CUDA_SUCCESS)
    chargeWait(ns);
  pthread_mutex_unlock(&sim.lock);
  return r;
}

/*--- memory ----------------------------------------------------------------*/

SIM_EXPORT CUresult cuMemAlloc(CUdeviceptr *out, size_t size) {
  CUresult r = ready(true);
  if (r != CUDA_SUCCESS)
    return r;
  if (thunkySimInjected("cuMemAlloc"))
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *p;
  if ((r = allocate(size, false, &p)) == CUDA_SUCCESS)
    *out = (CUdeviceptr)(uintptr_t)p;
  return r;
}

SIM_EXPORT CUresult cuMemFree(CUdeviceptr p) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  return freeAllocation((uintptr_t)p, false);
}

SIM_EXPORT CUresult cuMemHostAlloc(void **out, size_t size, unsigned int flags) {
  (void)flags;
  CUresult r = ready(true);
  return r != CUDA_SUCCESS ? r : allocate(size, true, out);
}

SIM_EXPORT CUresult cuMemFreeHost(void *p) {
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  return freeAllocation((uintptr_t)p, true);
}

/* The legacy stream's copies and sets run at once: the plan's streams are
 * non-blocking, so they never wait for them. Charged when valid. */
static CUresult checked(const void *p, size_t size) {
  if (!thunkySimValid(p, size))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&sim.lock);
  charge(MEMORY_HOST_NS);
  pthread_mutex_unlock(&sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t size) {
  CUresult r = ready(true);
  if (r == CUDA_SUCCESS && (r = checked((void *)(uintptr_t)dst, size)) == CUDA_SUCCESS)
    memcpy((void *)(uintptr_t)dst, src, size);
  return r;
}

SIM_EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t size) {
  CUresult r = ready(true);
  if (r == CUDA_SUCCESS && (r = checked((void *)(uintptr_t)src, size)) == CUDA_SUCCESS)
    memcpy(dst, (const void *)(uintptr_t)src, size);
  return r;
}

SIM_EXPORT CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count) {
  CUresult r = ready(true);
  if (r == CUDA_SUCCESS && (r = checked((void *)(uintptr_t)dst, count)) == CUDA_SUCCESS)
    memset((void *)(uintptr_t)dst, value, count);
  return r;
}

/* The work of the async copies and sets, enqueued on a stream. */
typedef struct Fill {
  uint8_t *dst;
  const uint8_t *src; /* NULL: a set of `value` in `width`-byte words */
  uint32_t value;
  unsigned width;
  size_t size;
} Fill;

static bool runFill(void *data, char *why, size_t whySize) {
  const Fill *f = data;
  (void)why, (void)whySize;
  if (f->src)
    memmove(f->dst, f->src, f->size);
  else if (f->width == 1)
    memset(f->dst, (int)f->value, f->size);
  else
    for (size_t i = 0; i + 4 <= f->size; i += 4)
      memcpy(f->dst + i, &f->value, 4);
  return true;
}

static CUresult enqueueFill(CUstream stream, Fill fill) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!stream)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!thunkySimValid(fill.dst, fill.size) || (fill.src && !thunkySimValid(fill.src, fill.size)))
    return CUDA_ERROR_INVALID_VALUE;
  Fill *f = malloc(sizeof *f);
  if (!f)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *f = fill;
  return enqueueWork(stream, runFill, f, free, MEMORY_HOST_NS,
                     MEMORY_NS + fill.size / MEMORY_BYTES_PER_NS,
                     fill.src ? THUNKY_SIM_MEMCPY : THUNKY_SIM_MEMSET, false);
}

SIM_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                                    CUstream stream) {
  return enqueueFill(stream, (Fill){(uint8_t *)(uintptr_t)dst, NULL, value, 1, count});
}

SIM_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                                     CUstream stream) {
  if (count > SIZE_MAX / 4)
    return CUDA_ERROR_INVALID_VALUE;
  return enqueueFill(stream, (Fill){(uint8_t *)(uintptr_t)dst, NULL, value, 4, 4 * count});
}

SIM_EXPORT CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t size,
                                      CUstream stream) {
  return enqueueFill(stream, (Fill){(uint8_t *)(uintptr_t)dst,
                                    (const uint8_t *)(uintptr_t)src, 0, 1, size});
}

SIM_EXPORT CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t size,
                                      CUstream stream) {
  return enqueueFill(stream, (Fill){dst, (const uint8_t *)(uintptr_t)src, 0, 1, size});
}

/*--- tensor maps -----------------------------------------------------------*/

/* What the simulation keeps in a CUtensorMap's 128 opaque bytes: enough
 * for a launch to find the tensor, and to check it lies in memory. */
typedef struct SimTensorMap {
  char magic[8];
  uint64_t address;
  uint32_t rank, elementSize;
  uint64_t extent; /* bytes from the address to the last element's end */
} SimTensorMap;

static const char mapMagic[8] = "sim-tma";

/* cuTensorMapEncodeTiled, with the constraints CUDA's driver API documents
 * for it (group__CUDA__TENSOR__MEMORY), checked here on their own. */
SIM_EXPORT CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type,
                                           cuuint32_t rank, void *address, const cuuint64_t *dims,
                                           const cuuint64_t *strides, const cuuint32_t *box,
                                           const cuuint32_t *elementStrides,
                                           CUtensorMapInterleave interleave,
                                           CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                                           CUtensorMapFloatOOBfill fill) {
  static const uint32_t bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (!sim.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  uint32_t e = (unsigned)type < sizeof bytes / sizeof *bytes ? bytes[type] : 0;
  bool interleaved = interleave != CU_TENSOR_MAP_INTERLEAVE_NONE;
  uint64_t align = interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
  if (!map || !e || rank < 1 || rank > 5 || (interleaved && rank < 3) ||
      (uintptr_t)address % align || !dims || !box || !elementStrides || (rank > 1 && !strides) ||
      (unsigned)interleave > CU_TENSOR_MAP_INTERLEAVE_32B ||
      (unsigned)swizzle > CU_TENSOR_MAP_SWIZZLE_128B ||
      (unsigned)l2 > CU_TENSOR_MAP_L2_PROMOTION_L2_256B ||
      (unsigned)fill > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t extent = e;
  for (cuuint32_t d = 0; d < rank; d++) {
    uint64_t stride = d ? strides[d - 1] : e;
    if (!dims[d] || dims[d] > (UINT64_C(1) << 32) || !box[d] || box[d] > 256 ||
        !elementStrides[d] || elementStrides[d] > 8 ||
        (d && (stride % align || stride >= (UINT64_C(1) << 40))))
      return CUDA_ERROR_INVALID_VALUE;
    extent += (dims[d] - 1) * stride;
  }
  uint64_t inner = (uint64_t)box[0] * e;
  static const uint64_t span[] = {0, 32, 64, 128};
  if ((!interleaved && inner % 16) ||
      (interleave == CU_TENSOR_MAP_INTERLEAVE_32B && swizzle != CU_TENSOR_MAP_SWIZZLE_32B) ||
      (!interleaved && swizzle != CU_TENSOR_MAP_SWIZZLE_NONE && inner > span[swizzle]))
    return CUDA_ERROR_INVALID_VALUE;
  SimTensorMap m = {
      .address = (uintptr_t)address, .rank = rank, .elementSize = e, .extent = extent};
  memcpy(m.magic, mapMagic, sizeof m.magic);
  memset(map, 0, sizeof *map);
  memcpy(map, &m, sizeof m);
  return CUDA_SUCCESS;
}

/*--- modules and kernels ---------------------------------------------------*/

/* A kernel's parameters as its cubin would declare them, read from the
 * executable's own description of each launch rather than from thunky's
 * plan, so that the planner's misreading of it shows as a failure here: a
 * packing spec's constants by value and relocations as pointers to their
 * argument, else a pointer per argument; an argument with a TMA
 * descriptor as a CUtensorMap. Kernels are found by name. */
static bool hasTma(const StreamExecutor__Gpu__TmaMetadataProto *tma, int64_t arg) {
  for (size_t i = 0; tma && i < tma->n_arg_index_to_tma_info; i++)
    if (tma->arg_index_to_tma_info[i]->key == arg)
      return true;
  return false;
}

static bool newLayout(Kernel *k, size_t numArgs) {
  *k = (Kernel){.consistent = true, .numArgs = (uint32_t)numArgs};
  k->sizes = calloc(numArgs + 1, sizeof *k->sizes);
  k->byValue = calloc(numArgs + 1, sizeof *k->byValue);
  k->tensorMap = calloc(numArgs + 1, sizeof *k->tensorMap);
  return k->sizes && k->byValue && k->tensorMap;
}

static void freeLayout(Kernel *k) { free(k->sizes), free(k->byValue), free(k->tensorMap); }

/* Where kernel `name` is among sim.declared (true, *index), or the slot it
 * would take: its hash, probed past other names of the same hash, so that
 * each lookup costs a few probes however many kernels there are. */
static bool findDeclared(const char *name, size_t length, uint64_t *slot, uint32_t *index) {
  uint64_t key = thunkyHashBytes(name, length);
  *slot = key;
  for (uint64_t k = 1; thunkyHashMapGet(&sim.declaredIndex, *slot, index);
       *slot = (key + k++) * UINT64_C(0xff51afd7ed558ccd)) {
    const Declared *d = &sim.declared[*index];
    if (d->length == length && !memcmp(d->name, name, length))
      return true;
  }
  return false;
}

/* Records kernel `name`'s layout; one launched twice with two layouts is
 * not consistent, as a cubin declares one. */
static bool declare(const char *name, Kernel k) {
  uint64_t slot;
  uint32_t found;
  size_t length = strlen(name);
  if (findDeclared(name, length, &slot, &found)) {
    Kernel *d = &sim.declared[found].layout;
    bool same = d->numArgs == k.numArgs;
    for (uint32_t a = 0; same && a < k.numArgs; a++)
      same = d->sizes[a] == k.sizes[a] && d->byValue[a] == k.byValue[a] &&
             d->tensorMap[a] == k.tensorMap[a];
    d->consistent &= same;
    freeLayout(&k);
    return true;
  }
  if (!thunkyArrayGrow((void **)&sim.declared, &sim.declaredCapacity, sim.numDeclared,
                       sizeof *sim.declared) ||
      sim.numDeclared >= UINT32_MAX ||
      !thunkyHashMapPut(&sim.declaredIndex, slot, (uint32_t)sim.numDeclared)) {
    freeLayout(&k);
    return false;
  }
  sim.declared[sim.numDeclared++] = (Declared){name, length, k};
  return true;
}

static bool declareKernelThunk(const Xla__Gpu__KernelThunkProto *t) {
  Kernel k;
  if (!newLayout(&k, t->n_args)) {
    freeLayout(&k);
    return false;
  }
  for (size_t a = 0; a < t->n_args; a++) {
    k.sizes[a] = t->args[a] && t->args[a]->size > 0 ? (uint64_t)t->args[a]->size : 0;
    k.tensorMap[a] = hasTma(t->tma_metadata, (int64_t)a);
  }
  return declare(t->kernel_name ? t->kernel_name : "", k);
}

static uint64_t shapedSize(const Xla__ShapedSliceProto *s) {
  return s && s->slice && s->slice->size > 0 ? (uint64_t)s->slice->size : 0;
}

static bool declareCustomKernel(const Xla__Gpu__GpuExecutableProto *exe,
                                const Xla__Gpu__CustomKernelThunkProto *t) {
  const Xla__Gpu__CustomKernelProto *ck = t->custom_kernel;
  if (!ck)
    return true;
  const StreamExecutor__KernelLoaderSpecProto *spec = ck->kernel_spec;
  if (ck->has_kernel_spec_index)
    spec = ck->kernel_spec_index >= 0 && (size_t)ck->kernel_spec_index < exe->n_kernel_specs
               ? exe->kernel_specs[ck->kernel_spec_index]
               : NULL;
  const char *name = spec && spec->kernel_name && *spec->kernel_name ? spec->kernel_name
                     : ck->name                                      ? ck->name
                                                                     : "";
  const StreamExecutor__KernelArgsPackingSpecProto *packing =
      spec ? spec->kernel_args_packing_spec : NULL;
  Kernel k;
  if (!newLayout(&k, packing ? packing->n_kernel_arguments : t->n_args)) {
    freeLayout(&k);
    return false;
  }
  for (uint32_t a = 0; a < k.numArgs; a++) {
    const StreamExecutor__KernelArgPackingSpecProto *p =
        packing ? packing->kernel_arguments[a] : NULL;
    int64_t arg = a;
    if (p && !p->n_relocations) {
      k.byValue[a] = true, k.sizes[a] = p->data.len;
      continue;
    }
    if (p)
      arg = p->relocations[0]->argument_index;
    k.sizes[a] = arg >= 0 && (size_t)arg < t->n_args ? shapedSize(t->args[arg]) : 0;
    k.tensorMap[a] = hasTma(t->tma_metadata, arg);
  }
  return declare(name, k);
}

/* Every launch of the executable, however deeply its thunk is nested,
 * found by a walk over protobuf-c's descriptors (nesting is bounded by the
 * format's wire check). */
static bool declareAll(const Xla__Gpu__GpuExecutableProto *exe, const ProtobufCMessage *m) {
  if (m->descriptor == &xla__gpu__kernel_thunk_proto__descriptor)
    return declareKernelThunk((const Xla__Gpu__KernelThunkProto *)m);
  if (m->descriptor == &xla__gpu__custom_kernel_thunk_proto__descriptor)
    return declareCustomKernel(exe, (const Xla__Gpu__CustomKernelThunkProto *)m);
  const ProtobufCMessageDescriptor *d = m->descriptor;
  for (unsigned f = 0; f < d->n_fields; f++) {
    const ProtobufCFieldDescriptor *field = &d->fields[f];
    if (field->type != PROTOBUF_C_TYPE_MESSAGE)
      continue;
    const char *base = (const char *)m;
    if ((field->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
        *(const uint32_t *)(base + field->quantifier_offset) != field->id)
      continue;
    if (field->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(const size_t *)(base + field->quantifier_offset);
      ProtobufCMessage *const *items = *(ProtobufCMessage *const *const *)(base + field->offset);
      for (size_t i = 0; i < n; i++)
        if (!declareAll(exe, items[i]))
          return false;
    } else {
      const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)(base + field->offset);
      if (sub && !declareAll(exe, sub))
        return false;
    }
  }
  return true;
}

/* The plan of THUNKY_CUDA_SIM_EXECUTABLE and the host kernels of
 * THUNKY_CUDA_SIM_LIBRARIES, once; with the lock held. */
static CUresult loadKernels(void) {
  if (sim.loaded)
    return sim.loadResult;
  sim.loaded = true;
  sim.loadResult = CUDA_ERROR_INVALID_IMAGE;
  const char *path = getenv("THUNKY_CUDA_SIM_EXECUTABLE");
  ThunkyBuffer bytes = {0};
  ThunkyError error;
  ThunkyLimits limits = thunkyLimitsDefault();
  if (!path || !*path) {
    note("THUNKY_CUDA_SIM_EXECUTABLE is not set: the simulation takes kernels' arguments "
         "from the executable being run");
    return sim.loadResult;
  }
  if (!thunkyBufferReadFile(&bytes, path, &error)) {
    thunkyBufferDestroy(&bytes);
    note("THUNKY_CUDA_SIM_EXECUTABLE: %s", error.message);
    return sim.loadResult;
  }
  /* The executable reads its thunks from the bytes, which stay. */
  sim.bytes = bytes;
  bool planned = thunkyPlanCreate(bytes.data, bytes.size, &limits, &sim.plan, &error) &&
                 thunkyExecutableCreate(bytes.data, bytes.size, &limits, &sim.executable, &error);
  if (!planned) {
    note("%s: %s", path, error.message);
    return sim.loadResult;
  }
  const ThunkyPlan *p = sim.plan;
  const Xla__Gpu__GpuExecutableProto *exe = sim.executable->proto;
  sim.kernels = calloc(p->numKernels + 1, sizeof *sim.kernels);
  sim.registry = thunkyRegistryCreate();
  if (!sim.kernels || !sim.registry || !declareAll(exe, &exe->base))
    return sim.loadResult = CUDA_ERROR_OUT_OF_MEMORY;
  /* The plan names the kernels the backend loads; their layouts are the
   * executable's. */
  for (uint32_t k = 0; k < p->numKernels; k++) {
    uint64_t slot;
    uint32_t found;
    if (findDeclared((const char *)p->kernels[k].name.data, p->kernels[k].name.size, &slot, &found))
      sim.kernels[k] = sim.declared[found].layout;
  }
  const char *libraries = getenv("THUNKY_CUDA_SIM_LIBRARIES");
  char *list = strdup(libraries ? libraries : "");
  if (!list)
    return sim.loadResult = CUDA_ERROR_OUT_OF_MEMORY;
  bool ok = true;
  for (char *save = NULL, *lib = strtok_r(list, ":", &save); lib && ok;
       lib = strtok_r(NULL, ":", &save)) {
    void *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    ThunkyRegisterFn fn =
        handle ? (ThunkyRegisterFn)(uintptr_t)dlsym(handle, THUNKY_REGISTER_SYMBOL) : NULL;
    if (!fn)
      note("%s: %s", lib, handle ? "exports no " THUNKY_REGISTER_SYMBOL : dlerror());
    else if (!fn(sim.registry, &error))
      note("%s: %s", lib, error.message);
    ok = fn != NULL;
  }
  free(list);
  if (ok)
    sim.loadResult = CUDA_SUCCESS;
  return sim.loadResult;
}

/* Reads CU_JIT_ERROR_LOG_BUFFER from the options, to say why in it. */
static void logJit(unsigned numOptions, const CUjit_option *options, void **values,
                   const char *message) {
  char *log = NULL;
  size_t size = 0;
  for (unsigned i = 0; i < numOptions; i++) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      log = values[i];
    else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      size = (size_t)(uintptr_t)values[i];
  }
  if (log && size)
    snprintf(log, size, "%s", message);
}

SIM_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                       unsigned int numOptions, CUjit_option *options,
                                       void **values) {
  CUresult r = ready(true);
  if (r != CUDA_SUCCESS)
    return r;
  if (thunkySimInjected("cuModuleLoadDataEx")) {
    logJit(numOptions, options, values, "cuda-sim: a failure asked for by THUNKY_CUDA_SIM_FAIL");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  pthread_mutex_lock(&sim.lock);
  r = loadKernels();
  uint32_t found = UINT32_MAX;
  for (uint32_t b = 0; r == CUDA_SUCCESS && b < sim.plan->numBinaries && found == UINT32_MAX;
       b++) {
    const ThunkyPlanBinary *binary = &sim.plan->binaries[b];
    bool same = binary->isPtx ? strlen(image) == binary->bytes.size &&
                                    !memcmp(image, binary->bytes.data, binary->bytes.size)
                              : !memcmp(image, binary->bytes.data, binary->bytes.size);
    if (same)
      found = b;
  }
  pthread_mutex_unlock(&sim.lock);
  if (r != CUDA_SUCCESS)
    return r;
  if (found == UINT32_MAX) {
    logJit(numOptions, options, values, "cuda-sim: not one of the executable's binaries");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  struct CUmod_st *m = make(sizeof *m, &sim.liveModules);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  m->binary = found;
  *module = m;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuModuleUnload(CUmodule module) { return unmake(module, &sim.liveModules); }

/* The executable's own module holds the globals stand-in libraries
 * register (thunkyRegistryAddHostGlobal): one per process, which every
 * simulated device shares, where a GPU has one per loaded module. */
SIM_EXPORT CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
                                      const char *name) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!name || (!dptr && !bytes))
    return CUDA_ERROR_INVALID_VALUE;
  void *data;
  size_t size;
  if (module->binary != sim.plan->moduleBinary ||
      !thunkyRegistryGetHostGlobal(sim.registry, name, &data, &size) || !size)
    return CUDA_ERROR_NOT_FOUND;
  pthread_mutex_lock(&sim.lock);
  bool ok = find((uintptr_t)data) ||
            insertAllocation((Allocation){(uintptr_t)data, size, false, true});
  pthread_mutex_unlock(&sim.lock);
  if (!ok)
    return CUDA_ERROR_OUT_OF_MEMORY;
  if (dptr)
    *dptr = (CUdeviceptr)(uintptr_t)data;
  if (bytes)
    *bytes = size;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                                        const char *name) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!module || !name)
    return CUDA_ERROR_INVALID_VALUE;
  const ThunkyPlan *p = sim.plan;
  uint32_t k = 0;
  size_t length = strlen(name);
  while (k < p->numKernels &&
         !(p->kernels[k].binary == module->binary && p->kernels[k].name.size == length &&
           !memcmp(p->kernels[k].name.data, name, length)))
    k++;
  if (k == p->numKernels)
    return CUDA_ERROR_NOT_FOUND;
  if (!sim.kernels[k].sizes) {
    note("the executable declares no launch of kernel '%s'", name);
    return CUDA_ERROR_NOT_FOUND;
  }
  if (!sim.kernels[k].consistent) {
    note("kernel '%s' is launched with different argument sizes; the simulation needs one "
         "signature per kernel", name);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  ThunkyHostKernelFn fn;
  void *userData;
  if (!thunkyRegistryGetHostKernel(sim.registry, name, &fn, &userData)) {
    note("no host kernel '%s' in THUNKY_CUDA_SIM_LIBRARIES stands in for its device code",
         name);
    return CUDA_ERROR_NOT_FOUND;
  }
  pthread_mutex_lock(&sim.lock);
  struct CUfunc_st *f = sim.functions;
  while (f && !(f->kernel == &sim.kernels[k]))
    f = f->next;
  if (!f && (f = calloc(1, sizeof *f)) && !(f->name = strdup(name))) {
    free(f);
    f = NULL;
  }
  if (f && !f->kernel) {
    f->fn = fn, f->userData = userData, f->kernel = &sim.kernels[k];
    f->maxDynamicShared = 48 * 1024;
    f->next = sim.functions;
    sim.functions = f;
  }
  pthread_mutex_unlock(&sim.lock);
  if (!f)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *function = f;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute,
                                       CUfunction function) {
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    return CUDA_ERROR_NOT_SUPPORTED;
  *value = function->maxDynamicShared;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute,
                                       int value) {
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (value < 0 || value > 227 * 1024) /* an H100's or H200's most */
    return CUDA_ERROR_INVALID_VALUE;
  function->maxDynamicShared = value;
  return CUDA_SUCCESS;
}

typedef struct Launch {
  const struct CUfunc_st *f;
  void **args;
  uint8_t *values; /* the by-value parameters' bytes, which args point into */
  uint32_t grid[3], block[3];
  uint32_t rank, ranks;
} Launch;

static bool runLaunch(void *data, char *why, size_t whySize) {
  const Launch *l = data;
  const Kernel *k = l->f->kernel;
  for (uint32_t i = 0; i < k->numArgs; i++)
    if (!k->byValue[i] && !thunkySimValid(l->args[i], k->sizes[i])) {
      snprintf(why, whySize,
               "kernel '%s' argument %u: [%p, +%llu) is outside every allocation (an illegal "
               "address on a GPU)",
               l->f->name, i, l->args[i], (unsigned long long)k->sizes[i]);
      return false;
    }
  ThunkyKernelCall call = {.name = l->f->name, .args = l->args, .argSizes = k->sizes,
                           .numArgs = k->numArgs,
                           .grid = {l->grid[0], l->grid[1], l->grid[2]},
                           .block = {l->block[0], l->block[1], l->block[2]},
                           .rank = l->rank, .ranks = l->ranks};
  ThunkyError error = {{0}};
  if (l->f->fn(&call, l->f->userData, &error))
    return true;
  snprintf(why, whySize, "kernel '%s' failed: %s", l->f->name,
           error.message[0] ? error.message : "no message");
  return false;
}

static void freeLaunch(void *data) {
  Launch *l = data;
  free(l->args);
  free(l->values);
  free(l);
}

/* This process's place in the world, as thunky-run takes it. */
static uint32_t environmentNumber(const char *name, uint32_t otherwise) {
  const char *value = getenv(name);
  return value && *value ? (uint32_t)strtoul(value, NULL, 10) : otherwise;
}

/* Both launches: the parameters are read now, each as the kernel's layout
 * declares it (8 bytes of a pointer, or its bytes by value), as the driver
 * copies them; parameters that do not match the layout read as garbage. */
static CUresult launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                       unsigned sharedBytes, CUstream stream, void **params, void **extra,
                       const char *call) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!f || !stream)
    return CUDA_ERROR_INVALID_HANDLE;
  if (thunkySimInjected(call))
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  const Kernel *k = f->kernel;
  uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
  if (!grid[0] || !grid[1] || !grid[2] || !threads || threads > 1024 || extra ||
      (int)sharedBytes > f->maxDynamicShared || (k->numArgs && !params))
    return CUDA_ERROR_INVALID_VALUE;
  size_t valueBytes = 0;
  for (uint32_t i = 0; i < k->numArgs; i++)
    valueBytes += k->byValue[i] ? k->sizes[i] : 0;
  Launch *l = calloc(1, sizeof *l);
  void **args = calloc(k->numArgs + 1, sizeof *args);
  uint8_t *values = malloc(valueBytes + 1);
  if (!l || !args || !values) {
    free(l), free(args), free(values);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  uint8_t *at = values;
  for (uint32_t i = 0; i < k->numArgs; i++) {
    if (k->tensorMap[i]) {
      /* The kernel reads its tensor through the map: it must be one, of
       * memory that holds all the map describes. */
      /* The magic first: a caller that passed an 8-byte pointer in place of
       * the map must not make the simulation read past it. */
      SimTensorMap m;
      memcpy(m.magic, params[i], sizeof m.magic);
      bool isMap = !memcmp(m.magic, mapMagic, sizeof m.magic);
      if (isMap)
        memcpy(&m, params[i], sizeof m);
      if (!isMap || !thunkySimValid((const void *)(uintptr_t)m.address, m.extent)) {
        note("%s: parameter %u of kernel '%s' is no tensor map of device memory", call, i, f->name);
        free(l), free(args), free(values);
        return CUDA_ERROR_INVALID_VALUE;
      }
      args[i] = (void *)(uintptr_t)m.address;
    } else if (k->byValue[i]) {
      memcpy(at, params[i], k->sizes[i]);
      args[i] = at, at += k->sizes[i];
    } else {
      CUdeviceptr pointer;
      memcpy(&pointer, params[i], sizeof pointer);
      args[i] = (void *)(uintptr_t)pointer;
    }
  }
  uint32_t local = 0;
  pthread_mutex_lock(&sim.lock);
  for (int d = 0; d < sim.devices; d++)
    local += sim.contexts[d].retained > 0;
  pthread_mutex_unlock(&sim.lock);
  *l = (Launch){f, args, values, {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]},
                environmentNumber("THUNKY_RANK", 0) * local + (uint32_t)current->device,
                environmentNumber("THUNKY_WORLD_SIZE", 1) * local};
  /* Kernels of different names take different times, every launch of one
   * the same. */
  uint64_t ns = KERNEL_NS + KERNEL_STEP_NS * (thunkyHashBytes(f->name, strlen(f->name)) % 8);
  return enqueueWork(stream, runLaunch, l, freeLaunch, LAUNCH_HOST_NS, ns, THUNKY_SIM_KERNEL,
                     false);
}

SIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridX, unsigned int gridY,
                                   unsigned int gridZ, unsigned int blockX,
                                   unsigned int blockY, unsigned int blockZ,
                                   unsigned int sharedBytes, CUstream stream, void **params,
                                   void **extra) {
  return launch(f, (unsigned[]){gridX, gridY, gridZ}, (unsigned[]){blockX, blockY, blockZ},
                sharedBytes, stream, params, extra, "cuLaunchKernel");
}

/* Of the attributes, clusters only: each cluster dimension divides the
 * grid's, and a cluster holds at most 8 blocks unless the kernel allows
 * non-portable sizes (cuda.h: CUlaunchAttributeValue::clusterDim). */
SIM_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                     void **params, void **extra) {
  if (!config || (config->numAttrs && !config->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  unsigned grid[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
  for (unsigned i = 0; i < config->numAttrs; i++) {
    const CUlaunchAttribute *a = &config->attrs[i];
    if (a->id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      return CUDA_ERROR_NOT_SUPPORTED;
    unsigned cluster[3] = {a->value.clusterDim.x, a->value.clusterDim.y, a->value.clusterDim.z};
    for (int d = 0; d < 3; d++)
      if (!cluster[d] || (grid[d] && grid[d] % cluster[d]))
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if ((uint64_t)cluster[0] * cluster[1] * cluster[2] > 8)
      return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  return launch(f, grid, (unsigned[]){config->blockDimX, config->blockDimY, config->blockDimZ},
                config->sharedMemBytes, config->hStream, params, extra, "cuLaunchKernelEx");
}

/*--- streams and events ----------------------------------------------------*/

SIM_EXPORT CUresult cuStreamCreate(CUstream *out, unsigned int flags) {
  (void)flags; /* every simulated stream is non-blocking */
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  struct CUstream_st *s = calloc(1, sizeof *s);
  if (!s)
    return CUDA_ERROR_OUT_OF_MEMORY;
  s->ctx = current;
  s->seed = (unsigned)(uintptr_t)s;
  pthread_mutex_lock(&sim.lock);
  s->id = ++sim.streamIds;
  s->next = sim.streams;
  sim.streams = s;
  bool started = pthread_create(&s->thread, NULL, work, s) == 0;
  if (!started)
    sim.streams = s->next;
  pthread_mutex_unlock(&sim.lock);
  if (!started) {
    free(s);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *out = s;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamDestroy(CUstream s) {
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&sim.lock);
  s->stop = true;
  pthread_cond_broadcast(&sim.progress);
  pthread_mutex_unlock(&sim.lock);
  pthread_join(s->thread, NULL);
  pthread_mutex_lock(&sim.lock);
  for (struct CUstream_st **at = &sim.streams; *at; at = &(*at)->next)
    if (*at == s) {
      *at = s->next;
      break;
    }
  pthread_mutex_unlock(&sim.lock);
  clearOps(&s->queue); /* work that waited for an event that never came */
  free(s);
  return CUDA_SUCCESS;
}

/* Waits, with the lock held, until `s` is idle when `block`; its state
 * then. Asking a capturing stream ends its capture, as on a GPU. */
static CUresult streamState(struct CUstream_st *s, bool block) {
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&sim.lock);
  CUresult r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (s->capture) {
    s->capture->invalidated = true;
  } else {
    while (block && !idle(s))
      pthread_cond_wait(&sim.progress, &sim.lock);
    r = s->ctx->sticky != CUDA_SUCCESS ? s->ctx->sticky
        : idle(s)                      ? CUDA_SUCCESS
                                       : CUDA_ERROR_NOT_READY;
  }
  /* Only a wait that saw the work done costs time: how often a host polls
   * a stream still running depends on the machine. */
  if (r == CUDA_SUCCESS)
    chargeWait(s->clockNs);
  pthread_mutex_unlock(&sim.lock);
  return r;
}

SIM_EXPORT CUresult cuStreamQuery(CUstream s) { return streamState(s, false); }

SIM_EXPORT CUresult cuStreamSynchronize(CUstream s) { return streamState(s, true); }

SIM_EXPORT CUresult cuEventCreate(CUevent *out, unsigned int flags) {
  (void)flags;
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  struct CUevent_st *e = make(sizeof *e, &sim.liveEvents);
  if (!e)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *out = e;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuEventDestroy(CUevent e) { return unmake(e, &sim.liveEvents); }

SIM_EXPORT CUresult cuEventRecord(CUevent e, CUstream s) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!e || !s)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&sim.lock);
  e->capturedIn = s->capture ? s->capture->id : 0;
  r = enqueueCall(s,
                  (Op){.kind = OP_RECORD, .event = e, .generation = s->capture ? 0 : ++e->recorded},
                  EVENT_HOST_NS);
  pthread_mutex_unlock(&sim.lock);
  return r;
}

/* The capture still running that e was last recorded into, or NULL; with
 * the lock held. A capture runs while its origin stream captures it. */
static struct CUgraph_st *capturedIn(const struct CUevent_st *e) {
  for (struct CUstream_st *s = sim.streams; e->capturedIn && s; s = s->next)
    if (s->capture && s->capture->id == e->capturedIn && s->capture->origin == s)
      return s->capture;
  return NULL;
}

SIM_EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!e || !s || flags)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&sim.lock);
  struct CUgraph_st *g = capturedIn(e);
  if (g && !s->capture)
    s->capture = g; /* the stream joins the capture */
  if (s->capture && !g) {
    s->capture->invalidated = true;
    r = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
  } else if (s->capture && s->capture != g) {
    r = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
  } else {
    r = enqueueCall(s, (Op){.kind = OP_WAIT, .event = e, .generation = e->recorded}, EVENT_HOST_NS);
  }
  pthread_mutex_unlock(&sim.lock);
  return r;
}

/* Enqueues op on a word of device memory, which the driver requires be
 * 4-byte aligned. */
static CUresult valueOp(CUstream s, CUdeviceptr address, Op op) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  if (address % 4 || !thunkySimValid((const void *)(uintptr_t)address, 4))
    return CUDA_ERROR_INVALID_VALUE;
  op.word = (uint32_t *)(uintptr_t)address;
  pthread_mutex_lock(&sim.lock);
  r = enqueueCall(s, op, VALUE_HOST_NS);
  pthread_mutex_unlock(&sim.lock);
  return r;
}

/* The stream waits until the word compares as asked; it ends no sooner
 * than the cuStreamWriteValue32 that last wrote the word. */
SIM_EXPORT CUresult cuStreamWaitValue32(CUstream s, CUdeviceptr address, cuuint32_t value,
                                        unsigned int flags) {
  if (flags != CU_STREAM_WAIT_VALUE_GEQ && flags != CU_STREAM_WAIT_VALUE_EQ)
    return CUDA_ERROR_INVALID_VALUE;
  return valueOp(
      s, address,
      (Op){.kind = OP_WAIT_VALUE, .value = value, .equal = flags == CU_STREAM_WAIT_VALUE_EQ});
}

SIM_EXPORT CUresult cuStreamWriteValue32(CUstream s, CUdeviceptr address, cuuint32_t value,
                                         unsigned int flags) {
  if (flags != CU_STREAM_WRITE_VALUE_DEFAULT)
    return CUDA_ERROR_INVALID_VALUE;
  return valueOp(s, address, (Op){.kind = OP_WRITE_VALUE, .value = value});
}

/* cuda.h names the _v2 entry points above; a caller that looks the plain
 * names up finds the same functions. */
#undef cuStreamWaitValue32
#undef cuStreamWriteValue32
SIM_EXPORT CUresult cuStreamWaitValue32(CUstream, CUdeviceptr, cuuint32_t, unsigned int)
    __attribute__((alias("cuStreamWaitValue32_v2")));
SIM_EXPORT CUresult cuStreamWriteValue32(CUstream, CUdeviceptr, cuuint32_t, unsigned int)
    __attribute__((alias("cuStreamWriteValue32_v2")));

SIM_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  if (!start || !end)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&sim.lock);
  bool reached = start->recorded && start->done == start->recorded && end->recorded &&
                 end->done == end->recorded;
  if (reached)
    *ms = (float)((double)((int64_t)(end->ns - start->ns)) / 1e6);
  pthread_mutex_unlock(&sim.lock);
  return reached ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

/*--- graphs ----------------------------------------------------------------*/

SIM_EXPORT CUresult cuStreamBeginCapture(CUstream s, CUstreamCaptureMode mode) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  if (mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL && mode != CU_STREAM_CAPTURE_MODE_GLOBAL &&
      mode != CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_ERROR_INVALID_VALUE;
  struct CUgraph_st *g = calloc(1, sizeof *g);
  if (!g)
    return CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_lock(&sim.lock);
  if (s->capture) {
    pthread_mutex_unlock(&sim.lock);
    free(g);
    return CUDA_ERROR_ILLEGAL_STATE;
  }
  g->origin = s, g->capturing = true, g->id = ++sim.captures;
  s->capture = g;
  sim.liveGraphs++;
  pthread_mutex_unlock(&sim.lock);
  capturing = g;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamEndCapture(CUstream s, CUgraph *out) {
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&sim.lock);
  struct CUgraph_st *g = s->capture;
  if (!g || g->origin != s) {
    pthread_mutex_unlock(&sim.lock);
    return CUDA_ERROR_ILLEGAL_STATE;
  }
  for (struct CUstream_st *t = sim.streams; t; t = t->next)
    if (t->capture == g)
      t->capture = NULL;
  g->capturing = false;
  bool invalidated = g->invalidated;
  if (invalidated) {
    clearOps(&g->ops);
    free(g);
    sim.liveGraphs--;
  }
  pthread_mutex_unlock(&sim.lock);
  if (capturing == g)
    capturing = NULL;
  *out = invalidated ? NULL : g;
  return invalidated ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphDestroy(CUgraph g) {
  if (!g || g->capturing)
    return CUDA_ERROR_INVALID_VALUE;
  count(&sim.liveGraphs, -1);
  clearOps(&g->ops);
  free(g);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphExecDestroy(CUgraphExec x) {
  if (!x)
    return CUDA_ERROR_INVALID_HANDLE;
  count(&sim.liveExecs, -1);
  clearOps(&x->ops);
  free(x->others), free(x->joins), free(x);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphInstantiate(CUgraphExec *out, CUgraph g, unsigned long long flags) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!g || g->capturing || flags)
    return CUDA_ERROR_INVALID_VALUE;
  if (thunkySimInjected("cuGraphInstantiate"))
    return CUDA_ERROR_OUT_OF_MEMORY;
  struct CUgraphExec_st *x = calloc(1, sizeof *x);
  if (!x)
    return CUDA_ERROR_OUT_OF_MEMORY;
  x->origin = g->origin;
  bool ok = true;
  for (size_t i = 0; ok && i < g->ops.count; i++) {
    Op op = g->ops.at[i];
    if (op.node) { /* the executable graph's nodes are clones of the graph's */
      pthread_mutex_lock(&sim.lock);
      uint64_t clone = ++sim.nodes;
      if (sim.hooks)
        sim.hooks->nodeCloned((CUgraphNode)(uintptr_t)clone, (CUgraphNode)(uintptr_t)op.node);
      pthread_mutex_unlock(&sim.lock);
      op.node = clone;
    }
    if (op.payload)
      atomic_fetch_add(&op.payload->refs, 1);
    ok = push(&x->ops, op);
    if (!ok) {
      releasePayload(op.payload);
      break;
    }
    bool known = op.stream == x->origin;
    for (size_t j = 0; !known && j < x->numOthers; j++)
      known = x->others[j] == op.stream;
    if (known)
      continue;
    struct CUstream_st **others = realloc(x->others, (x->numOthers + 1) * sizeof *others);
    ok = others != NULL;
    if (ok)
      (x->others = others)[x->numOthers++] = op.stream;
  }
  x->joins = calloc(x->numOthers + 1, sizeof *x->joins);
  if (!ok || !x->joins) {
    clearOps(&x->ops);
    free(x->others), free(x->joins), free(x);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  count(&sim.liveExecs, 1);
  pthread_mutex_lock(&sim.lock);
  sim.instantiated++;
  pthread_mutex_unlock(&sim.lock);
  *out = x;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphLaunch(CUgraphExec x, CUstream s) {
  CUresult r = ready(false);
  if (r != CUDA_SUCCESS)
    return r;
  if (!x || !s)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&sim.lock);
  sim.launches++;
  /* One charge for the launch, however many ops it holds, all issued at
   * once; its work correlates with the launch. */
  uint64_t issueNs = s->ctx->hostNs + GRAPH_HOST_NS;
  uint32_t correlation = sim.hooks ? sim.hooks->call(false, s->ctx->hostNs) : 0;
  for (size_t i = 0; r == CUDA_SUCCESS && i < x->ops.count; i++) {
    Op op = x->ops.at[i];
    op.issueNs = issueNs;
    op.correlation = correlation;
    struct CUstream_st *target = op.stream == x->origin ? s : op.stream;
    if (op.kind == OP_RECORD)
      op.generation = ++op.event->recorded;
    else if (op.kind == OP_WAIT)
      op.generation = op.event->recorded;
    if (op.payload)
      atomic_fetch_add(&op.payload->refs, 1);
    op.stream = NULL;
    r = enqueue(target, op);
  }
  /* The launch is done when all of it is: s waits for every other stream. */
  for (size_t i = 0; r == CUDA_SUCCESS && i < x->numOthers; i++) {
    struct CUevent_st *join = &x->joins[i];
    r = enqueue(
        x->others[i],
        (Op){.kind = OP_RECORD, .event = join, .generation = ++join->recorded, .issueNs = issueNs});
    if (r == CUDA_SUCCESS)
      r = enqueue(
          s,
          (Op){.kind = OP_WAIT, .event = join, .generation = join->recorded, .issueNs = issueNs});
  }
  if (r == CUDA_SUCCESS)
    charge(GRAPH_HOST_NS);
  pthread_mutex_unlock(&sim.lock);
  return r;
}

/*--- activity --------------------------------------------------------------*/

SIM_EXPORT void thunkySimSetActivityHooks(const ThunkySimActivityHooks *hooks) {
  pthread_mutex_lock(&sim.lock);
  sim.hooks = hooks;
  pthread_mutex_unlock(&sim.lock);
}

/* A node's handle is its id: nothing is behind it. */
SIM_EXPORT uint64_t thunkySimGraphNodeId(CUgraphNode node) { return (uint64_t)(uintptr_t)node; }

/*--- leaks -----------------------------------------------------------------*/

/* At exit, what was never freed: the backend must free all it made, even
 * when a run fails. THUNKY_CUDA_SIM_CHECK_LEAKS=1 makes a leak fail the
 * process (exit status 3). */
__attribute__((destructor)) static void reportLeaks(void) {
  if (!sim.initialized)
    return;
  const char *graphs = getenv("THUNKY_CUDA_SIM_GRAPHS");
  if (graphs && !strcmp(graphs, "1"))
    note("%llu graphs instantiated, %llu graph launches", sim.instantiated, sim.launches);
  long streams = 0, contexts = 0, running = 0;
  for (struct CUstream_st *s = sim.streams; s; s = s->next)
    streams++, running += s->busy;
  /* Work that never ended (the backend gave up on it) keeps what it uses
   * to the end, as on a GPU, where the process's exit ends it. */
  if (running) {
    note("%ld streams still running work at exit: abandoned, as a GPU's is", running);
    return;
  }
  for (int d = 0; d < sim.devices; d++)
    contexts += sim.contexts[d].retained;
  size_t allocations = sim.numAllocations - sim.numGlobals;
  if (!allocations && !streams && !contexts && !sim.liveEvents && !sim.liveModules &&
      !sim.liveGraphs && !sim.liveExecs)
    return;
  note("leaked %zu allocations, %ld streams, %ld events, %ld modules, %ld graphs, %ld "
       "executable graphs, %ld context references",
       allocations, streams, sim.liveEvents, sim.liveModules, sim.liveGraphs,
       sim.liveExecs, contexts);
  const char *check = getenv("THUNKY_CUDA_SIM_CHECK_LEAKS");
  if (check && !strcmp(check, "1")) {
    fflush(NULL);
    _exit(3);
  }
}
