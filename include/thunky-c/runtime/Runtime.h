/*===- thunky-c/runtime/Runtime.h - running executables without XLA -------------===*
 *
 * The runtime takes a GpuExecutableProto (in any container layering), plans
 * it once, and runs the plan on a backend: "host", a reference that
 * implements every supported thunk on the CPU across N simulated ranks (one
 * thread each), or "cuda", the CUDA driver API with NCCL and cuBLASLt. It
 * links no MLIR.
 *
 * Kernels are device code the host cannot run, so the host backend runs
 * host implementations registered by kernel name (thunky-c/runtime/Registry.h);
 * custom calls are looked up by target name on both backends.
 *
 * A backend turns a plan into memory and launches. `create` does all the
 * work that may fail or allocate (memory for every allocation of every
 * rank, constants, kernels, communicators) and returns a state that the
 * caller owns and frees with `destroy`; `run` then executes the entry list
 * once on every rank, and may be called many times. The plan and the
 * registry must outlive the state.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_RUNTIME_H
#define THUNKY_C_RUNTIME_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Bytes.h"
#include "thunky-c/runtime/Check.h"
#include "thunky-c/base/Error.h"
#include "thunky-c/runtime/Plan.h"
/* The registry was declared here before thunky 0.3. */
#include "thunky-c/runtime/Registry.h"
#include "thunky-c/runtime/Timeline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the CUDA backend times each thunk on the device for a timeline. */
typedef enum ThunkyDeviceTiming {
  THUNKY_DEVICE_TIMING_AUTO,  /* CUPTI where its library is found, else the gate */
  THUNKY_DEVICE_TIMING_CUPTI, /* CUPTI's activity records; an error without CUPTI */
  THUNKY_DEVICE_TIMING_GATE   /* CUDA events, the thunks held behind a gate */
} ThunkyDeviceTiming;

typedef struct ThunkyRunConfig {
  uint32_t ranks;          /* simulated ranks (host) or local GPUs (cuda) */
  uint32_t partitions;     /* of the ranks, how many partitions per replica (1) */
  uint64_t maxIterations;  /* a while loop running longer is an error */
  uint64_t maxHostMemory;  /* host: most bytes of allocations over all ranks, and the
                              inputs (0: any; thunkyHostMemoryCheck) */
  const ThunkyRegistry *registry;
  ThunkyTimeline *timeline; /* NULL: no per-thunk timing */
  /* host: run every thunk it has no implementation of (kernels, custom
   * calls, THUNKY_CMD_OPAQUE) as a fingerprint
   * (thunky-c/runtime/Check.h); without it, such a plan is refused at create. */
  bool fingerprint;
  bool asyncAtDone;            /* host: run async regions at their done, not their start */
  /* host and symbolic, regions at their start: run the region of async
   * start command lateRegion - 1 (an index into plan->commands; 0: none)
   * late, just before command lateBefore, a command of its window (the
   * commands of its list after it, up to its done), or at its done. */
  uint32_t lateRegion, lateBefore;
  /* thunkyCompareRuns: compare under this schedule only. Without it, two
   * programs with async regions, both at their start, are compared at
   * their done too: a region may run any time until its done. */
  bool oneSchedule;
  /* host: the byte scratch allocations (no parameter, constant or output)
   * start as; two runs with two bytes tell whether a program reads
   * scratch it never wrote, which a GPU leaves undefined. */
  uint8_t scratchByte;
  /* host: outputs and scratch (where scratchByte is 0) start as bytes drawn
   * from the rank, where they stand and the offset, not as zeros: a GPU's
   * allocator leaves them undefined, so a program that reads them before
   * it writes them reads bytes no thunk made. An output's are drawn from
   * its output number, the same in any program with that output; scratch's
   * from its allocation. The comparisons (thunkyCompareRuns' callers) set
   * it; the symbolic backend always starts so. */
  bool undefinedInitial;
  union { /* host: NULL, or where each rank records what thunks wrote */
    ThunkyWriteLog *writeLog;
    ThunkyWriteLog *writeTrace; /* its name until thunky 0.2, for one more release */
  };
  /* cuda: runs of commands launched as CUDA graphs, each captured once, as
   * XLA's command buffers are (thunky-c/runtime/Schedule.h: thunkyCommandBuffersCreate
   * of this plan);
   * a run holding control flow or a custom call is launched command by
   * command. Must outlive the backend state. NULL: no graphs. */
  const struct ThunkyCommandBuffers *graphs;
  const char *ncclIdFile;  /* cuda, several processes: where rank 0 leaves NCCL's id */
  /* cuda: the most seconds one wait may take (for the device to finish
   * what a rank enqueued, for NCCL's communicators to form or a group to
   * be enqueued); past it the run fails naming the thunk waited on, and
   * the communicators are aborted at destroy. 0: 300. host and symbolic:
   * the most seconds the whole run may take; past it the run fails at the
   * command it reached, naming it. 0: no limit. */
  uint32_t timeoutSeconds;
  /* host and symbolic: NULL, or a flag that another thread (or a signal
   * handler) sets to non-zero to stop the run before its next command; the
   * run then fails, "interrupted", naming that command. */
  const volatile int *interrupt;
  uint32_t processRank, processCount; /* cuda, several processes */
  /* cuda, with a timeline: how the device's time for each thunk is taken
   * (docs/runtime.md, "Timing"). */
  ThunkyDeviceTiming deviceTiming;
} ThunkyRunConfig;

/* What every backend does first with its copy of a configuration: ranks,
 * partitions and processCount of 0 become 1; false, saying why, when
 * processRank is not below processCount, the world (ranks times
 * processCount) passes INT32_MAX ranks, or the partitions do not divide
 * it. So the backends take or refuse the same configurations. */
THUNKY_EXPORT bool thunkyRunConfigNormalize(ThunkyRunConfig *config, ThunkyError *error);

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
  /* Optional, for a backend without bytes (symbolic): what `slice` of rank
   * `rank` holds, as *count pieces in *pieces, an array the caller frees. */
  bool (*contents)(void *state, uint32_t rank, ThunkyPlanSlice slice, ThunkyPiece **pieces,
                   size_t *count, ThunkyError *error);
  /* Optional, for a backend that runs exchanges
   * (fingerprint and symbolic runs, thunky-c/runtime/Check.h): rank `rank`'s sent
   * digest after a run, which comparisons compare as they do outputs. */
  bool (*sent)(void *state, uint32_t rank, uint64_t *digest);
} ThunkyBackendOps;

THUNKY_EXPORT extern const ThunkyBackendOps thunkyHostBackend;
/* host: whether a run of `plan` fits in config->maxHostMemory (0: any):
 * every rank's allocations, and one copy of its inputs, which the caller
 * holds while it runs. The host backend refuses a run that does not before
 * it allocates; a caller that makes inputs asks first. False, with why. */
THUNKY_EXPORT bool thunkyHostMemoryCheck(const ThunkyPlan *plan, const ThunkyRunConfig *config,
                                         ThunkyError *error);
THUNKY_EXPORT extern const ThunkyBackendOps thunkyCudaBackend;
/* A run on symbols rather than bytes (docs/checking.md): each allocation of
 * each rank maps byte ranges to terms, every thunk the host cannot run is
 * an uninterpreted function of what it reads, as in a fingerprint run, and
 * a loop or conditional whose predicate a thunk computes is taken as a
 * function. Its cost grows with thunks and pieces, not bytes: no memory is
 * allocated for allocations, and inputs are ignored (every parameter is a
 * symbol). `read` fails; `contents` gives what a slice holds. */
THUNKY_EXPORT extern const ThunkyBackendOps thunkySymbolicBackend;

/* cuda: where the backend finds NVIDIA's library `name` ("cuda", "nccl",
 * "cublasLt" or "cupti"), by the search docs/runtime.md describes (the
 * loader's path, Python environments' nvidia wheels, THUNKY_NCCL_PATH,
 * THUNKY_CUBLASLT_PATH and THUNKY_CUPTI_PATH), written to `path`; it is loaded, as a run would.
 * False, with why, when it is not found or the build has no backend. */
THUNKY_EXPORT bool thunkyCudaLibraryPath(const char *name, char *path, size_t size,
                                         ThunkyError *error);

/* Half the machine's memory: the host backend's default maxHostMemory in
 * thunky-run and sessions, so that an executable asking for more fails
 * with a message, not the OOM killer. */
THUNKY_EXPORT uint64_t thunkyDefaultHostMemory(void);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_RUNTIME_H */
