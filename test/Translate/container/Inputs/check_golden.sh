#!/usr/bin/env bash
# check_golden.sh GOLDEN_TEXTPROTO OPTIONS METADATA WORKDIR
#
# Imports one of XLA's golden files (a HumanReadableAotExecutable), takes
# the bare GpuExecutableProto out of it, and runs check_layering.sh on it
# in every layering, against the golden's own module.
set -euo pipefail
golden="$1" options="$2" metadata="$3" work="$4"
here="$(cd "$(dirname "$0")" && pwd)"
scripts="$here/../../../../scripts"
mkdir -p "$work"
"$scripts/encode.sh" xla.HumanReadableAotExecutable < "$golden" > "$work/golden.pb"
thunky-translate --import-thunky "$work/golden.pb" -o "$work/golden.mlir"
thunky-translate --export-thunky --thunky-container=split "$work/golden.mlir" -o "$work/split.pb"
thunky-container unpack "$work/split.pb" -o "$work/exe.pb"
for layering in split options split-options ifrt+options ifrt+split-options; do
  "$here/check_layering.sh" "$work/exe.pb" "$work/golden.mlir" "$layering" \
    "$options" "$metadata" "$work"
done
