#!/usr/bin/env bash
# thunky from outside its tree: installs the build into an empty prefix,
# then runs, in an empty directory, every command that docs/writing-a-pass.md
# and docs/building.md mark "run by scripts/check-install.sh", as written.
# They build the example pass and the example tool as projects of their own,
# with only the prefix and Debian's MLIR on their paths, and run them; this
# script checks what they printed, and that nothing they built points back
# into the source or build tree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${THUNKY_BUILD_DIR:-$root/build}"
filecheck=/usr/lib/llvm-22/bin/FileCheck
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The fenced sh block after each marker line, in order.
doc_commands() {
  awk '/<!-- run by scripts\/check-install.sh -->/ { want = 1; next }
       want && /^```sh$/ { inside = 1; next }
       inside && /^```$/ { inside = 0; want = 0; print ""; next }
       inside { print }' "$1"
}

status=0
for doc in writing-a-pass building; do
  dir="$work/$doc"
  mkdir -p "$dir"
  doc_commands "$root/docs/$doc.md" > "$dir/commands.sh"
  if [ ! -s "$dir/commands.sh" ]; then
    echo "check-install: docs/$doc.md marks no commands" >&2
    exit 1
  fi
  # A clean environment: no PATH entry or variable leads into the tree.
  if ! (cd "$dir" && env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin \
        PREFIX="$work/prefix" THUNKY_BUILD="$build" \
        bash -euo pipefail commands.sh) > "$dir/output.txt" 2>&1; then
    echo "check-install: the commands of docs/$doc.md failed:" >&2
    tail -n 30 "$dir/output.txt" >&2
    exit 1
  fi
done

# What the pass plugin's commands print (docs/writing-a-pass.md, section 4):
# the rewrite through mlir-opt-22, thunky-opt -p, and the plugin's own flag
# with its option's remark.
"$filecheck" --input-file "$work/writing-a-pass/output.txt" /dev/stdin <<'CHECKS' || status=1
CHECK: thunky.memzero %arg0 : <64>
CHECK-NEXT: thunky.memset32 %arg0, 7 : <64>
CHECK: thunky.memzero %arg0 : <64>
CHECK-NEXT: thunky.memset32 %arg0, 7 : <64>
CHECK: in.mlir:2:3: remark: 'thunky.memset32' op rewritten as thunky.memzero
CHECK: thunky.memzero %arg0 : <64>
CHECK-NEXT: thunky.memset32 %arg0, 7 : <64>
CHECK-NOT: Failed to load
CHECKS
"$filecheck" --input-file "$work/building/output.txt" /dev/stdin <<'CHECKS' || status=1
CHECK: thunky-run 0.{{[0-9]+}}.{{[0-9]+}}
CHECK: thunk 0: memset32bit_value_thunk
CHECK: thunks, {{[0-9]+}} allocations
CHECK: thunk 0: memset32bit_value_thunk
CHECK: thunks, {{[0-9]+}} allocations
CHECK: predicted step: {{[0-9.]+}} us on H200 SXM
CHECKS

# The Python package (docs/python.md), pip-installed offline into a venv,
# finds the installed libraries through pkg-config (thunky-runtime.pc's
# libdir) and runs the docs' example.
python=/usr/bin/python3
if "$python" -c 'import numpy, venv, ensurepip' 2>/dev/null; then
  cp -r "$root/python" "$work/python-src"
  awk '/<!-- run by test\/Python\/thunky_test.py -->/ { want = 1; next }
       want && /^```python$/ { inside = 1; next }
       inside && /^```$/ { exit }
       inside { print }' "$root/docs/python.md" > "$work/example.py"
  if "$python" -m venv --system-site-packages "$work/venv" &&
      "$work/venv/bin/pip" install --quiet --no-build-isolation --no-index "$work/python-src" &&
      (cd "$root" && env -u PYTHONPATH -u THUNKY_LIBRARY_DIR -u THUNKY_BUILD_DIR \
        PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" "$work/venv/bin/python" -c \
        'import thunky; p = thunky.library_paths(); assert all(v.startswith(__import__("sys").argv[1]) for v in p.values()), p' \
        "$work/prefix/" &&
       env -u PYTHONPATH -u THUNKY_LIBRARY_DIR -u THUNKY_BUILD_DIR \
        PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" "$work/venv/bin/python" "$work/example.py") \
      > "$work/python.txt" 2>&1 && grep -q "same: 1 output(s) on 2 rank(s)" "$work/python.txt"; then
    echo "check-install: pip installed the Python package into a venv; it found the prefix's libraries and ran docs/python.md's example"
  else
    echo "check-install: the Python package from the installed prefix failed:" >&2
    tail -n 20 "$work/python.txt" >&2
    status=1
  fi
else
  echo "check-install: no numpy or venv for $python: the Python package was not checked (scripts/setup.sh installs them)"
fi

# Nothing built outside refers to the tree: not its RUNPATH, not its
# include or link lines.
for f in $(find "$work" -name '*.so' -o -name 'list-thunks*' -type f) $(find "$work" -name CMakeCache.txt -o -name 'flags.make' -o -name 'link.txt'); do
  if grep -q -e "$root/" -e "$build/" "$f" 2>/dev/null || readelf -d "$f" 2>/dev/null | grep -q -e "$root" -e "$build"; then
    echo "check-install: $f refers to thunky's source or build tree" >&2
    status=1
  fi
done

[ $status -eq 0 ] && echo "check-install: built and ran the example pass (mlir-opt-22, thunky-opt -p, its flag) and tool (CMake, pkg-config) against an installed prefix"
exit $status
