#!/usr/bin/env bash
# Builds the portable thunky-run (and thunky-container) into build-runtime/:
# no MLIR, with protobuf-c, snappy, zstd, brotli and the C++ runtime linked
# statically, so the binary can be copied to a machine (say, one with a GPU)
# where none of them is installed. It then checks that no such library is
# left dynamic, and writes what scripts/device-check.sh reads there: the
# runtime fixtures, encoded, and the committed JAX fixtures' optimized
# exports (scripts/jax-exports.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_RUNTIME_BUILD_DIR:-$root/build-runtime}"

"$root/scripts/setup.sh" >/dev/null
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DTHUNKY_ENABLE_MLIR=OFF -DTHUNKY_STATIC_DEPS=ON "$@" >/dev/null
fi
ninja -C "$build" thunky-run thunky-container >/dev/null
for tool in thunky-run thunky-container; do
  if ldd "$build/bin/$tool" | grep -E 'protobuf-c|snappy|zstd|libz\.|brotli|stdc\+\+|MLIR|LLVM'; then
    echo "build-runtime.sh: $tool still needs the libraries above" >&2
    exit 1
  fi
done
# Without MLIR, a module is refused with the command that exports it.
printf 'module {\n}\n' > "$build/module.mlir"
refused=$("$build/bin/thunky-run" "$build/module.mlir" 2>&1 || true)
case "$refused" in
  *"built without MLIR; export the module with thunky-translate --export-thunky"*) ;;
  *) echo "build-runtime.sh: the portable thunky-run took a module: $refused" >&2; exit 1 ;;
esac
# The fixtures scripts/device-check.sh runs, encoded here where protoc is.
mkdir -p "$build/fixtures"
for fixture in memops ids gemm all-reduce-one-rank async-overlap async-streams-apart \
    dynamic-slice-fusion dynamic-slice-thunk; do
  "$root/scripts/encode.sh" xla.gpu.GpuExecutableProto < "$root/test/Runtime/$fixture.textproto" \
    > "$build/fixtures/$fixture.pb"
done
# A cuBLASLt matmul with a bias, GELU and its aux, its output row-major (so
# multiplied swapped), against the host's epilogue.
python3 "$root/test/Runtime/Inputs/gemm_epilogue.py" exe BIAS_THEN_GELU_WITH_AUX row |
  "$root/scripts/encode.sh" xla.gpu.GpuExecutableProto > "$build/fixtures/gemm-epilogue.pb"
mlir_build="${THUNKY_BUILD_DIR:-$root/build}"
# async-overlap with its async region widened, for device-check.sh to time
# what thunky-expand-async-scope buys.
rm -f "$build/fixtures/async-overlap-expanded.pb"
if [ -x "$mlir_build/bin/thunky-opt" ]; then
  "$mlir_build/bin/thunky-translate" --import-thunky "$build/fixtures/async-overlap.pb" |
    "$mlir_build/bin/thunky-opt" --thunky-expand-async-scope |
    "$mlir_build/bin/thunky-translate" --export-thunky -o "$build/fixtures/async-overlap-expanded.pb"
fi
# The Python package's runtime library (python/, docs/python.md) for the GPU
# machine, where device-check.sh uses the package with JAX: the build's
# libThunkyRuntime.so and libThunkyFormat.so with the libraries they need
# that a machine with JAX may lack (protobuf-c, snappy, zstd, brotli), each
# under its soname; glibc, libstdc++ and libz are the machine's.
rm -rf "$build/python-lib"
if [ -f "$mlir_build/runtime/libThunkyRuntime.so" ]; then
  mkdir -p "$build/python-lib"
  cp -L "$mlir_build/runtime/libThunkyRuntime.so" "$build/python-lib/libThunkyRuntime.so"
  ldd "$mlir_build/runtime/libThunkyRuntime.so" |
    awk '$3 ~ /^\// && $1 ~ /^lib(ThunkyFormat|protobuf-c|snappy|zstd|brotli)/ { print $1, $3 }' |
    while read -r soname path; do cp -L "$path" "$build/python-lib/$soname"; done
  for needed in libThunkyFormat libprotobuf-c libsnappy libzstd libbrotlidec; do
    ls "$build/python-lib/$needed".so* >/dev/null 2>&1 ||
      { echo "build-runtime.sh: python-lib lacks $needed" >&2; exit 1; }
  done
else
  echo "build-runtime.sh: no $mlir_build/runtime/libThunkyRuntime.so (scripts/build.sh builds it):" \
    "the Python package's library for the GPU machine is not made"
fi
# The committed JAX fixtures, optimized and exported where MLIR is, for
# device-check.sh to load back into JAX on the GPU machine.
rm -rf "$build/jax-exports"
if [ -x "$mlir_build/bin/thunky-translate" ]; then
  THUNKY_BUILD_DIR="$mlir_build" "$root/scripts/jax-exports.sh" "$build/jax-exports"
else
  echo "build-runtime.sh: no $mlir_build/bin/thunky-translate (scripts/build.sh builds it):" \
    "the JAX fixtures' optimized exports are not made"
fi
echo "build-runtime.sh: $build/bin/thunky-run and thunky-container need only: $(ldd "$build/bin/thunky-run" | awk '{print $1}' | tr '\n' ' ')"
