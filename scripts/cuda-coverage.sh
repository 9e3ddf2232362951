#!/usr/bin/env bash
# cuda-coverage.sh: line coverage of runtime/cuda/ from the tests that run
# the CUDA backend over the simulated driver, NCCL and cuBLASLt
# (test/Runtime/cuda-sim*.test, test/CudaSim). Builds build-cov/ with
# clang's source-based coverage, runs those tests there, and prints
# llvm-cov's report for runtime/cuda/; exits non-zero when lines covered
# fall below THUNKY_CUDA_COVERAGE_MIN percent (85).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_COVERAGE_BUILD_DIR:-$root/build-cov}"
minimum="${THUNKY_CUDA_COVERAGE_MIN:-85}"

"$root/scripts/setup.sh" >/dev/null
if [ ! -f "$build/build.ninja" ]; then
  flags="-fprofile-instr-generate -fcoverage-mapping"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate \
    -DCMAKE_SHARED_LINKER_FLAGS=-fprofile-instr-generate \
    -DCMAKE_MODULE_LINKER_FLAGS=-fprofile-instr-generate >/dev/null
fi
ninja -C "$build" thunky-run ThunkyTestKernels ThunkyExampleKernels ThunkyCudaSimDriver \
  ThunkyCudaSim_nccl ThunkyCudaSim_cublasLt thunky-cuda-sim-leak-test >/dev/null
rm -rf "$build/profiles" && mkdir -p "$build/profiles"
LLVM_PROFILE_FILE="$build/profiles/%p.profraw" \
  /usr/lib/llvm-22/bin/lit -s "$build/test/Runtime" --filter 'cuda-sim'
# clang's own version of the tools reads the profiles it wrote.
version="$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p')"
"llvm-profdata-$version" merge -sparse "$build"/profiles/*.profraw -o "$build/cuda.profdata"
"llvm-cov-$version" report "$build/bin/thunky-run" -instr-profile="$build/cuda.profdata" \
  "$root"/runtime/cuda/*.c | tee "$build/cuda-coverage.txt"
covered="$(awk '/^TOTAL/ {print $(NF-3)}' "$build/cuda-coverage.txt" | tr -d '%')"
echo "cuda-coverage: ${covered}% of runtime/cuda/'s lines run on the simulation (at least ${minimum}%)"
awk -v c="$covered" -v m="$minimum" 'BEGIN { exit !(c >= m) }'
