#!/usr/bin/env bash
# roundtrip.sh MESSAGE TEXTPROTO: encodes TEXTPROTO as MESSAGE with the
# project's schema, imports it (printing the module on stdout), exports the
# module again, and fails unless the export decodes to the same textproto as
# the input. Used by the lit tests in test/Translate.
set -euo pipefail
message="$1" input="$2"
scripts="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$scripts/encode.sh" "$message" < "$input" > "$tmp/in.pb"
thunky-translate --import-thunky "$tmp/in.pb" -o "$tmp/module.mlir"
cat "$tmp/module.mlir"
thunky-translate --export-thunky "$tmp/module.mlir" -o "$tmp/out.pb"
"$scripts/decode.sh" "$message" < "$tmp/in.pb" > "$tmp/in.txt"
"$scripts/decode.sh" "$message" < "$tmp/out.pb" > "$tmp/out.txt"
if ! diff -u "$tmp/in.txt" "$tmp/out.txt" >&2; then
  echo "roundtrip.sh: export(import(x)) differs from x for $input" >&2
  exit 1
fi
