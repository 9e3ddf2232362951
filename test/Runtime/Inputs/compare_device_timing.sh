#!/usr/bin/env bash
# compare_device_timing.sh WORKDIR NAME EXE [ARG...]: runs EXE on the CUDA
# backend three times with a trace: device times by the gate, by CUPTI, and
# by CUPTI with command buffers as CUDA graphs (of one thunk or more), and
# fails unless each thunk's device time on each stream is the same in all
# three (device_times.py), but for what the gate cannot time: a custom
# call runs with the gate open, as it may wait for its stream, and only
# CUPTI sees its work. The simulation times work the same however it is
# enqueued, so any difference is a thunk given another's work, or none.
# The simulated driver and CUPTI must be on LD_LIBRARY_PATH.
set -euo pipefail
work="$1" name="$2" exe="$3"
shift 3
here="$(cd "$(dirname "$0")" && pwd)"
export THUNKY_CUDA_SIM_EXECUTABLE="$exe"
times() {
  python3 "$here/device_times.py" "$1" | tail -n +2
}
thunky-run --backend cuda "$exe" "$@" --device-timing gate --trace "$work/$name.gate.json" >/dev/null
thunky-run --backend cuda "$exe" "$@" --device-timing cupti --trace "$work/$name.cupti.json" >/dev/null
thunky-run --backend cuda "$exe" "$@" --device-timing cupti --command-buffers \
  --graph-min-size 1 --trace "$work/$name.graphs.json" >/dev/null
times "$work/$name.gate.json" > "$work/$name.gate.txt"
times "$work/$name.cupti.json" > "$work/$name.cupti.txt"
times "$work/$name.graphs.json" > "$work/$name.graphs.txt"
[ -s "$work/$name.gate.txt" ] || { echo "$name: no device times"; exit 1; }
missing="$(comm -23 <(sort "$work/$name.gate.txt") <(sort "$work/$name.cupti.txt"))"
[ -z "$missing" ] || { echo "$name: CUPTI differs from the gate on:"; echo "$missing"; exit 1; }
diff "$work/$name.cupti.txt" "$work/$name.graphs.txt" || { echo "$name: graphs differ"; exit 1; }
echo "$name: $(wc -l < "$work/$name.cupti.txt") thunks alike"
comm -13 <(sort "$work/$name.gate.txt") <(sort "$work/$name.cupti.txt") | sed 's/^/  only CUPTI: /'

