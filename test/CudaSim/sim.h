/*===- sim.h - the simulated CUDA driver, as NCCL's and cuBLASLt's see it --===*
 *
 * A SIMULATION for tests, never installed: libcuda.so.1, libnccl.so.2,
 * libcublasLt.so.13 and libcupti.so.13 built from test/CudaSim, backed by host memory, so that
 * the CUDA backend runs (and is measured for coverage) on machines without
 * a GPU. Device pointers are host addresses. Every stream is a worker
 * thread running its queue in order; events order streams. The simulated
 * NCCL and cuBLASLt enqueue their work on streams through the calls
 * below, so that it is ordered, captured into graphs and replayed like any
 * other.
 *
 * Time is virtual, so that a run's timings are a function of what it
 * enqueued alone, the same from run to run, with or without
 * THUNKY_CUDA_SIM_DELAY. Each context has a host clock (thunkySimClockNs)
 * that each call which succeeds advances by a fixed cost: a launch or a
 * graph launch 2000 ns, an async memset or copy and a synchronous legacy
 * one 1000, an event record or wait 200, cuStreamWaitValue32 and
 * cuStreamWriteValue32 500, a simulated NCCL call 2500 and a cuBLASLt
 * matmul 2500. A wait that sees its work done (cuStreamQuery's success,
 * cuStreamSynchronize, cuCtxSynchronize) moves the clock to when the work
 * ended, plus 500, if that is later than the clock; work done before the
 * host asked costs nothing more, nor does a query that finds it running,
 * as how often a host polls depends on the machine. Each stream has a device
 * clock: an op starts when the stream, the host's issue of it and what it
 * waits for have all reached that time, and takes a fixed duration: a
 * kernel 2000 ns + 500 per step of its name's hash mod 8, a memset or copy
 * 500 + a ns per 2000 bytes, an NCCL call 3000 + a ns per 100 of its
 * bytes (a group's calls, enqueued as one, cost their sum), a matmul 3000
 * + a ns per 100000 of m*n*k, an event's record or wait 0, and
 * cuStreamWaitValue32 0 past the cuStreamWriteValue32 that last wrote its
 * word. Events take their stream's time, and cuEventElapsedTime measures
 * it.
 *
 * Environment (docs/runtime.md, "The CUDA simulation"):
 *   THUNKY_CUDA_SIM_EXECUTABLE  the executable being run: kernels' parameter
 *                               layouts come from its own description of
 *                               each launch, read apart from thunky's plan
 *                               (a packing spec's, else a pointer per
 *                               argument; a CUtensorMap where a TMA
 *                               descriptor is), as a real driver takes
 *                               them from the cubin
 *   THUNKY_CUDA_SIM_LIBRARIES   colon-separated libraries whose
 *                               thunky_register_v1 gives the host kernels that
 *                               stand in for device code, and the globals
 *                               of the executable's module
 *   THUNKY_CUDA_SIM_DEVICES     devices to show (default 4)
 *   THUNKY_CUDA_SIM_DELAY       1: each stream sleeps a random while before
 *                               each operation, so that work on different
 *                               streams interleaves differently from run to
 *                               run and a missing wait shows as a wrong result
 *   THUNKY_CUDA_SIM_FAIL        CALL or CALL:N: the Nth call (1) of CALL
 *                               fails, as the real library would
 *   THUNKY_CUDA_SIM_GEMM_LOG    1: each cuBLASLt matmul prints its compute,
 *                               scale and operand types to stderr
 *   THUNKY_CUDA_SIM_GRAPHS      1: at exit, how many graphs were instantiated
 *                               and launched, to stderr
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TEST_CUDA_SIM_H
#define THUNKY_TEST_CUDA_SIM_H

#include <cuda.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Work for a stream: run(data) when the stream reaches it, false (with why
 * filled) for a failure that poisons the context, as a device fault does;
 * release(data) once no queue or graph holds it. */
typedef bool (*ThunkySimRun)(void *data, char *why, size_t whySize);

/* Enqueues host work on `stream` (or records it into the graph the stream
 * is capturing) for a call that costs the caller's host clock hostNs, and
 * that takes deviceNs of the stream's clock when it runs. Takes ownership
 * of data, even on failure. */
CUresult thunkySimEnqueueTimed(CUstream stream, ThunkySimRun run, void *data,
                               void (*release)(void *data), uint64_t hostNs, uint64_t deviceNs);

/* thunkySimEnqueueTimed of 1000 ns on the host and 1000 on the device. */
CUresult thunkySimEnqueue(CUstream stream, ThunkySimRun run, void *data,
                          void (*release)(void *data));

/* The virtual host clock of the calling thread's current context, or 0
 * without one: the CUDA backend looks it up (dlsym) to time a run by it. */
uint64_t thunkySimClockNs(void);

/* What the simulated CUPTI (sim_cupti.c) is told of device work, through
 * hooks it gives the driver. */
typedef enum {
  THUNKY_SIM_NO_ACTIVITY,
  THUNKY_SIM_KERNEL, /* a launch, or NCCL's or cuBLASLt's work */
  THUNKY_SIM_MEMCPY,
  THUNKY_SIM_MEMSET
} ThunkySimActivity;

/* Each is called with the simulation's lock held, and must not call the
 * driver. */
typedef struct ThunkySimActivityHooks {
  /* A call enqueues device work outside a capture, at hostNs of the
   * caller's clock: its correlation id. A runtime call is NCCL's or
   * cuBLASLt's; a driver call is the rest. */
  uint32_t (*call)(bool runtime, uint64_t hostNs);
  /* Work ran on `stream` of `device` from startNs to endNs (virtual time);
   * `node` is its graph node's id, 0 outside graphs. */
  void (*done)(ThunkySimActivity kind, uint32_t correlation, uint64_t node, uint32_t device,
               uint32_t stream, uint64_t startNs, uint64_t endNs);
  /* A capture made a node of device work; instantiating a graph cloned one. */
  void (*nodeCreated)(CUgraph graph, CUgraphNode node);
  void (*nodeCloned)(CUgraphNode node, CUgraphNode original);
} ThunkySimActivityHooks;

/* Installs hooks (NULL: none), which must outlive the process's use of the
 * driver. */
void thunkySimSetActivityHooks(const ThunkySimActivityHooks *hooks);

/* The id of a graph node the hooks were given. */
uint64_t thunkySimGraphNodeId(CUgraphNode node);

/* True when THUNKY_CUDA_SIM_FAIL names `call` and this is its Nth call. */
bool thunkySimInjected(const char *call);

/* Whether [p, p + size) lies in one live device allocation. */
bool thunkySimValid(const void *p, size_t size);

#endif /* THUNKY_TEST_CUDA_SIM_H */
