/* Host implementations of the kernels and custom calls the runtime tests'
 * executables launch, registered by name (thunky-run --library). Each says
 * what it computes; a wrong argument count or size is an error, so a test
 * cannot pass by accident. */
#define _GNU_SOURCE /* RTLD_NOLOAD, nanosleep */
#include "thunky-c/runtime/Registry.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool expectArgs(const ThunkyKernelCall *call, uint32_t n, ThunkyError *error) {
  return call->numArgs == n ||
         thunkyErrorf(error, "%s takes %u arguments, got %u", call->name, n, call->numArgs);
}

static float loadF32(const void *p, uint64_t i) {
  float v;
  memcpy(&v, (const uint8_t *)p + 4 * i, 4);
  return v;
}

static void storeF32(void *p, uint64_t i, float v) { memcpy((uint8_t *)p + 4 * i, &v, 4); }

/* out = a + b, elementwise f32. */
static bool addF32(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 3, error))
    return false;
  for (uint64_t i = 0; i < call->argSizes[2] / 4; i++)
    storeF32(call->args[2], i, loadF32(call->args[0], i) + loadF32(call->args[1], i));
  return true;
}

/* pred = counter < limit: args (counter s32, limit s32, pred u8). */
static bool lessThan(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 3, error))
    return false;
  int32_t counter, limit;
  memcpy(&counter, call->args[0], 4);
  memcpy(&limit, call->args[1], 4);
  *(uint8_t *)call->args[2] = counter < limit;
  return true;
}

/* counter += 1, s32. */
static bool increment(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 1, error))
    return false;
  int32_t counter;
  memcpy(&counter, call->args[0], 4);
  counter++;
  memcpy(call->args[0], &counter, 4);
  return true;
}

/* XLA's golden ReduceScatter executable: out = (id == 0 ? c0 : c1), u32[8];
 * args (c0, c1, id, out). */
static bool loopSelectFusion(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 4, error))
    return false;
  uint32_t id;
  memcpy(&id, call->args[2], 4);
  memcpy(call->args[3], id == 0 ? call->args[0] : call->args[1], call->argSizes[3]);
  return true;
}

/* out[i] = 100 * rank + i, s32: data that differs on every rank, for the
 * collectives. */
static bool rankIota(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 1, error))
    return false;
  for (uint64_t i = 0; i < call->argSizes[0] / 4; i++) {
    int32_t v = (int32_t)(100 * call->rank + i);
    memcpy((uint8_t *)call->args[0] + 4 * i, &v, 4);
  }
  return true;
}

/* A kernel that never ends, as one spinning on a flag nothing sets: it
 * sleeps two minutes (bounded, so that a harness that never gives up does
 * not keep its thread for ever), and the backend's deadline must cut the
 * wait for it. */
static bool neverEnds(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  for (int i = 0; i < 12000; i++) {
    struct timespec pause = {0, 10000000};
    nanosleep(&pause, NULL);
  }
  return true;
}

/* A custom call: results[0] = operands[0] + 1 for each f32 element. */
static bool plusOne(const ThunkyCustomCallArgs *call, void *user, ThunkyError *error) {
  if (call->numOperands != 1 || call->numResults != 1)
    return thunkyErrorf(error, "plus_one takes one operand and one result");
  for (uint64_t i = 0; i < call->resultSizes[0] / 4; i++)
    storeF32(call->results[0], i, loadF32(call->operands[0], i) + 1);
  return true;
}

/* plus_one on the CUDA backend, for the simulated driver only
 * (test/CudaSim): there device memory is host memory, and the work goes on
 * the stream through the simulation's thunkySimEnqueue (sim.h), whose type
 * this is. On a real driver it says it cannot run. */
typedef int (*SimEnqueue)(void *stream, bool (*run)(void *, char *, size_t), void *data,
                          void (*release)(void *));

typedef struct PlusOne {
  const void *in;
  void *out;
  uint64_t count;
} PlusOne;

static bool runPlusOne(void *data, char *why, size_t whySize) {
  const PlusOne *p = data;
  (void)why, (void)whySize;
  for (uint64_t i = 0; i < p->count; i++)
    storeF32(p->out, i, loadF32(p->in, i) + 1);
  return true;
}

static bool plusOneOnSimulation(const ThunkyCustomCallArgs *call, void *user,
                                ThunkyError *error) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  SimEnqueue enqueue = driver ? (SimEnqueue)(uintptr_t)dlsym(driver, "thunkySimEnqueue") : NULL;
  if (driver)
    dlclose(driver); /* still loaded: the backend holds it */
  if (!enqueue)
    return thunkyErrorf(error, "plus_one for cuda runs only on the simulated driver");
  if (call->numOperands != 1 || call->numResults != 1)
    return thunkyErrorf(error, "plus_one takes one operand and one result");
  PlusOne *p = malloc(sizeof *p);
  if (!p)
    return thunkyErrorf(error, "out of memory");
  *p = (PlusOne){call->operands[0], call->results[0], call->resultSizes[0] / 4};
  return enqueue(call->stream, runPlusOne, p, free) == 0 ||
         thunkyErrorf(error, "the simulation refused the work");
}

/* out += in, f32: correct only when out starts at zero, as XLA zeroes
 * a kernel's zeroed_output_buffer_indices before every launch. */
static bool accumulateF32(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 2, error))
    return false;
  for (uint64_t i = 0; i < call->argSizes[1] / 4; i++)
    storeF32(call->args[1], i, loadF32(call->args[1], i) + loadF32(call->args[0], i));
  return true;
}

/* out = k * in, f32, with its parameters packed as (in, s32 k by value,
 * out): only a packing spec gives this layout. */
static bool scalePacked(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 3, error))
    return false;
  if (call->argSizes[1] != 4)
    return thunkyErrorf(error, "scale_packed takes k (s32) by value, got %llu bytes",
                        (unsigned long long)call->argSizes[1]);
  int32_t k;
  memcpy(&k, call->args[1], 4);
  for (uint64_t i = 0; i < call->argSizes[2] / 4; i++)
    storeF32(call->args[2], i, (float)k * loadF32(call->args[0], i));
  return true;
}

/* A module's global, which device code reads by name rather than through
 * an argument; XLA binds a constant of the same symbol_name to it. */
static float tableConstant[4];

/* out = in * table_constant, f32[4], reading the global directly. */
static bool scaleByTable(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 2, error))
    return false;
  for (uint64_t i = 0; i < 4 && i < call->argSizes[1] / 4; i++)
    storeF32(call->args[1], i, loadF32(call->args[0], i) * tableConstant[i]);
  return true;
}

/* out = in + k, f32: add_one_fusion (k = 1) and add_two_fusion (k = 2). */
static bool addConstant(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 2, error))
    return false;
  float k = *(const float *)user;
  for (uint64_t i = 0; i < call->argSizes[1] / 4; i++)
    storeF32(call->args[1], i, loadF32(call->args[0], i) + k);
  return true;
}

/* A loop condition that says stop: its predicate (pred or s32) becomes 0. */
static bool stopNow(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!expectArgs(call, 1, error))
    return false;
  memset(call->args[0], 0, call->argSizes[0]);
  return true;
}

/* The kernels the program generator (test/Fuzz/fuzz_programs.c) launches
 * compute what a GPU kernel would on f32 buffers of one size: an in-place
 * update reads what it writes, a partial write leaves the rest, a reduction
 * reads every element. */
static bool sameSizes(const ThunkyKernelCall *call, uint32_t n, ThunkyError *error) {
  if (!expectArgs(call, n, error))
    return false;
  for (uint32_t i = 1; i < n; i++)
    if (call->argSizes[i] != call->argSizes[0])
      return thunkyErrorf(error, "%s takes arguments of one size, got %llu and %llu bytes",
                          call->name, (unsigned long long)call->argSizes[0],
                          (unsigned long long)call->argSizes[i]);
  return true;
}

/* x += 1, f32, in place. */
static bool incrementF32(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!sameSizes(call, 1, error))
    return false;
  for (uint64_t i = 0; i < call->argSizes[0] / 4; i++)
    storeF32(call->args[0], i, loadF32(call->args[0], i) + 1);
  return true;
}

/* out[i] = 2 * in[i] for the first half of out; the rest is left alone. */
static bool writeHeadF32(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!sameSizes(call, 2, error))
    return false;
  for (uint64_t i = 0; i < call->argSizes[1] / 8; i++)
    storeF32(call->args[1], i, 2 * loadF32(call->args[0], i));
  return true;
}

/* out[i] = the sum of every element of in, f32. */
static bool reduceSumF32(const ThunkyKernelCall *call, void *user, ThunkyError *error) {
  if (!sameSizes(call, 2, error))
    return false;
  float sum = 0;
  for (uint64_t i = 0; i < call->argSizes[0] / 4; i++)
    sum += loadF32(call->args[0], i);
  for (uint64_t i = 0; i < call->argSizes[1] / 4; i++)
    storeF32(call->args[1], i, sum);
  return true;
}

bool thunky_register_v1(ThunkyRegistry *r, ThunkyError *error) {
  static float one = 1, two = 2;
  return (thunkyRegistryAddHostKernel(r, "add_f32", addF32, NULL) &&
          thunkyRegistryAddHostKernel(r, "less_than", lessThan, NULL) &&
          thunkyRegistryAddHostKernel(r, "increment", increment, NULL) &&
          thunkyRegistryAddHostKernel(r, "loop_select_fusion", loopSelectFusion, NULL) &&
          thunkyRegistryAddHostKernel(r, "rank_iota_s32", rankIota, NULL) &&
          thunkyRegistryAddHostKernel(r, "accumulate_f32", accumulateF32, NULL) &&
          thunkyRegistryAddHostKernel(r, "scale_packed", scalePacked, NULL) &&
          thunkyRegistryAddHostKernel(r, "scale_by_table", scaleByTable, NULL) &&
          thunkyRegistryAddHostGlobal(r, "table_constant", tableConstant,
                                      sizeof tableConstant) &&
          thunkyRegistryAddHostKernel(r, "never_ends", neverEnds, NULL) &&
          thunkyRegistryAddHostKernel(r, "add_one_fusion", addConstant, &one) &&
          thunkyRegistryAddHostKernel(r, "add_two_fusion", addConstant, &two) &&
          thunkyRegistryAddHostKernel(r, "stop_now", stopNow, NULL) &&
          thunkyRegistryAddHostKernel(r, "increment_f32", incrementF32, NULL) &&
          thunkyRegistryAddHostKernel(r, "write_head_f32", writeHeadF32, NULL) &&
          thunkyRegistryAddHostKernel(r, "reduce_sum_f32", reduceSumF32, NULL) &&
          thunkyRegistryAddCustomCall(r, "host", "plus_one", plusOne, NULL) &&
          thunkyRegistryAddCustomCall(r, "cuda", "plus_one", plusOneOnSimulation, NULL)) ||
         thunkyErrorf(error, "out of memory");
}
