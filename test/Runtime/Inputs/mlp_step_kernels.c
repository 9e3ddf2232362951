/* Host stand-ins for the 15 kernels of JAX 0.11.2's MLP step
 * (test/Translate/jax-fixtures/0.11.2/containers/step/mlp-step.exe: four
 * layers h = tanh(h @ w) under lax.scan, width 512, batch 256, the loss
 * mean(h ** 2), w - 0.01 * grad). Each is written from its fusion's HLO in
 * the executable (`thunky-container hlo mlp-step.exe --launch NAME`), with
 * the arguments in the launch's order: the fusion's operands, then its
 * results. Every sum runs in one fixed order, so that the host backend and
 * the simulated CUDA driver compute the same bits; what the step computes
 * is held against a float64 reference of the JAX program written apart
 * from these (mlp_step_reference.py). A launch with other arguments than
 * its HLO's is an error, so a wrong buffer cannot pass unseen. */
#include "thunky-c/runtime/Registry.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

enum { LAYERS = 4, BATCH = 256, WIDTH = 512, SPLIT = 4, CHUNK = WIDTH / SPLIT };

/* The launch has one argument per size given, each of that many bytes. */
static bool expectSizes(const ThunkyKernelCall *call, ThunkyError *error, uint32_t n, ...) {
  if (call->numArgs != n)
    return thunkyErrorf(error, "%s takes %u arguments, got %u", call->name, n, call->numArgs);
  va_list sizes;
  va_start(sizes, n);
  bool ok = true;
  for (uint32_t i = 0; i < n && ok; i++) {
    uint64_t want = va_arg(sizes, uint64_t);
    if (call->argSizes[i] != want)
      ok = thunkyErrorf(error, "%s: argument %u has %llu bytes, its HLO %llu", call->name, i,
                        (unsigned long long)call->argSizes[i], (unsigned long long)want);
  }
  va_end(sizes);
  return ok;
}

static const uint64_t ROWS = (uint64_t)BATCH * WIDTH * 4;   /* f32[256,512] */
static const uint64_t SQUARE = (uint64_t)WIDTH * WIDTH * 4; /* f32[512,512] */

static float *f32(const ThunkyKernelCall *call, uint32_t i) { return (float *)call->args[i]; }

static int32_t s32(const ThunkyKernelCall *call, uint32_t i) {
  int32_t v;
  memcpy(&v, call->args[i], 4);
  return v;
}

/* dynamic-slice and dynamic-update-slice clamp a start into the dimension. */
static int64_t clampLayer(int64_t start) {
  return start < 0 ? 0 : start > LAYERS - 1 ? LAYERS - 1 : start;
}

/* fused_broadcast: two f32[4,256,512] of zeros. */
static bool broadcastZeros2(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 2, LAYERS * ROWS, LAYERS * ROWS))
    return false;
  memset(call->args[0], 0, LAYERS * ROWS);
  memset(call->args[1], 0, LAYERS * ROWS);
  return true;
}

/* fused_broadcast.1: f32[4,512,512] of zeros. */
static bool broadcastZeros(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 1, LAYERS * SQUARE))
    return false;
  memset(call->args[0], 0, LAYERS * SQUARE);
  return true;
}

/* fused_compare, fused_compare.1: pred = i < 4. */
static bool compareTrips(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 2, (uint64_t)4, (uint64_t)1))
    return false;
  *(uint8_t *)call->args[1] = s32(call, 0) < LAYERS;
  return true;
}

/* fused_add, fused_add.1: i + 1 (argument and result are one buffer). */
static bool addOne(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 2, (uint64_t)4, (uint64_t)4))
    return false;
  int32_t next = s32(call, 0) + 1;
  memcpy(call->args[1], &next, 4);
  return true;
}

/* gemm_fusion_dot.1: f32[256,4,128] x f32[4,128,512] -> f32[4,256,512],
 * batch dims {1} and {0}, contracting {2} and {1}: the forward h @ w with
 * its contraction split in four, out[b,m,n] = sum_k h[m,b,k] w[b,k,n]. */
static bool forwardDot(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 3, ROWS, SQUARE, LAYERS * ROWS))
    return false;
  const float *h = f32(call, 0), *w = f32(call, 1);
  float *out = f32(call, 2);
  for (int b = 0; b < SPLIT; b++)
    for (int m = 0; m < BATCH; m++) {
      float *row = out + ((size_t)b * BATCH + m) * WIDTH;
      memset(row, 0, WIDTH * 4);
      for (int k = 0; k < CHUNK; k++) {
        float a = h[(size_t)m * WIDTH + b * CHUNK + k];
        const float *wk = w + ((size_t)b * CHUNK + k) * WIDTH;
        for (int n = 0; n < WIDTH; n++)
          row[n] += a * wk[n];
      }
    }
  return true;
}

/* gemm_fusion_dot.2: f32[256,4,128] x f32[512,4,128] -> f32[4,256,512],
 * batch dims {1} and {1}, contracting {2} and {2}: the backward d @ w^T,
 * split in four, out[b,m,n] = sum_k d[m,b,k] w[n,b,k]. */
static bool backwardDot(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 3, ROWS, SQUARE, LAYERS * ROWS))
    return false;
  const float *d = f32(call, 0), *w = f32(call, 1);
  float *out = f32(call, 2);
  for (int b = 0; b < SPLIT; b++)
    for (int m = 0; m < BATCH; m++)
      for (int n = 0; n < WIDTH; n++) {
        const float *dk = d + (size_t)m * WIDTH + b * CHUNK;
        const float *wk = w + (size_t)n * WIDTH + b * CHUNK;
        float sum = 0;
        for (int k = 0; k < CHUNK; k++)
          sum += dk[k] * wk[k];
        out[((size_t)b * BATCH + m) * WIDTH + n] = sum;
      }
  return true;
}

/* gemm_fusion_dot: f32[256,512] x f32[256,512] -> f32[512,512],
 * contracting {0} and {0}: the weight's gradient h^T @ d. */
static bool weightDot(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 3, ROWS, ROWS, SQUARE))
    return false;
  const float *h = f32(call, 0), *d = f32(call, 1);
  float *out = f32(call, 2);
  memset(out, 0, SQUARE);
  for (int m = 0; m < WIDTH; m++)
    for (int k = 0; k < BATCH; k++) {
      float a = h[(size_t)k * WIDTH + m];
      const float *dk = d + (size_t)k * WIDTH;
      float *row = out + (size_t)m * WIDTH;
      for (int n = 0; n < WIDTH; n++)
        row[n] += a * dk[n];
    }
  return true;
}

/* fused_reduce (tanh after) and fused_reduce.1 (none): f32[4,256,512]
 * reduced over dimension 0 from 0, the split contraction summed. */
static bool sumSplits(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 2, LAYERS * ROWS, ROWS))
    return false;
  const float *in = f32(call, 0);
  float *out = f32(call, 1);
  bool tanhAfter = user != NULL;
  for (size_t i = 0; i < (size_t)BATCH * WIDTH; i++) {
    float sum = 0;
    for (int b = 0; b < SPLIT; b++)
      sum += in[(size_t)b * BATCH * WIDTH + i];
    out[i] = tanhAfter ? tanhf(sum) : sum;
  }
  return true;
}

/* fused_dynamic_update_slice: the stack f32[4,256,512] with layer i set to
 * (h + 1) * (1 - h), tanh's derivative; the result aliases the stack. */
static bool keepDerivative(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 4, LAYERS * ROWS, (uint64_t)4, ROWS, LAYERS * ROWS))
    return false;
  if (call->args[3] != call->args[0])
    memmove(call->args[3], call->args[0], LAYERS * ROWS);
  const float *h = f32(call, 2);
  float *layer = f32(call, 3) + clampLayer(s32(call, 1)) * BATCH * WIDTH;
  for (size_t i = 0; i < (size_t)BATCH * WIDTH; i++)
    layer[i] = (h[i] + 1.0f) * (1.0f - h[i]);
  return true;
}

/* fused_multiply: d * stack[3 - i], the gradient through layer 3 - i's
 * tanh. */
static bool throughTanh(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 4, ROWS, LAYERS * ROWS, (uint64_t)4, ROWS))
    return false;
  const float *d = f32(call, 0);
  const float *layer = f32(call, 1) + clampLayer(3 - (int64_t)s32(call, 2)) * BATCH * WIDTH;
  float *out = f32(call, 3);
  for (size_t i = 0; i < (size_t)BATCH * WIDTH; i++)
    out[i] = d[i] * layer[i];
  return true;
}

/* fused_multiply_reduce: (h * 2^-16, the sum of h * h over each row): the
 * loss's gradient and its per-row sums. */
static bool lossParts(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 3, ROWS, ROWS, (uint64_t)BATCH * 4))
    return false;
  const float *h = f32(call, 0);
  float *grad = f32(call, 1), *rows = f32(call, 2);
  for (int m = 0; m < BATCH; m++) {
    float sum = 0;
    for (int n = 0; n < WIDTH; n++) {
      float v = h[(size_t)m * WIDTH + n];
      grad[(size_t)m * WIDTH + n] = v * 1.52587891e-05f;
      sum += v * v;
    }
    rows[m] = sum;
  }
  return true;
}

/* fused_reduce.2: the sum of f32[256]. */
static bool sumRows(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 2, (uint64_t)BATCH * 4, (uint64_t)4))
    return false;
  float sum = 0;
  for (int m = 0; m < BATCH; m++)
    sum += f32(call, 0)[m];
  *f32(call, 1) = sum;
  return true;
}

/* fused_multiply.1: the mean, sum * 2^-17 (argument and result alias). */
static bool mean(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 2, (uint64_t)4, (uint64_t)4))
    return false;
  *f32(call, 1) = *f32(call, 0) * 7.62939453e-06f;
  return true;
}

/* fused_subtract: w - grad * 0.01 (the result aliases the gradient). */
static bool update(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectSizes(call, error, 3, LAYERS * SQUARE, LAYERS * SQUARE, LAYERS * SQUARE))
    return false;
  const float *w = f32(call, 0), *g = f32(call, 1);
  float *out = f32(call, 2);
  for (size_t i = 0; i < (size_t)LAYERS * WIDTH * WIDTH; i++)
    out[i] = w[i] - g[i] * 0.01f;
  return true;
}

bool thunky_register_v1(ThunkyRegistry *r, ThunkyError *error) {
  static bool withTanh = true;
  return (thunkyRegistryAddHostKernel(r, "loop_broadcast_fusion", broadcastZeros2, NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_broadcast_fusion_1", broadcastZeros, NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_compare_fusion", compareTrips, NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_add_fusion", addOne, NULL) &&
          thunkyRegistryAddHostKernel(r, "gemm_fusion_dot_1", forwardDot, NULL) &&
          thunkyRegistryAddHostKernel(r, "gemm_fusion_dot_2", backwardDot, NULL) &&
          thunkyRegistryAddHostKernel(r, "gemm_fusion_dot", weightDot, NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_reduce_fusion", sumSplits, &withTanh) &&
          thunkyRegistryAddHostKernel(r, "loop_reduce_fusion_1", sumSplits, NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_dynamic_update_slice_fusion", keepDerivative,
                                      NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_multiply_fusion", throughTanh, NULL) &&
          thunkyRegistryAddHostKernel(r, "input_multiply_reduce_fusion", lossParts, NULL) &&
          thunkyRegistryAddHostKernel(r, "input_reduce_fusion", sumRows, NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_multiply_fusion_1", mean, NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_subtract_fusion", update, NULL)) ||
         thunkyErrorf(error, "out of memory");
}
