/*===- replica_groups.h - who takes part in a collective with whom --------===*
 *
 * XLA names a collective's groups by ids whose meaning depends on the group
 * mode: replica ids (each partition on its own, or with all partitions of
 * those replicas), partition ids within a replica, or flattened rank ids.
 * Both backends turn them into ranks the same way, here. Rank r of a world
 * of `ranks` is replica r / partitions, partition r % partitions; errors
 * say what is wrong without saying which collective, which callers add.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_REPLICA_GROUPS_H
#define THUNKY_RUNTIME_REPLICA_GROUPS_H

#include "thunky-c/runtime/Plan.h"

/* xla.CollectiveOpGroupMode */
enum {
  THUNKY_GROUP_CROSS_REPLICA = 0,
  THUNKY_GROUP_CROSS_PARTITION = 1,
  THUNKY_GROUP_CROSS_REPLICA_AND_PARTITION = 2,
  THUNKY_GROUP_FLATTENED_ID = 3,
};

/* No rank: a collective-permute target that no pair sends to. */
#define THUNKY_NO_RANK UINT32_MAX

/* The ids a group mode speaks of, seen from one rank: the rank's own id
 * `self`, ids in [0, count), and the ranks id i stands for,
 * base + i * stride + s for s < spread (spread > 1 only for replica ids
 * with all their partitions). */
typedef struct ThunkyIdSpace {
  int64_t self, count;
  uint32_t base, stride, spread;
} ThunkyIdSpace;

/* The id space of group `mode` seen from `rank`; fails on an unknown mode.
 * `ranks` must be a positive multiple of a positive `partitions`. */
bool thunkyIdSpace(uint32_t ranks, uint32_t partitions, uint8_t mode, uint32_t rank,
                   ThunkyIdSpace *space, ThunkyError *error);

/* Rank `spreadIndex` (< space->spread) of those id `id` (in [0, count))
 * stands for. */
uint32_t thunkyIdRank(const ThunkyIdSpace *space, int64_t id, uint32_t spreadIndex);

/* The ranks of `rank`'s group in collective c: written in group order to
 * members[0, *size) (room for `ranks`), with *position the caller's place.
 * `seen` is `ranks` zeroed bytes of scratch, left zeroed. Fails on an
 * unknown mode, an id out of range, a rank in no group or in two, or an id
 * named twice in the rank's group. Called for every rank of a world, it
 * succeeds only if the groups split the world: every id in exactly one
 * group, so that all members of a group get the same list. */
bool thunkyReplicaGroup(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                        uint32_t partitions, uint32_t rank, uint32_t *members, uint8_t *seen,
                        uint32_t *size, uint32_t *position, ThunkyError *error);

/* The rank whose source collective-permute c delivers to `rank`, or
 * THUNKY_NO_RANK. Pairs speak of replica ids within the rank's partition
 * (cross-replica), of partition ids within its replica (cross-partition),
 * or of ranks (flattened ids), as XLA's collective-permute does. Fails on
 * cross_replica_and_partition (no ids for pairs), an odd number of ids, an
 * id out of range, or `rank`'s id the target of two pairs; called for
 * every rank, it checks every target. */
bool thunkyPermuteSource(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                         uint32_t partitions, uint32_t rank, uint32_t *source, ThunkyError *error);

/* Every group of collective c over the whole world at once, in the time
 * thunkyReplicaGroup takes for one rank: what plans for all ranks together
 * (the schedule model) uses it. */
typedef struct ThunkyWorldGroups {
  uint32_t numGroups;
  uint32_t *starts;  /* numGroups + 1: group g is members[starts[g], starts[g + 1]) */
  uint32_t *members; /* every rank once, each group's in group order */
} ThunkyWorldGroups;

/* Fills *groups (the caller clears it with thunkyWorldGroupsClear, also
 * after a failure), failing exactly where thunkyReplicaGroup fails for
 * some rank, for the same reasons: an unknown mode, an id out of range, a
 * rank in no group or in two, an id named twice in a group; or out of
 * memory. */
bool thunkyWorldGroupsCreate(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                             uint32_t partitions, ThunkyWorldGroups *groups, ThunkyError *error);
void thunkyWorldGroupsClear(ThunkyWorldGroups *groups);

/* The source of every rank in collective-permute c at once: sources[r]
 * (room for `ranks`) as thunkyPermuteSource gives it for rank r, failing
 * where that fails for some rank. */
bool thunkyWorldPermuteSources(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t ranks,
                               uint32_t partitions, uint32_t *sources, ThunkyError *error);

#endif /* THUNKY_RUNTIME_REPLICA_GROUPS_H */
