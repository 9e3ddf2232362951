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
# Every sh block of the README and docs/ is marked: run here, or not, and why.
for doc in "$root/README.md" "$root"/docs/*.md; do
  awk -v doc="${doc#"$root"/}" '/^```sh$/ && last !~ /^<!-- (run by|not run)/ {
         print "check-install: " doc ":" NR ": a command block neither run by a test nor marked <!-- not run ...: why -->"; bad = 1 }
       NF { last = $0 }
       END { exit bad }' "$doc" >&2 || status=1
done

# The docs whose blocks it runs, in this order (writing-a-pass installs the
# prefix the others use); each in an empty folder of its own, with a clean
# environment: no PATH entry or variable leads into the tree but what a
# doc names. The README's tour installs into ~/thunky from the checkout's
# build/ (a link here), as a user's would.
mkdir -p "$work/home"
for doc in docs/writing-a-pass docs/building README docs/passes docs/schedule docs/checking \
    docs/formats docs/runtime; do
  dir="$work/$(basename "$doc")"
  mkdir -p "$dir"
  ln -s "$build" "$dir/build"
  doc_commands "$root/$doc.md" > "$dir/commands.sh"
  if [ ! -s "$dir/commands.sh" ]; then
    echo "check-install: $doc.md marks no commands" >&2
    exit 1
  fi
  if ! (cd "$dir" && env -i HOME="$work/home" PATH="$work/prefix/bin:/usr/local/bin:/usr/bin:/bin" \
        PREFIX="$work/prefix" THUNKY_BUILD="$build" \
        bash -euo pipefail commands.sh) > "$dir/output.txt" 2>&1; then
    echo "check-install: the commands of $doc.md failed:" >&2
    tail -n 30 "$dir/output.txt" >&2
    exit 1
  fi
done

# The README's tour from the prefix: the round trips byte for byte, the
# run, the proofs and the prediction; checking.md's proof on JAX's step.
"$filecheck" --input-file "$work/README/output.txt" /dev/stdin <<'CHECKS' || status=1
CHECK: rank 1 out0: f32[64] =
CHECK: same
CHECK: split: GpuExecutableProto as split-proto
CHECK: same
CHECK: rank 0 out0: f32[64] = [0, 4, 8, 12, 16, 20, 24, 28, ...]
CHECK-NEXT: rank 1 out0: f32[64] = [0, 4, 8, 12, 16, 20, 24, 28, ...]
CHECK-NEXT: thunk total ms calls share bytes/call GB/s
CHECK: thunk 1 (scale_fusion, id 2) {{.*}} 2 {{.*}} 512
CHECK: same: 1 output(s) on 2 rank(s), bit for bit
CHECK: same: 1 output(s) on 2 rank(s), term for term
CHECK: predicted step:
CHECK: predicted step: {{.*}} us (step.pb), {{.*}} us (expanded.mlir)
CHECKS
# What "Running it" writes: an output per rank and a trace.
for made in out0.npy out0.rank1.npy trace.json; do
  [ -s "$work/README/$made" ] || { echo "check-install: the README's run wrote no $made" >&2; status=1; }
done
"$filecheck" --input-file "$work/checking/output.txt" /dev/stdin <<'CHECKS' || status=1
CHECK: same: 2 output(s) on 8 rank(s), bit for bit
CHECK: same: 2 output(s) on 8 rank(s), bit for bit
CHECK: same: 2 output(s) on 8 rank(s), term for term
CHECKS

# runtime.md: the example on the host, then on the simulated CUDA driver
# from the prefix, its device timed through the simulated CUPTI.
"$filecheck" --input-file "$work/runtime/output.txt" /dev/stdin <<'CHECKS' || status=1
CHECK: rank 1 out0: f32[64] = [4, 4, 4, 4, 4, 4, 4, 4, ...]
CHECK: thunk 1 (scale_fusion, id 2) {{.*}} 2 {{.*}} 512
CHECK: rank 1 out0: f32[64] = [4, 4, 4, 4, 4, 4, 4, 4, ...]
CHECK: thunk 1 (scale_fusion, id 2) {{.*}} 2 {{.*}} 512
CHECKS
grep -q "CUPTI's activity records" "$work/runtime/cuda-trace.json" ||
  { echo "check-install: runtime.md's CUDA run was not timed through CUPTI" >&2; status=1; }

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
CHECK: same: 2 output(s) on 8 rank(s)
CHECK: train-step-fsdp.exe: equal after 2 rewrites on 8 (recorded) ranks, race-free
CHECK: equivalence: 1 inputs: 1 proved
CHECK: PASS: thunky-pass-plugin :: memset-to-memzero.mlir
CHECKS
"$filecheck" --input-file "$work/building/output.txt" /dev/stdin <<'CHECKS' || status=1
CHECK: thunky-run 0.{{[0-9]+}}.{{[0-9]+}}
CHECK: thunk 0: memset32bit_value_thunk
CHECK: thunks, {{[0-9]+}} allocations
CHECK: thunk 0: memset32bit_value_thunk
CHECK: thunks, {{[0-9]+}} allocations
CHECK: predicted step: {{[0-9.]+}} us on H200 SXM
CHECKS

# The Python package (docs/python.md) as the prefix installs it, pip-installed
# offline into a venv of Debian's Python, finds the prefix's libraries with
# no variable set (the wheel records them) and runs docs/python.md's
# example; then, with a Python that is not Debian's (pyenv's, where there
# is one: no setuptools, wheel or numpy), a new user's workflow on JAX's
# 8-GPU FSDP step: optimize with a pass plugin and compare, with no ranks
# or partitions given.
awk '/<!-- run by test\/Python\/thunky_test.py -->/ { want = 1; next }
     want && /^```python$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$root/docs/python.md" > "$work/example.py"
cat > "$work/workflow.py" <<'PY'
import sys, thunky
prefix, plugin = sys.argv[1], sys.argv[2]
assert all(p.startswith(prefix) for p in thunky.library_paths().values()), thunky.library_paths()
exe = thunky.load(prefix + "/share/doc/thunky/examples/jax/train-step-fsdp.exe")
fast = exe.optimize("thunky-optimize,example-memset-to-memzero", plugins=plugin)
print(exe.compare(fast))
print(exe.compare(fast, backend="symbolic"))
PY
# No variable leads into the tree; the example reads the checkout's fixtures.
clean() { env -u PYTHONPATH -u THUNKY_LIBRARY_DIR -u THUNKY_BUILD_DIR -u PKG_CONFIG_PATH "$@"; }
plugin="$work/writing-a-pass/my-pass/build/libExamplePass.so"
python=/usr/bin/python3
if "$python" -c 'import numpy, venv, ensurepip' 2>/dev/null; then
  if "$python" -m venv --system-site-packages "$work/venv" &&
      clean "$work/venv/bin/pip" install --quiet --no-index "$work/prefix/share/thunky/python" &&
      (cd "$root" && clean "$work/venv/bin/python" "$work/example.py") > "$work/python.txt" 2>&1 &&
      clean "$work/venv/bin/python" "$work/workflow.py" "$work/prefix/" "$plugin" \
        >> "$work/python.txt" 2>&1 &&
      grep -q "same: 1 output(s) on 2 rank(s)" "$work/python.txt" &&
      [ "$(grep -c "^same: 2 output(s) on 8 rank(s)" "$work/python.txt")" = 2 ]; then
    echo "check-install: pip installed the prefix's Python package into a venv of $python; it found the prefix's libraries, ran docs/python.md's example and proved a plugin pass on JAX's FSDP step"
  else
    echo "check-install: the Python package from the installed prefix failed with $python:" >&2
    tail -n 20 "$work/python.txt" >&2
    status=1
  fi
else
  echo "check-install: no numpy or venv for $python: the Python package was not checked (scripts/setup.sh installs them)"
  status=1
fi
# The oldest that the package supports (3.9) first, where there is a choice.
other=""
for p in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.*/bin/python3 /usr/local/bin/python3 \
    /opt/*/bin/python3 2>/dev/null | sort -V); do
  if "$p" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    other="$p"
    break
  fi
done
if [ -n "$other" ] && "$other" -m venv "$work/venv-other" 2>/dev/null; then
  if clean "$work/venv-other/bin/pip" install --quiet --no-index \
        "$work/prefix/share/thunky/python" > "$work/python-other.txt" 2>&1 &&
      clean "$work/venv-other/bin/python" "$work/workflow.py" "$work/prefix/" "$plugin" \
        >> "$work/python-other.txt" 2>&1 &&
      [ "$(grep -c "^same: 2 output(s) on 8 rank(s)" "$work/python-other.txt")" = 2 ]; then
    echo "check-install: pip installed the Python package with $other ($("$other" -V 2>&1), not Debian's) and proved a plugin pass on JAX's FSDP step with it"
  else
    echo "check-install: the Python package failed with $other:" >&2
    tail -n 20 "$work/python-other.txt" >&2
    status=1
  fi
else
  echo "check-install: no Python but Debian's here (pyenv's, /usr/local, /opt): the package was checked with Debian's only"
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
