#!/usr/bin/env bash
# device-check.sh [--dry-run] OUT: the checks that need a GPU, as one
# prepared command for a machine with an NVIDIA GPU, its driver, NCCL, JAX
# and numpy, and no package registry. Run from the repository root with
# build-runtime/ carried along (scripts/build-runtime.sh builds it here: the
# portable thunky-run and thunky-container need only libc, and the JAX
# fixtures' optimized exports); it builds nothing there.
#
#   0. Which libcuda, libnccl and libcublasLt the machine has and thunky-run
#      loads.
#   1. The corpus of real models (scripts/make-corpus.py), first: JAX
#      compiles them (the tiny ones on this GPU, run there against JAX's
#      outputs on the CUDA backend; the rest for 1 and 8 absent GPUs) and
#      they come back as OUT/corpus.tar.gz (scripts/commit-corpus.sh).
#      Then the CUDA backend on the runtime fixtures that need no host kernels
#      (memory ops, ids on 4 GPUs when there are 4, a gemm, one with a
#      cuBLASLt epilogue (bias, GELU, aux), an all-reduce through NCCL on
#      one rank), eager and as CUDA graphs, against the host backend: bit
#      for bit, but the gemms within the GEMM tolerance.
#   2. The JAX fixtures (scripts/make-jax-fixtures.py), the schema against
#      jaxlib's (scripts/check-jax-schema.py), the container layering of
#      each (thunky-container info); each executable on the CUDA backend
#      against JAX's outputs: bit for bit, or within the GEMM tolerance
#      where XLA ran a matrix multiply (TF32 on the GPU; docs/runtime.md).
#   3. The committed JAX fixtures (test/Translate/jax-fixtures/*/), as
#      scripts/build-runtime.sh optimized and exported them here
#      (build-runtime/jax-exports/, scripts/jax-exports.sh), loaded back
#      into JAX (scripts/reload-jax-exports.py): their outputs must be the
#      fixtures' bit for bit. Then the same loop through the Python
#      package (scripts/jax-package-loop.py): thunky.from_compiled, the
#      optimized executable, thunky.to_compiled; its library travels in
#      build-runtime/python-lib.
#   4. What JAX users hold (scripts/make-jax-containers.py): a compilation
#      cache, an XLA dump, serialize() pickles of the fixture programs, and
#      executables for 8 absent GPUs through JAX's deviceless AOT path, with
#      command buffers on and off; what thunky-container info says of each,
#      and thunky-container ls of the cache and dump folders. They come
#      back as OUT/jax-containers.tar.gz.
#   5. Timing: the cases of 1 and 2 again, 100 runs each, while the budget
#      lasts. Every case runs once first, so a slow case costs timings only.
#   6. The schedule model (thunky-run --model): each eager case traced
#      (device time and host issue per thunk, docs/runtime.md "Timing");
#      the step replayed from those durations against the measured one,
#      the device model's step (loops and branches as the trace ran them,
#      --counts-from) against it too, and the model's durations against
#      the measured ones, kind by kind; each graph case (--cuda-graph:
#      XLA's command buffers as CUDA graphs) predicted with the same graphs
#      from its own trace where CUPTI timed its nodes, else from its eager
#      twin's. scripts/schedule_errors.py prints the
#      table and says which of issue 48's targets are met, and where CUPTI
#      timed the device, how its times compare with the gate's (each eager
#      case traced once more, --device-timing gate); the traces come
#      back as OUT/schedule-traces.tar.gz.
#   7. What thunky-expand-async-scope buys: async-overlap, as built and as
#      expanded by build-runtime.sh, runs with the fixtures of 1 and is
#      timed; the model's predicted change against the measured one.
#
# The device machine takes one command of at most 10 minutes and hands back
# at most 8 files, so nothing here may hang or spill: every step runs under
# `timeout` within a budget for the whole run (THUNKY_DEVICE_CHECK_SECONDS,
# default 420; THUNKY_DEVICE_CHECK_STEP_SECONDS caps each step); work goes
# to a folder outside OUT; the report OUT/device-check.md grows line by
# line and OUT/logs.tar.gz is packed after every step, so a run killed from
# outside still returns both; an exit trap packs OUT/jax-fixtures.tar.gz
# (only what should be committed, under 5 MB). A failure keeps its whole
# log, and its last lines go into the report; an output that differs is
# reported with its largest absolute and relative error and its first
# differing element (scripts/compare_npy.py).
#
# --dry-run runs every step that needs no GPU here, against the simulated
# driver, NCCL and cuBLASLt (test/CudaSim, from build/); the steps that need
# JAX or a GPU are reported as skipped. The test command runs it, and runs
# it again with THUNKY_DEVICE_CHECK_HANG=STEP, which makes that step hang,
# to show that the hang is cut and the report still comes back.
set -uo pipefail
dry=0
if [ "${1:-}" = "--dry-run" ]; then dry=1; shift; fi
out="${1:?usage: device-check.sh [--dry-run] OUT}"
root="$(cd "$(dirname "$0")/.." && pwd)"
run="${THUNKY_RUN:-$root/build-runtime/bin/thunky-run}"
container="${THUNKY_CONTAINER:-$root/build-runtime/bin/thunky-container}"
fixtures="$root/build-runtime/fixtures"
compare="$root/scripts/compare_npy.py"
budget="${THUNKY_DEVICE_CHECK_SECONDS:-420}"
step_cap="${THUNKY_DEVICE_CHECK_STEP_SECONDS:-$budget}"
reserve=15 # seconds kept back for packing what comes back
# GEMMs: XLA runs f32 matmuls in TF32 at JAX's default precision.
gemm_tolerance=(--rtol 1e-2 --atol 1e-2)
mkdir -p "$out" || exit 2
report="$out/device-check.md"
work="$(mktemp -d "${TMPDIR:-/tmp}/device-check.XXXXXX")"
logs="$work/logs"
jax="$work/jax"
mkdir -p "$logs"
status=0 child="" current="setup"

note() { echo "$*" | tee -a "$report"; }
pack_logs() {
  tar -czf "$work/logs.tar.gz" -C "$logs" . 2>/dev/null && mv -f "$work/logs.tar.gz" "$out/"
}
finish() {
  trap - EXIT TERM INT
  if [ -f "$jax/manifest.json" ]; then
    tar -czf "$out/jax-fixtures.tar.gz" -C "$jax" .
    bytes="$(stat -c %s "$out/jax-fixtures.tar.gz")"
    [ "$bytes" -lt 5000000 ] || { note "- FAIL: jax-fixtures.tar.gz is $bytes bytes (5 MB at most)"; status=1; }
  fi
  if [ -d "$work/containers" ]; then
    tar -czf "$out/jax-containers.tar.gz" -C "$work/containers" --exclude=dump-all .
    bytes="$(stat -c %s "$out/jax-containers.tar.gz")"
    [ "$bytes" -lt 5000000 ] || { note "- FAIL: jax-containers.tar.gz is $bytes bytes (5 MB at most)"; status=1; }
  fi
  if [ -f "$work/corpus/manifest.json" ]; then
    # make-corpus.py keeps its executables under 14 MiB; a file comes back
    # whole up to 16 MiB.
    tar -czf "$out/corpus.tar.gz" -C "$work/corpus" .
    bytes="$(stat -c %s "$out/corpus.tar.gz")"
    [ "$bytes" -lt 16000000 ] || { note "- FAIL: corpus.tar.gz is $bytes bytes (16 MB at most)"; status=1; }
  fi
  if [ -d "$work/traces" ]; then
    tar -czf "$out/schedule-traces.tar.gz" -C "$work/traces" .
  fi
  pack_logs
  files="$(find "$out" -type f | wc -l)"
  [ "$files" -le 8 ] || { note "- FAIL: $files files in $out; the device machine hands back 8"; status=1; }
  note ""
  note "exit status: $status, after $SECONDS s of a $budget s budget"
  rm -rf "$work"
  exit $status
}
stopped() {
  note "- CUT: the check was stopped by SIG$1 during $current; the report ends here"
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child"
  status=1
  finish
}
trap finish EXIT
trap 'stopped TERM' TERM
trap 'stopped INT' INT

# step NAME SECONDS COMMAND...: runs COMMAND, its output in NAME.log, cut
# after SECONDS or what is left of the budget; records pass, FAIL or TIMEOUT
# and returns COMMAND's status. It runs in the background so that a signal
# reaches the trap at once.
step() {
  local name="$1" limit="$2" left rc
  shift 2
  left=$((budget - SECONDS - reserve))
  if [ "$left" -lt 5 ]; then
    note "- skipped: $name (the $budget s budget is spent)"
    status=1
    return 1
  fi
  [ "$limit" -gt "$step_cap" ] && limit=$step_cap
  [ "$limit" -gt "$left" ] && limit=$left
  [ "${THUNKY_DEVICE_CHECK_HANG:-}" = "$name" ] && set -- sleep 100000
  current=$name
  timeout -k 5 "$limit" "$@" > "$logs/$name.log" 2>&1 &
  child=$!
  wait "$child"
  rc=$?
  child=""
  case $rc in
    0) note "- pass: $name" ;;
    124 | 137) note "- TIMEOUT: $name, cut after $limit s (logs.tar.gz: $name.log)"; status=1 ;;
    *) note "- FAIL: $name, exit $rc (logs.tar.gz: $name.log): $(tail -n 3 "$logs/$name.log" |
         tr '\n' ' ' | cut -c1-400)"; status=1 ;;
  esac
  pack_logs
  return $rc
}
# quote NAME [LINES]: the step's log in the report (its first 40 lines, or
# LINES), as a code block.
quote() { note '```'; sed -n "1,${2:-40}p" "$logs/$1.log" | tee -a "$report"; note '```'; }
# timing NAME: the summary line --repeat printed.
timing() { grep -h -m1 "runs on\|runs:" "$logs/$1.log" 2>/dev/null | head -1; }

: > "$report"
note "# Device check$([ $dry = 1 ] && echo ' (dry run, on the simulated driver)'), $(date -u +%Y-%m-%dT%H:%MZ)"
note ""
if [ $dry = 1 ]; then
  sim="$root/build/lib/cuda-sim"
  [ -f "$sim/libcuda.so.1" ] || { note "no simulated driver at $sim (run scripts/build.sh)"; status=2; exit; }
  # Its CUPTI too, as a GPU's JAX wheels bring one; named, so that the
  # loader's cache never gives NVIDIA's to the simulated driver.
  export LD_LIBRARY_PATH="$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" THUNKY_CUDA_SIM_CHECK_LEAKS=1
  export THUNKY_CUPTI_PATH="$root/build/lib/cupti-sim/libcupti.so.13"
  gpus="${THUNKY_CUDA_SIM_DEVICES:-4}"
  note "simulated: $gpus devices (test/CudaSim)"
else
  step gpu 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv && quote gpu
  gpus="$(nvidia-smi -L 2>/dev/null | wc -l)"
fi
[ -x "$run" ] || { note "no thunky-run at $run (carry build-runtime/)"; status=2; exit; }

note ""
note "## Libraries"
step libraries 30 bash -c '
  echo "thunky-run --version:"; "$1" --version 2>&1 | sed "s/^/  /"
  echo "loader cache:"; ldconfig -p 2>/dev/null | grep -E "lib(cuda|nccl|cublasLt|cupti)\.so" | sed "s/^/  /"
  echo "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-(unset)}"
  echo "python environment (nvidia/*/lib):"
  python3 -c "import site, sys; print(\"\n\".join(site.getsitepackages() + [sys.prefix]))" 2>/dev/null |
    while read -r d; do ls -d "$d"/nvidia/*/lib/lib{nccl,cublasLt,cupti}.so* 2>/dev/null; done | sed "s/^/  /"
' libraries "$run" && quote libraries

note ""
note "## The corpus of real models (scripts/make-corpus.py; docs/corpus.md)"
# First, while the budget is whole: what JAX compiles for real models. The
# tiny ones JAX ran come back with their inputs and outputs and run here on
# the CUDA backend against JAX; the host-side checks run where MLIR is
# (scripts/corpus_check.py, once scripts/commit-corpus.sh committed them).
corpus="$work/corpus"
if [ $dry = 1 ]; then
  step corpus-plan 30 python3 "$root/scripts/make-corpus.py" --list && quote corpus-plan
  note "- skipped: making the corpus needs JAX on a GPU"
else
  step corpus 180 python3 "$root/scripts/make-corpus.py" "$corpus" --seconds 170
  [ -f "$corpus/manifest.json" ] && quote corpus
fi
if [ -f "$corpus/manifest.json" ]; then
  # One line per program JAX ran: name, executable, outputs, inputs...
  python3 - "$corpus/manifest.json" > "$work/corpus.tsv" <<'PYTHON'
import json, sys
for p in json.load(open(sys.argv[1]))["programs"]:
    if p.get("outputs") and p.get("file"):
        print("\t".join([p["name"], p["file"], " ".join(p["outputs"])] + p["inputs"]))
PYTHON
  while IFS=$'\t' read -r name exe outputs inputs; do
    read -r -a inputs <<< "$inputs"
    read -r -a outputs <<< "$outputs"
    want="$work/corpus-$name.jax" got="$work/corpus-$name.cuda"
    mkdir -p "$want" "$got"
    for ((k = 0; k < ${#outputs[@]}; k++)); do cp "$corpus/${outputs[k]}" "$want/out$k.npy"; done
    step "corpus-$name-cuda" 60 "$run" --backend cuda --max-iterations 100000 --timeout 45 \
      "$corpus/$exe" "${inputs[@]/#/$corpus/}" -o "$got" &&
      step "corpus-$name-vs-jax-within-gemm-tolerance" 60 python3 "$compare" \
        "${gemm_tolerance[@]}" "$want" "$got"
  done < "$work/corpus.tsv"
fi

note ""
note "## CUDA backend against the host backend"
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/in.npy" f32 4 1 2 3 4
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/a.npy" f32 2,3 1 2 3 4 5 6
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/b.npy" f32 3,2 7 8 9 10 11 12
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/s4.npy" s32 4 10 20 30 40
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/index.npy" s32 scalar 2
# gemm-epilogue's (test/Runtime/Inputs/gemm_epilogue.py's, without numpy).
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/lhs.npy" f32 2,2,2 1 2 3 4 -1 0.5 0 -1
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/rhs.npy" f32 2,2,3 1 0 -1 0 1 2 1 2 3 -4 0.25 -6
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/bias.npy" f32 3 0.5 -1 0.25
cases=()
declare -A case_args case_exe case_world case_tolerance
for fixture in memops ids gemm gemm-epilogue all-reduce-one-rank async-overlap \
    async-overlap-expanded async-streams-apart dynamic-slice-fusion dynamic-slice-thunk; do
  # The expanded program is made where MLIR is (scripts/build-runtime.sh).
  [ -f "$fixtures/$fixture.pb" ] || { note "- skipped: $fixture (build-runtime.sh made no $fixture.pb)"; continue; }
  args=() world=(--ranks 1 --partitions 1) tolerance=() same=bit-for-bit
  case "$fixture" in
    memops | all-reduce-one-rank) args=("$work/in.npy") ;;
    dynamic-slice-fusion) args=("$work/s4.npy") ;;
    dynamic-slice-thunk) args=("$work/s4.npy" "$work/index.npy") ;;
    gemm) args=("$work/a.npy" "$work/b.npy") tolerance=("${gemm_tolerance[@]}")
      same=within-gemm-tolerance ;;
    gemm-epilogue) args=("$work/lhs.npy" "$work/rhs.npy" "$work/bias.npy")
      tolerance=("${gemm_tolerance[@]}") same=within-gemm-tolerance ;;
    ids) [ "$gpus" -ge 4 ] && world=(--ranks 4 --partitions 2) ;;
  esac
  # Encoded by build-runtime.sh: the GPU machine may have no protoc.
  exe="$fixtures/$fixture.pb"
  export THUNKY_CUDA_SIM_EXECUTABLE="$exe"
  mkdir -p "$work/$fixture.host" "$work/$fixture.cuda" "$work/$fixture.graph"
  step "$fixture-host" 60 "$run" "${world[@]}" "$exe" "${args[@]}" -o "$work/$fixture.host"
  for mode in cuda graph; do
    flags=(--backend cuda --max-iterations 100000 --timeout 45 "${world[@]}")
    # XLA's command buffers as CUDA graphs, however short (the fixtures are).
    [ $mode = graph ] && flags+=(--cuda-graph --graph-min-size 1)
    step "$fixture-$mode" 60 "$run" "${flags[@]}" "$exe" "${args[@]}" -o "$work/$fixture.$mode" &&
      step "$fixture-$mode-$same" 60 python3 "$compare" "${tolerance[@]}" \
        "$work/$fixture.host" "$work/$fixture.$mode"
    cases+=("$fixture-$mode")
    case_args["$fixture-$mode"]="$(printf '%q ' "${flags[@]}" "$exe" "${args[@]}")"
    case_exe["$fixture-$mode"]="$exe"
  done
done

note ""
note "## The TMA matmul: XLA's Triton kernel with TMA descriptors, against JAX"
# JAX 0.11.2's matmul as XLA's autotuner left it on an H200, with TMA
# (issue 47); the committed fixture of the same program gives the inputs
# and JAX's output for them.
tma_exe="$root/test/Translate/jax-fixtures/0.11.2/containers/cache/jit_f-b3b0425327a328f761e5ed463237138b830fa94391e40af52ce68341fe55a57c-cache"
tma_fixture="$root/test/Translate/jax-fixtures/0.11.2"
if [ $dry = 1 ]; then
  note "- skipped: the TMA matmul's Triton kernel needs a GPU (test/Runtime/tma.textproto runs TMA maps on the simulation)"
elif [ -f "$tma_exe" ]; then
  mkdir -p "$work/tma-matmul.jax"
  cp "$tma_fixture/matmul.out0.npy" "$work/tma-matmul.jax/out0.npy"
  export THUNKY_CUDA_SIM_EXECUTABLE="$tma_exe"
  for mode in cuda graph; do
    flags=(--backend cuda --timeout 45)
    [ $mode = graph ] && flags+=(--cuda-graph --graph-min-size 1)
    mkdir -p "$work/tma-matmul.$mode"
    step "tma-matmul-$mode" 60 "$run" "${flags[@]}" "$tma_exe" "$tma_fixture/matmul.in0.npy" \
      "$tma_fixture/matmul.in1.npy" -o "$work/tma-matmul.$mode" &&
      step "tma-matmul-$mode-vs-jax-within-gemm-tolerance" 60 python3 "$compare" \
        "${gemm_tolerance[@]}" "$work/tma-matmul.jax" "$work/tma-matmul.$mode"
  done
fi

note ""
note "## JAX fixtures: thunky-run --backend cuda against JAX"
if [ $dry = 1 ]; then
  note "- skipped: making the JAX fixtures needs JAX on a GPU"
else
  step jax-fixtures 240 python3 "$root/scripts/make-jax-fixtures.py" --out "$jax"
  step jax-schema 60 python3 "$root/scripts/check-jax-schema.py" --out "$jax"
fi
if [ -f "$jax/manifest.json" ]; then
  # One line per program: name, executable, gemm (0/1), outputs, inputs...
  python3 - "$jax/manifest.json" > "$work/programs.tsv" <<'PYTHON'
import json, sys
for p in json.load(open(sys.argv[1])).get("programs", []):
    print("\t".join([p["name"], p["executable"]["file"], "1" if p.get("gemm") else "0",
                     str(len(p.get("outputs", [])))] + [f["file"] for f in p.get("inputs", [])]))
PYTHON
  while IFS=$'\t' read -r name exe gemm outputs inputs; do
    read -r -a inputs <<< "$inputs"
    note "  - $name: $(timeout 20 "$container" info "$jax/$exe" < /dev/null 2>&1 | head -1)"
    export THUNKY_CUDA_SIM_EXECUTABLE="$jax/$exe"
    want="$work/$name.jax" got="$work/$name.thunky"
    mkdir -p "$want" "$got"
    for ((k = 0; k < outputs; k++)); do cp "$jax/$name.out$k.npy" "$want/out$k.npy"; done
    flags=(--backend cuda --max-iterations 100000 --timeout 45)
    step "$name-cuda" 60 "$run" "${flags[@]}" "$jax/$exe" "${inputs[@]/#/$jax/}" -o "$got" || continue
    if [ "$gemm" = 1 ]; then
      step "$name-vs-jax-within-gemm-tolerance" 60 python3 "$compare" "${gemm_tolerance[@]}" "$want" "$got"
    else
      step "$name-vs-jax-bit-for-bit" 60 python3 "$compare" "$want" "$got"
    fi
    cases+=("$name-cuda")
    case_args["$name-cuda"]="$(printf '%q ' "${flags[@]}" "$jax/$exe" "${inputs[@]/#/$jax/}")"
    case_exe["$name-cuda"]="$jax/$exe"
    note "    JAX's own time: $(timeout 20 python3 -c 'import json,sys; print(next(p.get("jax_time") for p in json.load(open(sys.argv[1]))["programs"] if p["name"] == sys.argv[2]))' "$jax/manifest.json" "$name")"
  done < "$work/programs.tsv"
fi

note ""
note "## Optimized exports back in JAX, directly and through the Python package"
# The package (python/) with its runtime library from build-runtime/python-lib
# (scripts/build-runtime.sh), which needs nothing the machine may lack.
lib="$root/build-runtime/python-lib"
package=(env THUNKY_LIBRARY_DIR="$lib" LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" python3)
mapfile -t sets < <("$root/scripts/jax-exports.sh" --list)
if [ ${#sets[@]} = 0 ]; then
  note "- skipped: no JAX fixtures are committed yet (they come from this script's jax-fixtures.tar.gz)"
fi
for set in "${sets[@]}"; do
  exports="$root/build-runtime/jax-exports/$(basename "$set")"
  if [ ! -d "$exports" ]; then
    note "- FAIL: no optimized exports of $(basename "$set") in build-runtime/jax-exports" \
      "(scripts/build-runtime.sh makes them where MLIR is)"
    status=1
  elif [ $dry = 1 ]; then
    note "- skipped: loading $(ls "$exports" | wc -l) optimized exports of $(basename "$set") into JAX needs JAX on a GPU"
    # The package's half of the loop, with the library that travels.
    step "package-$(basename "$set")" 120 "${package[@]}" "$root/scripts/jax-package-loop.py" \
      --dry-run --fixtures "$set" --exports "$exports" --report "$report"
  else
    step "reload-$(basename "$set")" 120 python3 "$root/scripts/reload-jax-exports.py" \
      --fixtures "$set" --exports "$exports" --report "$report"
    # The same through the Python package: from_compiled, to_compiled.
    step "package-$(basename "$set")" 120 "${package[@]}" "$root/scripts/jax-package-loop.py" \
      --fixtures "$set" --exports "$exports" --report "$report"
  fi
done

note ""
note "## What JAX users hold: a compilation cache, an XLA dump, serialize() pickles, deviceless AOT executables"
containers="$work/containers"
if [ $dry = 1 ]; then
  note "- skipped: making caches, dumps, pickles and AOT executables needs JAX on a GPU"
else
  step jax-containers 240 python3 "$root/scripts/make-jax-containers.py" "$containers" --part-seconds 100
  [ -f "$containers/manifest.json" ] && quote jax-containers
  listed="$containers"
  # What thunky makes of each today; the files themselves come back in
  # jax-containers.tar.gz.
  while read -r file; do
    note "  - ${file#"$containers"/}: $(timeout 20 "$container" info "$file" < /dev/null 2>&1 | head -1)"
  done < <(find "$containers/cache" "$containers/dump" "$containers/pickle" "$containers/aot" \
             -maxdepth 1 -type f \( -name '*-cache' -o -name '*gpu_executable*' \
             -o -name '*[a-z].pickle' -o -name '*.exe' \) ! -name '*.trees.pickle' 2>/dev/null | sort | head -60)
fi

# thunky-container ls over the cache folder and the dump folder: what was
# made now, or in the dry run the committed ones.
[ $dry = 1 ] && listed="$(ls -d "$root"/test/Translate/jax-fixtures/*/containers 2>/dev/null | tail -1)"
for folder in cache dump; do
  [ -d "${listed:-}/$folder" ] || continue
  step "ls-$folder" 30 "$container" ls "$listed/$folder" && quote "ls-$folder"
done

# The real-shaped step the containers part made runs, against JAX's own
# outputs for the inputs the part saved (its dynamic-slice fusions
# included), and is timed, too.
if [ -f "$containers/step/mlp-step.exe" ]; then
  flags=(--backend cuda --max-iterations 100000 --timeout 45 --seed 1)
  export THUNKY_CUDA_SIM_EXECUTABLE="$containers/step/mlp-step.exe"
  if [ -f "$containers/step/in0.npy" ] && [ -f "$containers/step/in1.npy" ]; then
    mkdir -p "$work/mlp-step.jax" "$work/mlp-step.cuda" "$work/mlp-step.graph"
    cp "$containers"/step/out*.npy "$work/mlp-step.jax/"
    step mlp-step-vs-jax 60 "$run" --backend cuda --max-iterations 100000 --timeout 45 \
      "$containers/step/mlp-step.exe" "$containers/step/in0.npy" "$containers/step/in1.npy" \
      -o "$work/mlp-step.cuda" &&
      step mlp-step-vs-jax-within-gemm-tolerance 60 python3 "$compare" "${gemm_tolerance[@]}" \
        "$work/mlp-step.jax" "$work/mlp-step.cuda"
    step mlp-step-graph-vs-jax 60 "$run" --backend cuda --cuda-graph --graph-min-size 1 \
      --max-iterations 100000 --timeout 45 "$containers/step/mlp-step.exe" \
      "$containers/step/in0.npy" "$containers/step/in1.npy" -o "$work/mlp-step.graph" &&
      step mlp-step-graph-vs-jax-within-gemm-tolerance 60 python3 "$compare" \
        "${gemm_tolerance[@]}" "$work/mlp-step.jax" "$work/mlp-step.graph"
  fi
  step mlp-step-cuda 60 "$run" "${flags[@]}" "$containers/step/mlp-step.exe" &&
    cases+=(mlp-step-cuda) &&
    case_args[mlp-step-cuda]="$(printf '%q ' "${flags[@]}" "$containers/step/mlp-step.exe")" &&
    case_exe[mlp-step-cuda]="$containers/step/mlp-step.exe"
fi

note ""
note "## Timings (100 runs each, while the budget lasts)"
for c in "${cases[@]}"; do
  [ $((budget - SECONDS - reserve)) -ge 30 ] || { note "- skipped: the remaining timings (budget)"; break; }
  eval "flags=(${case_args[$c]})"
  step "$c-timing" 60 "$run" --repeat 100 "${flags[@]}" && note "    $(timing "$c-timing")"
done

note ""
note "## The schedule model against the GPU (docs/schedule.md)"
# Each eager case again with every thunk timed (--trace); the model then
# predicts the step from those durations, and from its own: the first
# against the measured step (from the timings above) tests the replay, the
# second the device model, kind by kind (scripts/schedule_errors.py).
traces="$work/traces"
mkdir -p "$traces"
for c in "${cases[@]}"; do
  [ -f "$logs/$c-timing.log" ] || continue
  [ $((budget - SECONDS - reserve)) -ge 20 ] || { note "- skipped: the remaining schedule checks (budget)"; break; }
  eval "flags=(${case_args[$c]})"
  # A graph case is predicted with the same graphs (--command-buffers),
  # from its own trace, where CUPTI timed each node or the gate each of a
  # graph's thunks enqueued one by one (docs/runtime.md, "Timing"): its
  # measured step against the eager one's is what launching graphs buys.
  # The modelled step runs loops and branches as the trace saw them
  # (--counts-from).
  if [ "${c%-graph}" != "$c" ]; then
    own="$traces/$c.trace.json"
    step "$c-trace" 60 "$run" --repeat 20 --trace "$own" "${flags[@]}"
    counts=()
    [ -f "$own" ] && counts=(--counts-from "$own") &&
      step "$c-predicted" 30 "$run" --model --command-buffers --graph-min-size 1 \
        --measured "$own" "${case_exe[$c]}" --json "$traces/$c.measured.json" &&
      cp "$logs/$c-predicted.log" "$traces/$c.predicted.log"
    step "$c-modelled" 30 "$run" --model --command-buffers --graph-min-size 1 "${counts[@]}" \
      "${case_exe[$c]}" --json "$traces/$c.model.json" &&
      cp "$logs/$c-timing.log" "$traces/$c.timing.log"
    continue
  fi
  step "$c-trace" 60 "$run" --repeat 20 --trace "$traces/$c.trace.json" "${flags[@]}" &&
    step "$c-predicted" 30 "$run" --model --measured "$traces/$c.trace.json" \
      "${case_exe[$c]}" --json "$traces/$c.measured.json" &&
    cp "$logs/$c-predicted.log" "$traces/$c.predicted.log" &&
    step "$c-modelled" 30 "$run" --model --counts-from "$traces/$c.trace.json" \
      "${case_exe[$c]}" --json "$traces/$c.model.json" &&
    cp "$logs/$c-timing.log" "$traces/$c.timing.log"
  # CUPTI's times against the gate's, on the same thunks.
  grep -qs '"method":"device lanes: CUPTI' "$traces/$c.trace.json" &&
    step "$c-gate" 30 "$run" --repeat 5 --device-timing gate --trace "$traces/$c.gate.json" \
      "${flags[@]}"
done
step schedule-errors 30 python3 "$root/scripts/schedule_errors.py" "$traces" &&
  quote schedule-errors 120

note ""
note "## What thunky-expand-async-scope buys, predicted and measured"
# async-overlap and its expansion (test/Runtime/async-overlap.textproto):
# the model's predicted change against the change in the measured steps.
if [ -f "$fixtures/async-overlap-expanded.pb" ]; then
  step expand-predicted 30 "$run" --model "$fixtures/async-overlap.pb" \
    --compare "$fixtures/async-overlap-expanded.pb" && note "    $(head -1 "$logs/expand-predicted.log")"
  for mode in cuda graph; do
    before="$(timing "async-overlap-$mode-timing")" after="$(timing "async-overlap-expanded-$mode-timing")"
    note "- measured, $mode: before: ${before:-not timed}; after: ${after:-not timed}$(
      python3 - "$before" "$after" <<'PYTHON'
import re, sys
medians = [re.search(r"median ([0-9.]+) ms", s) for s in sys.argv[1:]]
if all(medians):
    a, b = (float(m.group(1)) * 1e3 for m in medians)
    print("; change %+.3f us, %.3fx" % (b - a, b / a if a else 0))
PYTHON
)"
  done
else
  note "- skipped: build-runtime.sh made no async-overlap-expanded.pb (it needs the MLIR build)"
fi
exit
