#!/usr/bin/env bash
# jax-exports.sh OUT [SET...]: the JAX fixtures through thunky's loop, here
# where MLIR is. SET is a fixture set made by scripts/make-jax-fixtures.py
# (manifest.json, NAME.exe); by default every set committed under
# test/Translate/jax-fixtures/, which `jax-exports.sh --list` prints, one a
# line (it needs no build: device-check.sh asks it). For each program of
# each set:
#
#   1. import NAME.exe and export the module again: the bytes must be
#      NAME.exe's, byte for byte;
#   2. thunky-optimize the module and export it to OUT/<set>/NAME.exe;
#   3. run the fixture and the export with fingerprint kernels
#      (thunky-run --kernels=fingerprint --compare): the same outputs, so
#      the optimization kept the meaning; where the fingerprint cannot
#      follow a loop, the symbolic check (--backend symbolic) decides.
#
# scripts/build-runtime.sh writes OUT = build-runtime/jax-exports, which
# travels to the GPU machine with build-runtime/; there scripts/device-check.sh
# loads each export into JAX (scripts/reload-jax-exports.py) and compares
# its outputs with JAX's. Exit status 1 when a step fails for any program.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_BUILD_DIR:-$root/build}"
out="${1:?usage: jax-exports.sh OUT [SET...] | jax-exports.sh --list}"
shift
sets=("$@")
if [ "$out" = --list ] || [ ${#sets[@]} = 0 ]; then
  for manifest in "$root"/test/Translate/jax-fixtures/*/manifest.json; do
    [ -f "$manifest" ] && sets+=("$(dirname "$manifest")")
  done
fi
if [ "$out" = --list ]; then
  [ ${#sets[@]} = 0 ] || printf '%s\n' "${sets[@]}"
  exit 0
fi
if [ ${#sets[@]} = 0 ]; then
  echo "jax-exports: no JAX fixtures are committed under test/Translate/jax-fixtures" \
    "(scripts/device-check.sh makes them on a GPU)"
  exit 0
fi

status=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "jax-exports: $1: $2" >&2; status=1; }
# The optimized export against the fixture: one thunky-optimize left as it
# was compares the fixture with itself, and the line says so.
export_size() {
  if cmp -s "$1" "$2"; then
    echo "identical to the fixture (thunky-optimize changed nothing)"
  else
    echo "$(stat -c %s "$2") bytes (the fixture $(stat -c %s "$1"))"
  fi
}
for set in "${sets[@]}"; do
  name="$(basename "$set")"
  mkdir -p "$out/$name"
  programs="$(python3 - "$set/manifest.json" <<'PYTHON'
import json, sys
try:
    manifest = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(e)
for entry in manifest.get("programs", []):
    if "error" not in entry:
        print(entry["name"], entry["executable"]["file"])
PYTHON
)" || { fail "$set" "cannot read manifest.json (above)"; continue; }
  [ -n "$programs" ] || { fail "$set" "manifest.json lists no program"; continue; }
  while read -r program file; do
    what="$name/$program"
    exe="$set/$file" module="$work/$program.mlir" export="$out/$name/$program.exe"
    if ! "$build/bin/thunky-translate" --import-thunky "$exe" -o "$module" 2> "$work/log"; then
      fail "$what" "import failed: $(head -3 "$work/log")"; continue
    fi
    if ! "$build/bin/thunky-translate" --export-thunky "$module" -o "$work/back" 2> "$work/log" ||
        ! cmp -s "$exe" "$work/back"; then
      fail "$what" "import then export does not give back $file byte for byte $(head -3 "$work/log")"
      continue
    fi
    if ! "$build/bin/thunky-opt" --thunky-optimize "$module" -o "$work/optimized.mlir" 2> "$work/log" ||
        ! "$build/bin/thunky-translate" --export-thunky "$work/optimized.mlir" -o "$export" \
          2> "$work/log"; then
      fail "$what" "optimizing or exporting failed: $(head -3 "$work/log")"; continue
    fi
    if ! "$build/bin/thunky-run" --kernels=fingerprint --seed 1 "$exe" --compare "$export" \
        > "$work/log" 2>&1; then
      # A loop whose counter lives in scratch and is updated in place never
      # ends under fingerprint kernels (docs/checking.md); the symbolic
      # check takes such a loop as a function and decides.
      if grep -q "ran past --max-iterations" "$work/log"; then
        if "$build/bin/thunky-run" --backend symbolic "$exe" --compare "$export" > "$work/log" 2>&1
        then
          echo "jax-exports: $what: byte-identical round trip; optimized export" \
            "$(export_size "$exe" "$export"), same outputs" \
            "(symbolically: the fingerprint cannot follow its loop)"
          continue
        fi
        fail "$what" "the optimized export means something else (symbolically): $(head -3 "$work/log")"
        continue
      fi
      fail "$what" "the optimized export means something else: $(head -3 "$work/log")"; continue
    fi
    echo "jax-exports: $what: byte-identical round trip; optimized export" \
      "$(export_size "$exe" "$export"), same outputs"
  done <<< "$programs"
done
exit $status
