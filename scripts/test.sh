#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
"$root/scripts/build.sh"

# Upstream JAX's own test modules, when the team's shared facts are beside
# the checkout (the lit suite asserts the same; this prints the count).
status=0
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

cd "$build"
ctest --output-on-failure || status=1
exit $status
