#!/usr/bin/env bash
# cuda_sim_compare.sh NAME EXE [THUNKY-RUN ARGS...]: runs EXE on the host
# backend, then on the CUDA backend over the simulated driver (%cuda_sim,
# test/CudaSim): eager, eager with the simulation's random delays between
# streams, and with XLA's command buffers as CUDA graphs (--cuda-graph, any
# run of one thunk or more, so that every run that can be is captured). Each
# CUDA run's outputs must equal the host's bit for bit; prints one line per
# run (a graph run says how many graphs were made and launched) and exits
# non-zero on the first difference or failure.
set -uo pipefail
name="$1" exe="$2"; shift 2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export THUNKY_CUDA_SIM_EXECUTABLE="$exe"

mkdir -p "$tmp/host"
thunky-run --backend host "$exe" "$@" -o "$tmp/host" > /dev/null || exit 1

run() { # MODE [ENV...] -- [ARGS...]
  local mode="$1"; shift
  local vars=()
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  rm -rf "$tmp/cuda" && mkdir -p "$tmp/cuda"
  if ! env "${vars[@]}" thunky-run --backend cuda "$exe" "$@" -o "$tmp/cuda" \
      > /dev/null 2> "$tmp/err"; then
    echo "$name $mode: failed:" && cat "$tmp/err"
    return 1
  fi
  for out in "$tmp/host"/*.npy; do
    if ! cmp -s "$out" "$tmp/cuda/$(basename "$out")"; then
      echo "$name $mode: $(basename "$out") differs from the host's"
      return 1
    fi
  done
  local graphs
  graphs="$(sed -n 's/^cuda-sim: \(.*graph launches\)$/, \1/p' "$tmp/err")"
  echo "$name $mode: $(ls "$tmp/host" | wc -l) outputs equal to the host's$graphs"
}

run eager -- "$@" || exit 1
run delayed THUNKY_CUDA_SIM_DELAY=1 -- "$@" || exit 1
run graph THUNKY_CUDA_SIM_GRAPHS=1 -- --cuda-graph --graph-min-size 1 "$@" || exit 1
