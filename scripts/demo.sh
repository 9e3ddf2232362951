#!/usr/bin/env bash
# The main job, for now a tour of the dialect: installs what is missing,
# builds, then loads thunky into Debian's stock mlir-opt as a plugin to parse,
# verify, print and transform a sample program, and shows the verifier
# refusing a broken edit of it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
"$root/scripts/build.sh" >/dev/null

plugin="$build/lib/libThunkyPlugin.so"
opt=(mlir-opt-22 "--load-dialect-plugin=$plugin" "--load-pass-plugin=$plugin")
sample="$root/examples/train_step.mlir"

echo "== 1. parse, verify and print $sample through stock mlir-opt-22 + plugin"
"${opt[@]}" "$sample"

echo "== 2. run a thunky pass from the plugin: thunky-flatten-sequential, then cse"
"${opt[@]}" -p 'builtin.module(thunky-flatten-sequential,cse)' "$sample"

echo "== 3. the verifier refuses a broken edit (slice moved past its parent)"
broken="$(mktemp --suffix=.mlir)"
trap 'rm -f "$broken"' EXIT
sed 's/offset = 68 : <132> -> <64>/offset = 80 : <132> -> <64>/' "$sample" > "$broken"
if "${opt[@]}" "$broken" >/dev/null 2>"$broken.err"; then
  echo "demo: the broken module was accepted" >&2
  exit 1
fi
sed "s|$broken|broken.mlir|" "$broken.err"
rm -f "$broken.err"
echo "== 4. import a real XLA:GPU executable (examples/executable.textproto), then export it back"
exe="$(mktemp --suffix=.pb)"
module="$(mktemp --suffix=.mlir)"
trap 'rm -f "$broken" "$exe" "$exe.out" "$module"' EXIT
"$root/scripts/encode.sh" xla.gpu.GpuExecutableProto < "$root/examples/executable.textproto" > "$exe"
"$build/bin/thunky-translate" --import-thunky "$exe" -o "$module"
echo "-- the program (thunky-strip-metadata hides what import keeps for export):"
"$build/bin/thunky-opt" --thunky-strip-metadata "$module"
"$build/bin/thunky-translate" --export-thunky "$module" -o "$exe.out"
if cmp -s "$exe" "$exe.out"; then
  echo "-- export(import(x)) is byte-identical to x ($(stat -c %s "$exe") bytes)"
else
  echo "demo: export(import(x)) differs from x" >&2
  exit 1
fi
echo "== 5. the same executable as JAX serializes it: IFRT envelope > options > split-proto"
jax="$(mktemp --suffix=.jax)"
trap 'rm -f "$broken" "$exe" "$exe.out" "$module" "$jax" "$jax.meta" "$jax.opts" "$jax.mlir" "$jax.out"' EXIT
"$root/scripts/encode.sh" xla.ifrt.SerializedXlaExecutableMetadata \
  < "$root/examples/jax-ifrt-metadata.textproto" > "$jax.meta"
"$root/scripts/encode.sh" xla.ExecutableAndOptionsProto < "$root/examples/jax-options.textproto" > "$jax.opts"
"$build/bin/thunky-container" pack --as ifrt+split-options "$exe" -o "$jax" \
  --metadata "$jax.meta" --options "$jax.opts"
"$build/bin/thunky-translate" --import-thunky --thunky-describe-container "$jax" -o "$jax.mlir" 2>&1 |
  sed "s|$jax|jax.bin|"
"$build/bin/thunky-translate" --export-thunky "$jax.mlir" -o "$jax.out"
if cmp -s "$jax" "$jax.out"; then
  echo "-- exported in the same layering, byte-identical ($(stat -c %s "$jax") bytes)"
else
  echo "demo: the JAX-layered export differs from its input" >&2
  exit 1
fi
echo "== done"
