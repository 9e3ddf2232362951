/*===- thunky-c/runtime/CommandBuffers.h - the CUDA graphs XLA would make -------===*
 *
 * Which thunks XLA's command buffer conversion captures into CUDA graphs
 * ("command buffers" in XLA's words; a command buffer runs as one graph).
 * The CUDA backend launches them so, and the schedule model replays them so
 * (thunky-c/runtime/Schedule.h, which includes this header).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_COMMAND_BUFFERS_H
#define THUNKY_C_COMMAND_BUFFERS_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"
#include "thunky-c/base/Limits.h"
#include "thunky-c/runtime/Plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which thunks XLA's command buffer conversion would capture into CUDA
 * graphs (xla/backends/gpu/runtime/command_buffer_conversion_pass.cc;
 * docs/schedule.md has the rules). */
typedef struct ThunkyCommandBufferConfig {
  uint32_t enabled;      /* bit (1 << t) for each xla.DebugOptions.CommandBufferCmdType t
                            in xla_gpu_enable_command_buffer */
  uint32_t minGraphSize; /* xla_gpu_graph_min_graph_size */
} ThunkyCommandBufferConfig;

/* What JAX 0.11.2 compiles with: FUSION, CUBLAS, CUBLASLT, CUDNN,
 * CUSTOM_CALL, CONDITIONAL and DYNAMIC_SLICE_FUSION; graphs of 5 or more. */
THUNKY_EXPORT ThunkyCommandBufferConfig thunkyCommandBufferConfigDefault(void);
/* The command types of a comma-separated list of their names, as XLA's
 * --xla_gpu_enable_command_buffer takes them ("FUSION,CUBLAS"; "" is
 * none), into config->enabled; false, naming the bad entry, otherwise. */
THUNKY_EXPORT bool thunkyCommandBufferTypesParse(const char *list,
                                                 ThunkyCommandBufferConfig *config,
                                                 ThunkyError *error);
/* The configuration an executable was compiled with, from the debug
 * options in its container (`data`, any layering); *found is false, and
 * *config untouched, when it carries none. False, with why, when the
 * container or its options are malformed. */
THUNKY_EXPORT bool thunkyCommandBufferConfigRead(const void *data, size_t size,
                                                 const ThunkyLimits *limits,
                                                 ThunkyCommandBufferConfig *config, bool *found,
                                                 ThunkyError *error);

typedef enum ThunkyGraphPlace {
  THUNKY_GRAPH_NONE,   /* launched on its own */
  THUNKY_GRAPH_FIRST,  /* the first command of a graph */
  THUNKY_GRAPH_INSIDE, /* in a graph, after its first, or nested in one */
} ThunkyGraphPlace;

/* A thunk that ended a graph or was left out of one, and why (static text). */
typedef struct ThunkyCommandBufferBreak {
  uint32_t command; /* plan->commands */
  const char *why;
} ThunkyCommandBufferBreak;

typedef struct ThunkyCommandBuffers {
  uint8_t *place;     /* per plan command, ThunkyGraphPlace */
  ThunkyRange *graphs; /* each a run of plan->commands of one list, in thunk order (a
                          body's graphs come after its loop's, their commands before) */
  size_t numGraphs;
  ThunkyCommandBufferBreak *breaks; /* in plan order */
  size_t numBreaks;
} ThunkyCommandBuffers;

/* The graphs XLA would make of `plan` under `config`; the caller owns
 * *out and frees it with thunkyCommandBuffersDestroy. */
THUNKY_EXPORT bool thunkyCommandBuffersCreate(const ThunkyPlan *plan,
                                              const ThunkyCommandBufferConfig *config,
                                              ThunkyCommandBuffers **out, ThunkyError *error);
THUNKY_EXPORT void thunkyCommandBuffersDestroy(ThunkyCommandBuffers *buffers);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_COMMAND_BUFFERS_H */
