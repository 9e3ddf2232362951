/*===- host_collectives.h - XLA's collectives among simulated ranks -----===*
 *
 * The host backend runs N ranks as N threads of one process, so a
 * collective is a rendezvous: every rank publishes where its memory is,
 * then each computes its own destinations straight from the other ranks'
 * sources, in group order, so that every rank gets bitwise the same result.
 * Semantics are XLA's (replica groups, group modes, element types,
 * collective-permute zeroing what no pair targets).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_HOST_COLLECTIVES_H
#define THUNKY_RUNTIME_HOST_COLLECTIVES_H

#include "thunky-c/runtime/Reduce.h"
#include "thunky-c/runtime/Plan.h"

/*--- The world of ranks -----------------------------------------------------*/

/* The ranks of one host run; collectives rendezvous here. Rank r is
 * replica r / partitions, partition r % partitions. */
typedef struct ThunkyHostWorld ThunkyHostWorld;

/* NULL (and the error set) when `ranks` is not a positive multiple of a
 * positive `partitions`, or when out of memory. */
ThunkyHostWorld *thunkyHostWorldCreate(uint32_t ranks, uint32_t partitions,
                                       ThunkyError *error);
void thunkyHostWorldDestroy(ThunkyHostWorld *world);

/* Marks the world failed (rank `rank` hit an error; UINT32_MAX: none in
 * particular) so that ranks waiting at a rendezvous, or arriving at one
 * later, return false instead of hanging. Any thread may call it at any
 * time. A failing thunkyHostCollective aborts the world itself. */
void thunkyHostWorldAbort(ThunkyHostWorld *world, uint32_t rank);
/* The rank whose failure aborted the world first (the others' errors only
 * say they were abandoned), or UINT32_MAX. */
uint32_t thunkyHostWorldFirstFailed(ThunkyHostWorld *world);

/* Makes an aborted world usable again for a new run. Only while no rank is
 * inside a collective or barrier. */
void thunkyHostWorldReset(ThunkyHostWorld *world);

/* How long a rank waits at a rendezvous for the others before it gives up
 * and aborts the world (120 s unless set). */
void thunkyHostWorldSetTimeout(ThunkyHostWorld *world, uint32_t milliseconds);

/* Waits until every rank of the world has called it (for the backend: the
 * start or end of a run). False when the world is or becomes aborted, or
 * on timeout (which aborts it). */
bool thunkyHostWorldBarrier(ThunkyHostWorld *world, ThunkyError *error);

/* Collective `c` of `plan` against a group of `groupSize` ranks, as XLA
 * requires it of every backend: element types, each buffer's size against
 * its element count and the group, an all-to-all's buffer count, a
 * broadcast's root. Errors name the buffer, not the collective. */
bool thunkyCollectiveCheck(const ThunkyPlan *plan, const ThunkyCollective *c, uint32_t groupSize,
                           ThunkyError *error);

/* Runs plan->collectives[index] for `rank`, whose allocation base pointers
 * are memory[0 .. plan->numAllocations). Every rank of the world calls this
 * from its own thread, for the same collective of the same plan in the same
 * order; each rank's writable allocations are its own. Destinations may
 * overlap sources (an in-place all-reduce): the result is as if every
 * source had been read before any destination was written. Errors name the
 * collective ("collective 3 (all-reduce): ..."); a rank that fails aborts
 * the world, so that the others fail promptly too. */
bool thunkyHostCollective(ThunkyHostWorld *world, uint32_t rank, const ThunkyPlan *plan,
                          uint32_t index, uint8_t *const *memory, ThunkyError *error);

#endif /* THUNKY_RUNTIME_HOST_COLLECTIVES_H */
