#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
"$root/scripts/build.sh"

# thunky from outside: installed into an empty prefix, the example pass and
# tool built against it as their own projects, by the docs' own commands.
status=0
"$root/scripts/check-install.sh" || status=1

# The main job, the README's other command, as a user runs it: each step
# stops the demo where what it shows is false (a round trip that is not
# byte-identical, a wrong edit that compares equal); all 8 must run.
demo_out="$(mktemp)"
if "$root/scripts/demo.sh" > "$demo_out" 2>&1 && [ "$(grep -c '^== [0-9]\.' "$demo_out")" -eq 8 ] &&
    [ "$(tail -n 1 "$demo_out")" = "== done" ]; then
  echo "demo: all 8 steps ran and checked what they show"
else
  echo "demo: failed:" >&2
  tail -n 30 "$demo_out" >&2
  status=1
fi
rm -f "$demo_out"

# The Python package (python/, docs/python.md) against this build; the lit
# suite runs the same tests (test/Python), this prints their count.
for suite in thunky_test adversarial_test; do
  if python_out="$(PYTHONPATH="$root/python" THUNKY_BUILD_DIR="$build" \
      /usr/bin/python3 "$root/test/Python/$suite.py" 2>&1)"; then
    echo "$python_out" | tail -n 1
  else
    echo "$python_out" | tail -n 40 >&2
    status=1
  fi
done

# Upstream JAX's own test modules, when the team's shared facts are beside
# the checkout (the lit suite asserts the same; this prints the count).
reference="$root/../shared/reference/upstream-expected-mlir.txt"
if [ -f "$reference" ]; then
  plugin="$build/lib/libThunkyPlugin.so"
  python3 "$root/scripts/check_upstream_modules.py" --reference "$reference" \
    --tool "$build/bin/thunky-opt" \
    --tool "mlir-opt-22 --load-dialect-plugin=$plugin --load-pass-plugin=$plugin" \
    --translate "$build/bin/thunky-translate" ||
    status=1
else
  echo "upstream test modules: $reference not found; skipped (the lit test is UNSUPPORTED)"
fi

# The suite again, built with ASan and UBSan: bad input must never crash,
# read out of bounds or leak. The four tests that repeat the same code over
# whole corpora or thousands of thunks (`UNSUPPORTED: asan`; each names
# where its paths run under ASan) run in the plain build only.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons each new slab when
# it is compiled with ASan, as its inline code is in the plugin's attribute
# storage; Debian's libMLIR, not instrumented, then allocates from the same
# slab without unpoisoning, and every later use of that memory would be
# reported. ASan's own checks of heap, stack and globals are unaffected.
asan="${THUNKY_ASAN_BUILD_DIR:-$root/build-asan}"
"$root/scripts/build-asan.sh"
ASAN_OPTIONS=detect_leaks=1:allow_user_poisoning=0 UBSAN_OPTIONS=print_stacktrace=1 \
  /usr/lib/llvm-22/bin/lit -s "$asan/test" || status=1

# The portable thunky-run (no MLIR; protobuf-c, snappy, zstd, brotli and the
# C++ runtime static) builds, needs none of them at run time (the script
# checks with ldd), and runs an executable.
"$root/scripts/build-runtime.sh" || status=1
portable="$(mktemp -d)"
"$root/scripts/encode.sh" xla.gpu.GpuExecutableProto < "$root/test/Runtime/ids.textproto" \
  > "$portable/ids.pb"
if "${THUNKY_RUNTIME_BUILD_DIR:-$root/build-runtime}/bin/thunky-run" --ranks 4 --partitions 2 \
    --print "$portable/ids.pb" | grep -q "rank 3 out0: u32\[2\] = \[1, 1\]"; then
  echo "portable thunky-run: runs without MLIR, protobuf-c or snappy installed"
else
  echo "portable thunky-run: failed to run test/Runtime/ids.textproto" >&2
  status=1
fi
rm -rf "$portable"

# The GPU check as far as it goes without a GPU: every step on the
# simulated driver, NCCL and cuBLASLt (scripts/device-check.sh --dry-run).
# A machine without the CUDA toolkit's headers builds no cuda backend
# (runtime/CMakeLists.txt), so there is nothing to simulate: say so.
if ! grep -q '^config.cuda_backend = True' "$build/test/lit.site.cfg.py"; then
  echo "device-check --dry-run: skipped: thunky was built without the CUDA headers" \
    "(cuda.h, nccl.h, cublasLt.h; CUDA_INCLUDE_DIR), so without its cuda backend"
else
  dry="$(mktemp -d)"
  # Every step the dry run has passes: a step added or left out changes
  # this count, and the change is made here on purpose.
  dry_steps=154
  if "$root/scripts/device-check.sh" --dry-run "$dry" > /dev/null &&
      [ "$(grep -c '^- pass' "$dry/device-check.md")" -eq $dry_steps ]; then
    echo "device-check --dry-run: all $dry_steps steps pass on the simulation"
  else
    echo "device-check --dry-run: expected $dry_steps steps to pass," \
      "$(grep -c '^- pass' "$dry/device-check.md" || true) did:" >&2
    cat "$dry/device-check.md" >&2
    status=1
  fi
  rm -rf "$dry"
  # Made to hang, a step is cut at its deadline and the rest still runs; killed
  # from outside, the check still leaves its report and logs.
  hang="$(mktemp -d)" killed="$(mktemp -d)"
  # Both fail on purpose: what they leave behind is what is checked.
  THUNKY_DEVICE_CHECK_HANG=gemm-cuda THUNKY_DEVICE_CHECK_STEP_SECONDS=5 \
    "$root/scripts/device-check.sh" --dry-run "$hang" > /dev/null || true
  THUNKY_DEVICE_CHECK_HANG=libraries timeout -s TERM 5 \
    "$root/scripts/device-check.sh" --dry-run "$killed" > /dev/null || true
  if grep -q '^- TIMEOUT: gemm-cuda, cut after 5 s' "$hang/device-check.md" &&
      grep -q '^- pass: all-reduce-one-rank-graph-bit-for-bit' "$hang/device-check.md" &&
      grep -q '^exit status: 1' "$hang/device-check.md" && [ -f "$hang/logs.tar.gz" ] &&
      [ "$(find "$hang" -type f | wc -l)" -le 8 ] &&
      grep -q '^- CUT: the check was stopped by SIGTERM during libraries' "$killed/device-check.md" &&
      [ -f "$killed/logs.tar.gz" ]; then
    echo "device-check --dry-run: a hanging step is cut, a killed check leaves its report"
  else
    cat "$hang/device-check.md" "$killed/device-check.md" >&2
    status=1
  fi
  rm -rf "$hang" "$killed"
fi

# A Debian 12 machine without the CUDA toolkit: the runtime builds with its
# cuda backend left out, saying so at configure time and when asked for it,
# and its C tests pass (the whole suite does too: with the headers hidden,
# its cuda tests are UNSUPPORTED and device-check's dry run says why above).
nocuda="$(mktemp -d)"
hidden="$(find /usr/include /usr/local/cuda*/include /usr/local/include -maxdepth 1 \
  -name cuda.h -printf '%h;' 2>/dev/null || true)"
if cmake -G Ninja -S "$root" -B "$nocuda" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
      -DCMAKE_CXX_COMPILER=clang++ -DTHUNKY_ENABLE_MLIR=OFF "-DCMAKE_IGNORE_PATH=${hidden%;}" \
      > "$nocuda/configure.txt" 2>&1 &&
    grep -q "no CUDA backend: thunky-run --backend cuda will say it was left out" \
      "$nocuda/configure.txt" &&
    ninja -C "$nocuda" > /dev/null && ctest --test-dir "$nocuda" > /dev/null &&
    ! "$nocuda/bin/thunky-run" --backend cuda --seed 1 \
      "$root/test/Translate/jax-fixtures/0.11.2/matmul.exe" 2> "$nocuda/run.txt" &&
    grep -q "built without the CUDA backend" "$nocuda/run.txt"; then
  echo "without the CUDA headers: the runtime builds, its tests pass, and --backend cuda says it was left out"
else
  echo "without the CUDA headers: the runtime did not build or say so:" >&2
  tail -n 20 "$nocuda/configure.txt" "$nocuda/run.txt" >&2
  status=1
fi
rm -rf "$nocuda"

# format/ and runtime/ on their own: built without MLIR, their C tests run.
runtime_build="${THUNKY_RUNTIME_BUILD_DIR:-$root/build-runtime}"
ninja -C "$runtime_build" >/dev/null && ctest --test-dir "$runtime_build" --output-on-failure ||
  status=1

# The tools under valgrind over the fixtures: no definite leaks.
"$root/scripts/leak-check.sh" || status=1

# The regression corpus replays in the lit suites (test/Fuzz); each fuzz
# target also runs briefly from its seeds (scripts/fuzz.sh FUZZ_SECONDS=600
# is the full run).
FUZZ_SECONDS="${FUZZ_SECONDS:-10}" FUZZ_PARALLEL=2 "$root/scripts/fuzz.sh" || status=1

cd "$build"
# The summaries below are this run's: none an earlier run left is read.
rm -f "$build"/test/Passes/Output/equivalence-*.test.tmp.summary \
  "$build/test/Checking/Output/mutation-campaign.test.tmp.md" \
  "$build"/test/Schedule/Output/*.test.tmp.summary
ctest --output-on-failure || status=1
# What the equivalence tests proved, each comparison and race check made
# with fingerprints and again symbolically (test/Passes/equivalence-*.test).
# Before issue 43 closed the check's holes, the same tests proved 77 of
# the 86 fixtures and made 20 bench-gen comparisons (docs/checking.md).
for summary in "$build"/test/Passes/Output/equivalence-*.test.tmp.summary; do
  [ -f "$summary" ] && echo "$(basename "$summary" .test.tmp.summary): $(grep '^equivalence:' "$summary")"
done
echo "equivalence before issue 43: fixtures 77 of 86 inputs proved; bench-gen 20 comparisons"
# The mutation campaign's sample, wrong programs asked of both checks
# (test/Checking/mutation-campaign.test; docs/mutation-campaign.md is the
# whole campaign, scripts/mutation_campaign.py makes it again).
campaign="$build/test/Checking/Output/mutation-campaign.test.tmp.md"
[ -f "$campaign" ] && echo "sample: $(grep -m1 '^mutation campaign:' "$campaign")"
# What the schedule model predicts of the async passes and of a real JAX
# step (test/Schedule/*.test).
for summary in "$build"/test/Schedule/Output/*.test.tmp.summary; do
  [ -f "$summary" ] && cat "$summary"
done
exit $status
