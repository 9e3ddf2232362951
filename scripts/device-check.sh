#!/usr/bin/env bash
# device-check.sh [--dry-run] OUT: the checks that need a GPU, as one
# prepared command for a machine with an NVIDIA GPU, its driver, NCCL, JAX
# and numpy, and no package registry. Run from the repository root with
# build-runtime/ carried along (scripts/build-runtime.sh builds it here: the
# portable thunky-run and thunky-container need only libc, and the JAX
# fixtures' optimized exports); it builds nothing there.
#
#   1. The CUDA backend on the runtime fixtures that need no host kernels
#      (memory ops, ids on 4 GPUs when there are 4, a gemm, an all-reduce
#      through NCCL on one rank), eager and as CUDA graphs, bit for bit
#      against the host backend, with thunky-run's timings.
#   2. The JAX fixtures (scripts/make-jax-fixtures.py), the schema against
#      jaxlib's (scripts/check-jax-schema.py), the container layering of
#      each (thunky-container info); each executable on the CUDA backend,
#      bit for bit against JAX's outputs, timed against JAX's own run.
#   3. The committed JAX fixtures (test/Translate/jax-fixtures/*/), as
#      scripts/build-runtime.sh optimized and exported them here
#      (build-runtime/jax-exports/, scripts/jax-exports.sh), loaded back
#      into JAX (scripts/reload-jax-exports.py: deserialize_executable): their
#      outputs must be the fixtures' bit for bit.
#   4. OUT then holds at most 8 files: device-check.md (the report),
#      jax-fixtures.tar.gz (the fixtures, under 5 MB, to commit) and
#      logs.tar.gz (each step's output).
#
# --dry-run runs every step that needs no GPU here, against the simulated
# driver, NCCL and cuBLASLt (test/CudaSim, from build/); the steps that need
# JAX or a GPU are reported as skipped. The test command runs it.
set -uo pipefail
dry=0
if [ "${1:-}" = "--dry-run" ]; then dry=1; shift; fi
out="${1:?usage: device-check.sh [--dry-run] OUT}"
root="$(cd "$(dirname "$0")/.." && pwd)"
run="${THUNKY_RUN:-$root/build-runtime/bin/thunky-run}"
container="${THUNKY_CONTAINER:-$root/build-runtime/bin/thunky-container}"
fixtures="$root/build-runtime/fixtures"
report="$out/device-check.md"
work="$out/work"
mkdir -p "$work"
status=0
note() { echo "$*" | tee -a "$report"; }
check() { # NAME COMMAND...: runs it, records pass or fail
  local name="$1"
  shift
  if "$@" > "$work/$name.log" 2>&1; then note "- pass: $name"; else
    note "- FAIL: $name (see logs.tar.gz: $name.log)"; status=1; fi
}

: > "$report"
note "# Device check$([ $dry = 1 ] && echo ' (dry run, on the simulated driver)'), $(date -u +%Y-%m-%dT%H:%MZ)"
note ""
if [ $dry = 1 ]; then
  sim="$root/build/lib/cuda-sim"
  [ -f "$sim/libcuda.so.1" ] || { note "no simulated driver at $sim (run scripts/build.sh)"; exit 1; }
  export LD_LIBRARY_PATH="$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" THUNKY_CUDA_SIM_CHECK_LEAKS=1
  gpus="${THUNKY_CUDA_SIM_DEVICES:-4}"
  note "simulated: $gpus devices (test/CudaSim)"
else
  note '```'
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee -a "$report"
  note '```'
  gpus="$(nvidia-smi -L 2>/dev/null | wc -l)"
fi
[ -x "$run" ] || { note "no thunky-run at $run (carry build-runtime/)"; exit 1; }

note ""
note "## CUDA backend against the host backend"
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/in.npy" f32 4 1 2 3 4
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/a.npy" f32 2,3 1 2 3 4 5 6
python3 "$root/test/Runtime/Inputs/npy.py" write "$work/b.npy" f32 3,2 7 8 9 10 11 12
for fixture in memops ids gemm all-reduce-one-rank; do
  args=() ranks=1 partitions=1 graph=1
  case "$fixture" in
    memops | all-reduce-one-rank) args=("$work/in.npy") ;;
    gemm) args=("$work/a.npy" "$work/b.npy") ;;
    ids) [ "$gpus" -ge 4 ] && ranks=4 partitions=2 ;;
  esac
  # Encoded by build-runtime.sh: the GPU machine may have no protoc.
  exe="$fixtures/$fixture.pb"
  export THUNKY_CUDA_SIM_EXECUTABLE="$exe"
  mkdir -p "$work/$fixture.host" "$work/$fixture.cuda" "$work/$fixture.graph"
  check "$fixture-host" "$run" --ranks "$ranks" --partitions "$partitions" "$exe" "${args[@]}" \
    -o "$work/$fixture.host"
  check "$fixture-cuda" "$run" --backend cuda --ranks "$ranks" --partitions "$partitions" \
    --repeat 100 "$exe" "${args[@]}" -o "$work/$fixture.cuda"
  check "$fixture-cuda-same" diff -r "$work/$fixture.host" "$work/$fixture.cuda"
  check "$fixture-graph" "$run" --backend cuda --cuda-graph --ranks "$ranks" \
    --partitions "$partitions" --repeat 100 "$exe" "${args[@]}" -o "$work/$fixture.graph"
  check "$fixture-graph-same" diff -r "$work/$fixture.host" "$work/$fixture.graph"
  timing="$(grep -h -m1 "runs on" "$work/$fixture-cuda.log" "$work/$fixture-graph.log" \
    2>/dev/null | tr '\n' ';')"
  [ -n "$timing" ] && note "  - $fixture timings (eager; graph): $timing"
done

note ""
note "## JAX fixtures: thunky-run --backend cuda against JAX"
jax="$out/jax"
if [ $dry = 1 ]; then
  note "- skipped: making the JAX fixtures needs JAX on a GPU"
else
  check jax-fixtures python3 "$root/scripts/make-jax-fixtures.py" --out "$jax"
  check jax-schema python3 "$root/scripts/check-jax-schema.py" --out "$jax"
fi
if [ -f "$jax/manifest.json" ]; then
  for exe in "$jax"/*.exe; do
    note "  - $(basename "$exe"): $("$container" info "$exe" 2>&1 | head -1)"
  done
  python3 - "$jax" "$run" "$report" <<'PYTHON' || status=1
import json, os, subprocess, sys
import numpy as np
folder, run, report = sys.argv[1:]
manifest = json.load(open(folder + "/manifest.json"))
lines, failed = [], False
for p in manifest.get("programs", []):
    name = p["name"]
    exe = "%s/%s" % (folder, p["executable"]["file"])
    inputs = ["%s/%s" % (folder, f["file"]) for f in p.get("inputs", [])]
    outdir = "%s/%s.thunky" % (folder, name)
    os.makedirs(outdir, exist_ok=True)
    os.environ["THUNKY_CUDA_SIM_EXECUTABLE"] = exe
    done = subprocess.run([run, "--backend", "cuda", exe] + inputs + ["-o", outdir, "--repeat", "100"],
                          capture_output=True, text=True)
    if done.returncode:
        lines.append("- FAIL %s: %s" % (name, done.stderr.strip()[:300])); failed = True; continue
    same = all(np.array_equal(np.load("%s/%s" % (folder, f["file"])),
                              np.load("%s/out%d.npy" % (outdir, i)))
               for i, f in enumerate(p.get("outputs", [])))
    timing = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "?"
    lines.append("- %s %s: %s; thunky-run %s; JAX %s" % (
        "pass" if same else "FAIL", name, "outputs bit-identical" if same else "outputs differ",
        timing, p.get("jax_time", "?")))
    failed |= not same
open(report, "a").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if failed else 0)
PYTHON
fi

note ""
note "## Optimized exports back in JAX"
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
  else
    python3 "$root/scripts/reload-jax-exports.py" --fixtures "$set" --exports "$exports" \
      --report "$report" > "$work/reload-$(basename "$set").log" 2>&1 || {
      note "- FAIL: reloading $(basename "$set") (see logs.tar.gz: reload-$(basename "$set").log)"
      status=1
    }
  fi
done

# What comes back: at most 8 files.
if [ -d "$jax" ]; then
  tar -czf "$out/jax-fixtures.tar.gz" -C "$jax" . && rm -rf "$jax"
  bytes="$(stat -c %s "$out/jax-fixtures.tar.gz")"
  [ "$bytes" -lt 5000000 ] || { note "- FAIL: jax-fixtures.tar.gz is $bytes bytes (5 MB at most)"; status=1; }
fi
note ""
note "exit status: $status"
tar -czf "$out/logs.tar.gz" -C "$work" . && rm -rf "$work"
files="$(find "$out" -type f | wc -l)"
if [ "$files" -gt 8 ]; then
  echo "device-check: $files files in $out; the device machine hands back 8" >&2
  status=1
fi
exit $status
