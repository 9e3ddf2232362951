#!/usr/bin/env bash
# device-check.sh OUT: the checks that need a GPU, as one prepared command
# for a machine with an NVIDIA GPU, its driver, NCCL, JAX and numpy (no
# package registry needed). Run from the repository root:
#
#   scripts/device-check.sh "$OUT"
#
# with build-runtime/ carried along (scripts/build-runtime.sh builds it
# here; the portable thunky-run needs only libc). It
#   1. runs the CUDA backend on the runtime fixtures that need no host
#      kernels (memory ops, ids on 4 GPUs when there are 4, GEMM) and
#      compares with the host backend bit for bit;
#   2. makes the JAX fixtures (scripts/make-jax-fixtures.py), checks the
#      schema against jaxlib's (scripts/check-jax-schema.py), runs each
#      serialized executable on the CUDA backend, compares the outputs
#      with JAX's bit for bit, and times thunky-run against JAX's own
#      execution;
#   3. writes everything to OUT/device-check.md (for docs/runtime.md).
set -uo pipefail
out="${1:?usage: device-check.sh OUT}"
root="$(cd "$(dirname "$0")/.." && pwd)"
run="${THUNKY_RUN:-$root/build-runtime/bin/thunky-run}"
report="$out/device-check.md"
mkdir -p "$out/work"
status=0
note() { echo "$*" | tee -a "$report"; }
check() { # name command...: runs, records pass/fail
  local name="$1"
  shift
  if "$@" > "$out/work/$name.log" 2>&1; then note "- pass: $name"; else
    note "- FAIL: $name (see work/$name.log)"; status=1; fi
}

: > "$report"
note "# Device check, $(date -u +%Y-%m-%dT%H:%MZ)"
note ""
note '```'
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee -a "$report"
note '```'
gpus="$(nvidia-smi -L 2>/dev/null | wc -l)"
[ -x "$run" ] || { note "no thunky-run at $run (carry build-runtime/)"; exit 1; }

note ""
note "## CUDA backend against the host backend"
for fixture in memops ids gemm; do
  args=()
  case "$fixture" in
    memops) python3 "$root/test/Runtime/Inputs/npy.py" write "$out/work/in.npy" f32 4 1 2 3 4
            args=("$out/work/in.npy") ;;
    gemm) python3 "$root/test/Runtime/Inputs/npy.py" write "$out/work/a.npy" f32 2,3 1 2 3 4 5 6
          python3 "$root/test/Runtime/Inputs/npy.py" write "$out/work/b.npy" f32 3,2 7 8 9 10 11 12
          args=("$out/work/a.npy" "$out/work/b.npy") ;;
  esac
  ranks=1 partitions=1
  [ "$fixture" = ids ] && [ "$gpus" -ge 4 ] && ranks=4 partitions=2
  # Encoded here by build-runtime.sh: the GPU machine may have no protoc.
  exe="$root/build-runtime/fixtures/$fixture.pb"
  mkdir -p "$out/work/$fixture.host" "$out/work/$fixture.cuda"
  check "$fixture-host" "$run" --ranks "$ranks" --partitions "$partitions" "$exe" "${args[@]}" \
    -o "$out/work/$fixture.host"
  check "$fixture-cuda" "$run" --backend cuda --ranks "$ranks" --partitions "$partitions" \
    "$exe" "${args[@]}" -o "$out/work/$fixture.cuda"
  check "$fixture-same" diff -r "$out/work/$fixture.host" "$out/work/$fixture.cuda"
done

note ""
note "## JAX fixtures: thunky-run --backend cuda against JAX"
check jax-fixtures python3 "$root/scripts/make-jax-fixtures.py" --out "$out/jax"
check jax-schema python3 "$root/scripts/check-jax-schema.py" --out "$out/jax"
python3 - "$out/jax" "$run" "$report" <<'PYTHON' || status=1
import json, subprocess, sys, time
import numpy as np
folder, run, report = sys.argv[1:]
manifest = json.load(open(folder + "/manifest.json"))
lines, failed = [], False
for p in manifest.get("programs", []):
    name = p["name"]
    inputs = ["%s/%s" % (folder, f["file"]) for f in p.get("inputs", [])]
    outdir = "%s/%s.thunky" % (folder, name)
    subprocess.run(["mkdir", "-p", outdir])
    cmd = [run, "--backend", "cuda", "%s/%s" % (folder, p["executable"]["file"])] + inputs
    start = time.time()
    done = subprocess.run(cmd + ["-o", outdir, "--repeat", "100"], capture_output=True, text=True)
    if done.returncode:
        lines.append("- FAIL %s: %s" % (name, done.stderr.strip()[:300])); failed = True; continue
    same = all(np.array_equal(np.load("%s/%s" % (folder, f["file"])),
                              np.load("%s/out%d.npy" % (outdir, i)))
               for i, f in enumerate(p.get("outputs", [])))
    lines.append("- %s %s: %s; thunky-run %s; JAX %s" % (
        "pass" if same else "FAIL", name, "outputs bit-identical" if same else "outputs differ",
        done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "?",
        p.get("jax_time", "?")))
    failed |= not same
open(report, "a").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if failed else 0)
PYTHON
note ""
note "exit status: $status"
exit $status
