/*===- cuda_cupti.c - a timeline's device times from CUPTI's records ------===*
 *
 * CUPTI's activity API records each kernel, copy and set the device ran,
 * with the device's own start and end, and nothing is added to the
 * streams: no events, no waits, no gate. The device pass pushes an
 * external correlation id around each thunk it enqueues (and each graph
 * it launches); CUPTI then writes, before the API record of every call
 * made meanwhile, a record that ties that call's correlation id to ours,
 * and the call's device work carries the same correlation id. Records of
 * API calls are made only while their kind is on, so both the driver's
 * and the runtime's are (NCCL and cuBLASLt launch through the runtime).
 *
 * A graph's work correlates with its launch, and each kernel names its
 * node of the executable graph. Nodes are tied to thunks as they are
 * made: CUPTI's resource callback reports each node a capture creates
 * (the thunk being captured is its owner), and each clone instantiating
 * the graph makes of it. So a graph, too, gets each of its thunks' device
 * times, which no event around the launch could give.
 *
 * The fields read (start, end, correlationId, graphNodeId) lie at the
 * same offsets in CUPTI 12's records (CUpti_ActivityKernel9,
 * CUpti_ActivityMemcpy5, CUpti_ActivityMemset3) as in CUPTI 13's, the
 * layouts cupti_activity.h names; CUPTI's older versions are refused.
 *
 * CUPTI serves a process, and hands its buffers back through callbacks
 * that take no context: one backend state at a time traces (`active`).
 *
 *===--------------------------------------------------------------------===*/
#include "cuda_state.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/runtime/Timeline.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
  /* CUPTI 19 came with CUDA 12.0, and the record layouts read here. */
  OLDEST_VERSION = 19,
  BUFFER_BYTES = 4 << 20,
  /* Ids pushed: the rank in the high half, its traced entry in the low. */
  ID_SHIFT = 32,
};
static const CUpti_ExternalCorrelationKind OURS = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

/* Device work as a record gave it. */
typedef struct Activity {
  uint64_t start, end, node;
  uint32_t correlation;
} Activity;

/* A node's owner: on which rank, and where in its owners. */
typedef struct Node {
  uint32_t rank, owner;
} Node;

typedef struct ThunkyCudaTracer {
  ThunkyCupti api;
  CUpti_SubscriberHandle subscriber;
  pthread_mutex_t lock; /* buffers come back on CUPTI's threads; nodes on the ranks' */
  Activity *activities;
  size_t numActivities, activitiesCapacity;
  uint64_t *externals; /* our ids, by byCorrelation */
  size_t numExternals, externalsCapacity;
  ThunkyHashMap byCorrelation; /* CUPTI's correlation id -> externals[] */
  Node *nodes;
  size_t numNodes, nodesCapacity;
  ThunkyHashMap byNode; /* a graph node's id -> nodes[] */
  bool lost;            /* a record or node was dropped for want of memory */
} ThunkyCudaTracer;

static pthread_mutex_t activeLock = PTHREAD_MUTEX_INITIALIZER;
static ThunkyCudaTracer *active;

/* A rank's owner of the nodes being captured on this thread. */
static __thread struct {
  ThunkyCudaTracer *tracer;
  uint32_t rank, owner;
  bool on;
} capture;

static const CUpti_ActivityKind recorded[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

#define CUPTI_OK(t, fn, args, error)                                                               \
  cuptiSucceeded(&(t)->api, (t)->api.fn args, #fn, (error))
static bool cuptiSucceeded(const ThunkyCupti *api, CUptiResult result, const char *call,
                           ThunkyError *error) {
  return result == CUPTI_SUCCESS || thunkyCuptiFail(api, result, call, error);
}

/*--- records ---------------------------------------------------------------*/

static void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *most) {
  *most = 0; /* as many as fit */
  *size = BUFFER_BYTES;
  *buffer = aligned_alloc(8, BUFFER_BYTES);
  if (!*buffer) {
    pthread_mutex_lock(&activeLock);
    if (active) { /* CUPTI drops what it cannot write */
      pthread_mutex_lock(&active->lock);
      active->lost = true;
      pthread_mutex_unlock(&active->lock);
    }
    pthread_mutex_unlock(&activeLock);
  }
}

/* Keeps what a record says of device work, or of whose it is; with the
 * tracer's lock held. */
static void keep(ThunkyCudaTracer *t, const CUpti_Activity *record) {
  Activity a = {0};
  switch (record->kind) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
    const CUpti_ActivityKernel10 *k = (const void *)record;
    a = (Activity){k->start, k->end, k->graphNodeId, k->correlationId};
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMCPY: {
    const CUpti_ActivityMemcpy6 *m = (const void *)record;
    a = (Activity){m->start, m->end, m->graphNodeId, m->correlationId};
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMSET: {
    const CUpti_ActivityMemset4 *m = (const void *)record;
    a = (Activity){m->start, m->end, m->graphNodeId, m->correlationId};
    break;
  }
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
    const CUpti_ActivityExternalCorrelation *x = (const void *)record;
    if (x->externalKind != OURS)
      return;
    if (!thunkyArrayGrow((void **)&t->externals, &t->externalsCapacity, t->numExternals,
                         sizeof *t->externals) ||
        !thunkyHashMapPut(&t->byCorrelation, x->correlationId, (uint32_t)t->numExternals)) {
      t->lost = true;
      return;
    }
    t->externals[t->numExternals++] = x->externalId;
    return;
  }
  default:
    return; /* API records: what they carry came in the records above */
  }
  if (!thunkyArrayGrow((void **)&t->activities, &t->activitiesCapacity, t->numActivities,
                       sizeof *t->activities)) {
    t->lost = true;
    return;
  }
  t->activities[t->numActivities++] = a;
}

static void CUPTIAPI bufferCompleted(CUcontext context, uint32_t stream, uint8_t *buffer,
                                     size_t size, size_t valid) {
  (void)context, (void)stream, (void)size;
  pthread_mutex_lock(&activeLock);
  ThunkyCudaTracer *t = active;
  if (t) {
    pthread_mutex_lock(&t->lock);
    CUpti_Activity *record = NULL;
    while (t->api.cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
      keep(t, record);
    pthread_mutex_unlock(&t->lock);
  }
  pthread_mutex_unlock(&activeLock);
  free(buffer);
}

/*--- graph nodes -----------------------------------------------------------*/

static void putNode(ThunkyCudaTracer *t, uint64_t id, Node node) {
  pthread_mutex_lock(&t->lock);
  if (!thunkyArrayGrow((void **)&t->nodes, &t->nodesCapacity, t->numNodes, sizeof *t->nodes) ||
      !thunkyHashMapPut(&t->byNode, id, (uint32_t)t->numNodes))
    t->lost = true;
  else
    t->nodes[t->numNodes++] = node;
  pthread_mutex_unlock(&t->lock);
}

static void CUPTIAPI onResource(void *userdata, CUpti_CallbackDomain domain,
                                CUpti_CallbackId id, const void *data) {
  ThunkyCudaTracer *t = userdata;
  const CUpti_ResourceData *resource = data;
  const CUpti_GraphData *graph = resource ? resource->resourceDescriptor : NULL;
  uint64_t node = 0;
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || !graph ||
      t->api.cuptiGetGraphNodeId(graph->node, &node) != CUPTI_SUCCESS)
    return;
  if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && capture.on && capture.tracer == t) {
    putNode(t, node, (Node){capture.rank, capture.owner});
    return;
  }
  uint64_t original = 0;
  uint32_t index;
  if (id != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED ||
      t->api.cuptiGetGraphNodeId(graph->originalNode, &original) != CUPTI_SUCCESS)
    return;
  pthread_mutex_lock(&t->lock);
  bool known = thunkyHashMapGet(&t->byNode, original, &index);
  Node owner = known ? t->nodes[index] : (Node){0};
  pthread_mutex_unlock(&t->lock);
  if (known) /* not ours otherwise: a library's own graph */
    putNode(t, node, owner);
}

/*--- the tracer's life -----------------------------------------------------*/

static void freeTracer(ThunkyCudaTracer *t) {
  free(t->activities), free(t->externals), free(t->nodes);
  thunkyHashMapDestroy(&t->byCorrelation);
  thunkyHashMapDestroy(&t->byNode);
  pthread_mutex_destroy(&t->lock);
  free(t);
}

/* Why CUPTI cannot serve: false with the error when it was asked for,
 * else true with no tracer. */
static bool without(ThunkyCudaState *s, ThunkyError *why, ThunkyError *error) {
  if (s->config.deviceTiming == THUNKY_DEVICE_TIMING_CUPTI) {
    *error = *why;
    return thunkyErrorContext(error, "--device-timing cupti");
  }
  return true;
}

bool thunkyCudaTracerCreate(ThunkyCudaState *s, ThunkyError *error) {
  if (!s->config.timeline || s->config.deviceTiming == THUNKY_DEVICE_TIMING_GATE)
    return true;
  ThunkyCudaTracer *t = calloc(1, sizeof *t);
  if (!t)
    return thunkyErrorf(error, "cuda: out of memory");
  pthread_mutex_init(&t->lock, NULL);
  ThunkyError why = {{0}};
  uint32_t version = 0;
  if (!thunkyCudaLoadCupti(&t->api, &why) ||
      !CUPTI_OK(t, cuptiGetVersion, (&version), &why)) {
    freeTracer(t);
    return without(s, &why, error);
  }
  if (version < OLDEST_VERSION) {
    freeTracer(t);
    thunkyErrorf(&why, "cuda: CUPTI's API version %u is older than CUDA 12's (%u)", version,
                 (unsigned)OLDEST_VERSION);
    return without(s, &why, error);
  }
  pthread_mutex_lock(&activeLock);
  bool taken = active != NULL;
  if (!taken)
    active = t;
  pthread_mutex_unlock(&activeLock);
  if (taken) {
    freeTracer(t);
    thunkyErrorf(&why, "cuda: CUPTI already traces another run in this process");
    return without(s, &why, error);
  }
  s->tracer = t;
  /* Subscribing fails where a profiler (Nsight Systems) holds CUPTI: then
   * nothing of its is touched. */
  if (!CUPTI_OK(t, cuptiSubscribe, (&t->subscriber, (CUpti_CallbackFunc)onResource, t), &why)) {
    t->subscriber = NULL;
    thunkyCudaTracerDestroy(s);
    return without(s, &why, error);
  }
  if (!CUPTI_OK(t, cuptiActivityRegisterCallbacks, (bufferRequested, bufferCompleted), error))
    return false; /* destroy frees it */
  if (!CUPTI_OK(t, cuptiEnableCallback,
                (1, t->subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED),
                error) ||
      !CUPTI_OK(t, cuptiEnableCallback,
                (1, t->subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED),
                error))
    return false; /* destroy frees it */
  return true;
}

void thunkyCudaTracerDestroy(ThunkyCudaState *s) {
  ThunkyCudaTracer *t = s->tracer;
  if (!t)
    return;
  if (t->subscriber) { /* what a failed run left on, and its buffers */
    for (size_t k = 0; k < sizeof recorded / sizeof *recorded; k++)
      t->api.cuptiActivityDisable(recorded[k]);
    t->api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    t->api.cuptiUnsubscribe(t->subscriber);
  }
  pthread_mutex_lock(&activeLock);
  active = NULL;
  pthread_mutex_unlock(&activeLock);
  freeTracer(t);
  s->tracer = NULL;
}

const char *thunkyCudaTracerMethod(const ThunkyCudaState *s) {
  if (s->tracer)
    return "device lanes: CUPTI's activity records of each thunk's kernels, copies and sets, "
           "graphs' nodes included, nothing added to the streams; host issue: each thunk's "
           "issue on the host clock, in a run of its own without CUPTI";
  if (s->config.graphs)
    return "device lanes: CUDA events around each thunk, enqueued behind a gate "
           "(cuStreamWaitValue32) and run back to back, a CUDA graph's thunks enqueued one by "
           "one (its nodes' kernels, copies and sets, without the graph's launch), a custom call "
           "untimed with the gate open; host issue: each graph's launch and each thunk outside "
           "graphs on the host clock, in a run of its own without events";
  return "device lanes: CUDA events around each thunk, enqueued behind a gate "
         "(cuStreamWaitValue32) and run back to back, the host waiting only where the program "
         "does, a custom call untimed with the gate open; host issue: each thunk's on the host "
         "clock, in a run of its own without events";
}

/*--- a run's device pass ---------------------------------------------------*/

bool thunkyCudaTracerStart(ThunkyCudaState *s, ThunkyError *error) {
  ThunkyCudaTracer *t = s->tracer;
  for (uint32_t r = 0; r < s->ranks; r++)
    s->rank[r].numTraced = 0;
  for (size_t k = 0; k < sizeof recorded / sizeof *recorded; k++)
    if (!CUPTI_OK(t, cuptiActivityEnable, (recorded[k]), error))
      return false;
  return true;
}

bool thunkyCudaTraceOrigin(ThunkyCudaState *s, ThunkyCudaRank *rank) {
  ThunkyCudaTracer *t = s->tracer;
  return CUPTI_OK(t, cuptiGetTimestamp, (&rank->traceOrigin), &rank->error);
}

bool thunkyCudaTraceBegin(ThunkyCudaState *s, ThunkyCudaRank *rank, uint32_t thunk,
                          uint32_t stream, uint32_t graph) {
  ThunkyCudaTracer *t = s->tracer;
  void *traced = rank->traced;
  size_t capacity = rank->tracedCapacity;
  if (rank->numTraced == UINT32_MAX ||
      !thunkyArrayGrow(&traced, &capacity, rank->numTraced, sizeof *rank->traced))
    return thunkyErrorf(&rank->error, "cuda: out of memory tracing the device");
  rank->traced = traced, rank->tracedCapacity = (uint32_t)capacity;
  uint32_t index = rank->numTraced++;
  rank->traced[index] = (ThunkyCudaTraced){thunk, stream, graph};
  return CUPTI_OK(t, cuptiActivityPushExternalCorrelationId,
                  (OURS, (uint64_t)rank->index << ID_SHIFT | index), &rank->error);
}

bool thunkyCudaTraceEnd(ThunkyCudaState *s, ThunkyCudaRank *rank) {
  ThunkyCudaTracer *t = s->tracer;
  return CUPTI_OK(t, cuptiActivityPopExternalCorrelationId, (OURS, NULL), &rank->error);
}

void thunkyCudaCaptureBegin(ThunkyCudaState *s, ThunkyCudaRank *rank) {
  capture.tracer = s->tracer, capture.rank = rank->index, capture.on = false;
}

bool thunkyCudaCaptureOwner(ThunkyCudaState *s, ThunkyCudaRank *rank, uint32_t thunk,
                            uint32_t stream) {
  (void)s;
  void *owners = rank->owners;
  size_t capacity = rank->ownersCapacity;
  if (rank->numOwners == UINT32_MAX ||
      !thunkyArrayGrow(&owners, &capacity, rank->numOwners, sizeof *rank->owners))
    return thunkyErrorf(&rank->error, "cuda: out of memory tracing the device");
  rank->owners = owners, rank->ownersCapacity = (uint32_t)capacity;
  capture.owner = rank->numOwners;
  capture.on = true;
  rank->owners[rank->numOwners++] = (ThunkyCudaOwner){thunk, stream};
  return true;
}

void thunkyCudaCaptureEnd(ThunkyCudaState *s, ThunkyCudaRank *rank) {
  (void)s, (void)rank;
  capture.on = false, capture.tracer = NULL;
}

/* One thunk's device time as records give it: from its first work's
 * start to its last's end. */
typedef struct Span {
  uint64_t start, end;
} Span;

/* Where traced entry `i` of a rank keeps its spans: one for a thunk, one
 * per owner for a graph's launch. */
static uint32_t spansOf(const ThunkyCudaRank *rank, const ThunkyCudaTraced *e) {
  return e->graph == UINT32_MAX ? 1 : rank->graphOwners[e->graph + 1] - rank->graphOwners[e->graph];
}

/* The span a record of device work belongs to, or NULL: work not ours
 * (the pass's own reads of predicates), or, setting *unattributed, work of
 * one of our graphs by a node no capture made. */
static Span *spanOf(ThunkyCudaState *s, Span **spans, uint64_t **first, const Activity *a,
                    bool *unattributed) {
  ThunkyCudaTracer *t = s->tracer;
  uint32_t at;
  if (!thunkyHashMapGet(&t->byCorrelation, a->correlation, &at))
    return NULL;
  uint64_t id = t->externals[at];
  uint32_t r = (uint32_t)(id >> ID_SHIFT), i = (uint32_t)id;
  if (r >= s->ranks || i >= s->rank[r].numTraced)
    return NULL;
  const ThunkyCudaRank *rank = &s->rank[r];
  const ThunkyCudaTraced *e = &rank->traced[i];
  if (e->graph == UINT32_MAX)
    return &spans[r][first[r][i]];
  uint32_t n, begin = rank->graphOwners[e->graph];
  bool known = a->node && thunkyHashMapGet(&t->byNode, a->node, &n) && t->nodes[n].rank == r &&
               t->nodes[n].owner >= begin && t->nodes[n].owner < rank->graphOwners[e->graph + 1];
  *unattributed = !known;
  return known ? &spans[r][first[r][i] + (t->nodes[n].owner - begin)] : NULL;
}

/* A thunk with no record did no device work, and gets a zero-length
 * event after the work before it, as the gate gives it: unless some work
 * was tied to no thunk (allTied false), which may have been a graph
 * node's. */
static void addEvents(ThunkyCudaState *s, const ThunkyCudaRank *rank, const Span *spans,
                      bool allTied) {
  uint64_t at = 0, origin = rank->traceOrigin, last = origin;
  for (uint32_t i = 0; i < rank->numTraced; i++) {
    const ThunkyCudaTraced *e = &rank->traced[i];
    for (uint32_t k = 0, n = spansOf(rank, e); k < n; k++, at++) {
      Span span = spans[at];
      if (span.start > span.end) {
        if (e->graph != UINT32_MAX && !allTied)
          continue;
        span.start = span.end = last;
      }
      last = span.end > last ? span.end : last;
      const ThunkyCudaOwner *o =
          e->graph == UINT32_MAX ? NULL : &rank->owners[rank->graphOwners[e->graph] + k];
      ThunkyTraceEvent event = {.thunk = o ? o->thunk : e->thunk,
                                .rank = rank->global,
                                .stream = o ? o->stream : e->stream,
                                .beginNs = span.start > origin ? span.start - origin : 0,
                                .endNs = span.end > origin ? span.end - origin : 0};
      thunkyTimelineAdd(s->config.timeline, event); /* or counted lost */
    }
  }
}

bool thunkyCudaTracerFinish(ThunkyCudaState *s, ThunkyError *error) {
  ThunkyCudaTracer *t = s->tracer;
  bool ok = true;
  for (size_t k = 0; k < sizeof recorded / sizeof *recorded; k++)
    ok = CUPTI_OK(t, cuptiActivityDisable, (recorded[k]), error) && ok;
  /* Forced: every record of work done so far, even in buffers not full. */
  ok = ok && CUPTI_OK(t, cuptiActivityFlushAll, (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), error);
  Span **spans = calloc(s->ranks, sizeof *spans);
  uint64_t **first = calloc(s->ranks, sizeof *first);
  ok = ok && spans && first;
  for (uint32_t r = 0; ok && r < s->ranks; r++) {
    const ThunkyCudaRank *rank = &s->rank[r];
    uint64_t count = 0;
    if (!(first[r] = malloc(((size_t)rank->numTraced + 1) * sizeof **first)))
      ok = false;
    for (uint32_t i = 0; ok && i < rank->numTraced; i++)
      first[r][i] = count, count += spansOf(rank, &rank->traced[i]);
    if (ok && !(spans[r] = malloc((size_t)(count + 1) * sizeof **spans)))
      ok = false;
    for (uint64_t i = 0; ok && i < count; i++)
      spans[r][i] = (Span){UINT64_MAX, 0};
  }
  pthread_mutex_lock(&t->lock);
  bool lost = t->lost;
  uint64_t unattributedNs = 0;
  bool allTied = true;
  for (size_t i = 0; ok && i < t->numActivities; i++) {
    const Activity *a = &t->activities[i];
    bool unattributed = false;
    Span *span = spanOf(s, spans, first, a, &unattributed);
    allTied = allTied && !unattributed;
    if (unattributed && a->end > a->start)
      unattributedNs += a->end - a->start;
    if (span) {
      span->start = a->start < span->start ? a->start : span->start;
      span->end = a->end > span->end ? a->end : span->end;
    }
  }
  t->numActivities = t->numExternals = 0;
  t->lost = false;
  thunkyHashMapDestroy(&t->byCorrelation); /* and empty: the next run's ids are new */
  pthread_mutex_unlock(&t->lock);
  for (uint32_t r = 0; ok && r < s->ranks; r++)
    addEvents(s, &s->rank[r], spans[r], allTied);
  if (unattributedNs)
    thunkyTimelineNoteUnattributed(s->config.timeline, unattributedNs);
  for (uint32_t r = 0; r < s->ranks && spans && first; r++)
    free(spans[r]), free(first[r]);
  free(spans), free(first);
  if (!ok) {
    if (!error->message[0])
      thunkyErrorf(error, "cuda: out of memory tracing the device");
    return false;
  }
  if (lost)
    return thunkyErrorf(error, "cuda: out of memory: CUPTI's records of the device were lost");
  return true;
}
