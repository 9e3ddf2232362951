#!/usr/bin/env python3
"""Make JAX-compiled GPU executables as test fixtures.

Where to run it: on a machine with an NVIDIA GPU and JAX installed for it
(written for jax/jaxlib 0.11.2 with the CUDA 13 plugin), from a checkout of
this repository. Nothing else is needed: jax and numpy. Run it whenever the
supported JAX version changes, together with scripts/check-jax-schema.py
(which checks the schema against the protobuf descriptors inside jaxlib):

    python3 scripts/check-jax-schema.py; \\
    python3 scripts/make-jax-fixtures.py

Compiles a small set of JAX programs (see --list) with
jax.jit(f).lower(*args).compile() and writes, for each program NAME, into
--out (default test/Translate/jax-fixtures/<jax version>, relative to the
repository root):
  NAME.exe        the serialized executable, the bytes JAX itself would store:
                  client.serialize_executable(compiled.runtime_executable()),
                  i.e. IFRT metadata prefix + PJRT ExecutableAndOptionsProto.
                  Where that attribute path is missing, the same bytes are
                  taken from jax.experimental.serialize_executable's pickle,
                  as its ('exec', bytes) persistent id (see
                  _ExecutableBytesUnpickler); the manifest says which.
  NAME.inK.npy    the K-th parameter of the executable (fixed-seed inputs)
  NAME.outK.npy   JAX's K-th result for those inputs
  manifest.json   versions, device, per program: source, files with dtype,
                  shape and sha256, compiled HLO text size, entry layout,
                  collectives left in the HLO, whether a matrix multiply is
                  (gemm: compared within a tolerance), and JAX's own execution time
                  (median wall time of a call after warm-up), which a later
                  runtime benchmark compares against.
The whole output directory must stay under --max-bytes (5 MB).

Exit codes:
  0  done
  2  usage or environment problem (no jax, no GPU)
  3  the output directory is larger than --max-bytes
  4  one or more programs failed (the others are still written)
"""
import argparse
import hashlib
import inspect
import json
import os
import platform
import re
import statistics
import sys
import time

from jax_programs import (PROGRAMS, compile_program, configure_jax, import_jax,
                          selected_programs, serialize_compiled)
from jaxlib_info import (EXIT_FAILED, EXIT_OK, EXIT_TOO_BIG,
                         EnvironmentProblem, default_out_dir,
                         installed_versions, report_problem)

DEFAULT_MAX_BYTES = 5_000_000


# ---------------------------------------------------------------------------
# Fixtures

def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def device_info(jax):
    device = jax.devices()[0]
    return {
        "platform": device.platform,
        "device_kind": device.device_kind,
        "compute_capability": getattr(device, "compute_capability", None),
        "platform_version": getattr(device.client, "platform_version", None),
        "device_count": jax.device_count(),
    }


def const_args_of(compiled):
    """The closed-over constants JAX passes ahead of the arguments, if any.

    Private jax API (Compiled._params.const_args); empty when configure_jax
    kept constants in the HLO.
    """
    params = getattr(compiled, "_params", None)
    return list(getattr(params, "const_args", None) or [])


def entry_computation_layout(hlo_text):
    """The text of entry_computation_layout={...} in an HLO module header."""
    start = hlo_text.find("entry_computation_layout={")
    if start < 0:
        return None
    start += len("entry_computation_layout=")
    depth = 0
    for i in range(start, len(hlo_text)):
        depth += {"{": 1, "}": -1}.get(hlo_text[i], 0)
        if depth == 0:
            return hlo_text[start + 1:i]
    return None


def split_top_level(text):
    """Splits at commas outside (), [] and {}."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


def parameter_count(layout):
    """Number of parameters in an entry layout "(p0, p1)->result"."""
    params = layout[:layout.rindex("->")].strip()
    return len(split_top_level(params[1:-1]))


HLO_COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                   "collective-permute", "collective-broadcast")


def collectives_in(hlo_text):
    return sorted(op for op in HLO_COLLECTIVES
                  if re.search(r"\b%s(-start)?\(" % op, hlo_text))


def has_gemm(hlo_text):
    """Whether XLA kept a matrix multiply (a cuBLAS call or a dot in a
    fusion): on the GPU it runs in TF32 at JAX's default precision, so
    scripts/device-check.sh compares such a program within a tolerance."""
    return bool(re.search(r"__cublas|\bdot\(", hlo_text))


def time_execution(jax, compiled, device_args, warmup, runs):
    """JAX's own wall time per call, dispatch included, in microseconds."""
    for _ in range(warmup):
        jax.block_until_ready(compiled(*device_args))
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(compiled(*device_args))
        samples.append((time.perf_counter() - start) * 1e6)
    return {"median_us": round(statistics.median(samples), 3),
            "min_us": round(min(samples), 3), "warmup": warmup, "runs": runs}


def save_array(np, out_dir, filename, value, role=None):
    array = np.asarray(value)
    path = os.path.join(out_dir, filename)
    np.save(path, array, allow_pickle=False)
    entry = {"file": filename, "dtype": str(array.dtype),
             "shape": list(array.shape), "sha256": sha256_of(path)}
    if role:
        entry["role"] = role
    return entry


def make_fixture(jax, np, program, seed, out_dir, warmup, runs):
    """Compiles, serializes, runs and times one program; returns its entry."""
    compiled, args = compile_program(jax, np, program, seed)
    hlo_text = compiled.as_text() or ""
    layout = entry_computation_layout(hlo_text)

    executable, method = serialize_compiled(compiled)
    exe_name = program.name + ".exe"
    with open(os.path.join(out_dir, exe_name), "wb") as f:
        f.write(executable)

    # The executable's parameters are the constants JAX passes first (if
    # it passes any), then the arguments: write them in that order.
    const_args = const_args_of(compiled)
    parameters = [(a, "const_arg") for a in const_args] + \
                 [(a, "argument") for a in args]
    inputs = [save_array(np, out_dir, "%s.in%d.npy" % (program.name, k), a, role)
              for k, (a, role) in enumerate(parameters)]

    device = jax.devices()[0]
    device_args = [jax.device_put(a, device) for a in args]
    results = jax.tree_util.tree_leaves(compiled(*device_args))
    outputs = [save_array(np, out_dir, "%s.out%d.npy" % (program.name, k), r)
               for k, r in enumerate(results)]

    entry = {
        "name": program.name,
        "description": program.description,
        "source": inspect.getsource(program.build),
        "serialized_with": method,
        "executable": {"file": exe_name, "size": len(executable),
                       "sha256": hashlib.sha256(executable).hexdigest()},
        "inputs": inputs,
        "outputs": outputs,
        "hlo_text_size": len(hlo_text),
        "entry_computation_layout": layout,
        "hlo_collectives": collectives_in(hlo_text),
        "gemm": has_gemm(hlo_text),
        "jax_time": time_execution(jax, compiled, device_args, warmup, runs),
    }
    if layout and parameter_count(layout) != len(inputs):
        entry["warning"] = ("the entry layout has %d parameters but %d inputs "
                            "were written" % (parameter_count(layout),
                                              len(inputs)))
    return entry


def directory_size(out_dir):
    sizes = {name: os.path.getsize(os.path.join(out_dir, name))
             for name in os.listdir(out_dir)
             if os.path.isfile(os.path.join(out_dir, name))}
    return sum(sizes.values()), sizes


def check_size(out_dir, max_bytes):
    total, sizes = directory_size(out_dir)
    if total <= max_bytes:
        print("%s: %d bytes in %d files (limit %d)"
              % (out_dir, total, len(sizes), max_bytes))
        return True
    largest = sorted(sizes.items(), key=lambda item: -item[1])[:5]
    print("error: %s holds %d bytes, over the limit of %d; largest files: %s"
          % (out_dir, total, max_bytes,
             ", ".join("%s (%d)" % item for item in largest)), file=sys.stderr)
    return False


def make_fixtures(args):
    jax, np = import_jax()
    simplified_constants = configure_jax(jax)
    device = device_info(jax)
    if device["platform"] != "gpu" and not args.allow_cpu:
        raise EnvironmentProblem("JAX's first device is %s, not a GPU (use "
                                 "--allow-cpu for a dry run)" % device["platform"])
    out_dir = args.out or default_out_dir(jax.__version__, device["platform"])
    os.makedirs(out_dir, exist_ok=True)

    entries, failures = [], []
    for program in selected_programs(args.only):
        print("%-12s " % program.name, end="", flush=True)
        remove_files_of(out_dir, program.name)
        try:
            entry = make_fixture(jax, np, program, args.seed, out_dir,
                                 args.warmup, args.runs)
        except Exception as e:  # one broken program must not stop the others
            remove_files_of(out_dir, program.name)
            failures.append(program.name)
            entries.append({"name": program.name, "error": repr(e)})
            print("FAILED: %r" % e)
            continue
        entries.append(entry)
        print("%7d-byte executable, %s, median %.1f us%s"
              % (entry["executable"]["size"], entry["serialized_with"],
                 entry["jax_time"]["median_us"],
                 "; " + entry["warning"] if "warning" in entry else ""))

    versions = installed_versions()
    manifest = {
        "generator": "scripts/make-jax-fixtures.py",
        "jax_version": jax.__version__,
        "jaxlib_version": versions.get("jaxlib"),
        "packages": versions,
        "python": platform.python_version(),
        "device": device,
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
        "jax_use_simplified_jaxpr_constants": simplified_constants,
        "seed": args.seed,
        "programs": entries,
    }
    if args.only:
        manifest["programs"] = in_program_order(
            entries + earlier_entries(out_dir, manifest))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")

    if not check_size(out_dir, args.max_bytes):
        return EXIT_TOO_BIG
    if failures:
        print("error: failed: %s" % ", ".join(failures), file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def remove_files_of(out_dir, name):
    """Removes a program's files, so that no stale or partial one remains."""
    for filename in os.listdir(out_dir):
        if filename.startswith(name + "."):
            os.remove(os.path.join(out_dir, filename))


def earlier_entries(out_dir, manifest):
    """The earlier manifest's entries for programs not run this time (with
    --only), provided it came from the same jax and device."""
    try:
        with open(os.path.join(out_dir, "manifest.json")) as f:
            earlier = json.load(f)
    except (OSError, ValueError):
        return []
    if (earlier.get("jax_version"), earlier.get("device")) != \
            (manifest["jax_version"], manifest["device"]):
        print("warning: the earlier manifest.json is from another jax or "
              "device; its other programs are dropped", file=sys.stderr)
        return []
    run = {entry["name"] for entry in manifest["programs"]}
    return [e for e in earlier.get("programs", []) if e.get("name") not in run]


def in_program_order(entries):
    order = {p.name: i for i, p in enumerate(PROGRAMS)}
    return sorted(entries, key=lambda e: order.get(e.get("name"), len(order)))


# ---------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="exit codes: 0 ok; 2 usage or environment problem; 3 output "
               "over --max-bytes; 4 a program failed. "
               "Where and when to run it: see the top of this script.")
    parser.add_argument("--out", metavar="DIR",
                        help="output directory (default: test/Translate/"
                             "jax-fixtures/<jax version> in the repository)")
    parser.add_argument("--only", metavar="NAME", action="append",
                        help="make only this program (repeatable; see --list)")
    parser.add_argument("--list", action="store_true",
                        help="list the programs and exit (needs no jax)")
    parser.add_argument("--seed", type=int, default=20260901,
                        help="base seed of the inputs' numpy RandomState "
                             "(default %(default)s)")
    parser.add_argument("--warmup", type=int, default=10,
                        help="calls before timing each program "
                             "(default %(default)s)")
    parser.add_argument("--runs", type=int, default=200,
                        help="timed calls per program, of which the median is "
                             "kept (default %(default)s)")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                        help="largest allowed size of the output directory "
                             "(default %(default)s)")
    parser.add_argument("--allow-cpu", action="store_true",
                        help="dry run on JAX's CPU backend (output directory "
                             "gets a -cpu suffix)")
    args = parser.parse_args(argv)
    if args.warmup < 0 or args.runs < 1:
        parser.error("--warmup must be >= 0 and --runs >= 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        for program in PROGRAMS:
            print("%-12s %s" % (program.name, program.description))
        return EXIT_OK
    try:
        return make_fixtures(args)
    except EnvironmentProblem as e:
        return report_problem(e)


if __name__ == "__main__":
    sys.exit(main())
