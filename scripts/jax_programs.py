"""The JAX programs the fixtures are made from, and how each is compiled:
what scripts/make-jax-fixtures.py writes and scripts/reload-jax-exports.py
and scripts/jax-package-loop.py compile again, so that all see the same
executable for the same seed; and what those two share in checking a
fixture set's outputs.

jax and numpy are imported inside the functions, so that --help and --list
work without them.
"""
import collections
import io
import json
import os
import pickle
import zlib

from jaxlib_info import EXIT_FAILED, EXIT_OK, EnvironmentProblem


# ---------------------------------------------------------------------------
# The programs. Each builder takes a numpy RandomState and returns the
# function to jit and its example arguments. jax and numpy are imported
# inside, so that --help and --list work without them.
# Every builder's own source goes into the manifest, so the fixtures are
# reproducible from the manifest alone.

def elementwise(rng):
    import jax.numpy as jnp
    import numpy as np

    def f(x, y):
        return jnp.sin(x) * y + 1.0

    return f, [rng.standard_normal(1024).astype(np.float32),
               rng.standard_normal(1024).astype(np.float32)]


def matmul(rng):
    import numpy as np

    def f(a, b):
        return a @ b

    return f, [rng.standard_normal((128, 256)).astype(np.float32),
               rng.standard_normal((256, 64)).astype(np.float32)]


def reduction(rng):
    import jax.numpy as jnp
    import numpy as np

    def f(x):
        return jnp.sum(x, axis=1)

    return f, [rng.standard_normal((64, 512)).astype(np.float32)]


def while_loop(rng):
    import jax
    import jax.numpy as jnp
    import numpy as np

    # The trip count is an argument: with a constant one XLA may unroll the
    # loop, and the fixture is meant to hold a while thunk.
    def f(x, n):
        return jax.lax.fori_loop(0, n, lambda i, acc: acc * 0.5 + jnp.sin(acc),
                                 x)

    return f, [rng.standard_normal(256).astype(np.float32), np.int32(10)]


def conditional(rng):
    import jax
    import jax.numpy as jnp
    import numpy as np

    # Branches big enough that XLA keeps a conditional rather than a select.
    def f(p, x):
        return jax.lax.cond(p > 0,
                            lambda v: jnp.sin(v) * 2.0 + jnp.cumsum(v),
                            lambda v: jnp.cos(v) - jnp.cumsum(v[::-1]),
                            x)

    return f, [np.int32(1), rng.standard_normal(512).astype(np.float32)]


def collective(rng):
    import jax
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec

    # One device is all a fixture machine is sure to have. XLA may simplify
    # collectives over a single participant away; the manifest records which
    # collectives survived ("hlo_collectives").
    mesh = Mesh(np.array(jax.devices()[:1]), ("i",))

    def body(block):
        total = jax.lax.psum(block, "i")
        gathered = jax.lax.all_gather(block, "i", tiled=True)
        return total + gathered

    # all_gather's result counts as device-varying, so the output spec must
    # name the axis; over one device that is the whole array anyway.
    f = jax.shard_map(body, mesh=mesh, in_specs=PartitionSpec("i"),
                      out_specs=PartitionSpec("i"))
    return f, [rng.standard_normal((8, 128)).astype(np.float32)]


def constants(rng):
    import numpy as np

    # A closed-over numpy array becomes an HLO constant (see
    # configure_jax), which XLA:GPU keeps as a global in the executable.
    table = rng.standard_normal(256).astype(np.float32)

    def f(x):
        return x + table

    return f, [rng.standard_normal(256).astype(np.float32)]


Program = collections.namedtuple("Program", "name description build")

PROGRAMS = [
    Program("elementwise", "sin(x) * y + 1 on f32[1024]", elementwise),
    Program("matmul", "f32[128,256] @ f32[256,64]", matmul),
    Program("reduction", "sum over axis 1 of f32[64,512]", reduction),
    Program("while_loop", "lax.fori_loop with a runtime trip count on f32[256]",
            while_loop),
    Program("conditional", "lax.cond on a scalar s32 predicate over f32[512]",
            conditional),
    Program("collective", "shard_map over one device: psum + all_gather of "
            "f32[8,128]", collective),
    Program("constants", "a captured numpy f32[256] constant added to the input",
            constants),
]


def import_jax():
    try:
        import jax
        import numpy
    except ImportError as e:
        raise EnvironmentProblem("cannot import jax/numpy (%s); run this on the "
                                 "GPU machine where JAX is installed" % e)
    return jax, numpy


def configure_jax(jax):
    """Makes closed-over arrays HLO constants, as they have long been.

    Under the newer scheme (jax_use_simplified_jaxpr_constants) they become
    extra leading executable parameters ("const_args") instead, and the
    constants fixture would hold no constant. Returns the setting used, or
    None where this jax has no such option.
    """
    try:
        jax.config.update("jax_use_simplified_jaxpr_constants", False)
        return False
    except (AttributeError, KeyError, ValueError):
        return None


def selected_programs(names):
    if not names:
        return PROGRAMS
    known = {p.name: p for p in PROGRAMS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise EnvironmentProblem("unknown program(s): %s (see --list)"
                                 % ", ".join(unknown))
    return [known[n] for n in names]


def compile_program(jax, np, program, seed):
    """jax.jit(f).lower(*args).compile() of the program, its arguments drawn
    from a RandomState seeded by `seed` and the program's name."""
    rng = np.random.RandomState((seed + zlib.crc32(program.name.encode()))
                                % 2**32)
    fn, args = program.build(rng)
    return jax.jit(fn).lower(*args).compile(), args


def serialize_compiled(compiled):
    """Returns (executable bytes, how they were obtained)."""
    runtime = compiled.runtime_executable()
    client = getattr(runtime, "client", None)
    if client is not None and hasattr(client, "serialize_executable"):
        return client.serialize_executable(runtime), "client.serialize_executable"
    # A deviceless (compile-only) executable has no client to ask.
    if hasattr(runtime, "serialize"):
        return runtime.serialize(), "runtime_executable().serialize"
    from jax.experimental import serialize_executable
    payload, _, _ = serialize_executable.serialize(compiled)
    return executable_from_pickle(payload), "serialize_executable pickle"


class _Opaque:
    """Stands in for every class a jax executable pickle names.

    Building jax's real objects would need a live client and devices, and
    the only thing wanted from the pickle is the executable's bytes.
    """

    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, item):
        pass

    def extend(self, items):
        pass


class _ExecutableBytesUnpickler(pickle.Unpickler):
    """Reads jax.experimental.serialize_executable's pickle for its bytes.

    jax's pickler replaces the XLA executable by the persistent id
    ('exec', <bytes>), the same bytes as client.serialize_executable;
    devices and the client become ('device', id) and ('client',).
    persistent_load records the executable bytes and answers None for the
    rest, and find_class hands back _Opaque, so no jax code runs.
    """

    def __init__(self, file):
        super().__init__(file)
        self.executables = []

    def persistent_load(self, pid):
        if isinstance(pid, tuple) and pid and pid[0] == "exec":
            self.executables.append(bytes(pid[1]))
        return None

    def find_class(self, module, name):
        return _Opaque


def executable_from_pickle(payload):
    unpickler = _ExecutableBytesUnpickler(io.BytesIO(payload))
    unpickler.load()
    if len(unpickler.executables) != 1:
        raise RuntimeError("expected one ('exec', bytes) in the pickle, found %d"
                           % len(unpickler.executables))
    return unpickler.executables[0]


# ---------------------------------------------------------------------------
# Checking a fixture set's outputs (reload-jax-exports.py, jax-package-loop.py)

def read_manifest(folder):
    """The manifest.json of a fixture set, as a dict."""
    path = os.path.join(folder, "manifest.json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise EnvironmentProblem("cannot read %s: %s" % (path, e))


def outputs_differ(jax, np, function, args, expected):
    """'' when `function` on `args` (put on the first device) gives the
    arrays `expected` bit for bit: dtype, shape and bytes; else what
    differs."""
    device = jax.devices()[0]
    results = jax.tree_util.tree_leaves(function(*[jax.device_put(a, device) for a in args]))
    if len(results) != len(expected):
        return "%d outputs, the fixture has %d" % (len(results), len(expected))
    for k, (want, got) in enumerate(zip(expected, results)):
        got = np.asarray(got)
        if (want.dtype, want.shape, want.tobytes()) != (got.dtype, got.shape, got.tobytes()):
            return "output %d differs" % k
    return ""


def finish(results, args):
    """Prints one line per program (appending them to the file args.report
    too, when given) from `results`, (line, passed) pairs, and returns the
    exit code; no result at all is a failure."""
    lines = [line for line, _ in results]
    failed = not all(passed for _, passed in results)
    if not results:
        lines.append("- FAIL: %s holds no export of a program of %s"
                     % (args.exports, args.fixtures))
        failed = True
    print("\n".join(lines))
    if args.report:
        with open(args.report, "a") as f:
            f.write("\n".join(lines) + "\n")
    return EXIT_FAILED if failed else EXIT_OK
