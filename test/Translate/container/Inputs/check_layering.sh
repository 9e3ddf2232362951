#!/usr/bin/env bash
# check_layering.sh EXE REFERENCE_MLIR LAYERING OPTIONS METADATA WORKDIR
#
# Packs the bare executable EXE in LAYERING with thunky-container, then
# checks that import finds that layering, that the module equals
# REFERENCE_MLIR once the packing attributes are stripped, that export
# writes the same bytes back, and that it exports to EXE's executable.
set -euo pipefail
exe="$1" reference="$2" layering="$3" options="$4" metadata="$5" work="$6"
here="$(cd "$(dirname "$0")" && pwd)"
packed="$work/$layering.bin"
fail() { echo "check_layering.sh: $layering: $*" >&2; exit 1; }

thunky-container pack --as "$layering" "$exe" -o "$packed" \
  --options "$options" --metadata "$metadata"
found="$(thunky-container info "$packed")"
[ "${found%%:*}" = "$layering" ] || fail "detected as '$found'"

thunky-translate --import-thunky "$packed" -o "$work/$layering.mlir"
python3 "$here/strip_container.py" "$work/$layering.mlir" > "$work/$layering.stripped"
python3 "$here/strip_container.py" "$reference" > "$work/reference.stripped"
diff -u "$work/reference.stripped" "$work/$layering.stripped" >&2 ||
  fail "imports to a different module than the bare executable"

thunky-translate --export-thunky "$work/$layering.mlir" -o "$work/$layering.back"
cmp "$packed" "$work/$layering.back" >&2 || fail "export does not give back the packed bytes"

thunky-translate --export-thunky --thunky-container=split "$work/$layering.mlir" \
  -o "$work/$layering.split"
thunky-container unpack "$work/$layering.split" -o "$work/$layering.exe"
thunky-container unpack "$packed" -o "$work/$layering.packed.exe"
cmp "$work/$layering.exe" "$work/$layering.packed.exe" >&2 ||
  fail "the executable inside changed on the way through"
echo "$layering: detected, same module, same bytes back"
