#!/usr/bin/env python3
"""Make the files JAX users actually hold, for the container readers.

Where to run it: on the GPU machine, with JAX (scripts/device-check.sh runs
it). A user who wants to see what XLA made of a program rarely has a bare
serialized executable; they have one of these, and this script makes each
from the fixture programs (scripts/jax_programs.py), under OUT:

  cache/       a persistent compilation cache (jax_compilation_cache_dir),
               every program compiled once into it; cache.json says which
               entry each program wrote, how the entry is compressed, and
               whether, once decompressed and past its 4-byte compile time,
               it holds exactly client.serialize_executable's bytes.
  dump/        the *gpu_executable* files of an XLA dump
               (--xla_dump_to with --xla_gpu_experimental_dump_gpu_executable),
               and dump-listing.txt, every file name the dump held.
  pickle/      NAME.pickle, jax.experimental.serialize_executable.serialize's
               payload; NAME.trees.pickle, its in and out trees;
               NAME.pickle.txt, pickletools' disassembly of the payload.
  step/        mlp-step.exe, one training step of a small MLP whose layers
               run under lax.scan (a while loop), for the schedule model to
               be measured against (thunky-run --model); step.json
               holds JAX's own time for it.
  aot/         executables for GPUs that are not there, through JAX's
               deviceless path (jax_platforms=cpu and
               topologies.get_topology_desc(platform="cuda", target_config=,
               topology="1x1x8")): multi-device programs with real
               collectives, each with command buffers as XLA defaults them
               (NAME.exe) and with them off (NAME.no-command-buffer.exe);
               target-config.txtpb, the target description used, taken
               from the GPU that is there.

OUT/manifest.json gathers every part's report: what was made, and for what
failed, the error. Each part runs in a process of its own, because XLA reads
its flags and JAX its platforms once per process.

Exit codes: 0 every part made its files; 2 usage or environment problem
(no jax); 4 a part failed (the others are still written).
"""
import argparse
import glob
import json
import os
import pickle
import pickletools
import subprocess
import sys
import time
import traceback
import zlib

from jax_programs import (PROGRAMS, compile_program, configure_jax, import_jax,
                          serialize_compiled)
from jaxlib_info import EXIT_FAILED, EXIT_OK, EnvironmentProblem, report_problem

SEED = 0
PARTS = ("cache", "dump", "pickle", "target", "aot", "aot-no-command-buffer", "step")
AOT_DEVICES = 8


# ---------------------------------------------------------------------------
# Helpers shared by the parts

def compression_of(blob):
    if blob[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    if len(blob) >= 2 and blob[0] & 0x0F == 8 and (blob[0] << 8 | blob[1]) % 31 == 0:
        return "zlib"
    return "unknown"


def decompress(blob):
    kind = compression_of(blob)
    if kind == "zlib":
        return zlib.decompress(blob)
    if kind == "zstd":
        try:
            import zstandard
        except ImportError:
            return None
        return zstandard.ZstdDecompressor().decompress(
            blob, max_output_size=1 << 31)
    return None


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, names in os.walk(root) for f in names)


# ---------------------------------------------------------------------------
# The parts, each run in its own process

def part_cache(out):
    jax, np = import_jax()
    configure_jax(jax)
    cache = os.path.join(out, "cache")
    os.makedirs(cache, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    report = {"programs": {}}
    for program in PROGRAMS:
        before = set(files_under(cache))
        compiled, _ = compile_program(jax, np, program, SEED)
        new = sorted(set(files_under(cache)) - before)
        entry = {"new_files": new}
        serialized, _ = serialize_compiled(compiled)
        for name in new:
            if not name.endswith("-cache"):
                continue
            with open(os.path.join(cache, name), "rb") as f:
                blob = f.read()
            body = decompress(blob)
            entry.update({
                "entry": name, "size": len(blob),
                "compression": compression_of(blob),
                "decompressed_size": None if body is None else len(body),
                "compile_time_prefix": None if body is None else body[:4].hex(),
                "rest_is_serialize_executable":
                    None if body is None else body[4:] == serialized,
            })
        report["programs"][program.name] = entry
    report["files"] = files_under(cache)
    return report


def part_dump(out):
    dump = os.path.join(out, "dump-all")
    jax, np = import_jax()
    configure_jax(jax)
    report = {"compiled": []}
    for program in PROGRAMS:
        compile_program(jax, np, program, SEED)
        report["compiled"].append(program.name)
    kept = os.path.join(out, "dump")
    os.makedirs(kept, exist_ok=True)
    listing = files_under(dump)
    with open(os.path.join(out, "dump-listing.txt"), "w") as f:
        f.write("\n".join(listing) + "\n")
    report["kept"] = []
    for name in listing:
        if "gpu_executable" in name:
            target = os.path.join(kept, os.path.basename(name))
            os.replace(os.path.join(dump, name), target)
            report["kept"].append(os.path.basename(name))
    report["files_in_dump"] = len(listing)
    return report


def part_pickle(out):
    jax, np = import_jax()
    configure_jax(jax)
    from jax.experimental import serialize_executable as se
    folder = os.path.join(out, "pickle")
    os.makedirs(folder, exist_ok=True)
    report = {"programs": {}}
    for program in PROGRAMS:
        compiled, args = compile_program(jax, np, program, SEED)
        payload, in_tree, out_tree = se.serialize(compiled)
        base = os.path.join(folder, program.name)
        with open(base + ".pickle", "wb") as f:
            f.write(payload)
        entry = {"size": len(payload)}
        try:
            with open(base + ".trees.pickle", "wb") as f:
                pickle.dump((in_tree, out_tree), f)
        except Exception as e:  # a tree that does not pickle is worth knowing
            entry["trees_error"] = repr(e)
        with open(base + ".pickle.txt", "w") as f:
            pickletools.dis(payload, out=f)
        loaded = se.deserialize_and_load(payload, in_tree, out_tree)
        same = all(np.asarray(a).tobytes() == np.asarray(b).tobytes()
                   for a, b in zip(jax.tree.leaves(loaded(*args)),
                                   jax.tree.leaves(compiled(*args))))
        entry["deserialize_and_load_same_outputs"] = same
        report["programs"][program.name] = entry
    return report


def part_target(out):
    """The target description of the GPU that is here, as text: the
    deviceless compile needs it and only a GPU process can ask for it."""
    jax, _ = import_jax()
    report = {"tried": []}
    text = None
    for path in sorted(glob.glob(os.path.join(os.path.dirname(jax.__file__),
                                              "..", "**", "*.txtpb"),
                                 recursive=True)):
        with open(path, errors="replace") as f:
            content = f.read()
        report["tried"].append("file " + path)
        if "gpu_device_info" in content:
            report.setdefault("shipped", []).append(path)
    try:
        text = target_from_topology(jax, report)
    except Exception:
        report["topology_error"] = traceback.format_exc(limit=4)
    if text is None and report.get("shipped"):
        name = jax.devices()[0].device_kind.lower()
        match = [p for p in report["shipped"] if "h200" in p.lower()] or \
            [p for p in report["shipped"] if any(w in p.lower()
                                                 for w in name.split())]
        if match:
            with open(match[0]) as f:
                text = f.read()
            report["source"] = match[0]
    if text is not None:
        with open(os.path.join(out, "target-config.txtpb"), "w") as f:
            f.write(text)
    report["device_kind"] = jax.devices()[0].device_kind
    report["found"] = text is not None
    return report


def target_from_topology(jax, report):
    """GpuTopologyProto.gpu_target_config (field 8) of the attached devices'
    topology, printed as text with the descriptors jaxlib carries."""
    from jax._src import xla_bridge
    backend = xla_bridge.get_backend()
    topology = backend.get_topology_for_devices(jax.devices())
    blob = topology.serialize()
    report["tried"].append("topology.serialize(): %d bytes" % len(blob))
    field = field_bytes(blob, 8)
    if field is None:
        report["tried"].append("no gpu_target_config (8) in the topology")
        return None
    return text_of("stream_executor.GpuTargetConfigProto", field, report)


def field_bytes(blob, number):
    """The first length-delimited field `number` of a message, or None."""
    pos = 0
    while pos < len(blob):
        key, pos = varint(blob, pos)
        kind = key & 7
        if kind == 0:
            _, pos = varint(blob, pos)
        elif kind == 1:
            pos += 8
        elif kind == 5:
            pos += 4
        elif kind == 2:
            size, pos = varint(blob, pos)
            if key >> 3 == number:
                return blob[pos:pos + size]
            pos += size
        else:
            return None
    return None


def varint(blob, pos):
    value = shift = 0
    while True:
        byte = blob[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def text_of(type_name, blob, report):
    """blob as protobuf text, with the descriptors embedded in jaxlib."""
    import importlib.util
    from google.protobuf import descriptor_pb2, descriptor_pool, text_format
    from google.protobuf import message_factory
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "check_jax_schema", os.path.join(here, "check-jax-schema.py"))
    schema = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(schema)
    found = schema.collect_descriptors(schema.find_shared_objects())
    files = {name: descriptor_pb2.FileDescriptorProto.FromString(copies[0][1])
             for name, copies in found.items()}
    pool = descriptor_pool.DescriptorPool()
    added = set()

    def add(name):
        if name in added or name not in files:
            return
        added.add(name)
        for dependency in files[name].dependency:
            add(dependency)
        try:
            pool.Add(files[name])
        except Exception as e:
            report["tried"].append("descriptor %s: %r" % (name, e))

    for name in files:
        add(name)
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(type_name))
    return text_format.MessageToString(cls.FromString(blob))


# Programs for AOT_DEVICES GPUs: every collective XLA has a thunk for, and
# the two training-step shapes that put collectives beside compute.
def aot_programs(jax, np):
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P
    from jax.experimental import topologies
    options = {}
    if os.path.exists(os.environ.get("THUNKY_TARGET_CONFIG", "")):
        with open(os.environ["THUNKY_TARGET_CONFIG"]) as f:
            options["target_config"] = f.read()
    topology = topologies.get_topology_desc(
        platform="cuda", topology="1x1x%d" % AOT_DEVICES, **options)
    mesh = jax.sharding.Mesh(np.array(topology.devices), ("x",))
    shard = NamedSharding(mesh, P("x"))
    replicated = NamedSharding(mesh, P())
    f32 = jnp.float32

    def spec(shape, sharding):
        return jax.ShapeDtypeStruct(shape, f32, sharding=sharding)

    def mapped(body, out_specs=P("x")):
        return jax.shard_map(body, mesh=mesh, in_specs=P("x"),
                             out_specs=out_specs)

    n = AOT_DEVICES
    programs = {
        "all-reduce": (mapped(lambda b: jax.lax.psum(b, "x")),
                       [spec((n * 1024,), shard)]),
        "all-gather": (mapped(lambda b: jax.lax.all_gather(b, "x", tiled=True),
                              out_specs=P("x")),
                       [spec((n * 1024,), shard)]),
        "reduce-scatter": (mapped(lambda b: jax.lax.psum_scatter(
            b, "x", tiled=True)), [spec((n * n * 128,), shard)]),
        "all-to-all": (mapped(lambda b: jax.lax.all_to_all(
            b, "x", 0, 0, tiled=True)), [spec((n * n * 128,), shard)]),
        "collective-permute": (mapped(lambda b: jax.lax.ppermute(
            b, "x", [(i, (i + 1) % n) for i in range(n)])),
            [spec((n * 1024,), shard)]),
    }

    def mlp_loss(params, batch):
        w1, w2 = params
        hidden = jnp.tanh(batch @ w1)
        return jnp.mean((hidden @ w2) ** 2)

    def train_step(params, batch):
        grads = jax.grad(mlp_loss)(params, batch)
        return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

    # Data parallel: parameters replicated, the batch split; XLA all-reduces
    # the gradients. Sharded parameters (FSDP): XLA all-gathers them for the
    # step and reduce-scatters the gradients.
    programs["train-step-dp"] = (train_step, [
        (spec((512, 1024), replicated), spec((1024, 256), replicated)),
        spec((n * 64, 512), shard)])
    programs["train-step-fsdp"] = (train_step, [
        (spec((512, 1024), shard), spec((1024, 256), shard)),
        spec((n * 64, 512), shard)])
    return programs


def part_aot(out, name):
    jax, np = import_jax()
    folder = os.path.join(out, "aot")
    os.makedirs(folder, exist_ok=True)
    suffix = ".no-command-buffer.exe" if "no-command-buffer" in name else ".exe"
    report = {"programs": {}, "xla_flags": os.environ.get("XLA_FLAGS", "")}
    for program, (fn, args) in aot_programs(jax, np).items():
        entry = {}
        try:
            compiled = jax.jit(fn).lower(*args).compile()
            blob, entry["serialized_with"] = serialize_compiled(compiled)
            with open(os.path.join(folder, program + suffix), "wb") as f:
                f.write(blob)
            entry["size"] = len(blob)
            hlo = compiled.as_text() or ""
            entry["collectives"] = sorted({
                word for word in ("all-reduce", "all-gather", "reduce-scatter",
                                  "all-to-all", "collective-permute")
                if word + "(" in hlo or word + "-start(" in hlo})
        except Exception:
            entry["error"] = traceback.format_exc(limit=6)
        report["programs"][program] = entry
    return report


def part_step(out):
    """A step with real shapes on the one GPU: tens of kernels and GEMMs,
    and a loop, so that a timeline has something to say."""
    jax, np = import_jax()
    import jax.numpy as jnp
    folder = os.path.join(out, "step")
    os.makedirs(folder, exist_ok=True)
    layers, width, batch = 4, 512, 256

    def loss(weights, x):
        def layer(h, w):
            return jnp.tanh(h @ w), None
        h, _ = jax.lax.scan(layer, x, weights)
        return jnp.mean(h ** 2)

    def step(weights, x):
        value, grads = jax.value_and_grad(loss)(weights, x)
        return weights - 0.01 * grads, value

    rng = np.random.RandomState(SEED)
    args = [rng.standard_normal((layers, width, width)).astype(np.float32) / np.sqrt(width),
            rng.standard_normal((batch, width)).astype(np.float32)]
    compiled = jax.jit(step).lower(*args).compile()
    blob, method = serialize_compiled(compiled)
    with open(os.path.join(folder, "mlp-step.exe"), "wb") as f:
        f.write(blob)
    device_args = [jax.device_put(a) for a in args]
    # The inputs and JAX's outputs for them, so that a run of the
    # executable elsewhere (scripts/device-check.sh) is held against JAX.
    outputs = jax.block_until_ready(compiled(*device_args))
    for k, a in enumerate(args):
        np.save(os.path.join(folder, "in%d.npy" % k), a)
    for k, o in enumerate(outputs):
        np.save(os.path.join(folder, "out%d.npy" % k), np.asarray(o))
    for _ in range(10):
        jax.block_until_ready(compiled(*device_args))
    times = []
    for _ in range(100):
        began = time.perf_counter()
        jax.block_until_ready(compiled(*device_args))
        times.append((time.perf_counter() - began) * 1e6)
    times.sort()
    report = {"size": len(blob), "serialized_with": method,
              "jax_median_us": times[len(times) // 2], "jax_min_us": times[0],
              "shapes": {"layers": layers, "width": width, "batch": batch}}
    with open(os.path.join(folder, "step.json"), "w") as f:
        json.dump(report, f, indent=1)
    return report


def run_part(name, out):
    if name == "cache":
        return part_cache(out)
    if name == "dump":
        return part_dump(out)
    if name == "pickle":
        return part_pickle(out)
    if name == "target":
        return part_target(out)
    if name == "step":
        return part_step(out)
    return part_aot(out, name)


# ---------------------------------------------------------------------------
# The driver: each part in its own process, with its own flags

def part_environment(name, out):
    env = dict(os.environ)
    if name == "dump":
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_dump_to=%s "
                            "--xla_gpu_experimental_dump_gpu_executable=true"
                            % os.path.join(out, "dump-all")).strip()
    if name.startswith("aot"):
        env["JAX_PLATFORMS"] = "cpu"
        env["THUNKY_TARGET_CONFIG"] = os.path.join(out, "target-config.txtpb")
        if name == "aot-no-command-buffer":
            env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                                " --xla_gpu_enable_command_buffer=").strip()
    return env


def run_in_process(name, args, env):
    """Runs one part in a process of its own; its report, or its error."""
    result_file = os.path.join(args.out, name + ".json")
    done = None
    try:
        done = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--part", name,
             args.out], env=env, timeout=args.part_seconds,
            capture_output=True, text=True)
        with open(result_file) as f:
            result = json.load(f)
        if done.returncode != 0:
            result.setdefault("error", done.stderr[-3000:])
    except subprocess.TimeoutExpired:
        result = {"error": "timed out after %d s" % args.part_seconds}
    except (OSError, ValueError) as e:
        result = {"error": "no report: %r; stderr: %s" % (
            e, done.stderr[-3000:] if done else "")}
    if os.path.exists(result_file):
        os.remove(result_file)
    return result


def failed_part(result):
    """Whether a part failed as a whole or for any of its programs."""
    programs = result.get("programs")
    return "error" in result or (isinstance(programs, dict) and any(
        isinstance(p, dict) and "error" in p for p in programs.values()))


def drive(args):
    os.makedirs(args.out, exist_ok=True)
    manifest = {"parts": {}}
    failed = False
    for name in args.parts or PARTS:
        started = time.time()
        env = part_environment(name, args.out)
        result = run_in_process(name, args, env)
        if "error" in result and name == "dump":
            # An XLA without the executable dump dies on the unknown flag:
            # the rest of the dump is still worth having.
            env["XLA_FLAGS"] = env["XLA_FLAGS"].replace(
                "--xla_gpu_experimental_dump_gpu_executable=true", "")
            result = dict(run_in_process(name, args, env),
                          with_executable_dump_flag=result["error"])
        if failed_part(result) and env.get("JAX_PLATFORMS") == "cpu":
            # Where the deviceless path needs the GPU platform loaded, the
            # same compile from a GPU process still targets absent GPUs.
            del env["JAX_PLATFORMS"]
            result = dict(run_in_process(name, args, env),
                          under_jax_platforms_cpu=result)
        result["seconds"] = round(time.time() - started, 1)
        failed |= failed_part(result)
        manifest["parts"][name] = result
        # Written after every part, so that a run cut short keeps the rest.
        with open(os.path.join(args.out, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True, default=repr)
        print("%s: %s (%.0f s)" % (name, "FAIL" if "error" in result else "done",
                                   result["seconds"]), flush=True)
    return EXIT_FAILED if failed else EXIT_OK


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="where everything goes")
    parser.add_argument("--part", help=argparse.SUPPRESS)
    parser.add_argument("--parts", nargs="*", choices=PARTS,
                        help="only these parts (default: all, in order)")
    parser.add_argument("--part-seconds", type=int, default=120,
                        help="the most one part may take (default 120)")
    args = parser.parse_args(argv)
    if args.part:
        result_file = os.path.join(args.out, args.part + ".json")
        try:
            result = run_part(args.part, args.out)
            code = 0
        except EnvironmentProblem as e:
            result, code = {"error": str(e)}, 2
        except Exception:
            result, code = {"error": traceback.format_exc(limit=8)}, 1
        with open(result_file, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True, default=repr)
        return code
    try:
        return drive(args)
    except EnvironmentProblem as e:
        return report_problem(e)


if __name__ == "__main__":
    sys.exit(main())
