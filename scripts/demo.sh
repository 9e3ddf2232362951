#!/usr/bin/env bash
# The main job, a tour: installs what is missing, builds, then loads thunky
# into Debian's stock mlir-opt as a plugin to parse, verify, print and
# transform a sample program, shows the verifier refusing a broken edit of
# it, takes an XLA:GPU executable through import and export (bare and packed
# as JAX serializes it), and finally imports, optimizes, exports and runs it
# on the host backend, printing its outputs and a profile; checks that
# optimizing kept the meaning, and predicts what a rewrite buys on a GPU.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
"$root/scripts/build.sh" >/dev/null

plugin="$build/lib/libThunkyPlugin.so"
opt=(mlir-opt-22 "--load-dialect-plugin=$plugin" "--load-pass-plugin=$plugin")
sample="$root/examples/train_step.mlir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Stops the demo unless files $1 and $2 hold the same bytes ($3 says what).
same_bytes() {
  if cmp -s "$1" "$2"; then
    echo "-- $3: byte-identical ($(stat -c %s "$1") bytes)"
  else
    echo "demo: $3: the bytes differ" >&2
    exit 1
  fi
}

echo "== 1. parse, verify and print $sample through stock mlir-opt-22 + plugin"
"${opt[@]}" "$sample"

echo "== 2. run a thunky pass from the plugin: thunky-flatten-sequential, then cse"
"${opt[@]}" -p 'builtin.module(thunky-flatten-sequential,cse)' "$sample"

echo "== 3. the verifier refuses a broken edit (slice moved past its parent)"
sed 's/offset = 68 : <132> -> <64>/offset = 80 : <132> -> <64>/' "$sample" > "$work/broken.mlir"
if "${opt[@]}" "$work/broken.mlir" >/dev/null 2>"$work/broken.err"; then
  echo "demo: the broken module was accepted" >&2
  exit 1
fi
sed "s|$work/||" "$work/broken.err"

echo "== 4. import a real XLA:GPU executable (examples/executable.textproto), then export it back"
"$root/scripts/encode.sh" xla.gpu.GpuExecutableProto < "$root/examples/executable.textproto" \
  > "$work/exe.pb"
"$build/bin/thunky-translate" --import-thunky "$work/exe.pb" -o "$work/exe.mlir"
echo "-- the program (thunky-strip-metadata hides what import keeps for export):"
"$build/bin/thunky-opt" --thunky-strip-metadata "$work/exe.mlir"
"$build/bin/thunky-translate" --export-thunky "$work/exe.mlir" -o "$work/exe.out"
same_bytes "$work/exe.pb" "$work/exe.out" "export(import(x)) and x"

echo "== 5. the same executable as JAX serializes it: IFRT envelope > options > split-proto"
"$root/scripts/encode.sh" xla.ifrt.SerializedXlaExecutableMetadata \
  < "$root/examples/jax-ifrt-metadata.textproto" > "$work/jax.meta"
"$root/scripts/encode.sh" xla.ExecutableAndOptionsProto \
  < "$root/examples/jax-options.textproto" > "$work/jax.opts"
"$build/bin/thunky-container" pack --as ifrt+split-options "$work/exe.pb" -o "$work/jax.bin" \
  --metadata "$work/jax.meta" --options "$work/jax.opts"
"$build/bin/thunky-translate" --import-thunky --thunky-describe-container "$work/jax.bin" \
  -o "$work/jax.mlir" 2>&1 | sed "s|$work/||"
"$build/bin/thunky-translate" --export-thunky "$work/jax.mlir" -o "$work/jax.out"
same_bytes "$work/jax.bin" "$work/jax.out" "exported in the layering it came in"

echo "== 6. import, optimize, export and run it: host backend, 2 ranks (the all-reduce spans both)"
"$build/bin/thunky-translate" --import-thunky "$work/jax.bin" |
  "$build/bin/thunky-opt" --thunky-optimize |
  "$build/bin/thunky-translate" --export-thunky -o "$work/optimized.bin"
# The input: f32[64] holding 0, 1, ..., 63 (a .npy file, as np.save writes it).
python3 - "$work/input.npy" <<'PYTHON'
import struct, sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (64,), }"
header += " " * (117 - len(header)) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                              header.encode() + struct.pack("<64f", *range(64)))
PYTHON
"$build/bin/thunky-run" --ranks 2 --library "$build/lib/libThunkyExampleKernels.so" \
  "$work/optimized.bin" "$work/input.npy" -o "$work" --print --profile=5
echo "-- each rank doubled its input and the all-reduce summed both: out = 4 * input"

echo "== 7. check that optimizing kept the meaning: the original and the optimized executable"
echo "   on 2 ranks with the same random inputs, every kernel a fingerprint of what it reads"
"$build/bin/thunky-run" --kernels=fingerprint --ranks 2 --seed 7 "$work/jax.bin" \
  --compare "$work/optimized.bin"
echo "-- the same on symbols instead of bytes: any size, no inputs (docs/checking.md)"
"$build/bin/thunky-run" --backend symbolic --ranks 2 "$work/jax.bin" --compare "$work/optimized.bin"
"$build/bin/thunky-opt" --thunky-check-races "$work/jax.mlir" -o /dev/null
echo "-- and no async region races (thunky-check-races); now a wrong edit: the kernel's operands swapped"
sed 's/launch "scale_fusion"(%arg0, %arg1 /launch "scale_fusion"(%arg1, %arg0 /' "$work/jax.mlir" > "$work/wrong.mlir"
if cmp -s "$work/jax.mlir" "$work/wrong.mlir"; then
  echo "demo: the edit found no launch to change" >&2
  exit 1
fi
for kernels in fingerprint symbolic; do
  if "$build/bin/thunky-run" --kernels=$kernels --ranks 2 "$work/jax.bin" \
       --compare "$work/wrong.mlir"; then
    echo "demo: the wrong edit compared equal ($kernels)" >&2
    exit 1
  fi
done
echo "== 8. see what a rewrite buys: the schedule model (docs/schedule.md) on a Llama 3 8B"
echo "   training step of 2,000 thunks on 8 ranks, before and after thunky-expand-async-scope"
"$build/bin/bench-gen" --thunks 2000 --profile llama3-8b --ranks 8 -o "$work/step.pb"
"$build/bin/thunky-translate" --import-thunky "$work/step.pb" -o "$work/step.mlir"
"$build/bin/thunky-run" --model --ranks 8 "$work/step.pb" --profile=3 | sed "s|$work/||"
"$build/bin/thunky-opt" --thunky-expand-async-scope --thunky-check-races "$work/step.mlir" \
  -o "$work/expanded.mlir"
"$build/bin/thunky-run" --model --ranks 8 "$work/step.pb" \
  --compare "$work/expanded.mlir" | sed "s|$work/||g"
echo "-- and the rewrite kept the meaning, on symbols (the step holds over 200 GB a rank)"
"$build/bin/thunky-run" --backend symbolic --ranks 8 "$work/step.pb" --compare "$work/expanded.mlir"
echo "== done"
