/*===- schedule_cost.c - how long one operation takes, modelled -----------===*
 *
 * A roofline per operation: the bytes it moves over the memory's bandwidth,
 * or the arithmetic a GEMM does over the peak for its types, whichever is
 * longer, and never less than the shortest operation the device runs.
 * Collectives take alpha-beta costs for the ring algorithms NCCL uses on one
 * node, and across nodes its tree for an all-reduce when that is faster.
 * docs/schedule.md gives every figure and assumption with its source.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Schedule.h"

#include "replica_groups.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/runtime/Runtime.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ThunkyDeviceModel thunkyDeviceModelH200(void) {
  ThunkyDeviceModel d = {
      .name = "H200 SXM",
      .memoryBytesPerSecond = 4.8e12,
      .hostLinkBytesPerSecond = 64e9,      /* PCIe Gen5 x16, one direction */
      .interconnectBytesPerSecond = 450e9, /* NVLink: 900 GB/s both ways */
      .interconnectLatencyNs = 1000,
      /* No datasheet gives these: scripts/fit_device_model.py fits them
       * to half of the steps in bench/model/h200-steps.tsv, and
       * docs/schedule.md quotes the error on the other half. */
      .launchNs = 4250,
      .kernelMinNs = 2500,
      .syncNs = 2000,
      .graphLaunchNs = 4250, /* estimate: as one launch */
      .gpusPerNode = 8,      /* a DGX H200 */
      /* One ConnectX-7 at 400 Gb/s per GPU (DGX H200 datasheet). */
      .networkBytesPerSecond = 50e9,
      .networkLatencyNs = 3000, /* estimate */
      /* Not yet measured apart: the next device check's traces time each
       * thunk's host issue (scripts/schedule_errors.py, by kind). */
      .memsetLaunchNs = -1,
      .copyLaunchNs = -1,
      .gemmLaunchNs = -1,
      .collectiveLaunchNs = -1,
      .customCallLaunchNs = -1,
  };
  d.flopsPerSecond[THUNKY_FLOPS_F64] = 67e12;
  d.flopsPerSecond[THUNKY_FLOPS_F32] = 67e12;
  d.flopsPerSecond[THUNKY_FLOPS_TF32] = 494.5e12;
  d.flopsPerSecond[THUNKY_FLOPS_F16] = 989.5e12;
  d.flopsPerSecond[THUNKY_FLOPS_F8] = 1979e12;
  return d;
}

typedef struct {
  const char *key;
  size_t offset;
} DeviceKey;

#define FIELD(f) offsetof(ThunkyDeviceModel, f)
static const DeviceKey deviceKeys[] = {
    {"memory_bandwidth", FIELD(memoryBytesPerSecond)},
    {"host_link_bandwidth", FIELD(hostLinkBytesPerSecond)},
    {"interconnect_bandwidth", FIELD(interconnectBytesPerSecond)},
    {"interconnect_latency_ns", FIELD(interconnectLatencyNs)},
    {"f64_flops", FIELD(flopsPerSecond[THUNKY_FLOPS_F64])},
    {"f32_flops", FIELD(flopsPerSecond[THUNKY_FLOPS_F32])},
    {"tf32_flops", FIELD(flopsPerSecond[THUNKY_FLOPS_TF32])},
    {"f16_flops", FIELD(flopsPerSecond[THUNKY_FLOPS_F16])},
    {"f8_flops", FIELD(flopsPerSecond[THUNKY_FLOPS_F8])},
    {"launch_ns", FIELD(launchNs)},
    {"kernel_min_ns", FIELD(kernelMinNs)},
    {"sync_ns", FIELD(syncNs)},
    {"graph_launch_ns", FIELD(graphLaunchNs)},
    {"gpus_per_node", FIELD(gpusPerNode)},
    {"network_bandwidth", FIELD(networkBytesPerSecond)},
    {"network_latency_ns", FIELD(networkLatencyNs)},
    {"memset_launch_ns", FIELD(memsetLaunchNs)},
    {"copy_launch_ns", FIELD(copyLaunchNs)},
    {"gemm_launch_ns", FIELD(gemmLaunchNs)},
    {"collective_launch_ns", FIELD(collectiveLaunchNs)},
    {"custom_call_launch_ns", FIELD(customCallLaunchNs)},
};
#undef FIELD

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  char *end = s + strlen(s);
  while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
    *--end = 0;
  return s;
}

static bool readDeviceLine(char *text, ThunkyDeviceModel *d, const char *path, unsigned line,
                           ThunkyError *error) {
  char *hash = strchr(text, '#');
  if (hash)
    *hash = 0;
  char *s = trim(text);
  if (!*s)
    return true;
  char *equals = strchr(s, '=');
  if (!equals)
    return thunkyErrorf(error, "%s:%u: expected 'key = value', got '%.60s'", path, line, s);
  *equals = 0;
  char *key = trim(s), *value = trim(equals + 1);
  if (!strcmp(key, "name")) {
    snprintf(d->name, sizeof d->name, "%s", value);
    return true;
  }
  for (size_t i = 0; i < sizeof deviceKeys / sizeof *deviceKeys; i++) {
    if (strcmp(key, deviceKeys[i].key))
      continue;
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    /* Zero latency or launch time is a legitimate idealization; a zero rate
     * would divide by zero. */
    bool isTime = strstr(key, "_ns") != NULL;
    if (end == value || *end || errno || !isfinite(v) || v < 0 || (!isTime && v == 0))
      return thunkyErrorf(error, "%s:%u: %s: '%s' is not a %s number", path, line, key, value,
                          isTime ? "non-negative" : "positive");
    *(double *)((char *)d + deviceKeys[i].offset) = v;
    return true;
  }
  return thunkyErrorf(error, "%s:%u: unknown key '%s' (docs/schedule.md lists the keys)", path,
                      line, key);
}

bool thunkyDeviceModelRead(const char *path, ThunkyDeviceModel *d, ThunkyError *error) {
  FILE *f = fopen(path, "r");
  if (!f)
    return thunkyErrorf(error, "cannot read device description %s: %s", path, strerror(errno));
  *d = thunkyDeviceModelH200();
  char text[512];
  unsigned line = 0;
  bool ok = true;
  while (ok && fgets(text, sizeof text, f)) {
    line++;
    if (!strchr(text, '\n') && !feof(f))
      ok = thunkyErrorf(error, "%s:%u: line longer than %zu bytes", path, line, sizeof text - 2);
    else
      ok = readDeviceLine(text, d, path, line, error);
  }
  fclose(f);
  return ok;
}

/* ---------------------------------------------------------------------- */

/* Bytes moved: a slice read and written is moved twice. */
static double accessedBytes(const ThunkyPlan *plan, uint32_t thunk) {
  double bytes = 0;
  ThunkyRange r = plan->thunks[thunk].accesses;
  for (uint32_t k = r.first; k < r.first + r.count; k++)
    bytes += (double)plan->accesses[k].slice.size *
             (plan->accesses[k].access == THUNKY_ACCESS_READ_WRITE ? 2 : 1);
  return bytes;
}

static double onMemory(double bytes, const ThunkyDeviceModel *d) {
  return bytes / d->memoryBytesPerSecond * 1e9;
}

static ThunkyFlopsKind gemmFlopsKind(const ThunkyPlanGemm *g) {
  switch (g->compute) {
  case THUNKY_GEMM_COMPUTE_F64:
    return THUNKY_FLOPS_F64;
  case THUNKY_GEMM_COMPUTE_F32:
    return THUNKY_FLOPS_F32;
  case THUNKY_GEMM_COMPUTE_TF32_AS_F32:
    return THUNKY_FLOPS_TF32;
  default:
    break;
  }
  uint32_t bits = thunkyElementBits(g->lhsType);
  return bits && bits <= 8 ? THUNKY_FLOPS_F8 : THUNKY_FLOPS_F16;
}

static double gemmNs(const ThunkyPlan *plan, const ThunkyPlanGemm *g, uint32_t thunk,
                     const ThunkyDeviceModel *d) {
  const ThunkyMatrixLayout *lhs = &g->lhsLayout, *out = &g->outLayout;
  /* k is the lhs dimension that is not the output's rows. */
  double m = (double)out->rows, n = (double)out->cols;
  double k = (double)(lhs->transposed ? lhs->rows : lhs->cols);
  double flops = 2.0 * m * n * k * (double)(out->batch ? out->batch : 1);
  if (thunkyElementKind(g->outType) == THUNKY_KIND_COMPLEX)
    flops *= 4; /* a complex multiply-add is four real ones */
  double compute = flops / d->flopsPerSecond[gemmFlopsKind(g)] * 1e9;
  double memory = onMemory(accessedBytes(plan, thunk), d);
  return compute > memory ? compute : memory;
}

/* A launch whose HLO the executable keeps does that HLO's arithmetic and
 * moves its bytes; anything else moves the bytes its slices hold. */
static double workNs(const ThunkyPlan *plan, uint32_t thunk, const ThunkyDeviceModel *d) {
  uint32_t w = plan->thunks[thunk].work;
  if (w == UINT32_MAX)
    return onMemory(accessedBytes(plan, thunk), d);
  const ThunkyWork *work = &plan->works[w];
  double compute = 0;
  for (int k = 0; k < THUNKY_FLOPS_KINDS; k++)
    compute += work->flops[k] / d->flopsPerSecond[k] * 1e9;
  double memory = onMemory(work->bytes, d);
  return compute > memory ? compute : memory;
}

/* The time of a collective over a group of n ranks spanning `nodes` nodes,
 * each holding `bytes` (its input): alpha-beta costs of the ring
 * algorithms, with each step at the speed of its slowest link, and for an
 * all-reduce across nodes NCCL's tree (chains within each node, a double
 * binary tree between nodes) when that is faster, as NCCL's own tuning
 * picks. */
static double groupNs(uint8_t kind, double bytes, double n, double nodes,
                      const ThunkyDeviceModel *d) {
  if (n <= 1)
    return onMemory(2 * bytes, d); /* a copy from input to output */
  bool network = nodes > 1;
  double bw = (network ? d->networkBytesPerSecond : d->interconnectBytesPerSecond) / 1e9;
  double lat = network ? d->networkLatencyNs : d->interconnectLatencyNs;
  switch (kind) {
  case THUNKY_COLLECTIVE_ALL_REDUCE: { /* reduce-scatter, then all-gather */
    double ring = 2 * (n - 1) / n * bytes / bw + 2 * (n - 1) * lat;
    if (!network)
      return ring;
    double chain = ceil(n / nodes) - 1;
    double tree = 2 * bytes / bw +
                  2 * (ceil(log2(nodes)) * d->networkLatencyNs + chain * d->interconnectLatencyNs);
    return tree < ring ? tree : ring;
  }
  case THUNKY_COLLECTIVE_ALL_GATHER: /* each rank receives every other input */
    return (n - 1) * bytes / bw + (n - 1) * lat;
  case THUNKY_COLLECTIVE_REDUCE_SCATTER:
  case THUNKY_COLLECTIVE_ALL_TO_ALL:
    return (n - 1) / n * bytes / bw + (n - 1) * lat;
  case THUNKY_COLLECTIVE_BROADCAST: /* pipelined along the ring */
    return bytes / bw + (n - 1) * lat;
  default: /* permute: one send and one receive */
    return bytes / bw + lat;
  }
}

/* Ranks are placed gpusPerNode to a node, in order. */
static uint32_t nodeOf(uint32_t rank, const ThunkyDeviceModel *d) {
  return d->gpusPerNode >= 1 ? (uint32_t)(rank / floor(d->gpusPerNode)) : rank;
}

/* The slowest group's time: each group of the world as the runtime forms
 * it from the group mode (runtime/plan/replica_groups.c), spanning the
 * nodes from its first to its last, at most one a rank. A permute is one
 * send and one receive, across nodes when any pair's are. */
static bool collectiveNs(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                         uint32_t partitions, const ThunkyDeviceModel *d, double *ns,
                         ThunkyError *error) {
  double bytes = 0;
  for (uint32_t b = c->buffers.first; b < c->buffers.first + c->buffers.count; b++)
    bytes += (double)plan->collectiveBuffers[b].src.size;
  if (c->kind == THUNKY_COLLECTIVE_PERMUTE) {
    uint32_t *sources = malloc((size_t)ranks * sizeof *sources);
    if (!sources)
      return thunkyErrorf(error, "out of memory for replica groups");
    bool ok = thunkyWorldPermuteSources(plan, c, ranks, partitions, sources, error);
    double nodes = 1;
    for (uint32_t r = 0; ok && r < ranks; r++)
      if (sources[r] != THUNKY_NO_RANK && nodeOf(sources[r], d) != nodeOf(r, d))
        nodes = 2;
    free(sources);
    *ns = groupNs(c->kind, bytes, 2, nodes, d);
    return ok;
  }
  ThunkyWorldGroups groups;
  bool ok = thunkyWorldGroupsCreate(plan, c, ranks, partitions, &groups, error);
  *ns = 0;
  for (uint32_t g = 0; ok && g < groups.numGroups; g++) {
    uint32_t first = groups.starts[g], n = groups.starts[g + 1] - first, lo = UINT32_MAX, hi = 0;
    for (uint32_t i = first; i < first + n; i++) {
      uint32_t node = nodeOf(groups.members[i], d);
      lo = node < lo ? node : lo;
      hi = node > hi ? node : hi;
    }
    double span = (double)(hi - lo) + 1 < n ? (double)(hi - lo) + 1 : n;
    *ns = fmax(*ns, groupNs(c->kind, bytes, n, span, d));
  }
  thunkyWorldGroupsClear(&groups);
  return ok;
}

static int bySlice(const void *a, const void *b) {
  const ThunkyPlanSlice *x = &((const ThunkyPlanAccess *)a)->slice,
                        *y = &((const ThunkyPlanAccess *)b)->slice;
  if (x->allocation != y->allocation)
    return x->allocation < y->allocation ? -1 : 1;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return x->size < y->size ? -1 : x->size > y->size;
}

/* A thunk the runtime takes as an exchange (send, recv, a ragged
 * all-to-all, a collective kernel, infeed, outfeed, ...) moves bytes off
 * the rank, but the plan knows neither its peers nor, for a ragged
 * all-to-all, how much it sends. So it is priced as one transfer of the
 * more of what it only reads (what a send sends) and what it writes (what
 * a receive receives), each slice once however many buffers name it:
 * between GPUs over their link, the network's when the world spans nodes;
 * else over the host's. A bound of one transfer, not a guess at its
 * pattern. */
static bool exchangeNs(const ThunkyPlan *plan, uint32_t thunk, uint32_t ranks,
                       const ThunkyDeviceModel *d, double *ns, ThunkyError *error) {
  ThunkyRange r = plan->thunks[thunk].accesses;
  ThunkyPlanAccess *sorted = malloc((r.count ? r.count : 1) * sizeof *sorted);
  if (!sorted)
    return thunkyErrorf(error, "out of memory pricing an exchange");
  if (r.count)
    memcpy(sorted, &plan->accesses[r.first], r.count * sizeof *sorted);
  qsort(sorted, r.count, sizeof *sorted, bySlice);
  double readOnly = 0, written = 0;
  for (uint32_t k = 0; k < r.count;) {
    uint8_t access = 0;
    uint32_t next = k;
    for (; next < r.count && !bySlice(&sorted[k], &sorted[next]); next++)
      access |= sorted[next].access;
    double bytes = (double)sorted[k].slice.size;
    readOnly += access == THUNKY_ACCESS_READ ? bytes : 0;
    written += access & THUNKY_ACCESS_WRITE ? bytes : 0;
    k = next;
  }
  free(sorted);
  double bytes = readOnly > written ? readOnly : written;
  if (!plan->thunks[thunk].communicates) {
    *ns = bytes / d->hostLinkBytesPerSecond * 1e9;
    return true;
  }
  bool network = nodeOf(ranks - 1, d) != nodeOf(0, d);
  *ns = bytes / (network ? d->networkBytesPerSecond : d->interconnectBytesPerSecond) * 1e9 +
        (network ? d->networkLatencyNs : d->interconnectLatencyNs);
  return true;
}

bool thunkyModelDuration(const ThunkyPlan *plan, uint32_t command, const ThunkyDeviceModel *d,
                         uint32_t ranks, uint32_t partitions, double *duration,
                         ThunkyError *error) {
  const ThunkyCommand *c = &plan->commands[command];
  double ns;
  ThunkyRunConfig world = {.ranks = ranks, .partitions = partitions};
  if (!thunkyRunConfigNormalize(&world, error)) /* a run's rule for its world */
    return false;
  switch (c->kind) {
  case THUNKY_CMD_MEMZERO:
    ns = onMemory((double)c->memzero.dst.size, d);
    break;
  case THUNKY_CMD_MEMSET32:
    ns = onMemory((double)c->memset32.dst.size, d);
    break;
  case THUNKY_CMD_COPY: {
    double bytes = (double)(c->copy.offsets.count ? c->copy.size : c->copy.dst.size);
    ns = c->copy.direction == THUNKY_COPY_DEVICE_TO_DEVICE
             ? onMemory(2.0 * bytes, d)
             : bytes / d->hostLinkBytesPerSecond * 1e9;
    break;
  }
  case THUNKY_CMD_GEMM:
    ns = gemmNs(plan, &plan->gemms[c->gemm.gemm], c->thunk, d);
    break;
  case THUNKY_CMD_COLLECTIVE:
    if (!collectiveNs(plan, &plan->collectives[c->collective.collective], world.ranks,
                      world.partitions, d, &ns, error))
      return false;
    break;
  default: /* kernels, custom calls, ids and opaque thunks */
    if (!plan->thunks[c->thunk].exchange)
      ns = workNs(plan, c->thunk, d);
    else if (!exchangeNs(plan, c->thunk, world.ranks, d, &ns, error))
      return false;
    break;
  }
  *duration = ns > d->kernelMinNs ? ns : d->kernelMinNs;
  return true;
}

double thunkyModelIssueNs(const ThunkyPlan *plan, uint32_t command, const ThunkyDeviceModel *d) {
  double ns;
  switch (plan->commands[command].kind) {
  case THUNKY_CMD_MEMZERO:
  case THUNKY_CMD_MEMSET32:
  case THUNKY_CMD_REPLICA_ID:
  case THUNKY_CMD_PARTITION_ID:
    ns = d->memsetLaunchNs;
    break;
  case THUNKY_CMD_COPY:
    ns = d->copyLaunchNs;
    break;
  case THUNKY_CMD_GEMM:
    ns = d->gemmLaunchNs;
    break;
  case THUNKY_CMD_COLLECTIVE:
  case THUNKY_CMD_COLLECTIVE_GROUP:
    ns = d->collectiveLaunchNs;
    break;
  case THUNKY_CMD_CUSTOM_CALL:
    ns = d->customCallLaunchNs;
    break;
  case THUNKY_CMD_OPAQUE: /* an exchange among ranks is issued as a collective is */
    ns = plan->thunks[plan->commands[command].thunk].communicates ? d->collectiveLaunchNs : -1;
    break;
  default:
    ns = -1;
    break;
  }
  return ns >= 0 ? ns : d->launchNs;
}
