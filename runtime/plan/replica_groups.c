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

#include <stdlib.h>
#include <string.h>

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

static bool inNoGroup(uint32_t rank, uint32_t partitions, ThunkyError *error) {
  return thunkyErrorf(error, "rank %u (replica %u, partition %u) is in no replica group", rank,
                      rank / partitions, rank % partitions);
}

static bool inTwoGroups(uint32_t rank, uint32_t partitions, uint32_t first, uint32_t second,
                        ThunkyError *error) {
  return thunkyErrorf(error,
                      "rank %u (replica %u, partition %u) is in replica group %u and again in %u",
                      rank, rank / partitions, rank % partitions, first, second);
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
    return inNoGroup(rank, partitions, error);
  if (found > 1)
    return inTwoGroups(rank, partitions, mine, again, error);

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

static bool pairInRange(int64_t from, int64_t to, const ThunkyIdSpace *space, ThunkyError *error) {
  if (from < 0 || from >= space->count || to < 0 || to >= space->count)
    return thunkyErrorf(error, "pair {%lld, %lld} names an id outside [0, %lld)", (long long)from,
                        (long long)to, (long long)space->count);
  return true;
}

static bool targetTwice(int64_t to, ThunkyError *error) {
  return thunkyErrorf(error, "id %lld is the target of two pairs", (long long)to);
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
    if (!pairInRange(from, to, &space, error))
      return false;
    if (to != space.self)
      continue;
    if (*source != THUNKY_NO_RANK)
      return targetTwice(to, error);
    *source = thunkyIdRank(&space, from, 0);
  }
  return true;
}

/* Every rank of an id space reads the mode's ids alike, so a world-wide
 * walk visits each space once, from the rank that its id 0 stands for. */
typedef struct SpaceWalk {
  uint32_t ranks, partitions, rank;
  uint8_t mode;
} SpaceWalk;

/* The walk's next space into *space: 1, or 0 past the last, or -1 for an
 * unknown mode. */
static int nextSpace(SpaceWalk *w, ThunkyIdSpace *space, ThunkyError *error) {
  for (; w->rank < w->ranks; w->rank++) {
    if (!thunkyIdSpace(w->ranks, w->partitions, w->mode, w->rank, space, error))
      return -1;
    if (thunkyIdRank(space, 0, 0) == w->rank)
      return w->rank++, 1;
  }
  return 0;
}

void thunkyWorldGroupsClear(ThunkyWorldGroups *groups) {
  free(groups->starts), free(groups->members);
  *groups = (ThunkyWorldGroups){0};
}

/* Each id either lists new ranks or fails, so the walk takes at most
 * `ranks` steps past the groups themselves. */
static bool listWorld(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                      uint32_t partitions, ThunkyWorldGroups *groups, uint32_t *groupOf,
                      uint32_t *listedAs, ThunkyError *error) {
  uint32_t listed = c->groups.count ? c->groups.count : 1, count = 0;
  SpaceWalk walk = {ranks, partitions, 0, c->groupMode};
  ThunkyIdSpace space;
  int more;
  while ((more = nextSpace(&walk, &space, error)) > 0) {
    for (uint32_t g = 0; g < listed; g++) {
      uint32_t instance = groups->numGroups, start = count;
      for (uint32_t i = 0, n = groupLength(plan, c, g, &space); i < n; i++) {
        int64_t id = groupId(plan, c, g, i);
        if (id < 0 || id >= space.count)
          return outOfRange(c->groupMode, g, id, &space, error);
        for (uint32_t s = 0; s < space.spread; s++) {
          uint32_t member = thunkyIdRank(&space, id, s);
          if (groupOf[member] == instance)
            return thunkyErrorf(error, "replica group %u names an id twice", g);
          if (groupOf[member] != UINT32_MAX)
            return inTwoGroups(member, partitions, listedAs[groupOf[member]], g, error);
          groupOf[member] = instance;
          groups->members[count++] = member;
        }
      }
      if (count > start) {
        listedAs[instance] = g;
        groups->starts[groups->numGroups++] = start;
      }
    }
  }
  if (more < 0)
    return false;
  groups->starts[groups->numGroups] = count;
  for (uint32_t rank = 0; rank < ranks; rank++)
    if (groupOf[rank] == UINT32_MAX)
      return inNoGroup(rank, partitions, error);
  return true;
}

bool thunkyWorldGroupsCreate(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                             uint32_t partitions, ThunkyWorldGroups *groups, ThunkyError *error) {
  *groups = (ThunkyWorldGroups){0};
  uint32_t *groupOf = malloc((size_t)ranks * sizeof *groupOf);
  uint32_t *listedAs = malloc((size_t)ranks * sizeof *listedAs);
  groups->starts = malloc(((size_t)ranks + 1) * sizeof *groups->starts);
  groups->members = malloc((size_t)ranks * sizeof *groups->members);
  bool ok = groupOf && listedAs && groups->starts && groups->members
                ? (memset(groupOf, 0xff, (size_t)ranks * sizeof *groupOf),
                   listWorld(plan, c, ranks, partitions, groups, groupOf, listedAs, error))
                : thunkyErrorf(error, "out of memory for replica groups");
  free(groupOf), free(listedAs);
  return ok;
}

bool thunkyWorldPermuteSources(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                               uint32_t partitions, uint32_t *sources, ThunkyError *error) {
  if (c->groupMode == THUNKY_GROUP_CROSS_REPLICA_AND_PARTITION || c->pairs.count % 2)
    return thunkyPermuteSource(plan, c, ranks, partitions, 0, sources, error); /* says why not */
  for (uint32_t rank = 0; rank < ranks; rank++)
    sources[rank] = THUNKY_NO_RANK;
  const int64_t *ids = c->pairs.count ? &plan->ids[c->pairs.first] : NULL;
  SpaceWalk walk = {ranks, partitions, 0, c->groupMode};
  ThunkyIdSpace space;
  int more;
  while ((more = nextSpace(&walk, &space, error)) > 0) {
    for (uint32_t p = 0; p < c->pairs.count; p += 2) {
      int64_t from = ids[p], to = ids[p + 1];
      if (!pairInRange(from, to, &space, error))
        return false;
      uint32_t target = thunkyIdRank(&space, to, 0);
      if (sources[target] != THUNKY_NO_RANK)
        return targetTwice(to, error);
      sources[target] = thunkyIdRank(&space, from, 0);
    }
  }
  return more == 0;
}
