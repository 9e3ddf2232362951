/*===- thunky-c/runtime/Schedule.h - where the time of a step goes, predicted ----===*
 *
 * A schedule replays a plan as XLA's GPU runtime issues it, with durations
 * instead of data: the host issues thunks in order, each on its stream; an
 * async start records an event on its stream and issues its region on its
 * execution stream, which waits for that event; a done makes its stream
 * wait for the region; a while loop or conditional whose predicate the
 * device computes makes the host wait for it. Each thunk takes the time the
 * device model gives it, or the time a measurement gave it. No memory is
 * allocated for buffers, so a program of any size replays in time linear in
 * the thunks it issues (docs/schedule.md).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_SCHEDULE_H
#define THUNKY_C_SCHEDULE_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"
#include "thunky-c/base/Work.h"
#include "thunky-c/runtime/CommandBuffers.h"
#include "thunky-c/runtime/Plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the model knows of a device: rates in bytes or operations per
 * second, times in nanoseconds. */
typedef struct ThunkyDeviceModel {
  char name[64];
  double memoryBytesPerSecond;       /* HBM */
  double hostLinkBytesPerSecond;     /* host <-> device copies, one direction */
  double interconnectBytesPerSecond; /* GPU <-> GPU, one direction, per GPU */
  double interconnectLatencyNs;      /* one step of a collective's algorithm */
  double flopsPerSecond[THUNKY_FLOPS_KINDS]; /* dense peaks */
  double launchNs;    /* host time to issue one operation */
  double kernelMinNs; /* the least time any operation takes on the device */
  double syncNs;      /* the host reading a value back and waiting for it: at a
                         loop's predicate, a conditional's index, a step's end */
  double graphLaunchNs; /* the host's time to launch one CUDA graph */
  /* Ranks are placed gpusPerNode to a node, in order; a collective whose
   * group spans nodes crosses the network, one NIC per GPU. */
  double gpusPerNode;
  double networkBytesPerSecond; /* one direction, per GPU */
  double networkLatencyNs;      /* one step of a collective across nodes */
  /* The host's time to issue one operation of a kind, where it differs
   * from launchNs; negative: launchNs. Memsets and the id thunks (XLA
   * writes an id with a memset) share one; so do the copies. */
  double memsetLaunchNs, copyLaunchNs, gemmLaunchNs, collectiveLaunchNs, customCallLaunchNs;
} ThunkyDeviceModel;

/* The default device: an H200 SXM, from NVIDIA's datasheet
 * (docs/schedule.md lists each figure and its source). */
THUNKY_EXPORT ThunkyDeviceModel thunkyDeviceModelH200(void);
/* Reads a device description, lines of `key = value` (docs/schedule.md);
 * keys not given keep the H200's values. False, naming the file and line,
 * for an unknown key or a value that is not a positive number. */
THUNKY_EXPORT bool thunkyDeviceModelRead(const char *path, ThunkyDeviceModel *device,
                                         ThunkyError *error);

/* Where each thunk's duration comes from. */
typedef enum ThunkyDurationSource {
  THUNKY_DURATION_MODEL,    /* the device model */
  THUNKY_DURATION_MEASURED, /* a measurement (thunkyMeasuredDurationsCreate) */
} ThunkyDurationSource;

typedef struct ThunkyScheduleOptions {
  const ThunkyDeviceModel *device; /* NULL: the H200 */
  /* Per plan thunk, its measured duration in ns, or a negative number
   * where there is none; NULL: every thunk is modelled. */
  const double *measuredNs;
  /* Per plan thunk, how often the measurement saw it run (NULL: unknown):
   * a while loop with no known trip count then runs as often per run of
   * the loop as its condition's first thunk did. */
  const uint64_t *measuredRuns;
  /* Per plan thunk, the host's measured time to issue it once, or a
   * negative number where there is none (the device model's launch
   * then); NULL: none measured. A loop's or conditional's is its
   * predicates' copies, over the reads of one run. */
  const double *measuredIssueNs;
  uint32_t ranks;        /* the world's ranks, which collectives group (1) */
  uint32_t partitions;   /* of the ranks, partitions to a replica, a divisor (1) */
  uint64_t loopTrips;    /* a while loop with no known trip count runs this often (1) */
  int64_t branch;        /* a conditional runs this branch; -1: its costliest */
  /* Per plan command, ThunkyGraphPlace: where XLA's command buffers put it
   * (thunkyCommandBuffersCreate); NULL: every thunk launched on its own. A
   * graph costs the host one graphLaunchNs, and its loops and conditionals
   * run on the device, the host waiting for none. */
  const uint8_t *graphPlace;
  size_t maxEvents;      /* events kept for traces (0: 1 << 22); the rest are counted */
  uint64_t maxIssued;    /* refuse a replay issuing more operations (0: 1 << 32) */
} ThunkyScheduleOptions;

/* One operation as the replay placed it. */
typedef struct ThunkyScheduleEvent {
  uint32_t thunk;  /* plan->thunks */
  uint32_t lane;   /* 0: the main stream; then 1 + the index in plan->streams */
  uint64_t beginNs, endNs;
  int64_t cause;   /* the event whose end it waited for; -1: it waited for its issue */
  uint8_t source;  /* ThunkyDurationSource */
  uint64_t issueBeginNs, issueEndNs; /* the host issuing it (within a graph: no time) */
} ThunkyScheduleEvent;

/* An async start thunk, over every time it ran. */
typedef struct ThunkyAsyncWindow {
  uint32_t thunk;        /* the start */
  uint32_t lane;         /* its execution stream */
  bool communication;
  uint64_t runs;
  uint64_t ownNs;        /* the region's own time: the sum of its durations */
  uint64_t spanNs;       /* from its first operation's begin to its last's end */
  uint64_t windowNs;     /* of the stream that started it, from start to done */
  uint64_t besideOps;    /* operations issued on that stream between them */
  uint64_t exposedNs;    /* how long the done made that stream wait */
} ThunkyAsyncWindow;

typedef struct ThunkySchedule {
  uint32_t ranks, partitions; /* the world replayed: its ranks, partitions to a replica */
  uint64_t stepNs;          /* when the last stream and the host are done */
  uint64_t hostNs;          /* when the host issued its last operation */
  uint32_t numLanes;
  int64_t *laneStreams;     /* per lane, its execution stream id (lane 0, the main stream: -1) */
  bool *laneCommunication;  /* per lane, whether the id is a communication stream's */
  uint64_t *laneBusyNs;     /* per lane, the sum of the durations on it */
  ThunkyScheduleEvent *events; /* in issue order, at most maxEvents */
  size_t numEvents;
  uint64_t issued;          /* operations issued, kept or not */
  bool eventsDropped;       /* more were issued than kept (or loops were extrapolated) */
  uint64_t *thunkNs;        /* per plan thunk, the sum of its durations */
  uint64_t *thunkRuns;      /* per plan thunk, how often it ran */
  uint8_t *thunkSource;     /* per plan thunk, ThunkyDurationSource */
  /* per plan thunk, the communication time it left exposed: a collective
   * outside any async region its whole time, a communication region's
   * start what its done waited */
  uint64_t *thunkExposedNs;
  ThunkyAsyncWindow *windows; /* one per async start thunk that ran */
  size_t numWindows;
  uint64_t exposedCommunicationNs; /* waits for communication regions, and
                                      collectives outside any region */
  uint64_t assumedLoops;    /* while loops run loopTrips times, for want of a count */
  uint64_t measuredLoops;   /* while loops run as often as the measurement saw */
  uint64_t extrapolatedIterations; /* loop iterations added, not replayed */
  uint32_t *criticalPath;   /* event indices, from the last back to the first */
  size_t criticalPathLength;
} ThunkySchedule;

/* Replays `plan`; the caller owns *schedule and frees it with
 * thunkyScheduleDestroy. False, with why, when out of memory, past
 * maxIssued, for a world a run would refuse (partitions that do not divide
 * the ranks: thunkyRunConfigNormalize), or for a modelled collective whose
 * groups a run would refuse (thunkyModelDuration). */
THUNKY_EXPORT bool thunkyScheduleCreate(const ThunkyPlan *plan,
                                        const ThunkyScheduleOptions *options,
                                        ThunkySchedule **schedule, ThunkyError *error);
THUNKY_EXPORT void thunkyScheduleDestroy(ThunkySchedule *schedule);

/* The modelled duration of one operation, command `command` of the plan,
 * in ns, into *ns, over a world of `ranks` ranks with `partitions` to a
 * replica (0: 1), whose collectives group ranks as a run does. False, with
 * why, where a run would refuse the collective's groups or pairs (a rank in
 * no group, an id past the world), or out of memory. */
THUNKY_EXPORT bool thunkyModelDuration(const ThunkyPlan *plan, uint32_t command,
                                       const ThunkyDeviceModel *device, uint32_t ranks,
                                       uint32_t partitions, double *ns, ThunkyError *error);
/* The modelled time for the host to issue command `command` once: its
 * kind's launch time (a memset's, a copy's, ...), else launchNs. */
THUNKY_EXPORT double thunkyModelIssueNs(const ThunkyPlan *plan, uint32_t command,
                                        const ThunkyDeviceModel *device);

/* What a trace says made it: thunky-run --trace writes it as the trace's
 * "otherData" (docs/schedule.md, "Traces"). Each string is "" where the
 * trace does not say. */
typedef struct ThunkyTraceOrigin {
  char backend[16]; /* "cuda", "host" or "model" */
  char clock[96];   /* whose clock the times are on */
  char method[512]; /* how each duration was taken */
  char device[64];  /* the device it ran on, as its driver names it */
  double stepNs;    /* the step as the host timed it, without instrumentation; 0: not given */
  double steps;     /* how many steps (runs) each rank's events cover; 0: not given */
  double unattributedNs; /* device work measured but tied to no thunk, in no event; 0: none */
} ThunkyTraceOrigin;

/* What a Chrome trace that thunky-run --trace wrote (on --backend cuda, of
 * this program or another) measured of each thunk of `plan`, matched by
 * XLA's thunk id, or by thunk number when a thunk has no id. Arrays have
 * plan->numThunks entries. */
typedef struct ThunkyMeasuredDurations {
  double *ns;           /* the mean of its events on a device's stream; negative: none */
  double *issueNs;      /* the mean of its host issue events; negative: none */
  uint64_t *runs;       /* how many times it ran: its device events, or its issues if more */
  uint32_t matched;     /* thunks with device events */
  double busiestLaneNs; /* the largest sum of device events on one stream of one rank,
                           thunks that hold others' timed work left out
                           (thunkyPlanMarkSpanning), over one step
                           where the trace says how many it covers (origin.steps) */
  ThunkyTraceOrigin origin;
} ThunkyMeasuredDurations;

/* Reads the trace at `path`; the caller owns *out and frees it with
 * thunkyMeasuredDurationsDestroy. It reads any backend's trace: the caller
 * decides what a host trace is worth. False, with the file and the place,
 * when the trace is not such a file. */
THUNKY_EXPORT bool thunkyMeasuredDurationsCreate(const char *path, const ThunkyPlan *plan,
                                                 ThunkyMeasuredDurations **out, ThunkyError *error);
/* As thunkyMeasuredDurationsCreate, from the trace's bytes in memory;
 * errors call it `path`. */
THUNKY_EXPORT bool thunkyMeasuredDurationsRead(const void *data, size_t size, const char *path,
                                               const ThunkyPlan *plan,
                                               ThunkyMeasuredDurations **out, ThunkyError *error);
THUNKY_EXPORT void thunkyMeasuredDurationsDestroy(ThunkyMeasuredDurations *durations);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_SCHEDULE_H */
