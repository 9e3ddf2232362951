#!/usr/bin/env bash
# cuda_sim_two_processes.sh KIND WORKDIR [ENV1...]: runs collective KIND
# (collectives.py) as two processes of one rank each on the CUDA backend
# over the simulated driver and NCCL, meeting through NCCL's id file as on
# two hosts, and checks both ranks' outputs. ENV1 (VAR=VALUE words) is given
# to the second process only, to make it fail on purpose; each process's
# exit status and messages are then printed instead. THUNKY_TEST_RUN_ARGS
# are more thunky-run options for both.
set -uo pipefail
kind="$1" work="$2"
shift 2
here="$(cd "$(dirname "$0")" && pwd)"
dir="$work/$kind.2p"
rm -rf "$dir" && mkdir -p "$dir/p0" "$dir/p1"
python3 "$here/collectives.py" make "$kind" 2 > "$dir/exe.textproto"
"$here/../../../scripts/encode.sh" xla.gpu.GpuExecutableProto < "$dir/exe.textproto" > "$dir/exe.pb"
export THUNKY_CUDA_SIM_EXECUTABLE="$dir/exe.pb" THUNKY_WORLD_SIZE=2
start() { # RANK [ENV...]
  local rank="$1"; shift
  env THUNKY_RANK="$rank" "$@" thunky-run --backend cuda ${THUNKY_TEST_RUN_ARGS:-} --nccl-id "$dir/id" \
    --library "$THUNKY_TEST_KERNELS" "$dir/exe.pb" -o "$dir/p$rank" > "$dir/p$rank.log" 2>&1
}
start 0 & first=$!
start 1 "$@" & second=$!
wait $first; s0=$?
wait $second; s1=$?
if [ $# -gt 0 ]; then
  echo "process 0: exit $s0: $(tr '\n' ' ' < "$dir/p0.log")"
  echo "process 1: exit $s1: $(tr '\n' ' ' < "$dir/p1.log")"
  exit 0
fi
if [ $s0 -ne 0 ] || [ $s1 -ne 0 ]; then
  cat "$dir/p0.log" "$dir/p1.log"
  exit 1
fi
cp "$dir/p0/out0.npy" "$dir/out0.npy" && cp "$dir/p1/out0.npy" "$dir/out0.rank1.npy"
python3 "$here/collectives.py" check "$kind" 2 "$dir" > /dev/null || exit 1
echo "$kind on 2 processes: both ranks as expected"
