#!/usr/bin/env bash
# check_optimize.sh MESSAGE TEXTPROTO|DIR...: for each input (every
# .textproto in a DIR), encodes it with the
# project's schema, imports it, runs thunky-optimize, and checks that the
# module verifies after each of its stages, exports, and imports again. Prints one line per input and
# a count; exits non-zero on the first failure.
set -euo pipefail
message="$1"; shift
scripts="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
inputs=()
for arg in "$@"; do
  if [ -d "$arg" ]; then inputs+=("$arg"/*.textproto); else inputs+=("$arg"); fi
done
count=0
for input in "${inputs[@]}"; do
  "$scripts/encode.sh" "$message" < "$input" > "$tmp/in.pb"
  thunky-translate --import-thunky "$tmp/in.pb" -o "$tmp/in.mlir"
  thunky-opt -p 'builtin.module(thunky-optimize{verify-stages=true})' "$tmp/in.mlir" \
    -o "$tmp/opt.mlir"
  thunky-translate --export-thunky "$tmp/opt.mlir" -o "$tmp/opt.pb"
  thunky-translate --import-thunky "$tmp/opt.pb" -o /dev/null
  echo "optimized, verified, exported, re-imported: $(basename "$input")"
  count=$((count + 1))
done
echo "thunky-optimize: $count inputs ok"
