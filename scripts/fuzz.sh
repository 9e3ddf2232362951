#!/usr/bin/env bash
# fuzz.sh [TARGET...]: runs thunky's libFuzzer targets, each for FUZZ_SECONDS
# (default 600), FUZZ_PARALLEL at a time (default 1).
#
# Targets (test/Fuzz/fuzz_*.c): import, export, riegeli, plan, npy, trace,
# equivalence, programs (all by default). They are built in build-asan/ (scripts/build-asan.sh: ASan,
# UBSan, libFuzzer), seeded from the test fixtures (test/Fuzz/make_seeds.sh)
# and the regression corpus (test/Fuzz/regressions/TARGET), and grow a
# corpus in build-asan/fuzz/corpus/TARGET that the next run starts from.
# A crash, leak, timeout or out-of-memory leaves its input under
# build-asan/fuzz/artifacts/TARGET/ and makes the script exit 1; once fixed,
# copy the input into test/Fuzz/regressions/TARGET/, which the test suite
# replays. Prints, per target, executions per second and the corpus size.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
asan="${THUNKY_ASAN_BUILD_DIR:-$root/build-asan}"
seconds="${FUZZ_SECONDS:-600}"
parallel="${FUZZ_PARALLEL:-1}"
all=(import export riegeli plan npy trace equivalence programs)
targets=("${@:-${all[@]}}")
for t in "${targets[@]}"; do
  case " ${all[*]} " in *" $t "*) ;; *) echo "fuzz.sh: unknown target $t (${all[*]})" >&2; exit 2 ;; esac
done

"$root/scripts/setup.sh" >/dev/null
"$root/scripts/build-asan.sh"
work="$asan/fuzz"
mkdir -p "$work"
bash "$root/test/Fuzz/make_seeds.sh" "$asan/bin" "$work/seeds" >/dev/null

# libFuzzer pulls libstdc++ in ahead of ASan's runtime, which must come
# first: preload it.
asan_runtime="$(clang -print-file-name=libclang_rt.asan-x86_64.so)"

dict() {
  case "$1" in
    import | export | plan | equivalence) echo "-dict=$root/test/Fuzz/protobuf.dict" ;;
    riegeli) echo "-dict=$root/test/Fuzz/riegeli.dict" ;;
    npy) echo "-dict=$root/test/Fuzz/npy.dict" ;;
    trace) echo "-dict=$root/test/Fuzz/trace.dict" ;;
  esac
}

# The program generator reads a few hundred choices; longer inputs only
# slow it.
maxlen() { [ "$1" = programs ] && echo 4096 || echo 65536; }

# One target: libFuzzer writes new inputs into the first directory and reads
# the others. -rss_limit_mb and -timeout turn unbounded memory and hangs into
# reported failures.
run() {
  local t="$1" corpus="$work/corpus/$1" artifacts="$work/artifacts/$1/"
  local regressions="$root/test/Fuzz/regressions/$1"
  mkdir -p "$corpus" "$artifacts" "$regressions"
  local rc=0
  LD_PRELOAD="$asan_runtime" ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:allow_user_poisoning=0 \
    UBSAN_OPTIONS=print_stacktrace=1 "$asan/bin/thunky-fuzz-$t" "$corpus" "$work/seeds/$t" "$regressions" $(dict "$t") \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 -max_len="$(maxlen "$t")" \
    -artifact_prefix="$artifacts" -print_final_stats=1 >"$work/$t.log" 2>&1 || rc=$?
  local runs rate
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$t.log" | tail -1)"
  local files bytes
  files="$(find "$corpus" -type f | wc -l)"
  bytes="$(du -sk "$corpus" | cut -f1)"
  if [ "$rc" = 0 ]; then
    echo "fuzz $t: ${seconds} s, ${runs:-?} runs (${rate:-?}/s), corpus $files inputs (${bytes} KiB): no crash, leak or hang"
  else
    echo "fuzz $t: FAILED (exit $rc) after ${runs:-?} runs; input under $artifacts, log $work/$t.log" >&2
    grep -m3 -E "^==[0-9]+==ERROR|^SUMMARY|thunky fuzz:|runtime error" "$work/$t.log" >&2 || true
  fi
  return "$rc"
}

status=0
pids=()
for t in "${targets[@]}"; do
  run "$t" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$parallel" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
