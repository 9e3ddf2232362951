/*===- host_collectives.c - XLA's collectives among simulated ranks -----===*
 *
 * A collective is two world-wide rendezvous:
 *
 *   1. "published": each rank has checked the collective against the plan
 *      and published its memory; after it, every rank computes its own
 *      destinations reading the other ranks' sources directly;
 *   2. "read": every rank has finished reading, so sources may change again
 *      (a rank's next thunks write its memory).
 *
 * When a destination of the collective overlaps one of its sources (an
 * in-place all-reduce), writing it before rendezvous 2 would corrupt what
 * others still read, so such a rank computes into its private scratch and
 * copies it to the destinations after rendezvous 2. Scratch grows at first
 * use to the largest such collective and is then reused.
 *
 * Every check that can fail runs before rendezvous 1, and computing cannot
 * fail, so no rank is ever left waiting at rendezvous 2. A failing rank
 * aborts the world; the others then leave their rendezvous with an error.
 *
 * Results are computed by every member in group order (member 0's source,
 * then reduced with member 1's, ...), so all members get the same bits.
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* pthread_condattr_setclock, clock_gettime */

#include "host_collectives.h"
#include "replica_groups.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { DEFAULT_TIMEOUT_MS = 120000 };

/* What one rank publishes and keeps. Only its own thread writes it; others
 * read the published fields between the two rendezvous. */
typedef struct RankState {
  uint8_t *const *memory; /* published */
  const ThunkyPlan *plan; /* published, with the collective, to catch divergence */
  uint32_t collective;
  uint32_t *members; /* the rank's group, in group order (world->ranks entries) */
  uint8_t *seen;     /* by rank, while a group is checked for repeats */
  uint8_t *scratch;  /* results, when destinations overlap sources */
  size_t scratchSize;
} RankState;

struct ThunkyHostWorld {
  uint32_t ranks, partitions;
  uint32_t timeoutMs;
  pthread_mutex_t mutex;
  pthread_cond_t cond; /* on CLOCK_MONOTONIC */
  uint32_t arrived;    /* at the current rendezvous */
  uint64_t generation; /* rendezvous completed so far */
  bool aborted;
  uint32_t firstFailed; /* the rank that aborted the world, else UINT32_MAX */
  RankState *rank;
};

/*--- The world and its rendezvous --------------------------------------------*/

ThunkyHostWorld *thunkyHostWorldCreate(uint32_t ranks, uint32_t partitions,
                                       ThunkyError *error) {
  if (ranks == 0 || partitions == 0 || ranks % partitions != 0) {
    thunkyErrorf(error, "%u ranks do not make whole replicas of %u partitions", ranks,
                 partitions);
    return NULL;
  }
  ThunkyHostWorld *world = calloc(1, sizeof *world);
  uint32_t *members = calloc((size_t)ranks * ranks, sizeof *members);
  uint8_t *seen = calloc((size_t)ranks * ranks, 1);
  RankState *rank = calloc(ranks, sizeof *rank);
  pthread_condattr_t attributes;
  bool condition = false, mutex = false;
  if (world && members && seen && rank && pthread_condattr_init(&attributes) == 0) {
    condition = pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) == 0 &&
                pthread_cond_init(&world->cond, &attributes) == 0;
    pthread_condattr_destroy(&attributes);
    mutex = condition && pthread_mutex_init(&world->mutex, NULL) == 0;
  }
  if (!mutex) {
    if (condition)
      pthread_cond_destroy(&world->cond);
    free(world), free(members), free(seen), free(rank);
    thunkyErrorf(error, "out of memory creating a world of %u ranks", ranks);
    return NULL;
  }
  for (uint32_t r = 0; r < ranks; r++) {
    rank[r].members = members + (size_t)r * ranks;
    rank[r].seen = seen + (size_t)r * ranks;
  }
  world->ranks = ranks;
  world->partitions = partitions;
  world->timeoutMs = DEFAULT_TIMEOUT_MS;
  world->rank = rank;
  return world;
}

void thunkyHostWorldDestroy(ThunkyHostWorld *world) {
  if (!world)
    return;
  for (uint32_t r = 0; r < world->ranks; r++)
    free(world->rank[r].scratch);
  free(world->rank[0].members);
  free(world->rank[0].seen);
  free(world->rank);
  pthread_cond_destroy(&world->cond);
  pthread_mutex_destroy(&world->mutex);
  free(world);
}

void thunkyHostWorldAbort(ThunkyHostWorld *world, uint32_t rank) {
  pthread_mutex_lock(&world->mutex);
  if (!world->aborted)
    world->firstFailed = rank;
  world->aborted = true;
  pthread_cond_broadcast(&world->cond);
  pthread_mutex_unlock(&world->mutex);
}

uint32_t thunkyHostWorldFirstFailed(ThunkyHostWorld *world) {
  pthread_mutex_lock(&world->mutex);
  uint32_t rank = world->aborted ? world->firstFailed : UINT32_MAX;
  pthread_mutex_unlock(&world->mutex);
  return rank;
}

void thunkyHostWorldReset(ThunkyHostWorld *world) {
  pthread_mutex_lock(&world->mutex);
  world->aborted = false;
  world->firstFailed = UINT32_MAX;
  world->arrived = 0;
  pthread_mutex_unlock(&world->mutex);
}

void thunkyHostWorldSetTimeout(ThunkyHostWorld *world, uint32_t milliseconds) {
  pthread_mutex_lock(&world->mutex);
  world->timeoutMs = milliseconds;
  pthread_mutex_unlock(&world->mutex);
}

typedef enum Arrival { ARRIVED, ABORTED, TIMED_OUT } Arrival;

static struct timespec deadlineAfter(uint32_t milliseconds) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  t.tv_sec += milliseconds / 1000;
  t.tv_nsec += (long)(milliseconds % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L)
    t.tv_sec++, t.tv_nsec -= 1000000000L;
  return t;
}

/* Waits for every rank of the world. A rank that times out aborts the
 * world, so the others stop waiting as well. */
static Arrival rendezvous(ThunkyHostWorld *world) {
  pthread_mutex_lock(&world->mutex);
  Arrival arrival = ARRIVED;
  uint64_t generation = world->generation;
  if (world->aborted) {
    arrival = ABORTED;
  } else if (++world->arrived == world->ranks) {
    world->arrived = 0;
    world->generation++;
    pthread_cond_broadcast(&world->cond);
  } else {
    struct timespec deadline = deadlineAfter(world->timeoutMs);
    while (world->generation == generation && !world->aborted)
      if (pthread_cond_timedwait(&world->cond, &world->mutex, &deadline) == ETIMEDOUT &&
          world->generation == generation && !world->aborted) {
        world->aborted = true;
        world->firstFailed = UINT32_MAX; /* no rank failed: they diverged */
        pthread_cond_broadcast(&world->cond);
        arrival = TIMED_OUT;
      }
    /* Completed rendezvous count even if an abort followed. */
    if (arrival == ARRIVED && world->generation == generation)
      arrival = ABORTED;
  }
  pthread_mutex_unlock(&world->mutex);
  return arrival;
}

static bool arrivalError(const ThunkyHostWorld *world, Arrival arrival, const char *what,
                         ThunkyError *error) {
  if (arrival == TIMED_OUT)
    return thunkyErrorf(error,
                        "ranks did not all reach %s within %u ms (deadlock or diverging "
                        "control flow)",
                        what, world->timeoutMs);
  return thunkyErrorf(error, "abandoned: another rank failed");
}

bool thunkyHostWorldBarrier(ThunkyHostWorld *world, ThunkyError *error) {
  Arrival arrival = rendezvous(world);
  if (arrival == ARRIVED)
    return true;
  arrivalError(world, arrival, "the barrier", error);
  return thunkyErrorContext(error, "barrier");
}

/*--- One collective ----------------------------------------------------------*/

static const char *kindName(uint8_t kind) {
  switch ((ThunkyCollectiveKind)kind) {
  case THUNKY_COLLECTIVE_ALL_REDUCE:
    return "all-reduce";
  case THUNKY_COLLECTIVE_ALL_GATHER:
    return "all-gather";
  case THUNKY_COLLECTIVE_REDUCE_SCATTER:
    return "reduce-scatter";
  case THUNKY_COLLECTIVE_ALL_TO_ALL:
    return "all-to-all";
  case THUNKY_COLLECTIVE_PERMUTE:
    return "collective-permute";
  case THUNKY_COLLECTIVE_BROADCAST:
    return "broadcast";
  }
  return "unknown collective";
}

/* One rank's view of the collective it is running. */
typedef struct Call {
  ThunkyHostWorld *world;
  const ThunkyPlan *plan;
  const ThunkyCollective *collective;
  uint32_t rank;
  RankState *self;
  uint32_t size, position; /* of the caller's group, and its place in it */
  uint32_t permuteSource;  /* collective-permute: the rank sending to the caller */
  bool viaScratch;
} Call;

/* Buffer i's element type, and its sizes against its element count and
 * against each other as the kind requires. */
static bool checkBuffer(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t groupSize,
                        uint32_t i, ThunkyError *error) {
  const ThunkyCollectiveBuffer *b = &plan->collectiveBuffers[c->buffers.first + i];
  const char *type = thunkyElementTypeName(b->elementType);
  uint32_t bytes = thunkyElementBytes(b->elementType);
  if (!bytes)
    return type
               ? thunkyErrorf(error, "buffer %u: element type %s is not supported", i, type)
               : thunkyErrorf(error, "buffer %u: unknown element type %d", i,
                              (int)b->elementType);
  bool reduces = c->kind == THUNKY_COLLECTIVE_ALL_REDUCE ||
                 c->kind == THUNKY_COLLECTIVE_REDUCE_SCATTER;
  if (reduces && !thunkyElementCanReduce(b->elementType, c->reduction, error))
    return thunkyErrorContext(error, "buffer %u", i);
  uint64_t src = b->src.size, dst = b->dst.size, size = groupSize;
  if (src % bytes || src / bytes != b->elementCount)
    return thunkyErrorf(error, "buffer %u: source is %llu bytes, not %llu %s elements", i,
                        (unsigned long long)src, (unsigned long long)b->elementCount, type);
  bool splits = c->kind == THUNKY_COLLECTIVE_REDUCE_SCATTER ||
                (c->kind == THUNKY_COLLECTIVE_ALL_TO_ALL && c->splitDimension);
  if (splits && b->elementCount % size)
    return thunkyErrorf(error, "buffer %u: %llu elements do not split among %u ranks", i,
                        (unsigned long long)b->elementCount, (unsigned)size);
  bool gathers = c->kind == THUNKY_COLLECTIVE_ALL_GATHER;
  uint64_t expected = src;
  if (gathers)
    expected = src * size;
  else if (c->kind == THUNKY_COLLECTIVE_REDUCE_SCATTER)
    expected = src / size;
  /* The division keeps a gather's check exact past 64-bit products. */
  if (gathers ? dst % size || dst / size != src : dst != expected)
    return thunkyErrorf(error, "buffer %u: destination is %llu bytes, expected %llu", i,
                        (unsigned long long)dst, (unsigned long long)expected);
  /* Without a split dimension, each buffer goes to another rank, which
   * receives it into a buffer of another index. */
  uint64_t first = plan->collectiveBuffers[c->buffers.first].src.size;
  if (c->kind == THUNKY_COLLECTIVE_ALL_TO_ALL && !c->splitDimension && src != first)
    return thunkyErrorf(error, "buffer %u: %llu bytes, unlike buffer 0's %llu", i,
                        (unsigned long long)src, (unsigned long long)first);
  return true;
}

static bool overlaps(ThunkyPlanSlice a, ThunkyPlanSlice b) {
  return a.allocation == b.allocation && a.size && b.size && a.offset < b.offset + b.size &&
         b.offset < a.offset + a.size;
}

/* Whether any destination overlaps any source; then results go through
 * scratch, grown here (before the rendezvous, where failing is safe). */
static bool prepareScratch(Call *call, ThunkyError *error) {
  const ThunkyCollective *c = call->collective;
  /* Indexed, not offset: a plan without collective buffers has a NULL array. */
  const ThunkyCollectiveBuffer *buffers =
      c->buffers.count ? &call->plan->collectiveBuffers[c->buffers.first] : NULL;
  uint64_t total = 0;
  call->viaScratch = false;
  for (uint32_t i = 0; i < c->buffers.count; i++) {
    total += buffers[i].dst.size;
    for (uint32_t j = 0; j < c->buffers.count; j++)
      call->viaScratch |= overlaps(buffers[i].dst, buffers[j].src);
  }
  RankState *self = call->self;
  if (!call->viaScratch || total <= self->scratchSize)
    return true;
  uint8_t *grown = total <= SIZE_MAX ? realloc(self->scratch, (size_t)total) : NULL;
  if (!grown)
    return thunkyErrorf(error, "out of memory for %llu bytes of scratch",
                        (unsigned long long)total);
  self->scratch = grown;
  self->scratchSize = (size_t)total;
  return true;
}

bool thunkyCollectiveCheck(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t groupSize,
                           ThunkyError *error) {
  if (c->kind == THUNKY_COLLECTIVE_ALL_TO_ALL && !c->splitDimension &&
      c->buffers.count != groupSize)
    return thunkyErrorf(error, "%u buffers for a group of %u ranks", c->buffers.count,
                        groupSize);
  if (c->kind == THUNKY_COLLECTIVE_BROADCAST && (c->root < 0 || c->root >= groupSize))
    return thunkyErrorf(error, "root %lld is outside the group of %u ranks",
                        (long long)c->root, groupSize);
  for (uint32_t i = 0; i < c->buffers.count; i++)
    if (!checkBuffer(plan, c, groupSize, i, error))
      return false;
  return true;
}

/* Everything that can go wrong, checked before any rank reads or writes. */
static bool prepare(Call *call, ThunkyError *error) {
  const ThunkyCollective *c = call->collective;
  if (c->kind > THUNKY_COLLECTIVE_BROADCAST)
    return thunkyErrorf(error, "unknown collective kind %u", c->kind);
  const ThunkyHostWorld *world = call->world;
  if (c->kind == THUNKY_COLLECTIVE_PERMUTE) {
    call->size = 1;
    if (!thunkyPermuteSource(call->plan, c, world->ranks, world->partitions, call->rank,
                             &call->permuteSource, error))
      return false;
  } else if (!thunkyReplicaGroup(call->plan, c, world->ranks, world->partitions, call->rank,
                                 call->self->members, call->self->seen, &call->size,
                                 &call->position, error)) {
    return false;
  }
  return thunkyCollectiveCheck(call->plan, c, call->size, error) && prepareScratch(call, error);
}

/* Every rank must be at the same collective of the same plan. */
static bool checkConverged(const Call *call, uint32_t index, ThunkyError *error) {
  for (uint32_t r = 0; r < call->world->ranks; r++) {
    const RankState *other = &call->world->rank[r];
    if (other->plan != call->plan || other->collective != index)
      return thunkyErrorf(error, "rank %u is at collective %u%s (diverging control flow)",
                          r, other->collective,
                          other->plan != call->plan ? " of another plan" : "");
  }
  return true;
}

static const uint8_t *sourceOf(const Call *call, uint32_t rank, ThunkyPlanSlice slice) {
  return call->world->rank[rank].memory[slice.allocation] + slice.offset;
}

static const ThunkyCollectiveBuffer *buffer(const Call *call, uint32_t i) {
  return &call->plan->collectiveBuffers[call->collective->buffers.first + i];
}

/* out = the members' sources, bytes [offset, offset + size), reduced. */
static void reduceMembers(const Call *call, const ThunkyCollectiveBuffer *b, uint8_t *out,
                          uint64_t offset, uint64_t size) {
  const uint32_t *members = call->self->members;
  memcpy(out, sourceOf(call, members[0], b->src) + offset, size);
  uint64_t count = size / thunkyElementBytes(b->elementType);
  for (uint32_t m = 1; m < call->size; m++) /* checked in prepare: cannot fail */
    thunkyElementReduce(b->elementType, call->collective->reduction, out,
                        sourceOf(call, members[m], b->src) + offset, count, NULL);
}

/* Writes buffer i's result for the caller into `out`. */
static void computeBuffer(const Call *call, uint32_t i, uint8_t *out) {
  const ThunkyCollective *c = call->collective;
  const ThunkyCollectiveBuffer *b = buffer(call, i);
  const uint32_t *members = call->self->members;
  uint64_t src = b->src.size, dst = b->dst.size, size = call->size;
  switch ((ThunkyCollectiveKind)c->kind) {
  case THUNKY_COLLECTIVE_ALL_REDUCE:
    reduceMembers(call, b, out, 0, src);
    break;
  case THUNKY_COLLECTIVE_REDUCE_SCATTER:
    reduceMembers(call, b, out, call->position * dst, dst);
    break;
  case THUNKY_COLLECTIVE_ALL_GATHER:
    for (uint32_t m = 0; m < size; m++)
      memcpy(out + m * src, sourceOf(call, members[m], b->src), src);
    break;
  case THUNKY_COLLECTIVE_ALL_TO_ALL:
    if (c->splitDimension) { /* chunk m of mine is member m's chunk for me */
      uint64_t chunk = src / size;
      for (uint32_t m = 0; m < size; m++)
        memcpy(out + m * chunk, sourceOf(call, members[m], b->src) + call->position * chunk,
               chunk);
    } else { /* my buffer i is member i's buffer for me */
      memcpy(out, sourceOf(call, members[i], buffer(call, call->position)->src), dst);
    }
    break;
  case THUNKY_COLLECTIVE_PERMUTE: /* XLA zeroes what no pair targets */
    if (call->permuteSource == THUNKY_NO_RANK)
      memset(out, 0, dst);
    else
      memcpy(out, sourceOf(call, call->permuteSource, b->src), dst);
    break;
  case THUNKY_COLLECTIVE_BROADCAST:
    memcpy(out, sourceOf(call, members[call->collective->root], b->src), dst);
    break;
  }
}

static uint8_t *destinationOf(const Call *call, ThunkyPlanSlice slice) {
  return call->self->memory[slice.allocation] + slice.offset;
}

/* Computes every buffer, into the destinations or into scratch. */
static void compute(const Call *call) {
  uint64_t offset = 0;
  for (uint32_t i = 0; i < call->collective->buffers.count; i++) {
    ThunkyPlanSlice dst = buffer(call, i)->dst;
    if (dst.size == 0)
      continue; /* no bytes, and memory of an empty allocation may be NULL */
    computeBuffer(call, i,
                  call->viaScratch ? call->self->scratch + offset
                                   : destinationOf(call, dst));
    offset += dst.size;
  }
}

static void copyScratchOut(const Call *call) {
  uint64_t offset = 0;
  for (uint32_t i = 0; i < call->collective->buffers.count; i++) {
    ThunkyPlanSlice dst = buffer(call, i)->dst;
    if (dst.size)
      memcpy(destinationOf(call, dst), call->self->scratch + offset, dst.size);
    offset += dst.size;
  }
}

static bool fail(ThunkyHostWorld *world, uint32_t rank, uint32_t index, const char *kind,
                 ThunkyError *error) {
  thunkyHostWorldAbort(world, rank);
  return thunkyErrorContext(error, "collective %u (%s)", index, kind);
}

bool thunkyHostCollective(ThunkyHostWorld *world, uint32_t rank, const ThunkyPlan *plan,
                          uint32_t index, uint8_t *const *memory, ThunkyError *error) {
  if (rank >= world->ranks || index >= plan->numCollectives) {
    thunkyHostWorldAbort(world, UINT32_MAX);
    return thunkyErrorf(error, "collective %u of %u for rank %u of %u: out of range", index,
                        plan->numCollectives, rank, world->ranks);
  }
  Call call = {.world = world,
               .plan = plan,
               .collective = &plan->collectives[index],
               .rank = rank,
               .self = &world->rank[rank]};
  const char *kind = kindName(call.collective->kind);
  if (!prepare(&call, error))
    return fail(world, rank, index, kind, error);

  call.self->memory = memory;
  call.self->plan = plan;
  call.self->collective = index;
  char what[64];
  snprintf(what, sizeof what, "collective %u", index);
  Arrival arrival = rendezvous(world);
  if (arrival != ARRIVED) {
    arrivalError(world, arrival, what, error);
    return fail(world, rank, index, kind, error);
  }
  if (!checkConverged(&call, index, error))
    return fail(world, rank, index, kind, error);
  compute(&call);
  arrival = rendezvous(world);
  if (arrival != ARRIVED) {
    arrivalError(world, arrival, what, error);
    return fail(world, rank, index, kind, error);
  }
  if (call.viaScratch)
    copyScratchOut(&call);
  return true;
}
