#!/usr/bin/env bash
# make_seeds.sh BIN OUT: seed inputs for each fuzz target, from the test
# fixtures (and the team's golden executables when ../shared is there):
#   OUT/import  executables bare and in every container layering
#   OUT/export  the same        OUT/plan  the runtime's fixtures
#   OUT/riegeli split-proto files, raw and as chunk recipes
#   OUT/npy     .npy files of several types and shapes
#   OUT/trace   an executable with a trace of it: the model's, the host's,
#               and a CUDA trace's shape (issue events, steps)
#   OUT/equivalence  the executables, and small bench-gen ones with loops,
#               branches, async regions and collectives (seeds 1 to 4)
#   OUT/programs  choices for the program generator: 64 strings of 256
#               bytes drawn from seeds 1 to 64
set -euo pipefail
bin="$1" out="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
encode="$root/scripts/encode.sh"
rm -rf "$out"
mkdir -p "$out"/{import,export,plan,riegeli,npy,trace,equivalence,programs,work}
work="$out/work"

# Every textproto that is a GpuExecutableProto (the others do not encode).
n=0
while IFS= read -r f; do
  name="$(basename "$(dirname "$f")")-$(basename "$f" .textproto)"
  if "$encode" xla.gpu.GpuExecutableProto < "$f" > "$out/import/$name.pb" 2>/dev/null; then
    n=$((n + 1))
  else
    rm -f "$out/import/$name.pb"
  fi
done < <(find "$root/test" "$root/examples" -name '*.textproto' -not -path '*/invalid/*' | sort)
cp "$out"/import/Runtime-*.pb "$out/plan/"
# cuBLASLt epilogues, which no textproto holds (gemm-epilogue.test writes them).
for order in row column; do
  python3 "$root/test/Runtime/Inputs/gemm_epilogue.py" exe BIAS_THEN_GELU_WITH_AUX $order |
    "$encode" xla.gpu.GpuExecutableProto > "$out/plan/gemm-epilogue-$order.pb"
done

golden="$root/../shared/fixtures"
if [ -d "$golden" ]; then
  while IFS= read -r f; do
    "$encode" xla.HumanReadableAotExecutable < "$f" > "$out/import/golden-$(basename "$f" .pbtxt).pb" \
      2>/dev/null || rm -f "$out/import/golden-$(basename "$f" .pbtxt).pb"
  done < <(find "$golden" -name '*.pbtxt' | sort)
fi

# The example in every layering; the riegeli target gets the split files.
"$encode" xla.gpu.GpuExecutableProto < "$root/examples/executable.textproto" > "$work/exe.pb"
"$encode" xla.ExecutableAndOptionsProto < "$root/examples/jax-options.textproto" > "$work/options.pb"
"$encode" xla.ifrt.SerializedXlaExecutableMetadata < "$root/examples/jax-ifrt-metadata.textproto" \
  > "$work/metadata.pb"
for layering in split options split-options ifrt+options ifrt+split-options; do
  for compression in none snappy; do
    "$bin/thunky-container" pack --as "$layering" "$work/exe.pb" --options "$work/options.pb" \
      --metadata "$work/metadata.pb" --compression "$compression" \
      -o "$out/import/example-$layering-$compression.bin"
  done
done
# What JAX 0.11.2 wrote: a serialize() pickle and a compilation cache entry.
cp "$root/test/Translate/jax-fixtures/0.11.2/containers/pickle/matmul.pickle" "$out/import/jax-matmul.pickle"
cp "$root/test/Translate/jax-fixtures/0.11.2/containers/cache/"jit_body-*-cache "$out/import/jax-body.cache"
# JAX compilation cache entries around them: zlib and zstd.
for cache in zlib zstd; do
  "$bin/thunky-container" pack --as ifrt+split-options "$work/exe.pb" --options "$work/options.pb" \
    --metadata "$work/metadata.pb" --cache "$cache" -o "$out/import/example-cache-$cache.bin"
done
cp "$out"/import/example-split-*.bin "$out/riegeli/"
# A recipe for fuzz_riegeli's built files: 'B', then a records chunk.
printf 'B\x72\x02\x00\x04\x00\x00\x0a\x00\x00\x02\x02\x02\x02\x61\x62\x63\x64' > "$out/riegeli/recipe.bin"
cp "$out"/import/* "$out/export/"
cp "$out"/import/*.pb "$out/equivalence/"
for seed in 1 2 3 4; do
  "$bin/bench-gen" --thunks 300 --seed "$seed" --ranks 1 --cubin-bytes 64 \
    -o "$out/equivalence/bench-gen-$seed.pb"
done

for seed in $(seq 1 64); do
  LC_ALL=C awk -v seed="$seed" \
    'BEGIN { srand(seed); for (i = 0; i < 256; i++) printf "%c", int(rand() * 256) }' \
    > "$out/programs/choices-$seed.bin"
done

npy="$root/test/Runtime/Inputs/npy.py"
python3 "$npy" write "$work/f32.npy" f32 2,3 1 2 3 4 5 6
python3 "$npy" write "$work/s32.npy" s32 scalar 7
python3 "$npy" write "$work/pred.npy" pred 4 1 0 1 0
python3 "$npy" write "$work/u8.npy" u8 0
python3 "$npy" write "$work/f64.npy" f64 1,1,2 0.5 -2
# fuzz_npy's first byte is the XLA type asked for (11 = f32, 4 = s32, 1 = pred).
for seed in "f32 11" "s32 4" "pred 1" "u8 6" "f64 12"; do
  set -- $seed
  { printf "\\x$(printf %02x "$2")"; cat "$work/$1.npy"; } > "$out/npy/$1.bin"
done
# fuzz_trace's input: the executable's length (4 bytes, little-endian),
# the executable, the trace.
byte() { printf "\\x$(printf %02x "$1")"; }
traceSeed() { # NAME EXE TRACE
  local n
  n="$(stat -c %s "$2")"
  { byte $((n & 255)); byte $((n >> 8 & 255)); byte $((n >> 16 & 255)); byte $((n >> 24 & 255))
    cat "$2" "$3"; } > "$out/trace/$1.bin"
}
for f in "$out"/plan/Runtime-{async-overlap,control,trip-count,ids,memops}.pb; do
  name="$(basename "$f" .pb)"
  "$bin/thunky-run" --model "$f" --trace "$work/$name.json" >/dev/null 2>&1
  traceSeed "model-$name" "$f" "$work/$name.json"
done
"$bin/thunky-run" "$out/plan/Runtime-async-overlap.pb" --trace "$work/host.json" >/dev/null
traceSeed host-async-overlap "$out/plan/Runtime-async-overlap.pb" "$work/host.json"
printf '%s' '{"otherData":{"backend":"cuda","clock":"c","method":"m","device":"d","step_ns":900,"steps":2},"traceEvents":[{"name":"thunk 0","ph":"X","pid":0,"tid":0,"dur":0.25,"args":{"thunk":0}},{"name":"issue","ph":"X","pid":0,"tid":-1,"dur":0.5,"args":{"issues_thunk":1}}]}' \
  > "$work/cuda.json"
traceSeed cuda-memops "$out/plan/Runtime-memops.pb" "$work/cuda.json"
rm -rf "$work"
echo "seeds: $n executables, $(ls "$out/import" | wc -l) import, $(ls "$out/riegeli" | wc -l) riegeli, $(ls "$out/npy" | wc -l) npy, $(ls "$out/trace" | wc -l) trace, $(ls "$out/equivalence" | wc -l) equivalence, $(ls "$out/programs" | wc -l) programs"
