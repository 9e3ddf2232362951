#!/usr/bin/env python3
"""Make thunky's corpus of real models: what JAX compiles for them, for GPUs.

Where to run it: on the GPU machine, with JAX (scripts/device-check.sh runs
it first, within its budget). The models are scripts/corpus_models.py's:
a Llama-style decoder (RMSNorm, RoPE, grouped-query attention through
jax.nn.dot_product_attention, SwiGLU) with its layers as a scan and
unrolled; its AdamW train step at a tiny size, about 125M and about 1B
parameters, on one GPU and on 8 (FSDP, tensor and data parallel);
inference, prefill and decode in a while loop; a mixture-of-experts layer
with all-to-all; a ring collective matmul; with XLA's command buffers on
and off.

Each group of programs (a part) compiles in a process of its own, since
XLA reads its flags once per process:

  gpu       the tiny programs on the GPU that is there: compiled, run on
            seeded inputs, and timed; NAME.in<k>.npy and NAME.out<k>.npy
            are the flattened inputs and JAX's outputs
  aot-*     the rest through JAX's deviceless path (jax_platforms=cpu,
            topologies.get_topology_desc for 1 or 8 GPUs, the target
            description of the GPU that is there: make-jax-containers.py's
            target part): compiled only
  *-no-command-buffer   the same with --xla_gpu_enable_command_buffer=

OUT/manifest.json lists every program: its file, devices, mesh and how it
is split, its size and parameter count, the JAX version and XLA flags, for
those that ran their inputs and outputs and JAX's time, and for those that
failed the error. Parts run in order of value (the tiny ones first, 1B
last) while --seconds lasts; what is left is listed as skipped. Executables
past --budget-bytes, largest first, are dropped and listed as such
(scripts/commit-corpus.sh compresses what is kept into test/Corpus).

--list prints the plan, and needs no JAX.

Exit codes: 0 every program was made; 2 usage or environment problem (no
jax); 4 a program failed or was skipped (the others are still written).
"""
import argparse
import functools
import importlib.util
import json
import os
import subprocess
import sys
import time
import traceback

import corpus_models as models
from jaxlib_info import (EXIT_FAILED, EXIT_OK, EnvironmentProblem, installed_versions,
                        report_problem)

SEED = 0
NO_COMMAND_BUFFER = "--xla_gpu_enable_command_buffer="
# In order of value, the parts: (name, deviceless, command buffers,
# programs), each program (name, model, size, GPUs, how the work is split
# over them or how its layers run).
PARTS = (
    ("gpu", False, True, (
        ("llama-tiny-forward-scan", "forward", "tiny", 1, "scan"),
        ("llama-tiny-forward-unrolled", "forward", "tiny", 1, "unrolled"),
        ("llama-tiny-train", "train", "tiny", 1, "scan"),
        ("llama-tiny-prefill", "prefill", "tiny", 1, "-"),
        ("llama-tiny-decode", "decode", "tiny", 1, "-"),
        ("gelu-mlp-train", "gelu-mlp", "-", 1, "-"),
    )),
    ("gpu-no-command-buffer", False, False, (
        ("llama-tiny-train", "train", "tiny", 1, "scan"),
        ("llama-tiny-decode", "decode", "tiny", 1, "-"),
    )),
    ("aot-8", True, True, (
        ("llama-125m-train-fsdp8", "train", "125m", 8, "fsdp"),
        ("llama-125m-train-tp8", "train", "125m", 8, "tp"),
        ("llama-125m-train-dp8", "train", "125m", 8, "dp"),
        ("moe-all-to-all8", "moe", "-", 8, "expert"),
        ("ring-matmul8", "ring", "-", 8, "rows"),
    )),
    ("aot-1", True, True, (
        ("llama-125m-train", "train", "125m", 1, "scan"),
        ("llama-125m-train-unrolled", "train", "125m", 1, "unrolled"),
        ("llama-125m-prefill", "prefill", "125m", 1, "-"),
        ("llama-125m-decode", "decode", "125m", 1, "-"),
    )),
    ("aot-8-no-command-buffer", True, False, (
        ("llama-125m-train-fsdp8", "train", "125m", 8, "fsdp"),
        ("moe-all-to-all8", "moe", "-", 8, "expert"),
        ("ring-matmul8", "ring", "-", 8, "rows"),
    )),
    ("aot-1b", True, True, (
        ("llama-1b-train", "train", "1b", 1, "scan"),
        ("llama-1b-train-fsdp8", "train", "1b", 8, "fsdp"),
    )),
)


def file_name(part, name):
    return name + (".no-command-buffer" if "no-command-buffer" in part else "")


# ---------------------------------------------------------------------------
# Arguments: arrays on the GPU that is there, shapes with shardings for the
# deviceless path.

def llama_arguments(jax, np, build, size, rng, sharding):
    """The program's arguments: arrays drawn from rng, or where
    `sharding(shape, role)` is given, shapes with that sharding."""
    import jax.numpy as jnp
    dtype = jnp.dtype(size.dtype)

    def array(shape, role, kind=dtype, zeros=False):
        if sharding is not None:
            return jax.ShapeDtypeStruct(shape, kind, sharding=sharding(shape, role))
        if kind == jnp.int32:
            return rng.randint(0, size.vocab, shape).astype(np.int32)
        if zeros:
            return np.zeros(shape, dtype=kind)
        if role == "norm":
            return np.ones(shape, dtype=kind)
        return (rng.standard_normal(shape) * 0.02).astype(kind)

    def tree(shapes, kind=dtype, zeros=False):
        return {k: tree(v, kind, zeros) if isinstance(v, dict)
                else array(v, "norm" if "norm" in k else k, kind, zeros)
                for k, v in shapes.items()}

    def scalar(value):
        return np.int32(value) if sharding is None else array((), "step", jnp.int32)

    shapes = models.parameter_shapes(size)
    params = tree(shapes)
    if build in ("forward", "prefill"):
        return [params, array((size.batch, size.seq), "tokens", jnp.int32)]
    if build == "train":
        return [params, tree(shapes, jnp.float32, True), tree(shapes, jnp.float32, True),
                scalar(0), array((size.batch, size.seq + 1), "tokens", jnp.int32)]
    # decode: a cache of twice the prompt; tokens from the prompt's end on.
    head = size.dim // size.heads
    cache_shape = (size.layers, size.batch, 2 * size.seq, size.kv_heads, head)
    cache = (array(cache_shape, "cache"), array(cache_shape, "cache"))
    return [params, cache, array((size.batch,), "tokens", jnp.int32), scalar(size.seq),
            scalar(2 * size.seq - 1)]


def program_of(jax, np, build, size_name, split, rng, mesh):
    """(function, arguments) for one program; mesh is None on the GPU."""
    from jax.sharding import NamedSharding, PartitionSpec as P
    if build in ("moe", "ring"):
        return collective_program(jax, np, build, mesh)
    if build == "gelu-mlp":
        return models.gelu_mlp_train, models.gelu_mlp_arguments(np, rng)
    size = models.SIZES[size_name]
    devices = mesh.devices.size if mesh is not None else 1
    sharding = None
    if mesh is not None:
        axis = mesh.axis_names[0]

        def sharding(shape, role):
            spec = [None] * len(shape)
            if devices > 1 and split == "fsdp":
                # Each array split along its first dimension past the layer
                # axis that the devices divide; the batch along its rows.
                first = 1 if len(shape) == 3 or (len(shape) == 2 and role == "norm") else 0
                if role == "tokens":
                    first = 0
                for d in range(first, len(shape)):
                    if shape[d] % devices == 0:
                        spec[d] = axis
                        break
            elif devices > 1 and split == "tp":
                # Megatron: column-split into the block, row-split out of it.
                if role in ("wq", "wk", "wv", "w_gate", "w_up", "embed", "unembed"):
                    spec[-1] = axis
                elif role in ("wo", "w_down"):
                    spec[-2] = axis
            elif devices > 1 and split == "dp" and role == "tokens":
                spec[0] = axis
            return NamedSharding(mesh, P(*spec))

    args = llama_arguments(jax, np, build, size, rng, sharding)
    scan = split != "unrolled"
    fn = {"forward": functools.partial(models.forward, size=size, scan=scan),
          "train": functools.partial(models.train_step, size=size, scan=scan),
          "prefill": functools.partial(models.prefill, size=size),
          "decode": functools.partial(models.decode, size=size)}[build]
    return fn, args


def collective_program(jax, np, build, mesh):
    from jax.sharding import NamedSharding, PartitionSpec as P
    import jax.numpy as jnp
    n, axis = mesh.devices.size, mesh.axis_names[0]

    def spec(shape, *parts):
        return jax.ShapeDtypeStruct(shape, jnp.bfloat16, sharding=NamedSharding(mesh, P(*parts)))

    if build == "moe":
        dim, ffn, tokens = 512, 2048, 1024
        fn = jax.shard_map(functools.partial(models.moe_layer, axis=axis), mesh=mesh,
                           in_specs=(P(axis), P(), P(axis), P(axis)), out_specs=P(axis))
        return fn, [spec((n * tokens, dim), axis), spec((dim, n)), spec((n, dim, ffn), axis),
                    spec((n, ffn, dim), axis)]
    rows, k, columns = 512, 1024, 512
    fn = jax.shard_map(functools.partial(models.ring_matmul, axis=axis, devices=n), mesh=mesh,
                       in_specs=(P(axis, None), P(None, axis)), out_specs=P(None, axis))
    return fn, [spec((n * rows, k), axis, None), spec((k, n * columns), None, axis)]


# ---------------------------------------------------------------------------
# A part, in its own process

def deviceless_mesh(jax, np, devices, target_config):
    from jax.experimental import topologies
    options = {}
    if target_config and os.path.exists(target_config):
        with open(target_config) as f:
            options["target_config"] = f.read()
    # The 8-GPU topology the containers' AOT part compiled for; a program of
    # fewer GPUs takes the first of them.
    topology = topologies.get_topology_desc(platform="cuda", topology="1x1x8", **options)
    return jax.sharding.Mesh(np.array(topology.devices[:devices]), ("x",))


def run_part(part, out, target_config):
    from jax_programs import import_jax, serialize_compiled
    jax, np = import_jax()
    _, deviceless, _, programs = next(p for p in PARTS if p[0] == part)
    report = {"programs": {}, "xla_flags": os.environ.get("XLA_FLAGS", ""),
              "versions": installed_versions()}
    result_file = os.path.join(out, part + ".json")
    meshes = {}
    for program, build, size_name, devices, split in programs:
        entry = {"build": build, "size": size_name, "devices": devices, "split": split,
                 "compiled": "deviceless" if deviceless else "on the GPU"}
        if models.program_parameters(build, size_name):
            entry["parameters"] = models.program_parameters(build, size_name)
        started = time.time()
        try:
            mesh = None
            if deviceless:
                if devices not in meshes:
                    meshes[devices] = deviceless_mesh(jax, np, devices, target_config)
                mesh = meshes[devices]
                entry["mesh"] = {"axes": list(mesh.axis_names), "shape": [devices]}
            rng = np.random.RandomState(SEED)
            fn, args = program_of(jax, np, build, size_name, split, rng, mesh)
            compiled = jax.jit(fn).lower(*args).compile()
            blob, entry["serialized_with"] = serialize_compiled(compiled)
            stem = file_name(part, program)
            entry["file"] = stem + ".exe"
            with open(os.path.join(out, entry["file"]), "wb") as f:
                f.write(blob)
            entry["bytes"] = len(blob)
            hlo = compiled.as_text() or ""
            entry["collectives"] = sorted({
                w for w in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                            "collective-permute") if w + "(" in hlo or w + "-start(" in hlo})
            entry["while_loops"] = hlo.count(" while(")
            if not deviceless:
                run_on_gpu(jax, np, compiled, args, out, stem, entry)
        except Exception:
            entry["error"] = traceback.format_exc(limit=6)
        entry["seconds"] = round(time.time() - started, 1)
        report["programs"][file_name(part, program)] = entry
        # After every program, so that a part cut short keeps the rest.
        with open(result_file, "w") as f:
            json.dump(report, f, indent=1, sort_keys=True, default=repr)
    return report


def run_on_gpu(jax, np, compiled, args, out, stem, entry):
    """Inputs and JAX's outputs, flattened as the executable's parameters
    and results are, and JAX's own time."""
    leaves = jax.tree.leaves(args)
    on_device = [jax.device_put(a) for a in leaves]
    treedef = jax.tree.structure(args)
    placed = jax.tree.unflatten(treedef, on_device)
    outputs = jax.tree.leaves(jax.block_until_ready(compiled(*placed)))
    entry["inputs"], entry["outputs"] = [], []
    for k, a in enumerate(leaves):
        entry["inputs"].append("%s.in%d.npy" % (stem, k))
        np.save(os.path.join(out, entry["inputs"][-1]), np.asarray(a))
    for k, o in enumerate(outputs):
        entry["outputs"].append("%s.out%d.npy" % (stem, k))
        np.save(os.path.join(out, entry["outputs"][-1]), np.asarray(o))
    times = []
    for _ in range(20):
        began = time.perf_counter()
        jax.block_until_ready(compiled(*placed))
        times.append((time.perf_counter() - began) * 1e6)
    times.sort()
    entry["jax_median_us"], entry["jax_min_us"] = times[len(times) // 2], times[0]


# ---------------------------------------------------------------------------
# The driver

def environment(part):
    env = dict(os.environ)
    _, deviceless, command_buffers, _ = next(p for p in PARTS if p[0] == part)
    if deviceless:
        env["JAX_PLATFORMS"] = "cpu"
    if not command_buffers:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + NO_COMMAND_BUFFER).strip()
    return env


def run_in_process(part, args, seconds):
    result_file = os.path.join(args.out, part + ".json")
    env = environment(part)
    argv = [sys.executable, os.path.abspath(__file__), "--part", part, args.out,
            "--target-config", args.target_config or ""]
    try:
        done = subprocess.run(argv, env=env, timeout=seconds, capture_output=True, text=True)
        error = None if done.returncode == 0 else done.stderr[-3000:]
    except subprocess.TimeoutExpired:
        error = "cut after %d s" % seconds
    result = {"programs": {}}
    if os.path.exists(result_file):
        with open(result_file) as f:
            result = json.load(f)
        os.remove(result_file)
    if error:
        result["error"] = error
    return result


def target_config(args):
    """The GPU's target description, for the deviceless parts: made once by
    make-jax-containers.py's target part, which asks the GPU for it."""
    path = os.path.join(args.out, "target-config.txtpb")
    if not os.path.exists(path):
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run([sys.executable, os.path.join(here, "make-jax-containers.py"),
                        args.out, "--parts", "target", "--part-seconds", "60"],
                       capture_output=True, timeout=90)
        # Its manifest is of that part alone; the corpus writes its own.
        if os.path.exists(os.path.join(args.out, "manifest.json")):
            os.remove(os.path.join(args.out, "manifest.json"))
    return path if os.path.exists(path) else None


def drop_over_budget(out, programs, budget):
    """Removes executables past the budget, largest first, and says so."""
    made = [(e["bytes"], name) for name, e in programs.items() if "bytes" in e]
    total = sum(b for b, _ in made)
    for size, name in sorted(made, reverse=True):
        if total <= budget:
            break
        entry = programs[name]
        for f in [entry.pop("file")] + entry.pop("inputs", []) + entry.pop("outputs", []):
            os.remove(os.path.join(out, f))
        entry["dropped"] = "%d bytes, over the corpus's budget of %d" % (size, budget)
        total -= size


def drive(args):
    if importlib.util.find_spec("jax") is None:
        raise EnvironmentProblem("cannot import jax; run this on the GPU machine where JAX is "
                                 "installed (--list needs no JAX)")
    os.makedirs(args.out, exist_ok=True)
    began = time.time()
    args.target_config = None
    manifest = {"versions": installed_versions(), "seed": SEED, "budget_bytes": args.budget_bytes,
                "parts": {}, "programs": []}
    programs = {}
    failed = False
    for part, deviceless, _, listed in PARTS:
        if args.parts and part not in args.parts:
            continue
        left = args.seconds - (time.time() - began)
        if left < 20:
            manifest["parts"][part] = {"skipped": "the %d s budget is spent" % args.seconds}
            failed = True
            continue
        if deviceless and args.target_config is None:
            args.target_config = target_config(args) or ""
        result = run_in_process(part, args, min(left, args.part_seconds))
        manifest["parts"][part] = {k: v for k, v in result.items() if k != "programs"}
        manifest["parts"][part]["seconds"] = round(time.time() - began - (args.seconds - left), 1)
        for name, entry in result.get("programs", {}).items():
            entry["part"] = part
            programs[name] = entry
        failed |= "error" in result or any("error" in e for e in result.get("programs", {}).values())
        print("%s: %s (%d programs, %.0f s)" % (part, "FAIL" if "error" in result else "done",
                                                  len(result.get("programs", {})),
                                                  manifest["parts"][part]["seconds"]), flush=True)
    drop_over_budget(args.out, programs, args.budget_bytes)
    manifest["programs"] = [dict(entry, name=name) for name, entry in programs.items()]
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True, default=repr)
    return EXIT_FAILED if failed else EXIT_OK


def list_plan():
    for part, deviceless, command_buffers, programs in PARTS:
        print("%s (%s, command buffers %s):" % (part, "deviceless" if deviceless else "on the GPU",
                                               "on" if command_buffers else "off"))
        for name, build, size, devices, split in programs:
            count = models.program_parameters(build, size)
            print("  %-40s %-8s %-5s %d GPU(s)  %-9s %s" % (
                file_name(part, name), build, size, devices, split,
                "{:,} parameters".format(count) if count else ""))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", help="where the corpus goes")
    parser.add_argument("--list", action="store_true", help="print the plan and exit")
    parser.add_argument("--parts", nargs="*", choices=[p[0] for p in PARTS],
                        help="only these parts (default: all, in order)")
    parser.add_argument("--seconds", type=int, default=180,
                        help="the most the whole corpus may take (default 180)")
    parser.add_argument("--part-seconds", type=int, default=120,
                        help="the most one part may take (default 120)")
    parser.add_argument("--budget-bytes", type=int, default=14 << 20,
                        help="the most the executables may hold together (default 14 MiB)")
    parser.add_argument("--part", help=argparse.SUPPRESS)
    parser.add_argument("--target-config", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.list:
        list_plan()
        return EXIT_OK
    if not args.out:
        parser.error("OUT is required")
    if args.part:
        try:
            run_part(args.part, args.out, args.target_config)
            return 0
        except EnvironmentProblem as e:
            return report_problem(e)
    try:
        return drive(args)
    except EnvironmentProblem as e:
        return report_problem(e)


if __name__ == "__main__":
    sys.exit(main())
