#!/usr/bin/env bash
# Configures (once) and builds thunky with ASan, UBSan and libFuzzer's
# coverage in build-asan/: the test command runs the whole suite there, and
# scripts/fuzz.sh the fuzz targets it builds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
asan="${THUNKY_ASAN_BUILD_DIR:-$root/build-asan}"

if [ ! -f "$asan/build.ninja" ] || ! grep -q '^THUNKY_FUZZ:BOOL=ON' "$asan/CMakeCache.txt"; then
  cmake -G Ninja -S "$root" -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DTHUNKY_FUZZ=ON >/dev/null
fi
ninja -C "$asan" >/dev/null
