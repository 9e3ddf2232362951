#!/usr/bin/env bash
# run_collective.sh KIND WORKDIR N...: for each rank count N, makes the
# executable for collective KIND (collectives.py), runs it with N ranks on
# the host backend (or THUNKY_TEST_BACKEND, with THUNKY_TEST_RUN_ARGS), and
# checks every rank's output.
set -euo pipefail
kind="$1" work="$2"
shift 2
here="$(cd "$(dirname "$0")" && pwd)"
scripts="$here/../../../scripts"
for n in "$@"; do
  dir="$work/$kind.$n"
  mkdir -p "$dir"
  python3 "$here/collectives.py" make "$kind" "$n" > "$dir/exe.textproto"
  "$scripts/encode.sh" xla.gpu.GpuExecutableProto < "$dir/exe.textproto" > "$dir/exe.pb"
  # The simulated CUDA driver (test/CudaSim) takes kernels' arguments from
  # the executable.
  THUNKY_CUDA_SIM_EXECUTABLE="$dir/exe.pb" thunky-run --backend "${THUNKY_TEST_BACKEND:-host}" \
    ${THUNKY_TEST_RUN_ARGS:-} --ranks "$n" --library "$THUNKY_TEST_KERNELS" "$dir/exe.pb" -o "$dir"
  python3 "$here/collectives.py" check "$kind" "$n" "$dir" > /dev/null
  echo "$kind on $n ranks: every rank as expected${THUNKY_TEST_BACKEND:+ (${THUNKY_TEST_BACKEND}${THUNKY_TEST_RUN_ARGS:+ $THUNKY_TEST_RUN_ARGS})}"
done
