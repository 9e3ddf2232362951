/*===- sim_cupti.c - a SIMULATED CUPTI (libcupti.so.13), for tests ---------===*
 *
 * The activity API as the CUDA backend uses it, over the simulated driver's
 * hooks (sim.h): records of kernels (NCCL's and cuBLASLt's work included),
 * copies and sets, in the layouts cupti_activity.h gives, with the virtual
 * times the driver ran them at; API records of the calls that enqueued
 * them, each preceded by an external correlation record for every kind
 * whose stack the calling thread has pushed, as CUPTI documents it
 * (cuptiActivityPushExternalCorrelationId). A driver call's API record is
 * made only while CUPTI_ACTIVITY_KIND_DRIVER is enabled, NCCL's and
 * cuBLASLt's only while CUPTI_ACTIVITY_KIND_RUNTIME is, so a client that
 * forgets either loses those correlations, as it would on a GPU.
 *
 * Graphs: a resource callback for every node a capture creates, and one
 * for every clone that instantiating a graph makes; a kernel a graph
 * launch runs carries its executable graph's node id (the clone's) and
 * the launch's correlation id.
 *
 * Records go into the client's buffers, handed back when one is full or
 * on cuptiActivityFlushAll. THUNKY_CUDA_SIM_CUPTI_VERSION sets what
 * cuptiGetVersion says (default the header's CUPTI_API_VERSION).
 *
 *===--------------------------------------------------------------------===*/
#define _GNU_SOURCE /* a recursive mutex: a full buffer goes back to the client mid-record */

#include "sim.h"

#include <cupti.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define SIM_EXPORT __attribute__((visibility("default")))

enum { MAX_PUSHED = 64 };

static struct {
  pthread_mutex_t lock;
  bool kinds[CUPTI_ACTIVITY_KIND_COUNT];
  CUpti_BuffersCallbackRequestFunc request;
  CUpti_BuffersCallbackCompleteFunc complete;
  uint8_t *buffer;
  size_t size, used;
  uint32_t correlations;
  bool subscribed;
  CUpti_CallbackFunc callback;
  void *userdata;
  bool created, cloned; /* the resource callbacks enabled */
} cupti = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};

/* Per thread and external kind: the ids pushed, innermost last. */
static __thread struct {
  uint64_t ids[MAX_PUSHED];
  unsigned depth;
} pushed[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

static size_t recordSize(CUpti_ActivityKind kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
  case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
  case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
  case CUPTI_ACTIVITY_KIND_DRIVER:
  case CUPTI_ACTIVITY_KIND_RUNTIME: return sizeof(CUpti_ActivityAPI);
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return sizeof(CUpti_ActivityExternalCorrelation);
  default: return 0;
  }
}

/* Hands the buffer back to the client; with the lock held. */
static void handBack(void) {
  if (!cupti.buffer)
    return;
  uint8_t *buffer = cupti.buffer;
  size_t size = cupti.size, used = cupti.used;
  cupti.buffer = NULL, cupti.size = cupti.used = 0;
  cupti.complete(NULL, 0, buffer, size, used);
}

/* Appends a record (its first field its kind), asking the client for a
 * buffer where there is no room; dropped when it gives none. With the lock
 * held. */
static void append(const void *record, size_t size) {
  if (cupti.buffer && cupti.used + size > cupti.size)
    handBack();
  if (!cupti.buffer && cupti.request) {
    uint8_t *buffer = NULL;
    size_t bytes = 0, most = 0;
    cupti.request(&buffer, &bytes, &most);
    if (buffer && bytes >= size && (uintptr_t)buffer % 8 == 0)
      cupti.buffer = buffer, cupti.size = bytes, cupti.used = 0;
    else if (buffer)
      cupti.complete(NULL, 0, buffer, bytes, 0);
  }
  if (!cupti.buffer)
    return;
  memcpy(cupti.buffer + cupti.used, record, size);
  cupti.used += size;
}

static uint32_t call(bool runtime, uint64_t hostNs) {
  pthread_mutex_lock(&cupti.lock);
  uint32_t correlation = ++cupti.correlations;
  CUpti_ActivityKind kind = runtime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
  if (cupti.kinds[kind]) {
    for (int k = 0; cupti.kinds[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION] &&
                    k < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE;
         k++) {
      if (!pushed[k].depth)
        continue;
      CUpti_ActivityExternalCorrelation r = {
          .kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
          .externalKind = (CUpti_ExternalCorrelationKind)k,
          .externalId = pushed[k].ids[pushed[k].depth - 1],
          .correlationId = correlation};
      append(&r, sizeof r);
    }
    CUpti_ActivityAPI api = {.kind = kind, .start = hostNs, .end = hostNs,
                             .processId = (uint32_t)getpid(), .correlationId = correlation};
    append(&api, sizeof api);
  }
  pthread_mutex_unlock(&cupti.lock);
  return correlation;
}

static void done(ThunkySimActivity activity, uint32_t correlation, uint64_t node,
                 uint32_t device, uint32_t stream, uint64_t startNs, uint64_t endNs) {
  pthread_mutex_lock(&cupti.lock);
  if (activity == THUNKY_SIM_KERNEL && cupti.kinds[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]) {
    CUpti_ActivityKernel10 r = {.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                .start = startNs, .end = endNs, .deviceId = device,
                                .streamId = stream, .correlationId = correlation,
                                .graphNodeId = node, .name = "simulated"};
    append(&r, sizeof r);
  } else if (activity == THUNKY_SIM_MEMCPY && cupti.kinds[CUPTI_ACTIVITY_KIND_MEMCPY]) {
    CUpti_ActivityMemcpy6 r = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY, .start = startNs,
                               .end = endNs, .deviceId = device, .streamId = stream,
                               .correlationId = correlation, .graphNodeId = node};
    append(&r, sizeof r);
  } else if (activity == THUNKY_SIM_MEMSET && cupti.kinds[CUPTI_ACTIVITY_KIND_MEMSET]) {
    CUpti_ActivityMemset4 r = {.kind = CUPTI_ACTIVITY_KIND_MEMSET, .start = startNs,
                               .end = endNs, .deviceId = device, .streamId = stream,
                               .correlationId = correlation, .graphNodeId = node};
    append(&r, sizeof r);
  }
  pthread_mutex_unlock(&cupti.lock);
}

static void resource(CUpti_CallbackId id, CUgraph graph, CUgraphNode node,
                     CUgraphNode original) {
  pthread_mutex_lock(&cupti.lock);
  bool wanted = cupti.subscribed &&
                (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED ? cupti.created : cupti.cloned);
  CUpti_CallbackFunc callback = cupti.callback;
  void *userdata = cupti.userdata;
  pthread_mutex_unlock(&cupti.lock);
  if (!wanted)
    return;
  CUpti_GraphData graphData = {.graph = graph, .node = node, .originalNode = original};
  CUpti_ResourceData data = {.resourceDescriptor = &graphData};
  callback(userdata, CUPTI_CB_DOMAIN_RESOURCE, id, &data);
}

static void nodeCreated(CUgraph graph, CUgraphNode node) {
  resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, graph, node, NULL);
}

/* THUNKY_CUDA_SIM_CUPTI_NO_CLONES=1 plays a CUPTI that does not report
 * instantiation's clones: graph kernels then name nodes no one made. */
static void nodeCloned(CUgraphNode node, CUgraphNode original) {
  const char *none = getenv("THUNKY_CUDA_SIM_CUPTI_NO_CLONES");
  if (!(none && *none == '1'))
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, NULL, node, original);
}

static const ThunkySimActivityHooks hooks = {call, done, nodeCreated, nodeCloned};

/* The driver tells this library of its work from the first call on. */
__attribute__((constructor)) static void install(void) { thunkySimSetActivityHooks(&hooks); }
__attribute__((destructor)) static void uninstall(void) { thunkySimSetActivityHooks(NULL); }

/*--- the API ---------------------------------------------------------------*/

SIM_EXPORT CUptiResult cuptiGetVersion(uint32_t *version) {
  if (!version)
    return CUPTI_ERROR_INVALID_PARAMETER;
  const char *forced = getenv("THUNKY_CUDA_SIM_CUPTI_VERSION");
  *version = forced && *forced ? (uint32_t)strtoul(forced, NULL, 10) : CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **text) {
  if (!text)
    return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result) {
  case CUPTI_SUCCESS: *text = "CUPTI_SUCCESS"; break;
  case CUPTI_ERROR_INVALID_PARAMETER: *text = "CUPTI_ERROR_INVALID_PARAMETER"; break;
  case CUPTI_ERROR_INVALID_KIND: *text = "CUPTI_ERROR_INVALID_KIND"; break;
  case CUPTI_ERROR_QUEUE_EMPTY: *text = "CUPTI_ERROR_QUEUE_EMPTY"; break;
  case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    *text = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    break;
  case CUPTI_ERROR_MAX_LIMIT_REACHED: *text = "CUPTI_ERROR_MAX_LIMIT_REACHED"; break;
  default: *text = "CUPTI_ERROR_UNKNOWN"; break;
  }
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiGetTimestamp(uint64_t *timestamp) {
  if (!timestamp)
    return CUPTI_ERROR_INVALID_PARAMETER;
  *timestamp = thunkySimClockNs(); /* the calling thread's context's virtual clock */
  return CUPTI_SUCCESS;
}

static CUptiResult setKind(CUpti_ActivityKind kind, bool on) {
  if (!recordSize(kind))
    return CUPTI_ERROR_INVALID_KIND;
  pthread_mutex_lock(&cupti.lock);
  cupti.kinds[kind] = on;
  pthread_mutex_unlock(&cupti.lock);
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) { return setKind(kind, true); }
SIM_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  return setKind(kind, false);
}

SIM_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                      CUpti_BuffersCallbackCompleteFunc complete) {
  if (!request || !complete)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&cupti.lock);
  cupti.request = request, cupti.complete = complete;
  pthread_mutex_unlock(&cupti.lock);
  return CUPTI_SUCCESS;
}

/* Only once the device is done would a GPU's records be complete; the
 * simulation's are written as work ends, so a flush hands back what is
 * there. */
SIM_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  (void)flag;
  pthread_mutex_lock(&cupti.lock);
  handBack();
  pthread_mutex_unlock(&cupti.lock);
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
                                                  CUpti_Activity **record) {
  if (!buffer || !record)
    return CUPTI_ERROR_INVALID_PARAMETER;
  size_t at = 0;
  if (*record) {
    CUpti_ActivityKind kind;
    memcpy(&kind, *record, sizeof kind);
    at = (size_t)((uint8_t *)*record - buffer) + recordSize(kind);
  }
  if (at >= valid)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = (CUpti_Activity *)(void *)(buffer + at);
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                              uint64_t id) {
  if ((int)kind <= 0 || kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE ||
      pushed[kind].depth == MAX_PUSHED)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pushed[kind].ids[pushed[kind].depth++] = id;
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                             uint64_t *last) {
  if ((int)kind <= 0 || kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (!pushed[kind].depth)
    return CUPTI_ERROR_QUEUE_EMPTY;
  uint64_t id = pushed[kind].ids[--pushed[kind].depth];
  if (last)
    *last = id;
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber,
                                      CUpti_CallbackFunc callback, void *userdata) {
  if (!subscriber || !callback)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&cupti.lock);
  bool taken = cupti.subscribed;
  if (!taken)
    cupti.subscribed = true, cupti.callback = callback, cupti.userdata = userdata;
  pthread_mutex_unlock(&cupti.lock);
  if (taken)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  *subscriber = (CUpti_SubscriberHandle)(void *)&cupti;
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  if (subscriber != (CUpti_SubscriberHandle)(void *)&cupti)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&cupti.lock);
  cupti.subscribed = cupti.created = cupti.cloned = false;
  pthread_mutex_unlock(&cupti.lock);
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                           CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  if (subscriber != (CUpti_SubscriberHandle)(void *)&cupti || domain != CUPTI_CB_DOMAIN_RESOURCE ||
      (id != CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && id != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED))
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&cupti.lock);
  if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED)
    cupti.created = enable != 0;
  else
    cupti.cloned = enable != 0;
  pthread_mutex_unlock(&cupti.lock);
  return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult cuptiGetGraphNodeId(CUgraphNode node, uint64_t *id) {
  if (!node || !id)
    return CUPTI_ERROR_INVALID_PARAMETER;
  *id = thunkySimGraphNodeId(node);
  return CUPTI_SUCCESS;
}
