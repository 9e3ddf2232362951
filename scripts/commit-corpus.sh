#!/usr/bin/env bash
# commit-corpus.sh CORPUS.tar.gz [DEST]: puts what scripts/make-corpus.py
# made on a GPU machine (device-check.sh's corpus.tar.gz) under DEST (by
# default test/Corpus/jax-VERSION/): each executable zstd-compressed
# (NAME.exe.zst, which scripts/corpus_check.py reads), the manifest naming
# the compressed files; a corpus over its budget there, 12 MiB, is refused
# (docs/corpus.md). Then run
#   scripts/corpus_check.py --report DEST/checks.md DEST
# and commit the folder.
set -euo pipefail
tarball="${1:?usage: commit-corpus.sh CORPUS.tar.gz [DEST]}"
root="$(cd "$(dirname "$0")/.." && pwd)"
budget=$((12 << 20))
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
[ -f "$work/manifest.json" ] || { echo "commit-corpus: $tarball holds no manifest.json" >&2; exit 2; }
version="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["versions"]["jax"])' "$work/manifest.json")"
dest="${2:-$root/test/Corpus/jax-$version}"
rm -rf "$dest"
mkdir -p "$dest"
for exe in "$work"/*.exe; do
  [ -f "$exe" ] || continue
  zstd -q -19 "$exe" -o "$dest/$(basename "$exe").zst"
done
for npy in "$work"/*.npy; do
  [ -f "$npy" ] && cp "$npy" "$dest/" # the inputs and JAX's outputs of what ran
done
[ -f "$work/target-config.txtpb" ] && cp "$work/target-config.txtpb" "$dest/"
python3 - "$work/manifest.json" "$dest/manifest.json" <<'PYTHON'
import json, sys
manifest = json.load(open(sys.argv[1]))
for program in manifest["programs"]:
    if "file" in program:
        program["file"] += ".zst"
json.dump(manifest, open(sys.argv[2], "w"), indent=1, sort_keys=True)
PYTHON
bytes="$(du -sb "$dest" | cut -f1)"
if [ "$bytes" -gt "$budget" ]; then
  echo "commit-corpus: $dest holds $bytes bytes, over its budget of $budget; drop programs from the manifest or lower make-corpus.py --budget-bytes" >&2
  exit 1
fi
echo "commit-corpus: $(ls "$dest"/*.exe.zst 2>/dev/null | wc -l) executables, $bytes bytes in $dest"
