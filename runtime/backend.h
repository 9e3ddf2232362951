/*===- backend.h - what every backend provides ---------------------------===*
 *
 * A backend turns a plan into memory and launches. `create` does all the
 * work that may fail or allocate (memory for every allocation of every
 * rank, constants, kernels, communicators); `run` then executes the entry
 * list once on every rank, and may be called many times.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_BACKEND_H
#define THUNKY_RUNTIME_BACKEND_H

#include "plan.h"
#include "registry.h"
#include "timeline.h"

typedef struct ThunkyRunConfig {
  uint32_t ranks;          /* simulated ranks (host) or local GPUs (cuda) */
  uint32_t partitions;     /* of the ranks, how many partitions per replica (1) */
  uint64_t maxIterations;  /* a while loop running longer is an error */
  uint64_t maxHostMemory;  /* host: most bytes of allocations over all ranks (0: any) */
  const ThunkyRegistry *registry;
  ThunkyTimeline *timeline; /* NULL: no per-thunk timing */
  bool cudaGraph;          /* cuda: capture the plan once, replay it */
  const char *ncclIdFile;  /* cuda, several processes: where rank 0 leaves NCCL's id */
  uint32_t processRank, processCount; /* cuda, several processes */
} ThunkyRunConfig;

typedef struct ThunkyBackendOps {
  const char *name;
  bool (*create)(const ThunkyPlan *plan, const ThunkyRunConfig *config, void **state,
                 ThunkyError *error);
  /* Copies bytes into / out of `slice` of rank `rank`'s memory. */
  bool (*write)(void *state, uint32_t rank, ThunkyPlanSlice slice, const void *data,
                ThunkyError *error);
  bool (*read)(void *state, uint32_t rank, ThunkyPlanSlice slice, void *out,
               ThunkyError *error);
  /* Runs the entry list once on every rank and waits for it. */
  bool (*run)(void *state, ThunkyError *error);
  void (*destroy)(void *state);
} ThunkyBackendOps;

extern const ThunkyBackendOps thunkyHostBackend;
extern const ThunkyBackendOps thunkyCudaBackend;

#endif /* THUNKY_RUNTIME_BACKEND_H */
