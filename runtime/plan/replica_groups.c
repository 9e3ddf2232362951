/*===- replica_groups.c - who takes part in a collective with whom --------===*
 *
 * Each rank finds its own group from its own id: it checks every id of
 * every group is in range and that its id is in exactly one group, then
 * lists that group's ranks. No rank looks at another's view, so a backend
 * that runs ranks as threads checks each rank in its own thread, and one
 * that plans for the whole world checks every rank in turn.
 *
 *===--------------------------------------------------------------------===*/
#include "replica_groups.h"

bool thunkyIdSpace(uint32_t ranks, uint32_t partitions, uint8_t mode, uint32_t rank,
                   ThunkyIdSpace *space, ThunkyError *error) {
  uint32_t replicas = ranks / partitions;
  uint32_t replica = rank / partitions, partition = rank % partitions;
  switch (mode) {
  case THUNKY_GROUP_CROSS_REPLICA: /* replica ids, within the rank's partition */
    *space = (ThunkyIdSpace){replica, replicas, partition, partitions, 1};
    return true;
  case THUNKY_GROUP_CROSS_PARTITION: /* partition ids, within the rank's replica */
    *space = (ThunkyIdSpace){partition, partitions, replica * partitions, 1, 1};
    return true;
  case THUNKY_GROUP_CROSS_REPLICA_AND_PARTITION: /* replica ids, with all their partitions */
    *space = (ThunkyIdSpace){replica, replicas, 0, partitions, partitions};
    return true;
  case THUNKY_GROUP_FLATTENED_ID: /* ranks */
    *space = (ThunkyIdSpace){rank, ranks, 0, 1, 1};
    return true;
  }
  return thunkyErrorf(error, "unknown group mode %u", mode);
}

uint32_t thunkyIdRank(const ThunkyIdSpace *space, int64_t id, uint32_t spreadIndex) {
  return space->base + (uint32_t)id * space->stride + spreadIndex;
}

/* The number of ids in group `group` of c; with no groups, the one
 * implicit group holds every id of the space. */
static uint32_t groupLength(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t group,
                            const ThunkyIdSpace *space) {
  if (c->groups.count == 0)
    return (uint32_t)space->count;
  return plan->groups[c->groups.first + group].count;
}

/* The id at `index` of group `group` of c (the implicit group: in order). */
static int64_t groupId(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t group,
                       uint32_t index) {
  if (c->groups.count == 0)
    return index;
  return plan->ids[plan->groups[c->groups.first + group].first + index];
}

/* An id past the run's ids is most often a run of fewer ranks than the
 * executable was compiled for: the message says which option grows them. */
static bool outOfRange(uint8_t mode, uint32_t group, int64_t id, const ThunkyIdSpace *space,
                       ThunkyError *error) {
  const char *ids = mode == THUNKY_GROUP_CROSS_PARTITION ? "partition"
                    : mode == THUNKY_GROUP_FLATTENED_ID  ? "rank"
                                                         : "replica";
  const char *option = mode == THUNKY_GROUP_CROSS_PARTITION ? "--partitions" : "--ranks";
  if (id < 0)
    return thunkyErrorf(error, "replica group %u holds id %lld, outside [0, %lld)", group,
                        (long long)id, (long long)space->count);
  return thunkyErrorf(error,
                      "replica group %u holds id %lld, outside [0, %lld): this run has %lld "
                      "%s%s; was the executable compiled for more (thunky-run %s)?",
                      group, (long long)id, (long long)space->count, (long long)space->count,
                      ids, space->count == 1 ? "" : "s", option);
}

bool thunkyReplicaGroup(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                        uint32_t partitions, uint32_t rank, uint32_t *members, uint8_t *seen,
                        uint32_t *size, uint32_t *position, ThunkyError *error) {
  ThunkyIdSpace space;
  if (!thunkyIdSpace(ranks, partitions, c->groupMode, rank, &space, error))
    return false;
  uint32_t groups = c->groups.count ? c->groups.count : 1, found = 0, mine = 0, again = 0;
  for (uint32_t g = 0; g < groups; g++)
    for (uint32_t i = 0, n = groupLength(plan, c, g, &space); i < n; i++) {
      int64_t id = groupId(plan, c, g, i);
      if (id < 0 || id >= space.count)
        return outOfRange(c->groupMode, g, id, &space, error);
      if (id == space.self && found++ == 0)
        mine = g;
      else if (id == space.self && found == 2)
        again = g;
    }
  if (found == 0)
    return thunkyErrorf(error, "rank %u (replica %u, partition %u) is in no replica group", rank,
                        rank / partitions, rank % partitions);
  if (found > 1)
    return thunkyErrorf(error,
                        "rank %u (replica %u, partition %u) is in replica group %u and "
                        "again in %u",
                        rank, rank / partitions, rank % partitions, mine, again);

  /* Ids are in range and the space maps distinct ids to distinct ranks, so
   * a rank seen twice is an id named twice. */
  uint32_t count = 0;
  bool repeated = false;
  *position = 0;
  for (uint32_t i = 0, n = groupLength(plan, c, mine, &space); i < n && !repeated; i++)
    for (uint32_t s = 0; s < space.spread && !repeated; s++) {
      uint32_t member = thunkyIdRank(&space, groupId(plan, c, mine, i), s);
      repeated = seen[member];
      if (!repeated) {
        seen[member] = 1;
        if (member == rank)
          *position = count;
        members[count++] = member;
      }
    }
  for (uint32_t i = 0; i < count; i++)
    seen[members[i]] = 0;
  if (repeated)
    return thunkyErrorf(error, "replica group %u names an id twice", mine);
  *size = count;
  return true;
}

bool thunkyPermuteSource(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                         uint32_t partitions, uint32_t rank, uint32_t *source, ThunkyError *error) {
  if (c->groupMode == THUNKY_GROUP_CROSS_REPLICA_AND_PARTITION)
    return thunkyErrorf(error, "group mode cross_replica_and_partition has no ids for "
                               "source-target pairs");
  ThunkyIdSpace space;
  if (!thunkyIdSpace(ranks, partitions, c->groupMode, rank, &space, error))
    return false;
  if (c->pairs.count % 2)
    return thunkyErrorf(error, "%u ids do not make source-target pairs", c->pairs.count);
  *source = THUNKY_NO_RANK;
  const int64_t *ids = c->pairs.count ? &plan->ids[c->pairs.first] : NULL;
  for (uint32_t p = 0; p < c->pairs.count; p += 2) {
    int64_t from = ids[p], to = ids[p + 1];
    if (from < 0 || from >= space.count || to < 0 || to >= space.count)
      return thunkyErrorf(error, "pair {%lld, %lld} names an id outside [0, %lld)", (long long)from,
                          (long long)to, (long long)space.count);
    if (to != space.self)
      continue;
    if (*source != THUNKY_NO_RANK)
      return thunkyErrorf(error, "id %lld is the target of two pairs", (long long)to);
    *source = thunkyIdRank(&space, from, 0);
  }
  return true;
}
