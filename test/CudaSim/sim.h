/*===- sim.h - the simulated CUDA driver, as NCCL's and cuBLASLt's see it --===*
 *
 * A SIMULATION for tests, never installed: libcuda.so.1, libnccl.so.2 and
 * libcublasLt.so.13 built from test/CudaSim, backed by host memory, so that
 * the CUDA backend runs (and is measured for coverage) on machines without
 * a GPU. Device pointers are host addresses. Every stream is a worker
 * thread running its queue in order; events order streams. The simulated
 * NCCL and cuBLASLt enqueue their work on streams through the one call
 * below, so that it is ordered, captured into graphs and replayed like any
 * other.
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

/* Work for a stream: run(data) when the stream reaches it, false (with why
 * filled) for a failure that poisons the context, as a device fault does;
 * release(data) once no queue or graph holds it. */
typedef bool (*ThunkySimRun)(void *data, char *why, size_t whySize);

/* Enqueues host work on `stream` (or records it into the graph the stream
 * is capturing). Takes ownership of data, even on failure. */
CUresult thunkySimEnqueue(CUstream stream, ThunkySimRun run, void *data,
                          void (*release)(void *data));

/* True when THUNKY_CUDA_SIM_FAIL names `call` and this is its Nth call. */
bool thunkySimInjected(const char *call);

/* Whether [p, p + size) lies in one live device allocation. */
bool thunkySimValid(const void *p, size_t size);

#endif /* THUNKY_TEST_CUDA_SIM_H */
