/*===- cuda_collectives.c - XLA's collectives on NCCL ---------------------===*
 *
 * XLA names the ranks of a collective by replica groups read through a
 * group mode; a world rank r is replica r / partitions, partition
 * r % partitions. Planning turns each collective's groups into a grouping
 * of the world (for every rank: its group, its place, the group's size),
 * checked by replica_groups.c as the host backend checks them, and checks
 * the buffers against the group sizes, so that running only enqueues.
 * Each distinct grouping gets communicators, split from the world's in the
 * same order on every process. Collectives that only move bytes move them
 * as bytes, whatever their element type; reductions need a type NCCL
 * reduces.
 *
 *===--------------------------------------------------------------------===*/
#include "cuda_state.h"
#include "thunky-c/base/Arena.h"
#include "thunky-c/base/Hash.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/runtime/Reduce.h"
#include "replica_groups.h"

#include <stdlib.h>
#include <string.h>

/* NCCL's type and operator for reducing elements of `type` by `reduction`,
 * and how many NCCL elements make one; false if NCCL cannot. Complex sums
 * reduce as pairs of reals; PRED reduces as bytes whose sum is "or" and
 * product "and", as XLA's (and the host backend's) are. */
static bool ncclReduction(int32_t type, uint8_t reduction, ncclDataType_t *nccl,
                          ncclRedOp_t *op, uint32_t *lanes) {
  switch (reduction) {
  case THUNKY_REDUCE_SUM: *op = type == THUNKY_TYPE_PRED ? ncclMax : ncclSum; break;
  case THUNKY_REDUCE_PRODUCT: *op = type == THUNKY_TYPE_PRED ? ncclMin : ncclProd; break;
  case THUNKY_REDUCE_MIN: *op = ncclMin; break;
  case THUNKY_REDUCE_MAX: *op = ncclMax; break;
  default: return false;
  }
  *lanes = 1;
  switch ((ThunkyElementType)type) {
  case THUNKY_TYPE_PRED:
  case THUNKY_TYPE_U8: *nccl = ncclUint8; return true;
  case THUNKY_TYPE_S8: *nccl = ncclInt8; return true;
  case THUNKY_TYPE_S32: *nccl = ncclInt32; return true;
  case THUNKY_TYPE_U32: *nccl = ncclUint32; return true;
  case THUNKY_TYPE_S64: *nccl = ncclInt64; return true;
  case THUNKY_TYPE_U64: *nccl = ncclUint64; return true;
  case THUNKY_TYPE_F16: *nccl = ncclFloat16; return true;
  case THUNKY_TYPE_BF16: *nccl = ncclBfloat16; return true;
  case THUNKY_TYPE_F32: *nccl = ncclFloat32; return true;
  case THUNKY_TYPE_F64: *nccl = ncclFloat64; return true;
  case THUNKY_TYPE_F8E5M2: *nccl = ncclFloat8e5m2; return true;   /* NCCL 2.24 on */
  case THUNKY_TYPE_F8E4M3FN: *nccl = ncclFloat8e4m3; return true; /* NCCL 2.24 on */
  case THUNKY_TYPE_C64: *nccl = ncclFloat32, *lanes = 2; return reduction == THUNKY_REDUCE_SUM;
  case THUNKY_TYPE_C128:
    *nccl = ncclFloat64, *lanes = 2;
    return reduction == THUNKY_REDUCE_SUM;
  default: return false;
  }
}

/*--- planning --------------------------------------------------------------*/

typedef struct Planner {
  ThunkyCudaState *state;
  const ThunkyPlan *plan;
  uint32_t world, partitions;
  uint32_t *members;        /* world entries of scratch */
  uint8_t *seen;            /* world zeroed bytes of scratch */
  ThunkyCudaPlace *places;  /* the candidate grouping */
  size_t groupingCapacity;
  /* Linear lookups, however many groupings: a collective listing groups
   * some earlier one listed (to that collective), and places some earlier
   * grouping has (to that grouping). */
  ThunkyHashMap byGroups, byPlaces;
  char name[160];           /* the thunk being planned, for messages */
  ThunkyError *error;
} Planner;

/* Fills p->places for collective c. thunkyReplicaGroup, passing for every
 * rank, means every id is in exactly one group and no group repeats one:
 * the groups split the world, and all members of a group list it alike, so
 * they agree on its color (its smallest rank), size and their places. */
static bool placeAll(Planner *p, const ThunkyCollective *c) {
  for (uint32_t rank = 0; rank < p->world; rank++) {
    uint32_t n, place, smallest = UINT32_MAX;
    if (!thunkyReplicaGroup(p->plan, c, p->world, p->partitions, rank, p->members, p->seen, &n,
                            &place, p->error))
      return thunkyErrorContext(p->error, "cuda: %s", p->name);
    for (uint32_t i = 0; i < n; i++)
      if (p->members[i] < smallest)
        smallest = p->members[i];
    p->places[rank] = (ThunkyCudaPlace){(int32_t)smallest, (int32_t)place, (int32_t)n};
  }
  return true;
}

/* Whether two collectives list the same groups in the same mode. */
static bool sameGroups(const ThunkyPlan *plan, const ThunkyCollective *a,
                       const ThunkyCollective *b) {
  if (a->groupMode != b->groupMode || a->groups.count != b->groups.count)
    return false;
  for (uint32_t g = 0; g < a->groups.count; g++) {
    ThunkyRange x = plan->groups[a->groups.first + g], y = plan->groups[b->groups.first + g];
    if (x.count != y.count ||
        (x.count && memcmp(&plan->ids[x.first], &plan->ids[y.first], x.count * sizeof *plan->ids)))
      return false;
  }
  return true;
}

/* A collective's group lists, hashed. */
static uint64_t groupsKey(const ThunkyPlan *plan, const ThunkyCollective *c) {
  uint64_t key = ((uint64_t)c->groupMode << 32) ^ c->groups.count;
  for (uint32_t g = 0; g < c->groups.count; g++) {
    ThunkyRange x = plan->groups[c->groups.first + g];
    key = (key ^ thunkyHashBytes(&plan->ids[x.first], x.count * sizeof *plan->ids)) *
              UINT64_C(0x9E3779B97F4A7C15) +
          x.count;
  }
  return key;
}

/* The slot after `key`'s k-th one, when a different entry holds it. */
static uint64_t probe(uint64_t key, uint64_t k) { return (key + k) * UINT64_C(0xff51afd7ed558ccd); }

/* The grouping of collective `index`: one it shares with an earlier
 * collective listing the same groups, or with a grouping alike, or new.
 * Each lookup is a hash and a comparison, so planning stays linear in the
 * collectives however many groupings they make. */
static bool findGrouping(Planner *p, uint32_t index, uint32_t *grouping) {
  ThunkyCudaState *s = p->state;
  const ThunkyCollective *c = &p->plan->collectives[index];
  uint64_t key = groupsKey(p->plan, c), slot = key, k = 0;
  uint32_t found;
  for (; thunkyHashMapGet(&p->byGroups, slot, &found); slot = probe(key, ++k))
    if (sameGroups(p->plan, c, &p->plan->collectives[found]))
      return *grouping = s->collectiveGrouping[found], true;
  if (!thunkyHashMapPut(&p->byGroups, slot, index))
    return thunkyErrorf(p->error, "cuda: out of memory planning collectives");
  if (!placeAll(p, c))
    return false;
  uint32_t world = p->world;
  size_t bytes = world * sizeof(ThunkyCudaPlace);
  uint64_t placesKey = thunkyHashBytes(p->places, bytes);
  slot = placesKey, k = 0;
  for (; thunkyHashMapGet(&p->byPlaces, slot, &found); slot = probe(placesKey, ++k))
    if (!memcmp(s->groupings + (size_t)found * world, p->places, bytes))
      return *grouping = found, true;
  if (!thunkyArrayGrow((void **)&s->groupings, &p->groupingCapacity, s->numGroupings, bytes) ||
      !thunkyHashMapPut(&p->byPlaces, slot, s->numGroupings))
    return thunkyErrorf(p->error, "cuda: out of memory planning collectives");
  memcpy(s->groupings + (size_t)s->numGroupings * world, p->places, bytes);
  *grouping = s->numGroupings++;
  return true;
}

/* Checks a permute's pairs: ids of its group mode, each target once (for
 * every rank, so that every id's targets are checked). */
static bool checkPairs(Planner *p, const ThunkyCollective *c) {
  for (uint32_t rank = 0; rank < p->world; rank++) {
    uint32_t source;
    if (!thunkyPermuteSource(p->plan, c, p->world, p->partitions, rank, &source, p->error))
      return thunkyErrorContext(p->error, "cuda: %s", p->name);
  }
  return true;
}

/* Checks collective c's buffers for a group of n ranks, so that NCCL
 * never writes past a destination. */
static bool checkBuffers(Planner *p, const ThunkyCollective *c, uint32_t n) {
  const ThunkyPlan *plan = p->plan;
  if (c->kind == THUNKY_COLLECTIVE_ALL_TO_ALL && !c->splitDimension && c->buffers.count != n)
    return thunkyErrorf(p->error, "cuda: %s has %u buffers for a group of %u ranks", p->name,
                        c->buffers.count, n);
  if (c->kind == THUNKY_COLLECTIVE_BROADCAST && (c->root < 0 || c->root >= (int64_t)n))
    return thunkyErrorf(p->error, "cuda: %s broadcasts from rank %lld of a group of %u",
                        p->name, (long long)c->root, n);
  bool reduces =
      c->kind == THUNKY_COLLECTIVE_ALL_REDUCE || c->kind == THUNKY_COLLECTIVE_REDUCE_SCATTER;
  for (uint32_t i = 0; i < c->buffers.count; i++) {
    const ThunkyCollectiveBuffer *b = &plan->collectiveBuffers[c->buffers.first + i];
    ncclDataType_t type;
    ncclRedOp_t op;
    uint32_t lanes;
    if (reduces && !ncclReduction(b->elementType, c->reduction, &type, &op, &lanes)) {
      static const char *const reductions[] = {"?", "sum", "product", "min", "max"};
      const char *name = thunkyElementTypeName(b->elementType);
      return thunkyErrorf(p->error, "cuda: %s reduces %s elements by %s, which NCCL cannot",
                          p->name, name ? name : "unknown",
                          reductions[c->reduction <= THUNKY_REDUCE_MAX ? c->reduction : 0]);
    }
    /* What NCCL reads from the source and writes to the destination. */
    uint64_t elements = b->elementCount * thunkyElementBytes(b->elementType);
    uint64_t reads = b->src.size, writes = b->src.size;
    if (c->kind == THUNKY_COLLECTIVE_ALL_REDUCE)
      reads = writes = elements;
    if (c->kind == THUNKY_COLLECTIVE_ALL_GATHER)
      writes = b->src.size * n;
    if (c->kind == THUNKY_COLLECTIVE_REDUCE_SCATTER) {
      if (b->elementCount % n)
        return thunkyErrorf(p->error, "cuda: %s scatters %llu elements over %u ranks", p->name,
                            (unsigned long long)b->elementCount, n);
      reads = elements, writes = elements / n;
    }
    if (c->kind == THUNKY_COLLECTIVE_ALL_TO_ALL && c->splitDimension && b->src.size % n)
      return thunkyErrorf(p->error, "cuda: %s splits %llu bytes into %u chunks", p->name,
                          (unsigned long long)b->src.size, n);
    if (reads > b->src.size || writes > b->dst.size)
      return thunkyErrorf(p->error,
                          "cuda: %s moves %llu bytes from a source of %llu to %llu bytes of a "
                          "destination of %llu (buffer %u, a group of %u)",
                          p->name, (unsigned long long)reads, (unsigned long long)b->src.size,
                          (unsigned long long)writes, (unsigned long long)b->dst.size, i, n);
  }
  return true;
}

bool thunkyCudaPlanCollectives(ThunkyCudaState *state, ThunkyError *error) {
  const ThunkyPlan *plan = state->plan;
  uint32_t world = state->world;
  Planner p = {.state = state,
               .plan = plan,
               .world = world,
               .partitions = state->partitions,
               .groupingCapacity = 1, /* grouping 0, the world, allocated below */
               .error = error};
  p.members = malloc(world * sizeof *p.members);
  p.seen = calloc(world, 1);
  p.places = malloc(world * sizeof *p.places);
  state->groupings = malloc(world * sizeof(ThunkyCudaPlace));
  state->collectiveGrouping = calloc(plan->numCollectives, sizeof *state->collectiveGrouping);
  uint32_t *thunkOf = malloc(plan->numCollectives * sizeof *thunkOf);
  bool ok = p.members && p.seen && p.places && state->groupings &&
            state->collectiveGrouping && thunkOf;
  if (!ok)
    thunkyErrorf(error, "cuda: out of memory planning collectives");
  if (ok) {
    /* Grouping 0: the world in rank order, for permutes and whole-world
     * groups alike. */
    for (uint32_t rank = 0; rank < world; rank++)
      state->groupings[rank] = (ThunkyCudaPlace){0, (int32_t)rank, (int32_t)world};
    state->numGroupings = 1;
    ok = thunkyHashMapPut(&p.byPlaces,
                          thunkyHashBytes(state->groupings, world * sizeof(ThunkyCudaPlace)), 0) ||
         thunkyErrorf(error, "cuda: out of memory planning collectives");
    for (uint32_t i = 0; i < plan->numCollectives; i++)
      thunkOf[i] = THUNKY_CUDA_NO_THUNK;
    for (uint32_t i = 0; i < plan->numCommands; i++)
      if (plan->commands[i].kind == THUNKY_CMD_COLLECTIVE)
        thunkOf[plan->commands[i].collective.collective] = plan->commands[i].thunk;
  }
  for (uint32_t i = 0; ok && i < plan->numCollectives; i++) {
    const ThunkyCollective *c = &plan->collectives[i];
    thunkyCudaThunkName(state, thunkOf[i], p.name, sizeof p.name);
    if (!p.name[0])
      snprintf(p.name, sizeof p.name, "collective %u", i);
    if (c->kind == THUNKY_COLLECTIVE_PERMUTE) {
      ok = checkPairs(&p, c) && checkBuffers(&p, c, 1);
      continue;
    }
    ok = findGrouping(&p, i, &state->collectiveGrouping[i]);
    const ThunkyCudaPlace *places =
        state->groupings + (size_t)state->collectiveGrouping[i] * world;
    for (uint32_t r = 0; ok && r < state->ranks; r++)
      ok = checkBuffers(&p, c, (uint32_t)places[state->rank[r].global].size);
  }
  free(p.members);
  free(p.seen);
  free(p.places);
  thunkyHashMapDestroy(&p.byGroups);
  thunkyHashMapDestroy(&p.byPlaces);
  free(thunkOf);
  return ok;
}

/*--- communicators ---------------------------------------------------------*/

bool thunkyCudaNcclCheck(const ThunkyCudaState *state, ThunkyCudaRank *rank,
                         ncclResult_t result, ncclComm_t comm, const char *call,
                         uint32_t thunk) {
  if (result == ncclSuccess)
    return true;
  char where[160];
  thunkyCudaThunkName(state, thunk, where, sizeof where);
  return thunkyNcclFail(&state->nccl, result, comm, call, where, &rank->error);
}

bool thunkyCudaInitComms(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  ThunkyCudaComm *world = &rank->comms[0];
  /* Non-blocking, as XLA makes them when asked (nccl_communicator.cc polls
   * each call until done): init and split return at once, and a peer that
   * never comes shows as a deadline passed, not a thread blocked in NCCL.
   * Splits inherit the parent's configuration. */
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclResult_t result = state->nccl.ncclCommInitRankConfig(
      &world->comm, (int)state->world, state->ncclId, (int)rank->global, &config);
  if (!thunkyCudaNcclWait(state, rank, result, world->comm, "ncclCommInitRankConfig",
                          THUNKY_CUDA_NO_THUNK))
    return false;
  world->size = (int)state->world, world->rank = (int)rank->global;
  /* Splitting is collective over the world: every rank of every process
   * splits for every grouping, in the planned order. */
  for (uint32_t g = 1; g < state->numGroupings; g++) {
    const ThunkyCudaPlace *at = state->groupings + (size_t)g * state->world + rank->global;
    ThunkyCudaComm *comm = &rank->comms[g];
    result = state->nccl.ncclCommSplit(world->comm, at->color, at->key, &comm->comm, NULL);
    /* In progress, the new communicator is the one that settles. */
    ncclComm_t settling = result == ncclInProgress ? comm->comm : world->comm;
    if (!thunkyCudaNcclWait(state, rank, result, settling, "ncclCommSplit",
                            THUNKY_CUDA_NO_THUNK))
      return false;
    comm->size = at->size, comm->rank = at->key;
  }
  return true;
}

bool thunkyCudaFreeComms(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  /* After a failed run, work may wait forever for a peer: only an abort
   * ends it. */
  for (uint32_t g = rank->comms ? state->numGroupings : 0; g-- > 0;) {
    ncclComm_t comm = rank->comms[g].comm;
    if (comm)
      (state->broken ? state->nccl.ncclCommAbort : state->nccl.ncclCommDestroy)(comm);
    rank->comms[g].comm = NULL;
  }
  return true;
}

/*--- running ---------------------------------------------------------------*/

typedef struct Call {
  ThunkyCudaState *state;
  ThunkyCudaRank *rank;
  ncclComm_t comm;
  CUstream stream;
  uint32_t thunk;
} Call;

static bool ok(Call *k, ncclResult_t result, const char *call) {
  return thunkyCudaNcclWait(k->state, k->rank, result, k->comm, call, k->thunk);
}

static void *address(const Call *k, ThunkyPlanSlice slice) {
  return (void *)(uintptr_t)thunkyCudaAddress(k->rank, slice);
}

/* Sends `bytes` at `send` to `to` and receives as many from `from` into
 * `recv`, in the caller's group. */
static bool exchange(Call *k, const void *send, int to, void *recv, int from, size_t bytes) {
  const ThunkyNccl *nccl = &k->state->nccl;
  return ok(k, nccl->ncclSend(send, bytes, ncclUint8, to, k->comm, k->stream), "ncclSend") &&
         ok(k, nccl->ncclRecv(recv, bytes, ncclUint8, from, k->comm, k->stream), "ncclRecv");
}

static bool allToAll(Call *k, const ThunkyCollective *c, const ThunkyCudaComm *comm) {
  const ThunkyPlan *plan = k->state->plan;
  for (uint32_t i = 0; i < c->buffers.count; i++) {
    const ThunkyCollectiveBuffer *b = &plan->collectiveBuffers[c->buffers.first + i];
    char *src = address(k, b->src), *dst = address(k, b->dst);
    if (!c->splitDimension) { /* buffer i goes to and comes from rank i */
      if (!exchange(k, src, (int)i, dst, (int)i, b->src.size))
        return false;
      continue;
    }
    size_t chunk = b->src.size / (uint32_t)comm->size;
    for (int peer = 0; peer < comm->size; peer++)
      if (!exchange(k, src + (size_t)peer * chunk, peer, dst + (size_t)peer * chunk, peer,
                    chunk))
        return false;
  }
  return true;
}

static bool permute(Call *k, const ThunkyCollective *c) {
  ThunkyCudaState *s = k->state;
  const ThunkyPlan *plan = s->plan;
  ThunkyIdSpace space; /* planning checked the mode and the pairs */
  if (!thunkyIdSpace(s->world, s->partitions, c->groupMode, k->rank->global, &space,
                     &k->rank->error))
    return false;
  const int64_t *pairs = c->pairs.count ? &plan->ids[c->pairs.first] : NULL;
  for (uint32_t i = 0; i < c->buffers.count; i++) {
    const ThunkyCollectiveBuffer *b = &plan->collectiveBuffers[c->buffers.first + i];
    const ThunkyNccl *nccl = &s->nccl;
    bool received = false;
    for (uint32_t j = 0; j + 1 < c->pairs.count; j += 2) {
      int64_t source = pairs[j], target = pairs[j + 1];
      if (source == space.self &&
          !ok(k,
              nccl->ncclSend(address(k, b->src), b->src.size, ncclUint8,
                             (int)thunkyIdRank(&space, target, 0), k->comm, k->stream),
              "ncclSend"))
        return false;
      if (target == space.self) {
        received = true;
        if (!ok(k,
                nccl->ncclRecv(address(k, b->dst), b->src.size, ncclUint8,
                               (int)thunkyIdRank(&space, source, 0), k->comm, k->stream),
                "ncclRecv"))
          return false;
      }
    }
    /* XLA: a rank no pair sends to gets zeros. */
    if (!received && b->dst.size &&
        !THUNKY_CU(s, cuMemsetD8Async,
                   (thunkyCudaAddress(k->rank, b->dst), 0, b->dst.size, k->stream), k->thunk,
                   &k->rank->error))
      return false;
  }
  return true;
}

static bool enqueue(Call *k, const ThunkyCollective *c, const ThunkyCudaComm *comm) {
  const ThunkyPlan *plan = k->state->plan;
  const ThunkyNccl *nccl = &k->state->nccl;
  if (c->kind == THUNKY_COLLECTIVE_ALL_TO_ALL)
    return allToAll(k, c, comm);
  if (c->kind == THUNKY_COLLECTIVE_PERMUTE)
    return permute(k, c);
  for (uint32_t i = 0; i < c->buffers.count; i++) {
    const ThunkyCollectiveBuffer *b = &plan->collectiveBuffers[c->buffers.first + i];
    const void *src = address(k, b->src);
    void *dst = address(k, b->dst);
    ncclDataType_t type = ncclUint8;
    ncclRedOp_t op = ncclSum;
    uint32_t lanes = 1;
    ncclReduction(b->elementType, c->reduction, &type, &op, &lanes); /* checked if reducing */
    bool done;
    switch ((ThunkyCollectiveKind)c->kind) {
    case THUNKY_COLLECTIVE_ALL_REDUCE:
      done = ok(
          k,
          nccl->ncclAllReduce(src, dst, b->elementCount * lanes, type, op, k->comm, k->stream),
          "ncclAllReduce");
      break;
    case THUNKY_COLLECTIVE_REDUCE_SCATTER:
      done =
          ok(k,
             nccl->ncclReduceScatter(src, dst, b->elementCount / (uint32_t)comm->size * lanes,
                                     type, op, k->comm, k->stream),
             "ncclReduceScatter");
      break;
    case THUNKY_COLLECTIVE_ALL_GATHER:
      done = ok(k, nccl->ncclAllGather(src, dst, b->src.size, ncclUint8, k->comm, k->stream),
                "ncclAllGather");
      break;
    case THUNKY_COLLECTIVE_BROADCAST:
      done = ok(k,
                nccl->ncclBroadcast(src, dst, b->src.size, ncclUint8, (int)c->root, k->comm,
                                    k->stream),
                "ncclBroadcast");
      break;
    default:
      done = thunkyErrorf(&k->rank->error, "cuda: unknown collective kind %u", c->kind);
      break;
    }
    if (!done)
      return false;
  }
  return true;
}

bool thunkyCudaCollective(ThunkyCudaState *state, ThunkyCudaRank *rank, uint32_t index,
                          CUstream stream, uint32_t thunk) {
  const ThunkyCollective *c = &state->plan->collectives[index];
  const ThunkyCudaComm *comm = &rank->comms[state->collectiveGrouping[index]];
  Call k = {state, rank, comm->comm, stream, thunk};
  /* One group per collective: its buffers go as one launch, and the sends
   * and receives of a permute or all-to-all pair up. */
  if (!ok(&k, state->nccl.ncclGroupStart(), "ncclGroupStart"))
    return false;
  bool enqueued = enqueue(&k, c, comm);
  ncclResult_t ended = state->nccl.ncclGroupEnd(); /* always: the group must close */
  return enqueued && ok(&k, ended, "ncclGroupEnd");
}
