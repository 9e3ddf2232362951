/*===- command_buffers.c - which thunks XLA would capture in CUDA graphs ===*
 *
 * XLA's CommandBufferConversionPass runs last over the thunk sequence
 * (xla/backends/gpu/runtime/command_buffer_conversion_pass.cc) and turns
 * each run of consecutive convertible thunks into one command buffer, a
 * CUDA graph launched at once. Its rules, followed here on the plan:
 *
 * - A thunk is convertible when its kind maps to a command type that
 *   xla_gpu_enable_command_buffer enables: kernels, custom kernels and
 *   replica and partition ids are FUSION, device-to-device copies FUSION
 *   (no other copy), gemm_thunk CUBLAS, cublas_lt_matmul_thunk CUBLASLT,
 *   collectives COLLECTIVES, cuDNN CUDNN, convolutions CONVOLUTION, custom
 *   calls and select-k CUSTOM_CALL, while WHILE and conditional
 *   CONDITIONAL, each loop and conditional only when every thunk in it is
 *   convertible. Any other kind (memsets among them) is not.
 * - A custom call is captured only when its FFI handler is registered as
 *   command-buffer compatible; the executable does not say, so it is taken
 *   as not (legacy custom calls never are).
 * - An async start is captured with everything up to the done that closes
 *   every region opened meanwhile, all of it convertible; a done is never
 *   captured alone.
 * - A run shorter than xla_gpu_graph_min_graph_size thunks (counting those
 *   nested in it) stays as it is.
 * - A while loop or conditional that is not convertible has its body and
 *   branches converted on their own.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/base/Arena.h"
#include "thunky-c/format/Container.h"
#include "thunky-c/runtime/CommandBuffers.h"

#include "thunky-c/format/Wire.h"
#include "xla/xla.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FUSION = 1, CUBLAS = 2, CUDNN = 3, COLLECTIVES = 4, CONDITIONAL = 5, WHILE = 6,
       CUSTOM_CALL = 7, CUBLASLT = 8, DYNAMIC_SLICE_FUSION = 9, CONVOLUTION = 11 };

static const char *const notEnabled[] = {
    [FUSION] = "FUSION is not in xla_gpu_enable_command_buffer",
    [CUBLAS] = "CUBLAS is not in xla_gpu_enable_command_buffer",
    [CUDNN] = "CUDNN is not in xla_gpu_enable_command_buffer",
    [COLLECTIVES] = "COLLECTIVES is not in xla_gpu_enable_command_buffer",
    [CONDITIONAL] = "CONDITIONAL is not in xla_gpu_enable_command_buffer",
    [WHILE] = "WHILE is not in xla_gpu_enable_command_buffer",
    [CUSTOM_CALL] = "CUSTOM_CALL is not in xla_gpu_enable_command_buffer",
    [CUBLASLT] = "CUBLASLT is not in xla_gpu_enable_command_buffer",
    [DYNAMIC_SLICE_FUSION] = "DYNAMIC_SLICE_FUSION is not in xla_gpu_enable_command_buffer",
    [CONVOLUTION] = "CONVOLUTION is not in xla_gpu_enable_command_buffer"};

ThunkyCommandBufferConfig thunkyCommandBufferConfigDefault(void) {
  /* The list JAX 0.11.2 writes into every executable's debug options
   * (test/Translate/jax-fixtures/0.11.2/containers/aot). */
  return (ThunkyCommandBufferConfig){
      .enabled = 1u << FUSION | 1u << CUBLAS | 1u << CUBLASLT | 1u << CUDNN | 1u << CUSTOM_CALL |
                 1u << CONDITIONAL | 1u << DYNAMIC_SLICE_FUSION,
      .minGraphSize = 5};
}

bool thunkyCommandBufferTypesParse(const char *list, ThunkyCommandBufferConfig *config,
                                   ThunkyError *error) {
  const ProtobufCEnumDescriptor *types = &xla__debug_options__command_buffer_cmd_type__descriptor;
  uint32_t enabled = 0;
  for (const char *at = list; *at;) {
    size_t length = strcspn(at, ",");
    char name[64];
    const ProtobufCEnumValue *v = NULL;
    if (length < sizeof name) {
      memcpy(name, at, length);
      name[length] = 0;
      v = protobuf_c_enum_descriptor_get_value_by_name(types, name);
    }
    if (!v || v->value <= 0 || v->value >= 32) {
      char known[400] = "";
      for (unsigned i = 0; i < types->n_values; i++)
        if (types->values[i].value > 0)
          snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                   *known ? ", " : "", types->values[i].name);
      return thunkyErrorf(error, "'%.*s' is not a command buffer type (%s)", (int)length, at,
                          known);
    }
    enabled |= 1u << v->value;
    at += length + (at[length] == ',');
  }
  config->enabled = enabled;
  return true;
}

/* The payload of the first field `number` (length-delimited) of
 * data[0, size), or false. */
static bool subMessage(const uint8_t *data, size_t size, uint32_t number, const uint8_t **out,
                       size_t *outSize, ThunkyError *error, bool *bad) {
  size_t pos = 0;
  ThunkyWireField f;
  while (pos < size) {
    if (!thunkyNextWireField(data, size, &pos, &f, error)) {
      *bad = true;
      return false;
    }
    if (f.number == number && f.wireType == 2) {
      *out = data + f.payload, *outSize = f.end - f.payload;
      return true;
    }
  }
  return false;
}

bool thunkyCommandBufferConfigRead(const void *data, size_t size, const ThunkyLimits *limits,
                                   ThunkyCommandBufferConfig *config, bool *found,
                                   ThunkyError *error) {
  *found = false;
  ThunkyContainer container;
  if (!thunkyContainerCreate(data, size, limits, &container, error))
    return false;
  /* ExecutableAndOptionsProto.compile_options (2) .executable_build_options
   * (3) .debug_options (3). */
  const uint8_t *p = container.options.data;
  size_t n = container.options.size;
  bool bad = false;
  bool ok = n && subMessage(p, n, 2, &p, &n, error, &bad) &&
            subMessage(p, n, 3, &p, &n, error, &bad) && subMessage(p, n, 3, &p, &n, error, &bad);
  ThunkyCommandBufferConfig read = {.minGraphSize = config->minGraphSize};
  size_t pos = 0;
  ThunkyWireField f;
  while (ok && pos < n) {
    if (!thunkyNextWireField(p, n, &pos, &f, error)) {
      bad = true;
      break;
    }
    uint64_t v;
    size_t at = f.payload;
    if (f.number == 208 && f.wireType == 0 && thunkyReadVarint(p, f.end, &at, &v))
      read.minGraphSize = (uint32_t)v;
    if (f.number == 258 && f.wireType == 0 && thunkyReadVarint(p, f.end, &at, &v) && v < 32)
      read.enabled |= 1u << v;
    while (f.number == 258 && f.wireType == 2 && at < f.end &&
           thunkyReadVarint(p, f.end, &at, &v))
      read.enabled |= v < 32 ? 1u << v : 0;
  }
  thunkyContainerDestroy(&container);
  if (bad)
    return thunkyErrorContext(error, "the executable's debug options");
  if (ok) {
    *config = read;
    *found = true;
  }
  return true;
}

typedef struct {
  const ThunkyPlan *plan;
  const ThunkyCommandBufferConfig *config;
  ThunkyCommandBuffers *out;
  size_t graphCapacity, breakCapacity;
  ThunkyError *error;
} Convert;

static bool listConvertible(Convert *c, uint32_t list, const char **why);

static bool hasKind(const ThunkyPlan *plan, const ThunkyCommand *cmd, const char *kind) {
  return !strcmp(plan->thunks[cmd->thunk].kind, kind);
}

/* The command type of a leaf command, or 0 with *why. */
static int typeOf(const ThunkyPlan *plan, const ThunkyCommand *cmd, const char **why) {
  switch (cmd->kind) {
  case THUNKY_CMD_KERNEL:
  case THUNKY_CMD_REPLICA_ID:
  case THUNKY_CMD_PARTITION_ID:
    return FUSION;
  case THUNKY_CMD_COPY:
    if (cmd->copy.direction == THUNKY_COPY_DEVICE_TO_DEVICE)
      return FUSION;
    *why = "a copy between host and device: only copies within the device are captured";
    return 0;
  case THUNKY_CMD_GEMM:
    return hasKind(plan, cmd, "cublas_lt_matmul_thunk") ? CUBLASLT : CUBLAS;
  case THUNKY_CMD_COLLECTIVE:
  case THUNKY_CMD_COLLECTIVE_GROUP:
    return COLLECTIVES;
  case THUNKY_CMD_CUSTOM_CALL:
    *why = "a custom call: captured only when its FFI handler is registered as command-buffer "
           "compatible, which the executable does not record";
    return 0;
  case THUNKY_CMD_CONDITIONAL:
    return CONDITIONAL;
  case THUNKY_CMD_WHILE:
    return WHILE;
  default:
    break;
  }
  if (hasKind(plan, cmd, "cudnn_thunk"))
    return CUDNN;
  if (hasKind(plan, cmd, "convolution_thunk"))
    return CONVOLUTION;
  if (hasKind(plan, cmd, "send_thunk") || hasKind(plan, cmd, "recv_thunk") ||
      hasKind(plan, cmd, "ragged_all_to_all_thunk"))
    return COLLECTIVES;
  if (hasKind(plan, cmd, "dynamic_slice_fusion_thunk"))
    return DYNAMIC_SLICE_FUSION;
  *why = "a kind XLA's command buffers do not take";
  return 0;
}

/* Whether a command (not an async start or done) can be captured. */
static bool convertible(Convert *c, const ThunkyCommand *cmd, const char **why) {
  int type = typeOf(c->plan, cmd, why);
  if (!type)
    return false;
  if (!(c->config->enabled & 1u << type)) {
    *why = notEnabled[type];
    return false;
  }
  switch (cmd->kind) {
  case THUNKY_CMD_WHILE:
    return listConvertible(c, cmd->loop.condition, why) && listConvertible(c, cmd->loop.body, why);
  case THUNKY_CMD_CONDITIONAL:
    for (uint32_t b = 0; b < cmd->conditional.branches.count; b++)
      if (!listConvertible(c, (uint32_t)c->plan->ids[cmd->conditional.branches.first + b], why))
        return false;
    return true;
  case THUNKY_CMD_COLLECTIVE_GROUP:
    return listConvertible(c, cmd->group.list, why);
  case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
    return listConvertible(c, cmd->fusion.list, why);
  default:
    return true;
  }
}

/* Commands [i, i + *length) of `list`, an async start and everything up to
 * the done that closes every region opened since, all convertible. */
static bool asyncRun(Convert *c, ThunkyRange list, uint32_t i, uint32_t *length,
                     const char **why) {
  uint32_t open = 0;
  for (uint32_t k = i; k < list.first + list.count; k++) {
    const ThunkyCommand *cmd = &c->plan->commands[k];
    if (cmd->kind == THUNKY_CMD_ASYNC_START) {
      if (!listConvertible(c, cmd->asyncStart.list, why))
        return false;
      open++;
    } else if (cmd->kind == THUNKY_CMD_ASYNC_DONE) {
      if (!open) {
        *why = "an async done whose start came before the run";
        return false;
      }
      open--;
    } else if (!convertible(c, cmd, why)) {
      return false;
    }
    if (!open) {
      *length = k - i + 1;
      return true;
    }
  }
  *why = "an async region whose done is not in its sequence";
  return false;
}

static bool listConvertible(Convert *c, uint32_t list, const char **why) {
  ThunkyRange l = c->plan->lists[list];
  for (uint32_t i = l.first; i < l.first + l.count; i++) {
    const ThunkyCommand *cmd = &c->plan->commands[i];
    uint32_t length;
    if (cmd->kind == THUNKY_CMD_ASYNC_START) {
      if (!asyncRun(c, l, i, &length, why))
        return false;
      i += length - 1;
    } else if (cmd->kind == THUNKY_CMD_ASYNC_DONE || !convertible(c, cmd, why)) {
      if (cmd->kind == THUNKY_CMD_ASYNC_DONE)
        *why = "an async done whose start came before the run";
      return false;
    }
  }
  return true;
}

/* Thunks a graph of commands [first, end) holds, nested ones counted. */
static uint64_t graphSize(const ThunkyPlan *plan, uint32_t first, uint32_t end);

static uint64_t listSize(const ThunkyPlan *plan, uint32_t list) {
  ThunkyRange l = plan->lists[list];
  return graphSize(plan, l.first, l.first + l.count);
}

static uint64_t graphSize(const ThunkyPlan *plan, uint32_t first, uint32_t end) {
  uint64_t count = 0;
  for (uint32_t i = first; i < end; i++) {
    const ThunkyCommand *cmd = &plan->commands[i];
    switch (cmd->kind) {
    case THUNKY_CMD_ASYNC_START:
      count += listSize(plan, cmd->asyncStart.list);
      break;
    case THUNKY_CMD_ASYNC_DONE:
      break;
    case THUNKY_CMD_COLLECTIVE_GROUP:
      count += listSize(plan, cmd->group.list);
      break;
    case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
      count += 1 + listSize(plan, cmd->fusion.list);
      break;
    case THUNKY_CMD_WHILE:
      count += 1 + listSize(plan, cmd->loop.condition) + listSize(plan, cmd->loop.body);
      break;
    case THUNKY_CMD_CONDITIONAL:
      count++;
      for (uint32_t b = 0; b < cmd->conditional.branches.count; b++)
        count += listSize(plan, (uint32_t)plan->ids[cmd->conditional.branches.first + b]);
      break;
    default:
      count++;
    }
  }
  uint64_t top = end - first;
  return count > top ? count : top;
}

static bool addBreak(Convert *c, uint32_t command, const char *why) {
  ThunkyCommandBuffers *o = c->out;
  if (!thunkyArrayGrow((void **)&o->breaks, &c->breakCapacity, o->numBreaks, sizeof *o->breaks))
    return thunkyErrorf(c->error, "out of memory for the command buffer report");
  o->breaks[o->numBreaks++] = (ThunkyCommandBufferBreak){command, why};
  return true;
}

static void markCaptured(Convert *c, uint32_t first, uint32_t end);

static void markList(Convert *c, uint32_t list) {
  ThunkyRange l = c->plan->lists[list];
  markCaptured(c, l.first, l.first + l.count);
  for (uint32_t i = l.first; i < l.first + l.count; i++)
    c->out->place[i] = THUNKY_GRAPH_INSIDE;
}

/* Every command nested in [first, end) is inside the graph. */
static void markCaptured(Convert *c, uint32_t first, uint32_t end) {
  for (uint32_t i = first; i < end; i++) {
    const ThunkyCommand *cmd = &c->plan->commands[i];
    c->out->place[i] = THUNKY_GRAPH_INSIDE;
    if (cmd->kind == THUNKY_CMD_ASYNC_START)
      markList(c, cmd->asyncStart.list);
    else if (cmd->kind == THUNKY_CMD_COLLECTIVE_GROUP)
      markList(c, cmd->group.list);
    else if (cmd->kind == THUNKY_CMD_DYNAMIC_SLICE_FUSION)
      markList(c, cmd->fusion.list);
    else if (cmd->kind == THUNKY_CMD_WHILE)
      markList(c, cmd->loop.condition), markList(c, cmd->loop.body);
    else if (cmd->kind == THUNKY_CMD_CONDITIONAL)
      for (uint32_t b = 0; b < cmd->conditional.branches.count; b++)
        markList(c, (uint32_t)c->plan->ids[cmd->conditional.branches.first + b]);
  }
}

/* The run [first, end): a graph, or left as it is when too small. */
static bool flush(Convert *c, uint32_t first, uint32_t end) {
  if (first == end)
    return true;
  ThunkyCommandBuffers *o = c->out;
  uint32_t least = c->config->minGraphSize ? c->config->minGraphSize : 1;
  if (graphSize(c->plan, first, end) < least)
    return addBreak(c, first, "a run shorter than xla_gpu_graph_min_graph_size");
  if (!thunkyArrayGrow((void **)&o->graphs, &c->graphCapacity, o->numGraphs, sizeof *o->graphs))
    return thunkyErrorf(c->error, "out of memory for the command buffer report");
  o->graphs[o->numGraphs++] = (ThunkyRange){first, end - first};
  markCaptured(c, first, end);
  o->place[first] = THUNKY_GRAPH_FIRST;
  return true;
}

static bool convertList(Convert *c, uint32_t list) {
  ThunkyRange l = c->plan->lists[list];
  uint32_t run = l.first;
  for (uint32_t i = l.first; i < l.first + l.count; i++) {
    const ThunkyCommand *cmd = &c->plan->commands[i];
    const char *why = NULL;
    uint32_t length;
    if (cmd->kind == THUNKY_CMD_ASYNC_START) {
      if (asyncRun(c, l, i, &length, &why)) {
        i += length - 1;
        continue;
      }
    } else if (cmd->kind != THUNKY_CMD_ASYNC_DONE && convertible(c, cmd, &why)) {
      continue;
    } else if (cmd->kind == THUNKY_CMD_ASYNC_DONE) {
      why = "an async done whose region was not captured";
    }
    /* Not captured: what came before it is one graph. */
    if (!flush(c, run, i) || !addBreak(c, i, why))
      return false;
    run = i + 1;
    if (cmd->kind == THUNKY_CMD_WHILE && (!convertList(c, cmd->loop.condition) ||
                                          !convertList(c, cmd->loop.body)))
      return false;
    if (cmd->kind == THUNKY_CMD_CONDITIONAL)
      for (uint32_t b = 0; b < cmd->conditional.branches.count; b++)
        if (!convertList(c, (uint32_t)c->plan->ids[cmd->conditional.branches.first + b]))
          return false;
  }
  return flush(c, run, l.first + l.count);
}

bool thunkyCommandBuffersCreate(const ThunkyPlan *plan, const ThunkyCommandBufferConfig *config,
                                ThunkyCommandBuffers **out, ThunkyError *error) {
  ThunkyCommandBuffers *o = calloc(1, sizeof *o);
  Convert c = {.plan = plan, .config = config, .out = o, .error = error};
  bool ok = o && (o->place = calloc(plan->numCommands + 1, 1));
  if (!ok)
    thunkyErrorf(error, "out of memory for the command buffer report");
  ok = ok && (!plan->numLists || convertList(&c, 0));
  if (!ok) {
    thunkyCommandBuffersDestroy(o);
    return false;
  }
  *out = o;
  return true;
}

void thunkyCommandBuffersDestroy(ThunkyCommandBuffers *o) {
  if (!o)
    return;
  free(o->place);
  free(o->graphs);
  free(o->breaks);
  free(o);
}
