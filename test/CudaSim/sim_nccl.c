/*===- sim_nccl.c - a SIMULATED NCCL (libnccl.so.2), for tests -------------===*
 *
 * Communicators over ranks in one process or in several (sim.h says what
 * the simulation is). A clique's state lives in a shared memory file named
 * for NCCL's unique id, so that processes which share the id (the
 * backend's id file) meet in it: a process-shared lock and condition, one
 * slot per rank, and one staging region per rank for what it sends.
 *
 * Calls are enqueued on the caller's stream (thunkySimEnqueueTimed), a
 * group's calls as one piece of work that costs what its calls do, so they
 * are ordered, timed and captured into graphs like the driver's. When a
 * stream reaches a collective, its rank stages its input, waits for every
 * peer to stage theirs, and computes its own result from all of them in
 * rank order, as the host collectives do, so the two backends agree bit
 * for bit. A send stages its bytes and waits until the receiver has copied
 * them.
 *
 * As the real NCCL, it never gives up on a peer by itself: a peer that
 * never comes is waited for until the communicator is aborted
 * (ncclCommAbort), which ends its queued work and its setup. A
 * non-blocking communicator (ncclConfig_t.blocking = 0, inherited by
 * splits) is set up on a thread of its own: init and split return
 * ncclInProgress, and ncclCommGetAsyncError says when it settled.
 *
 *===--------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "sim.h"

#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/base/Error.h"
#include "thunky-c/runtime/Reduce.h"

#include <nccl.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SIM_EXPORT __attribute__((visibility("default")))

enum { MAX_RANKS = 64, MAX_MESSAGES = 64 };

/* One send waiting for its receiver: bytes at `offset` of the sender's
 * staging region, the `index`th the sender sent to `to`. */
typedef struct Message {
  int32_t to;
  uint32_t taken;
  uint64_t index, offset, bytes;
} Message;

typedef struct Slot {
  uint64_t posted;   /* the last collective whose input this rank staged */
  uint64_t consumed; /* the last collective it no longer reads peers' data for */
  uint64_t sent[MAX_RANKS], received[MAX_RANKS]; /* messages, per peer */
  Message outbox[MAX_MESSAGES];
  uint32_t numMessages;
} Slot;

typedef struct Shared {
  atomic_uint ready; /* the creator has set up what follows */
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int32_t nranks, joined;
  uint32_t aborted;
  uint64_t stagingBytes; /* per rank */
  Slot slots[MAX_RANKS];
} Shared;

struct ncclComm {
  _Atomic(Shared *) shared; /* published once mapped, for an abort to reach */
  size_t mappedBytes;
  char name[64]; /* of the shared memory file */
  int rank, size;
  uint64_t nextSequence; /* this rank's next collective */
  uint8_t id[16];        /* the clique's, for naming its splits */
  atomic_int refs;       /* the caller's, and one per piece of queued work */
  bool blocking;         /* from its config; a split's default */
  atomic_int state;      /* ncclInProgress while being set up, then its result */
  atomic_bool aborting;  /* ncclCommAbort was called: stop waiting */
  bool hasSetup;         /* setup runs on `setup`, joined by destroy or abort */
  pthread_t setup;
  char error[512];       /* why setup failed, for ncclGetLastError on another thread */
  struct ncclComm *parent; /* split from it; NCCL's rule: it outlives the split's setup */
};

static __thread char lastError[512];

static ncclResult_t failWith(ncclResult_t result, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ncclResult_t failWith(ncclResult_t result, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(lastError, sizeof lastError, fmt, args);
  va_end(args);
  fprintf(stderr, "nccl-sim: %s\n", lastError);
  return result;
}

static uint8_t *staging(const struct ncclComm *c, int rank) {
  return (uint8_t *)c->shared + sizeof(Shared) + (size_t)rank * c->shared->stagingBytes;
}

static void release(struct ncclComm *c) {
  if (atomic_fetch_sub(&c->refs, 1) == 1) {
    if (c->shared)
      munmap(c->shared, c->mappedBytes);
    free(c);
  }
}

/*--- waiting in the clique -------------------------------------------------*/

static bool lock(struct ncclComm *c) {
  int r = pthread_mutex_lock(&c->shared->lock);
  if (r == EOWNERDEAD) { /* a peer died holding it: nothing it did can be trusted */
    c->shared->aborted = 1;
    pthread_mutex_consistent(&c->shared->lock);
    r = 0;
  }
  return r == 0;
}

typedef bool (*Condition)(const struct ncclComm *c, uint64_t value);

/* The communicator a setup thread makes: its abort also ends the gather a
 * split runs on the parent. */
static __thread struct ncclComm *settingUp;

static bool aborted(struct ncclComm *c) {
  return c->shared->aborted || atomic_load(&c->aborting) ||
         (settingUp && atomic_load(&settingUp->aborting));
}

/* Waits, locked, until condition(c, value) holds; false (with why) when
 * the clique was aborted. No deadline: as with the real NCCL, only an
 * abort ends a wait for a peer that never comes. */
static bool await(struct ncclComm *c, Condition condition, uint64_t value, const char *what,
                  char *why, size_t whySize) {
  while (!condition(c, value)) {
    if (aborted(c)) {
      snprintf(why, whySize, "nccl-sim: rank %d: the communicator was aborted while it %s",
               c->rank, what);
      return false;
    }
    if (pthread_cond_wait(&c->shared->changed, &c->shared->lock) == EOWNERDEAD) {
      c->shared->aborted = 1;
      pthread_mutex_consistent(&c->shared->lock);
    }
  }
  return true;
}

static bool allJoined(const struct ncclComm *c, uint64_t unused) {
  (void)unused;
  return c->shared->joined == c->shared->nranks;
}

static bool allPosted(const struct ncclComm *c, uint64_t sequence) {
  for (int r = 0; r < c->size; r++)
    if (c->shared->slots[r].posted < sequence)
      return false;
  return true;
}

static bool allConsumed(const struct ncclComm *c, uint64_t sequence) {
  for (int r = 0; r < c->size; r++)
    if (c->shared->slots[r].consumed < sequence)
      return false;
  return true;
}

/*--- communicators ---------------------------------------------------------*/

SIM_EXPORT const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess: return "no error";
  case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
  case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError: return "remote process exited or there was a network error";
  case ncclInProgress: return "NCCL operation in progress";
  default: return "unknown result code";
  }
}

SIM_EXPORT const char *ncclGetLastError(ncclComm_t comm) {
  return comm && comm->error[0] ? comm->error : lastError;
}

SIM_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 0, sizeof *id);
  FILE *f = fopen("/dev/urandom", "rb");
  bool ok = f && fread(id->internal, 1, 16, f) == 16;
  if (f)
    fclose(f);
  return ok ? ncclSuccess : failWith(ncclSystemError, "cannot read /dev/urandom for an id");
}

static uint64_t stagingBytes(void) {
  const char *value = getenv("THUNKY_CUDA_SIM_NCCL_BYTES");
  long long bytes = value ? atoll(value) : 0;
  return bytes > 0 ? (uint64_t)bytes : 16u << 20;
}

/* Waits for a peer process's setup of the clique file, or for an abort. */
static bool awaitCreator(struct ncclComm *c, int fd, Shared *s) {
  struct stat st;
  while (!atomic_load(&c->aborting) &&
         (s ? !atomic_load(&s->ready)
            : fstat(fd, &st) == 0 && (size_t)st.st_size < c->mappedBytes))
    usleep(1000);
  return !atomic_load(&c->aborting);
}

/* Opens (or, first, creates) the clique of `id` and joins c to it as
 * `rank`, waiting for every peer to join. */
static ncclResult_t join(struct ncclComm *c, int nranks, const uint8_t id[16], int rank) {
  if (nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks)
    return failWith(ncclInvalidArgument, "rank %d of %d ranks (the simulation has at most %d)",
                    rank, nranks, MAX_RANKS);
  memcpy(c->id, id, 16);
  c->rank = rank, c->size = nranks;
  int n = snprintf(c->name, sizeof c->name, "/thunky-cuda-sim-");
  for (int i = 0; i < 16; i++)
    n += snprintf(c->name + n, sizeof c->name - (size_t)n, "%02x", id[i]);
  uint64_t per = stagingBytes();
  c->mappedBytes = sizeof(Shared) + (size_t)nranks * per;
  int fd = shm_open(c->name, O_RDWR | O_CREAT | O_EXCL, 0600);
  bool creator = fd >= 0;
  if (!creator)
    fd = shm_open(c->name, O_RDWR, 0600);
  if (fd < 0)
    return failWith(ncclSystemError, "shm_open %s: %s", c->name, strerror(errno));
  if (creator && ftruncate(fd, (off_t)c->mappedBytes) != 0) {
    close(fd), shm_unlink(c->name);
    return failWith(ncclSystemError, "sizing %s: %s", c->name, strerror(errno));
  }
  /* A joiner may come before the creator has sized the file. */
  bool sized = creator || awaitCreator(c, fd, NULL);
  Shared *s = sized ? mmap(NULL, c->mappedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                    : MAP_FAILED;
  close(fd);
  if (s == MAP_FAILED)
    return sized ? failWith(ncclSystemError, "mapping %s: %s", c->name, strerror(errno))
                 : failWith(ncclSystemError, "aborted while joining");
  if (creator) {
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&s->lock, &ma);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_cond_init(&s->changed, &ca);
    s->nranks = nranks, s->stagingBytes = per;
    atomic_store(&s->ready, 1);
  }
  c->shared = s; /* from here an abort wakes the wait below */
  char why[512] = "";
  bool ok = awaitCreator(c, -1, s) && s->nranks == nranks && lock(c);
  if (ok) {
    s->joined++;
    pthread_cond_broadcast(&s->changed);
    ok = await(c, allJoined, 0, "joined the communicator", why, sizeof why);
    pthread_mutex_unlock(&s->lock);
  }
  if (!ok) {
    if (creator)
      shm_unlink(c->name);
    return why[0] || atomic_load(&c->aborting)
               ? failWith(ncclSystemError, "%s", why[0] ? why + strlen("nccl-sim: ")
                                                        : "aborted while joining")
               : failWith(ncclInvalidUsage, "the clique of this id has another size");
  }
  /* Every rank has it mapped: the name is no longer needed. */
  if (rank == 0)
    shm_unlink(c->name);
  return ncclSuccess;
}

/* What a communicator's setup does: join a clique, or first split a parent
 * (its members agreeing on the clique) and join that. */
typedef struct Setup {
  struct ncclComm *comm, *parent;
  int nranks, rank, color, key;
  uint8_t id[16];
} Setup;

static ncclResult_t split(Setup *setup);

static void *setUp(void *arg) {
  Setup *setup = arg;
  struct ncclComm *c = setup->comm;
  settingUp = c;
  ncclResult_t result = setup->parent ? split(setup) : join(c, setup->nranks, setup->id,
                                                            setup->rank);
  if (setup->parent)
    release(setup->parent);
  if (result != ncclSuccess)
    snprintf(c->error, sizeof c->error, "%s", lastError);
  atomic_store(&c->state, result);
  settingUp = NULL;
  free(setup);
  return NULL;
}

/* A new communicator set up as `setup` says: here when blocking, else on a
 * thread of its own, returning ncclInProgress at once. */
static ncclResult_t create(ncclComm_t *out, bool blocking, const Setup *how) {
  *out = NULL;
  struct ncclComm *c = calloc(1, sizeof *c);
  Setup *setup = malloc(sizeof *setup);
  if (!c || !setup) {
    free(c), free(setup);
    return failWith(ncclSystemError, "out of memory");
  }
  atomic_init(&c->refs, 1);
  atomic_init(&c->state, ncclInProgress);
  atomic_init(&c->aborting, false);
  c->blocking = blocking;
  c->parent = how->parent;
  *setup = *how;
  setup->comm = c;
  if (setup->parent)
    atomic_fetch_add(&setup->parent->refs, 1);
  if (!blocking) {
    c->hasSetup = pthread_create(&c->setup, NULL, setUp, setup) == 0;
    if (c->hasSetup) {
      *out = c;
      return ncclInProgress;
    }
    if (setup->parent)
      release(setup->parent);
    free(setup), free(c);
    return failWith(ncclSystemError, "cannot start a thread");
  }
  setUp(setup);
  ncclResult_t result = atomic_load(&c->state);
  if (result != ncclSuccess)
    release(c);
  else
    *out = c;
  return result;
}

/* blocking = 0 makes a non-blocking communicator; anything else (and no
 * config) a blocking one, as NCCL's default. */
static bool blockingOf(const ncclConfig_t *config, bool otherwise) {
  return !config || config->blocking == NCCL_CONFIG_UNDEF_INT ? otherwise
                                                               : config->blocking != 0;
}

SIM_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id,
                                               int rank, ncclConfig_t *config) {
  if (thunkySimInjected("ncclCommInitRankConfig")) {
    *comm = NULL;
    return failWith(ncclSystemError, "a failure asked for by THUNKY_CUDA_SIM_FAIL");
  }
  Setup setup = {.nranks = nranks, .rank = rank};
  memcpy(setup.id, id.internal, 16);
  return create(comm, blockingOf(config, true), &setup);
}

SIM_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id,
                                         int rank) {
  return ncclCommInitRankConfig(comm, nranks, id, rank, NULL);
}

SIM_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError) {
  if (!comm || !asyncError)
    return failWith(ncclInvalidArgument, "ncclCommGetAsyncError of no communicator");
  *asyncError = atomic_load(&comm->state);
  /* A peer's abort reaches the others as a remote error. */
  Shared *s = comm->shared;
  if (*asyncError == ncclSuccess && s && s->aborted && !atomic_load(&comm->aborting))
    *asyncError = ncclRemoteError;
  return ncclSuccess;
}

/* Waits for a setup thread, which an abort has told to stop. */
static void finishSetup(struct ncclComm *c) {
  if (c->hasSetup)
    pthread_join(c->setup, NULL);
  c->hasSetup = false;
}

SIM_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return failWith(ncclInvalidArgument, "ncclCommDestroy of no communicator");
  finishSetup(comm);
  release(comm);
  return ncclSuccess;
}

/* Ends the communicator's setup and every wait of its queued work, in this
 * process and the clique's others. */
SIM_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  atomic_store(&comm->aborting, true);
  Shared *s = comm->shared;
  if (s && lock(comm)) {
    s->aborted = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
  }
  /* A split still gathering waits on its parent's clique: wake it there. */
  if (comm->hasSetup && comm->parent && comm->parent->shared && lock(comm->parent)) {
    pthread_cond_broadcast(&comm->parent->shared->changed);
    pthread_mutex_unlock(&comm->parent->shared->lock);
  }
  finishSetup(comm);
  release(comm);
  return ncclSuccess;
}

/*--- collectives -----------------------------------------------------------*/

typedef enum { CALL_ALL_REDUCE, CALL_ALL_GATHER, CALL_REDUCE_SCATTER, CALL_BROADCAST,
               CALL_SEND, CALL_RECV } CallKind;

typedef struct Call {
  CallKind kind;
  const uint8_t *send;
  uint8_t *recv;
  size_t count; /* elements: of the result (all-reduce, broadcast), of each rank's part */
  ncclDataType_t type;
  ncclRedOp_t op;
  int peer; /* root, or the peer of a send or receive */
} Call;

/* The calls of one group on one communicator and stream. */
typedef struct Batch {
  struct ncclComm *comm;
  CUstream stream;
  Call *calls;
  size_t count, capacity;
} Batch;

static size_t typeBytes(ncclDataType_t t) {
  switch (t) {
  case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
  case ncclFloat16: case ncclBfloat16: return 2;
  case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
  case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
  default: return 0;
  }
}

static int32_t xlaType(ncclDataType_t t) {
  switch (t) {
  case ncclInt8: return THUNKY_TYPE_S8;
  case ncclUint8: return THUNKY_TYPE_U8;
  case ncclInt32: return THUNKY_TYPE_S32;
  case ncclUint32: return THUNKY_TYPE_U32;
  case ncclInt64: return THUNKY_TYPE_S64;
  case ncclUint64: return THUNKY_TYPE_U64;
  case ncclFloat16: return THUNKY_TYPE_F16;
  case ncclBfloat16: return THUNKY_TYPE_BF16;
  case ncclFloat32: return THUNKY_TYPE_F32;
  case ncclFloat64: return THUNKY_TYPE_F64;
  case ncclFloat8e5m2: return THUNKY_TYPE_F8E5M2;
  case ncclFloat8e4m3: return THUNKY_TYPE_F8E4M3FN;
  default: return THUNKY_TYPE_INVALID;
  }
}

static ThunkyReduction reductionOf(ncclRedOp_t op) {
  switch (op) {
  case ncclSum: return THUNKY_REDUCE_SUM;
  case ncclProd: return THUNKY_REDUCE_PRODUCT;
  case ncclMin: return THUNKY_REDUCE_MIN;
  case ncclMax: return THUNKY_REDUCE_MAX;
  default: return (ThunkyReduction)0;
  }
}

/* Bytes a rank stages for a collective. */
static size_t stagedBytes(const Call *k, int size) {
  size_t element = typeBytes(k->type);
  switch (k->kind) {
  case CALL_ALL_REDUCE: case CALL_BROADCAST: case CALL_ALL_GATHER: return k->count * element;
  case CALL_REDUCE_SCATTER: return k->count * element * (size_t)size;
  default: return 0;
  }
}

/* One collective, from staging to this rank's result. */
static bool collective(struct ncclComm *c, const Call *k, char *why, size_t whySize) {
  Shared *s = c->shared;
  size_t bytes = stagedBytes(k, c->size), element = typeBytes(k->type);
  uint64_t sequence = ++c->nextSequence;
  ThunkyError error;
  /* Peers may still read what this rank staged for the last collective. */
  if (!await(c, allConsumed, sequence - 1, "waited to stage a collective", why, whySize))
    return false;
  if (k->kind != CALL_BROADCAST || k->peer == c->rank)
    memcpy(staging(c, c->rank), k->send, bytes);
  s->slots[c->rank].posted = sequence;
  pthread_cond_broadcast(&s->changed);
  if (!await(c, allPosted, sequence, "waited for a collective", why, whySize))
    return false;
  pthread_mutex_unlock(&s->lock); /* peers touch their own staging only after all consume */
  bool ok = true;
  switch (k->kind) {
  case CALL_ALL_REDUCE:
  case CALL_REDUCE_SCATTER: {
    size_t part = k->kind == CALL_ALL_REDUCE ? 0 : (size_t)c->rank * k->count * element;
    memcpy(k->recv, staging(c, 0) + part, k->count * element);
    for (int r = 1; r < c->size && ok; r++)
      ok = thunkyElementReduce(xlaType(k->type), reductionOf(k->op), k->recv,
                               staging(c, r) + part, k->count, &error);
    if (!ok)
      snprintf(why, whySize, "nccl-sim: cannot reduce: %s", error.message);
    break;
  }
  case CALL_ALL_GATHER:
    for (int r = 0; r < c->size; r++)
      memcpy(k->recv + (size_t)r * bytes, staging(c, r), bytes);
    break;
  case CALL_BROADCAST:
    memmove(k->recv, staging(c, k->peer), bytes);
    break;
  default:
    break;
  }
  if (!lock(c)) {
    snprintf(why, whySize, "nccl-sim: the communicator's lock failed");
    return false;
  }
  s->slots[c->rank].consumed = sequence;
  pthread_cond_broadcast(&s->changed);
  return ok;
}

static bool messageArrived(const struct ncclComm *c, uint64_t peerAndIndex) {
  int peer = (int)(peerAndIndex >> 48);
  uint64_t index = peerAndIndex & ((UINT64_C(1) << 48) - 1);
  const Slot *from = &c->shared->slots[peer];
  for (uint32_t m = 0; m < from->numMessages; m++)
    if (from->outbox[m].to == c->rank && from->outbox[m].index == index && !from->outbox[m].taken)
      return true;
  return false;
}

static bool allTaken(const struct ncclComm *c, uint64_t unused) {
  (void)unused;
  const Slot *me = &c->shared->slots[c->rank];
  for (uint32_t m = 0; m < me->numMessages; m++)
    if (!me->outbox[m].taken)
      return false;
  return true;
}

/* A group's sends and receives: every send staged first, then every receive
 * taken, then wait until the peers took the sends. */
static bool pointToPoint(struct ncclComm *c, const Batch *b, char *why, size_t whySize) {
  Shared *s = c->shared;
  Slot *me = &s->slots[c->rank];
  if (!await(c, allConsumed, c->nextSequence, "waited to stage a send", why, whySize))
    return false;
  uint64_t offset = 0;
  me->numMessages = 0;
  for (size_t i = 0; i < b->count; i++) {
    const Call *k = &b->calls[i];
    size_t bytes = k->count * typeBytes(k->type);
    if (k->kind != CALL_SEND)
      continue;
    if (me->numMessages == MAX_MESSAGES || offset + bytes > s->stagingBytes) {
      snprintf(why, whySize, "nccl-sim: a group sends more than %d messages or %llu bytes "
               "(THUNKY_CUDA_SIM_NCCL_BYTES)", MAX_MESSAGES,
               (unsigned long long)s->stagingBytes);
      return false;
    }
    memcpy(staging(c, c->rank) + offset, k->send, bytes);
    me->outbox[me->numMessages++] =
        (Message){k->peer, 0, me->sent[k->peer]++, offset, bytes};
    offset += bytes;
  }
  pthread_cond_broadcast(&s->changed);
  for (size_t i = 0; i < b->count; i++) {
    const Call *k = &b->calls[i];
    if (k->kind != CALL_RECV)
      continue;
    uint64_t index = me->received[k->peer];
    if (!await(c, messageArrived, (uint64_t)k->peer << 48 | index, "waited for a receive", why,
               whySize))
      return false;
    Slot *from = &s->slots[k->peer];
    for (uint32_t m = 0; m < from->numMessages; m++) {
      Message *msg = &from->outbox[m];
      if (msg->to != c->rank || msg->index != index || msg->taken)
        continue;
      size_t bytes = k->count * typeBytes(k->type);
      if (msg->bytes != bytes) {
        snprintf(why, whySize, "nccl-sim: rank %d receives %zu bytes from rank %d, which sent "
                 "%llu", c->rank, bytes, k->peer, (unsigned long long)msg->bytes);
        return false;
      }
      memcpy(k->recv, staging(c, k->peer) + msg->offset, bytes);
      msg->taken = 1;
      me->received[k->peer]++;
      break;
    }
    pthread_cond_broadcast(&s->changed);
  }
  return await(c, allTaken, 0, "waited for its sends to be received", why, whySize);
}

static bool runBatch(void *data, char *why, size_t whySize) {
  Batch *b = data;
  struct ncclComm *c = b->comm;
  if (!lock(c)) {
    snprintf(why, whySize, "nccl-sim: the communicator's lock failed");
    return false;
  }
  bool ok = true, p2p = false;
  for (size_t i = 0; i < b->count && ok; i++) {
    if (b->calls[i].kind == CALL_SEND || b->calls[i].kind == CALL_RECV)
      p2p = true;
    else
      ok = collective(c, &b->calls[i], why, whySize);
  }
  if (ok && p2p)
    ok = pointToPoint(c, b, why, whySize);
  pthread_mutex_unlock(&c->shared->lock);
  return ok;
}

static void freeBatch(void *data) {
  Batch *b = data;
  release(b->comm);
  free(b->calls);
  free(b);
}

/*--- groups ----------------------------------------------------------------*/

static __thread int groupDepth;
static __thread Batch **pending; /* this group's batches, one per comm and stream */
static __thread size_t numPending;

/* The virtual clock's costs (sim.h), in ns: each call's of the host's time,
 * and of the stream's, CALL_NS and a ns per CALL_BYTES_PER_NS bytes. */
enum { CALL_HOST_NS = 2500, CALL_NS = 3000, CALL_BYTES_PER_NS = 100 };

static ncclResult_t submit(Batch *b) {
  uint64_t hostNs = 0, deviceNs = 0;
  for (size_t i = 0; i < b->count; i++) {
    hostNs += CALL_HOST_NS;
    deviceNs += CALL_NS + b->calls[i].count * typeBytes(b->calls[i].type) / CALL_BYTES_PER_NS;
  }
  atomic_fetch_add(&b->comm->refs, 1);
  CUresult r = thunkySimEnqueueTimed(b->stream, runBatch, b, freeBatch, hostNs, deviceNs);
  return r == CUDA_SUCCESS ? ncclSuccess
                           : failWith(ncclUnhandledCudaError, "enqueueing on the stream: %d",
                                      (int)r);
}

static ncclResult_t add(struct ncclComm *c, CUstream stream, Call call) {
  if (!c)
    return failWith(ncclInvalidArgument, "no communicator");
  if ((call.kind != CALL_SEND && call.kind != CALL_RECV && !xlaType(call.type)) ||
      ((call.kind == CALL_ALL_REDUCE || call.kind == CALL_REDUCE_SCATTER) &&
       !reductionOf(call.op)))
    return failWith(ncclInvalidArgument, "data type %d or reduction %d", (int)call.type,
                    (int)call.op);
  if (stagedBytes(&call, c->size) > c->shared->stagingBytes)
    return failWith(ncclInvalidUsage, "a collective of %zu bytes is more than the %llu the "
                    "simulation stages (THUNKY_CUDA_SIM_NCCL_BYTES)",
                    stagedBytes(&call, c->size), (unsigned long long)c->shared->stagingBytes);
  if ((call.kind == CALL_SEND || call.kind == CALL_RECV || call.kind == CALL_BROADCAST) &&
      (call.peer < 0 || call.peer >= c->size))
    return failWith(ncclInvalidArgument, "peer %d of %d ranks", call.peer, c->size);
  Batch *b = NULL;
  for (size_t i = 0; groupDepth && i < numPending && !b; i++)
    if (pending[i]->comm == c && pending[i]->stream == stream)
      b = pending[i];
  if (!b) {
    b = calloc(1, sizeof *b);
    Batch **grown = groupDepth ? realloc(pending, (numPending + 1) * sizeof *grown) : pending;
    if (!b || (groupDepth && !grown)) {
      free(b);
      return failWith(ncclSystemError, "out of memory");
    }
    b->comm = c, b->stream = stream;
    if (groupDepth)
      (pending = grown)[numPending++] = b;
  }
  if (b->count == b->capacity) {
    size_t capacity = b->capacity ? 2 * b->capacity : 4;
    Call *calls = realloc(b->calls, capacity * sizeof *calls);
    if (!calls) {
      if (!groupDepth)
        free(b);
      return failWith(ncclSystemError, "out of memory");
    }
    b->calls = calls, b->capacity = capacity;
  }
  b->calls[b->count++] = call;
  return groupDepth ? ncclSuccess : submit(b);
}

SIM_EXPORT ncclResult_t ncclGroupStart(void) {
  groupDepth++;
  return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclGroupEnd(void) {
  if (!groupDepth)
    return failWith(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--groupDepth)
    return ncclSuccess;
  ncclResult_t result = ncclSuccess;
  for (size_t i = 0; i < numPending; i++) {
    ncclResult_t r = submit(pending[i]);
    if (result == ncclSuccess)
      result = r;
  }
  free(pending);
  pending = NULL, numPending = 0;
  return result;
}

SIM_EXPORT ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count,
                                      ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                      cudaStream_t stream) {
  return add(comm, stream, (Call){CALL_ALL_REDUCE, send, recv, count, type, op, 0});
}

SIM_EXPORT ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count,
                                          ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream) {
  return add(comm, stream, (Call){CALL_REDUCE_SCATTER, send, recv, count, type, op, 0});
}

SIM_EXPORT ncclResult_t ncclAllGather(const void *send, void *recv, size_t count,
                                      ncclDataType_t type, ncclComm_t comm,
                                      cudaStream_t stream) {
  return add(comm, stream, (Call){CALL_ALL_GATHER, send, recv, count, type, ncclSum, 0});
}

SIM_EXPORT ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count,
                                      ncclDataType_t type, int root, ncclComm_t comm,
                                      cudaStream_t stream) {
  return add(comm, stream, (Call){CALL_BROADCAST, send, recv, count, type, ncclSum, root});
}

SIM_EXPORT ncclResult_t ncclSend(const void *send, size_t count, ncclDataType_t type, int peer,
                                 ncclComm_t comm, cudaStream_t stream) {
  return add(comm, stream, (Call){CALL_SEND, send, NULL, count, type, ncclSum, peer});
}

SIM_EXPORT ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t type, int peer,
                                 ncclComm_t comm, cudaStream_t stream) {
  return add(comm, stream, (Call){CALL_RECV, NULL, recv, count, type, ncclSum, peer});
}

/*--- splits ----------------------------------------------------------------*/

/* Splitting is a collective on the host: every rank stages its color and
 * key, and the members of each color join a clique named for the parent,
 * the split and the color. Gathers every rank's color and key, and finds
 * this rank's new clique. */
static ncclResult_t splitPlace(struct ncclComm *comm, int color, int key, int *size, int *rank,
                               uint8_t id[16]) {
  int32_t mine[2] = {color, key};
  Call k = {CALL_ALL_GATHER, (const uint8_t *)mine, NULL, 2, ncclInt32, ncclSum, 0};
  int32_t *all = calloc((size_t)comm->size, sizeof mine);
  char why[512] = "";
  if (!all)
    return failWith(ncclSystemError, "out of memory");
  k.recv = (uint8_t *)all;
  bool ok = lock(comm) && collective(comm, &k, why, sizeof why);
  uint64_t split = comm->nextSequence; /* the same on every rank */
  pthread_mutex_unlock(&comm->shared->lock);
  if (!ok) {
    free(all);
    return failWith(ncclSystemError, "%s", why);
  }
  /* Members ordered by key, then by rank in the parent. */
  *size = 0, *rank = 0;
  for (int r = 0; r < comm->size; r++) {
    if (all[2 * r] != color)
      continue;
    ++*size;
    if (all[2 * r + 1] < key || (all[2 * r + 1] == key && r < comm->rank))
      ++*rank;
  }
  free(all);
  memcpy(id, comm->id, 16);
  uint64_t mix = split * 0x9e3779b97f4a7c15u ^ (uint64_t)(uint32_t)color * 0xc2b2ae3d27d4eb4fu;
  for (int i = 0; i < 8; i++)
    id[8 + i] ^= (uint8_t)(mix >> (8 * i));
  return ncclSuccess;
}

static ncclResult_t split(Setup *setup) {
  int size, rank;
  uint8_t id[16];
  ncclResult_t result = splitPlace(setup->parent, setup->color, setup->key, &size, &rank, id);
  return result == ncclSuccess ? join(setup->comm, size, id, rank) : result;
}

/* A rank of no color only takes part in the gather, and gets no
 * communicator; the others get theirs set up as the config (by default
 * the parent's) says. */
SIM_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                      ncclComm_t *newcomm, ncclConfig_t *config) {
  *newcomm = NULL;
  if (!comm)
    return failWith(ncclInvalidArgument, "ncclCommSplit of no communicator");
  if (color == NCCL_SPLIT_NOCOLOR) {
    int size, rank;
    uint8_t id[16];
    return splitPlace(comm, color, key, &size, &rank, id);
  }
  Setup setup = {.parent = comm, .color = color, .key = key};
  return create(newcomm, blockingOf(config, comm->blocking), &setup);
}
