#!/usr/bin/env python3
"""The JAX loop through the thunky Python package, checked bit for bit.

Where to run it: on the GPU machine, with the JAX that made the fixtures
(scripts/device-check.sh runs it), the package from python/ and its
runtime library from build-runtime/python-lib (scripts/build-runtime.sh:
libThunkyRuntime.so with what it needs; there is no MLIR there, so the
optimized executables are made where MLIR is: scripts/jax-exports.sh runs
thunky-optimize on each fixture). For each program of --fixtures (a set
made by scripts/make-jax-fixtures.py) that has an export NAME.exe in
--exports, it

  1. compiles the program again, as make-jax-fixtures.py did, and takes it
     into thunky: exe = thunky.from_compiled(compiled), a serialize()
     pickle; it says whether the executable inside is the fixture's;
  2. as a control, thunky.to_compiled(exe, like=compiled): the executable
     JAX made, back through the package, must give the fixture's outputs;
  3. thunky.to_compiled(thunky.load(export), like=compiled): the optimized
     executable in JAX's place must give them too, bit for bit.

--dry-run needs no JAX: the package's half, on this machine. Each program's
serialize() pickle committed with the fixtures (containers/pickle/
NAME.pickle) is given the export (Executable.with_executable, what
to_compiled does before deserialize_and_load); the result must read as a
pickle again and run, on the host backend with fingerprint kernels (or on
symbols, through a loop fingerprints cannot follow), as the fixture does.

One line per program goes to stdout (and --report, appended). Exit codes:
0 every program passed; 2 usage or environment problem (no jax, no thunky
library, no manifest); 4 a program failed.
"""
import argparse
import os
import sys

from jax_programs import (compile_program, configure_jax, finish, import_jax, outputs_differ,
                          read_manifest, selected_programs)
from jaxlib_info import REPO_ROOT, EnvironmentProblem, report_problem


def import_thunky():
    sys.path.insert(0, os.path.join(REPO_ROOT, "python"))
    try:
        import thunky
        thunky.load  # noqa: B018 (the package, not a namespace of that name)
        from thunky import _capi
        _capi.runtime()
    except ImportError as e:
        raise EnvironmentProblem("cannot import the thunky package (%s)" % e)
    except Exception as e:  # thunky.Error: no library where it looked
        raise EnvironmentProblem(str(e))
    return thunky


def check_on_gpu(thunky, jax, np, folder, export, seed, entry):
    name = entry["name"]
    program, = selected_programs([name])
    compiled, args = compile_program(jax, np, program, seed)
    expected = [np.load(os.path.join(folder, f["file"])) for f in entry["outputs"]]
    fixture = thunky.load(os.path.join(folder, entry["executable"]["file"]))
    exe = thunky.from_compiled(compiled)
    # The same executable inside iff putting the fixture's in changes nothing.
    fresh = ("its executable is the fixture's" if exe.with_executable(fixture).export() ==
             exe.export() else "its executable differs from the fixture's")
    try:
        why = outputs_differ(jax, np, thunky.to_compiled(exe, like=compiled), args, expected)
    except Exception as e:
        why = repr(e)
    if why:
        return "- FAIL %s: from_compiled then to_compiled, unchanged: %s (%s)" % (
            name, why, fresh), False
    optimized = thunky.load(export)
    try:
        why = outputs_differ(jax, np, thunky.to_compiled(optimized, like=compiled), args,
                             expected)
    except Exception as e:
        why = "JAX refused it: %r" % e
    if why:
        return "- FAIL %s: the optimized executable through to_compiled: %s" % (name, why), False
    return ("- pass %s: from_compiled (%s), to_compiled of the optimized executable (%d bytes) "
            "gives JAX's outputs bit for bit" % (name, fresh, len(optimized.export()))), True


def same_as_fixture(thunky, fixture, swapped):
    """The comparison of the two on fingerprints, or on symbols where a loop
    whose predicate a kernel computes stops the fingerprints (as
    scripts/jax-exports.sh decides)."""
    try:
        return fixture.compare(swapped, kernels="fingerprint", max_iterations=10000), "fingerprints"
    except thunky.Error:
        return fixture.compare(swapped, backend="symbolic", max_iterations=10000), "symbols"


def check_here(thunky, folder, export, entry):
    name = entry["name"]
    pickle = os.path.join(folder, "containers", "pickle", name + ".pickle")
    if not os.path.exists(pickle):
        return None
    like = thunky.load(pickle)
    swapped = like.with_executable(thunky.load(export))
    if not swapped.layers.startswith("pickle+"):
        return "- FAIL %s: with the export it reads as %s" % (name, swapped.layers), False
    fixture = thunky.load(os.path.join(folder, entry["executable"]["file"]))
    result, how = same_as_fixture(thunky, fixture, swapped)
    if not result.same:
        return "- FAIL %s: the pickle with the export runs otherwise than the fixture (on %s): %s" % (
            name, how, result.difference), False
    return ("- pass %s: serialize()'s pickle with the optimized executable in (%d bytes; "
            "%d before) reads as a pickle and runs as the fixture does (on %s)"
            % (name, len(swapped.export()), len(like.export()), how)), True


def package_loop(args):
    manifest = read_manifest(args.fixtures)
    thunky = import_thunky()
    if not args.dry_run:
        jax, np = import_jax()
        configure_jax(jax)
    results = []
    for entry in manifest.get("programs", []):
        export = os.path.join(args.exports, entry["name"] + ".exe")
        if "error" in entry or not os.path.exists(export):
            continue
        try:
            result = (check_here(thunky, args.fixtures, export, entry) if args.dry_run else
                      check_on_gpu(thunky, jax, np, args.fixtures, export,
                                   manifest.get("seed", 0), entry))
        except (thunky.Error, EnvironmentProblem) as e:
            result = "- FAIL %s: %s" % (entry["name"], e), False
        if result:
            results.append(result)
    return finish(results, args)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", required=True, metavar="DIR",
                        help="a fixture set (manifest.json, the .npy files, containers/)")
    parser.add_argument("--exports", required=True, metavar="DIR",
                        help="where the optimized executables NAME.exe are")
    parser.add_argument("--report", metavar="FILE", help="append the lines here too")
    parser.add_argument("--dry-run", action="store_true",
                        help="no JAX: the package's half, on this machine")
    try:
        return package_loop(parser.parse_args(argv))
    except EnvironmentProblem as e:
        return report_problem(e)


if __name__ == "__main__":
    sys.exit(main())
