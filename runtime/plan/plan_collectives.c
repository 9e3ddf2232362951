/*===- plan_collectives.c - collectives as commands -------------------===*/
#include "plan_builder.h"

#include "replica_groups.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- collectives ----------------------------------------------------------*/

static bool collective(Builder *b, CommandVec *v, ThunkyCollectiveKind kind,
                       const Xla__Gpu__CollectiveConfigProto *config, size_t n,
                       Xla__Gpu__CollectiveBufferProto *const *buffers, ThunkyCollective **out) {
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_COLLECTIVE);
  ThunkyCollective *col = c ? thunkyPlanPush(&b->collectives) : NULL;
  if (!col)
    return c ? thunkyErrorf(b->error, "out of memory") : false;
  c->collective.collective = b->plan->numCollectives - 1;
  col->kind = (uint8_t)kind;
  col->groupMode = config ? (uint8_t)config->group_mode : 0;
  col->buffers = (ThunkyRange){*b->collectiveBuffers.count, (uint32_t)n};
  for (size_t i = 0; i < n; i++) {
    ThunkyCollectiveBuffer *buf = thunkyPlanPush(&b->collectiveBuffers);
    if (!buf)
      return thunkyErrorf(b->error, "out of memory");
    if (!thunkyPlanShapedSliceOf(b, buffers[i]->source_buffer, "source", &buf->src) ||
        !thunkyPlanShapedSliceOf(b, buffers[i]->destination_buffer, "destination", &buf->dst))
      return false;
    if (buffers[i]->element_count < 0)
      return fail(b, "buffer %zu has a negative element count", i);
    buf->elementCount = (uint64_t)buffers[i]->element_count;
    buf->elementType = config && i < config->n_operand_element_type
                           ? config->operand_element_type[i]
                           : 0;
  }
  col->groups = (ThunkyRange){*b->groups.count, config ? (uint32_t)config->n_replica_groups : 0};
  for (size_t g = 0; config && g < config->n_replica_groups; g++) {
    const Xla__ReplicaGroup *group = config->replica_groups[g];
    ThunkyRange *r = thunkyPlanPush(&b->groups);
    if (!r)
      return thunkyErrorf(b->error, "out of memory");
    r->first = *b->ids.count;
    r->count = (uint32_t)group->n_replica_ids;
    for (size_t i = 0; i < group->n_replica_ids; i++) {
      int64_t *id = thunkyPlanPush(&b->ids);
      if (!id)
        return thunkyErrorf(b->error, "out of memory");
      *id = group->replica_ids[i];
    }
  }
  *out = col;
  return true;
}

bool thunkyPlanCollectiveThunk(Builder *b, CommandVec *v, const Thunk *t) {
  ThunkyCollective *c;
  switch (t->impl_case) {
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_REDUCE_THUNK: {
    const Xla__Gpu__AllReduceThunkProto *p = t->all_reduce_thunk;
    if (!collective(b, v, THUNKY_COLLECTIVE_ALL_REDUCE, p->collective_config, p->n_buffers,
                    p->buffers, &c))
      return false;
    c->reduction = (uint8_t)p->reduction_kind;
    break;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_REDUCE_SCATTER_THUNK: {
    const Xla__Gpu__ReduceScatterThunkProto *p = t->reduce_scatter_thunk;
    if (!collective(b, v, THUNKY_COLLECTIVE_REDUCE_SCATTER, p->collective_config, p->n_buffers,
                    p->buffers, &c))
      return false;
    c->reduction = (uint8_t)p->reduction_kind;
    break;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_GATHER_THUNK: {
    const Xla__Gpu__AllGatherThunkProto *p = t->all_gather_thunk;
    return collective(b, v, THUNKY_COLLECTIVE_ALL_GATHER, p->collective_config, p->n_buffers,
                      p->buffers, &c);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_TO_ALL_THUNK: {
    const Xla__Gpu__AllToAllThunkProto *p = t->all_to_all_thunk;
    if (!collective(b, v, THUNKY_COLLECTIVE_ALL_TO_ALL, p->collective_config, p->n_buffers,
                    p->buffers, &c))
      return false;
    c->splitDimension = p->has_split_dimension;
    break;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_BROADCAST_THUNK: {
    const Xla__Gpu__CollectiveBroadcastThunkProto *p = t->collective_broadcast_thunk;
    /* A dynamic root is read at run time from the last buffer, which is no
     * source and destination pair: run as a broadcast from group rank 0,
     * it would move the wrong bytes. */
    if (p->has_dynamic_root)
      return thunkyPlanRefuse(b, v, "a root read at run time (has_dynamic_root)");
    return collective(b, v, THUNKY_COLLECTIVE_BROADCAST, p->collective_config, p->n_buffers,
                      p->buffers, &c);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_PERMUTE_THUNK: {
    const Xla__Gpu__CollectivePermuteThunkProto *p = t->collective_permute_thunk;
    if (!collective(b, v, THUNKY_COLLECTIVE_PERMUTE, p->collective_config, p->n_buffers,
                    p->buffers, &c))
      return false;
    c->pairs = (ThunkyRange){*b->ids.count, 2 * (uint32_t)p->n_source_target_pairs};
    for (size_t i = 0; i < p->n_source_target_pairs; i++) {
      int64_t *pair = thunkyPlanPush(&b->ids), *target = pair ? thunkyPlanPush(&b->ids) : NULL;
      if (!target)
        return thunkyErrorf(b->error, "out of memory");
      /* push may move the array: store through fresh pointers */
      b->plan->ids[b->plan->numIds - 2] = p->source_target_pairs[i]->source;
      b->plan->ids[b->plan->numIds - 1] = p->source_target_pairs[i]->target;
    }
    break;
  }
  default:
    return fail(b, "not a collective");
  }
  return true;
}
