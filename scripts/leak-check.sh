#!/usr/bin/env bash
# leak-check.sh: every tool under valgrind over the fixtures: import and
# export (bare and in containers), thunky-opt's pipeline, thunky-container
# and thunky-run on the host backend, on good input and on refused input
# (error paths must free too). Fails on any definite leak or memory error.
# The test command runs it; ASan's LeakSanitizer covers the lit suite too.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_BUILD_DIR:-$root/build}"
bin="$build/bin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

checks=0 failures=0
# check NAME CMD...: the command may succeed or refuse its input; only
# valgrind's own verdict (exit 99) counts.
check() {
  local name="$1"
  shift
  checks=$((checks + 1))
  local rc=0
  valgrind -q --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --error-exitcode=99 --log-file="$work/$checks.valgrind" "$@" >/dev/null 2>&1 || rc=$?
  if [ "$rc" = 99 ] || [ -s "$work/$checks.valgrind" ]; then
    failures=$((failures + 1))
    echo "leak-check: $name: valgrind found errors:" >&2
    head -40 "$work/$checks.valgrind" >&2
  fi
}

encode() { "$root/scripts/encode.sh" "$1" < "$2" > "$3"; }
encode xla.gpu.GpuExecutableProto "$root/examples/executable.textproto" "$work/example.pb"
encode xla.gpu.GpuExecutableProto "$root/test/Runtime/ids.textproto" "$work/ids.pb"
encode xla.gpu.GpuExecutableProto "$root/test/Runtime/control.textproto" "$work/control.pb"
encode xla.ExecutableAndOptionsProto "$root/examples/jax-options.textproto" "$work/options.pb"
encode xla.ifrt.SerializedXlaExecutableMetadata "$root/examples/jax-ifrt-metadata.textproto" \
  "$work/metadata.pb"
inputs=("$work/example.pb" "$work/ids.pb" "$work/control.pb")
for f in "$root"/../shared/fixtures/*/ReduceScatter.v2.pbtxt; do
  [ -f "$f" ] && encode xla.HumanReadableAotExecutable "$f" "$work/golden.pb" &&
    inputs+=("$work/golden.pb")
done
"$bin/thunky-container" pack --as ifrt+split-options "$work/example.pb" \
  --options "$work/options.pb" --metadata "$work/metadata.pb" --compression snappy \
  -o "$work/example.ifrt"
inputs+=("$work/example.ifrt")
head -c 300 "$work/example.ifrt" > "$work/truncated.ifrt"
printf 'not an executable' > "$work/garbage.pb"

for f in "${inputs[@]}" "$work/truncated.ifrt" "$work/garbage.pb"; do
  name="$(basename "$f")"
  check "import $name" "$bin/thunky-translate" --import-thunky "$f" -o "$work/$name.mlir"
  [ -s "$work/$name.mlir" ] || continue
  check "export $name" "$bin/thunky-translate" --export-thunky "$work/$name.mlir" -o "$work/$name.out"
  check "optimize $name" "$bin/thunky-opt" --thunky-optimize "$work/$name.mlir" -o "$work/$name.opt.mlir"
  check "container $name" "$bin/thunky-container" info "$f"
done
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/x.npy" f32 64 $(seq 64)
check "thunky-run example" "$bin/thunky-run" --ranks 2 --library "$build/lib/libThunkyExampleKernels.so" \
  "$work/example.ifrt" "$work/x.npy" --print --profile
check "thunky-run ids" "$bin/thunky-run" --ranks 4 --partitions 2 "$work/ids.pb" -o "$work"
check "thunky-run unregistered kernel" "$bin/thunky-run" "$work/example.pb"
check "thunky-run garbage" "$bin/thunky-run" "$work/garbage.pb"
check "thunky-run .mlir" "$bin/thunky-run" --ranks 4 --partitions 2 "$work/ids.pb.mlir" --print
# Symbolic runs: a loop taken as a function, nested control flow under both
# schedules, a difference reported with its trace.
loop="$root/test/Translate/jax-fixtures/0.11.2/while_loop.exe"
check "thunky-run symbolic loop" "$bin/thunky-run" --backend symbolic "$loop" --compare "$loop"
encode xla.gpu.GpuExecutableProto "$root/test/Translate/thunks/nested_while_in_cond_in_sequential.textproto" \
  "$work/nested.pb"
check "thunky-run symbolic nested" "$bin/thunky-run" --backend symbolic --ranks 2 "$work/nested.pb" \
  --check-async
check "thunky-run symbolic different" "$bin/thunky-run" --backend symbolic --ranks 2 "$work/example.pb" \
  --compare "$work/ids.pb.mlir"

if [ "$failures" != 0 ]; then
  echo "leak-check: $failures of $checks runs had leaks or memory errors" >&2
  exit 1
fi
echo "leak-check: $checks runs under valgrind, no definite leaks or memory errors"
