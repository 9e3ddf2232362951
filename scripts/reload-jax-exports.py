#!/usr/bin/env python3
"""Load executables thunky exported back into JAX and check their outputs.

Where to run it: on the GPU machine, with the JAX that made the fixtures
(scripts/device-check.sh runs it). For each program of --fixtures
(a set made by scripts/make-jax-fixtures.py: manifest.json, NAME.inK.npy,
NAME.outK.npy) that has an export NAME.exe in --exports (what
scripts/jax-exports.sh writes: the fixture imported, optimized and exported
again), it

  1. compiles the program again, as make-jax-fixtures.py did (same builder,
     same seed), and serializes it with jax.experimental.serialize_executable;
  2. loads that with deserialize_and_load, but with the export's bytes in
     place of the executable JAX serialized: so the export goes through
     client.deserialize_executable and JAX's own calling convention;
  3. calls it on the fixture's inputs and compares every output with the
     fixture's, bit for bit.

The fixture's own NAME.exe goes through the same path first, as a control:
if it fails, the reload path is broken here, not the export. One line per
program goes to stdout (and --report, appended), "pass" or "FAIL".

Exit codes: 0 every export gave JAX's outputs; 2 usage or environment
problem (no jax, no GPU, no manifest); 4 an export failed or differed.
"""
import argparse
import os
import sys
from unittest import mock

from jax_programs import (compile_program, configure_jax, finish, import_jax, outputs_differ,
                          read_manifest, selected_programs)
from jaxlib_info import EnvironmentProblem, report_problem


def load_with_bytes(jax, compiled, executable, replaced):
    """`compiled` as jax.stages.Compiled again, its executable replaced by
    the bytes `executable`; appends the bytes replaced to `replaced`."""
    from jax.experimental import serialize_executable as se
    payload, in_tree, out_tree = se.serialize(compiled)

    class Substituting(se._JaxPjrtUnpickler):  # private: the only seam there is
        def persistent_load(self, pid):
            if pid[0] == "exec":
                replaced.append(pid[1])
                pid = ("exec", executable)
            return super().persistent_load(pid)

    with mock.patch.object(se, "_JaxPjrtUnpickler", Substituting):
        return se.deserialize_and_load(payload, in_tree, out_tree)


def run_bytes(jax, np, compiled, args, executable, expected, replaced):
    """'' when the bytes, loaded into JAX, give `expected`; else what differs."""
    return outputs_differ(jax, np, load_with_bytes(jax, compiled, executable, replaced), args,
                          expected)


def check_program(jax, np, folder, exports, seed, entry):
    """One report line for the program of manifest entry `entry`, and whether
    it passed; None when there is no export of it."""
    name = entry["name"]
    export = os.path.join(exports, name + ".exe")
    if "error" in entry or not os.path.exists(export):
        return None
    try:
        program, = selected_programs([name])
    except EnvironmentProblem as e:
        return "- FAIL %s: %s" % (name, e), False
    compiled, args = compile_program(jax, np, program, seed)
    expected = [np.load(os.path.join(folder, f["file"])) for f in entry["outputs"]]
    with open(os.path.join(folder, entry["executable"]["file"]), "rb") as f:
        original = f.read()
    with open(export, "rb") as f:
        exported = f.read()
    replaced = []
    try:
        why = run_bytes(jax, np, compiled, args, original, expected, replaced)
    except Exception as e:  # the control: the reload path itself
        why = repr(e)
    # Whether this JAX serializes the program to the fixture's bytes again:
    # if not, a failing control may be a layering JAX no longer reads.
    fresh = ("JAX serializes it to the fixture's bytes again" if replaced == [original]
             else "JAX now serializes it to %s" % (
                 "%d other bytes" % len(replaced[0]) if replaced else "no bytes"))
    if why:
        return ("- FAIL %s: the fixture's own executable does not reload: %s (%s)"
                % (name, why, fresh)), False
    try:
        why = run_bytes(jax, np, compiled, args, exported, expected, [])
    except Exception as e:
        why = "JAX refused it: %r" % e
    if why:
        return "- FAIL %s: the export (%d bytes): %s" % (name, len(exported), why), False
    # An export thunky-optimize left as it was proves only the reload path.
    what = ("identical to the fixture: thunky-optimize changed nothing" if exported == original
            else "%d bytes; the fixture %d" % (len(exported), len(original)))
    return ("- pass %s: the export (%s) gives JAX's outputs bit for bit; %s"
            % (name, what, fresh)), True


def reload_exports(args):
    manifest = read_manifest(args.fixtures)
    jax, np = import_jax()
    configure_jax(jax)
    results = [check_program(jax, np, args.fixtures, args.exports, manifest.get("seed", 0), e)
               for e in manifest.get("programs", [])]
    return finish([r for r in results if r], args)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", required=True, metavar="DIR",
                        help="a fixture set (manifest.json and the .npy files)")
    parser.add_argument("--exports", required=True, metavar="DIR",
                        help="where the exports NAME.exe are")
    parser.add_argument("--report", metavar="FILE", help="append the lines here too")
    try:
        return reload_exports(parser.parse_args(argv))
    except EnvironmentProblem as e:
        return report_problem(e)


if __name__ == "__main__":
    sys.exit(main())
