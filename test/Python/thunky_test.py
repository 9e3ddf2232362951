"""The thunky Python package against the build: run by package.test (lit)
and by scripts/test.sh, which prints the summary line this prints last.

    PYTHONPATH=python THUNKY_BUILD_DIR=build python3 test/Python/thunky_test.py
"""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

import thunky

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "test" / "Translate" / "jax-fixtures" / "0.11.2"
RUNTIME = ROOT / "test" / "Runtime"
# One of each layering thunky reads, from JAX 0.11.2 and XLA.
CONTAINERS = [
    FIXTURES / "matmul.exe",                                    # ifrt+split-options
    FIXTURES / "containers" / "pickle" / "conditional.pickle",  # serialize()'s pickle
    FIXTURES / "containers" / "aot" / "all-reduce.exe",         # XLA's AOT wrapper
    next((FIXTURES / "containers" / "dump").glob("*.riegeli")),  # split-options
    next(p for p in (FIXTURES / "containers" / "cache").glob("jit_*")),  # cache entry
]

try:
    import jax  # noqa: F401
    HAVE_JAX, NO_JAX = True, ""
except ImportError as e:
    HAVE_JAX, NO_JAX = False, f"JAX is not installed here ({e})"


def encode(textproto: Path) -> bytes:
    """A test/Runtime fixture as GpuExecutableProto bytes (scripts/encode.sh)."""
    with open(textproto, "rb") as f:
        return subprocess.run(["bash", str(ROOT / "scripts" / "encode.sh"),
                               "xla.gpu.GpuExecutableProto"], stdin=f, check=True,
                              capture_output=True).stdout


class Containers(unittest.TestCase):
    def test_load_names_layers(self):
        exe = thunky.load(CONTAINERS[1])
        self.assertTrue(exe.layers.startswith("pickle+ifrt+split-options:"), exe.layers)
        self.assertEqual(str(CONTAINERS[1]), exe.name)
        self.assertEqual(thunky.load(CONTAINERS[1].read_bytes()).layers, exe.layers)

    def test_mlir_round_trip_is_byte_identical(self):
        for path in CONTAINERS:
            with self.subTest(path.name):
                exe = thunky.load(path)
                text = exe.to_mlir()
                self.assertIn("func.func @main", text)
                self.assertIn("thunky.", text)
                self.assertEqual(thunky.from_mlir(text).export(), path.read_bytes())

    def test_export_as_another_layering(self):
        exe = thunky.load(encode(RUNTIME / "memops.textproto"))
        split = thunky.load(exe.export("split"))
        self.assertTrue(split.layers.startswith("split:"), split.layers)
        self.assertEqual(split.export("executable"), exe.export())

    def test_bad_input_raises_the_c_message(self):
        with self.assertRaisesRegex(thunky.Error, "not a GpuExecutableProto"):
            thunky.load(b"\xff\xff\xff\xff garbage")
        with self.assertRaisesRegex(thunky.Error, "an MLIR module"):
            thunky.load(b"module {}\n")
        with self.assertRaisesRegex(thunky.Error, "No such file"):
            thunky.load("/nonexistent/x.pb")
        exe = thunky.load(encode(RUNTIME / "memops.textproto"))
        with self.assertRaisesRegex(thunky.Error, "^/nonexistent/x.pb: No such file"):
            exe.save("/nonexistent/x.pb")
        with self.assertRaises(thunky.Error) as caught:
            thunky.from_mlir("module { thunky.nonsense }")
        self.assertIn("error:", str(caught.exception))
        self.assertTrue(caught.exception.diagnostics)


class Passes(unittest.TestCase):
    def test_optimize_keeps_meaning(self):
        exe = thunky.load(CONTAINERS[1])
        fast = exe.optimize()
        self.assertTrue(fast.layers.startswith("pickle+"), fast.layers)
        self.assertTrue(exe.compare(fast, ranks=2).same)
        with self.assertRaisesRegex(thunky.Error, "no-such-pass"):
            exe.optimize("no-such-pass")

    def test_optimize_rewrites(self):
        # Two copies of the same bytes: thunky-elide-copies removes one.
        exe = thunky.load(encode(RUNTIME / "memops.textproto"))
        before = exe.stats()["thunks"]
        self.assertEqual(5, before)
        fast = exe.optimize("thunky-optimize")
        self.assertLessEqual(fast.stats()["thunks"], before)
        self.assertTrue(exe.compare(fast, inputs=[np.arange(4, dtype=np.float32)]).same)

    def test_stats_and_memory_report(self):
        exe = thunky.load(FIXTURES / "matmul.exe")
        stats = exe.stats()
        self.assertEqual({"launch": 2}, stats["thunk_ops"])
        self.assertEqual(2, stats["kernels"])
        report = exe.memory_report()
        self.assertIn("peak", report)
        self.assertEqual(stats["thunks"], report["thunks"])

    def test_check_races(self):
        self.assertEqual([], thunky.load(CONTAINERS[1]).check_races())
        # Both the region and the op beside it write the output.
        racy = thunky.from_mlir("""
func.func @main(%o: !thunky.buffer<16> {thunky.role = "output {}", thunky.shape = tensor<4xf32>}) {
  %t = thunky.async_start stream = 1 {
    thunky.memzero %o : <16>
  } : !thunky.token
  thunky.memset32 %o, 3 : <16>
  thunky.async_done %t : !thunky.token
  return
}""")
        (found,) = racy.check_races()
        self.assertEqual("error", found.severity)
        self.assertIn("races with thunk 2, 'thunky.memset32'", found.message)


class Running(unittest.TestCase):
    def setUp(self):
        self.all_reduce = thunky.load(encode(RUNTIME / "all-reduce-one-rank.textproto"))
        self.x = np.array([1.5, -2, 3, 4], np.float32)

    def test_run_two_ranks(self):
        (out,) = self.all_reduce.run([self.x], ranks=2)
        self.assertEqual((2, 4), out.shape)
        np.testing.assert_array_equal(out, [2 * self.x, 2 * self.x])
        (one,) = self.all_reduce.run([self.x])
        np.testing.assert_array_equal(one, self.x)

    def test_run_converts_and_checks_inputs(self):
        (out,) = self.all_reduce.run([[1, 2, 3, 4]])  # a list of ints: converted
        np.testing.assert_array_equal(out, [1, 2, 3, 4])
        with self.assertRaisesRegex(thunky.Error, r"shape \(3,\)"):
            self.all_reduce.run([np.zeros(3, np.float32)])
        with self.assertRaisesRegex(thunky.Error, "takes 1 parameter"):
            self.all_reduce.run([self.x, self.x])
        with self.assertRaisesRegex(thunky.Error, "ranks"):
            self.all_reduce.run([self.x], ranks=0)

    def test_run_options_come_from_the_c_table(self):
        options = thunky.run_options()
        self.assertIn("max-iterations", options)
        self.assertIn("while loop", options["max-iterations"])
        self.assertNotIn("print", options)  # thunky-run's own, not a session's
        with self.assertRaisesRegex(thunky.ArgumentError,
                                    "unknown option 'max_iteration'; did you mean max_iterations"):
            self.all_reduce.run([self.x], max_iteration=5)
        with self.assertRaisesRegex(thunky.Error, "scratch-byte: '300' is not a whole number"):
            self.all_reduce.run([self.x], scratch_byte=300)

    def test_run_fixture_with_kernels(self):
        exe = thunky.load(FIXTURES / "elementwise.exe")
        inputs = [np.load(FIXTURES / f"elementwise.in{i}.npy") for i in range(2)]
        a = exe.run(inputs, kernels="fingerprint")
        b = exe.run(inputs, kernels="fingerprint")
        np.testing.assert_array_equal(a[0], b[0])
        self.assertEqual(np.load(FIXTURES / "elementwise.out0.npy").shape, a[0].shape)
        with self.assertRaisesRegex(thunky.Error, "kernel"):
            exe.run(inputs)  # no host kernels registered

    def test_run_with_host_kernel_library(self):
        exe = thunky.load(encode(RUNTIME / "kernels.textproto"))
        build = Path(os.environ.get("THUNKY_BUILD_DIR", ROOT / "build"))
        a = np.array([1, 2, 3, 4], np.float32)
        b = np.array([10, 20, 30, 40], np.float32)
        out = exe.run([a, b], libraries=[build / "lib" / "libThunkyTestKernels.so",
                                         build / "lib" / "libThunkyExampleKernels.so"])
        np.testing.assert_array_equal(out[0], [22, 44, 66, 88])
        # One path is one library, not one per letter.
        with self.assertRaisesRegex(thunky.Error, "/nonexistent/kernels.so"):
            exe.run([a, b], libraries="/nonexistent/kernels.so")

    def test_compare_names_the_wrong_edit(self):
        exe = thunky.load(encode(RUNTIME / "memops.textproto"), name="memops")
        text = exe.to_mlir()
        self.assertIn("thunky.memset32", text)
        edited = text.replace("memset32 %0, 7 {", "memset32 %0, 9 {", 1)  # the "fill" thunk writes 9s
        self.assertNotEqual(edited, text)
        wrong = thunky.from_mlir(edited, name="edited")
        result = exe.compare(wrong, ranks=2, seed=3)
        self.assertFalse(result.same)
        self.assertFalse(result)
        self.assertEqual((0, 0, 0), (result.output, result.rank, result.byte))
        self.assertEqual("thunk 0 (fill)", result.thunk)
        self.assertEqual(0, result.thunk_index)
        self.assertIn("first divergent thunk", result.divergence)
        self.assertIn("0x07 in memops, 0x09 in edited", result.difference)
        self.assertTrue(exe.compare(exe, ranks=2).same)


class Jax(unittest.TestCase):
    @unittest.skipIf(HAVE_JAX, "JAX is installed: the round trip test covers it")
    def test_without_jax_says_so(self):
        with self.assertRaisesRegex(thunky.Error, "JAX is not installed"):
            thunky.from_compiled(object())

    @unittest.skipUnless(HAVE_JAX, NO_JAX)
    def test_from_and_to_compiled(self):
        import jax
        import jax.numpy as jnp
        f = jax.jit(lambda x, y: jnp.sin(x) @ y)
        x = jnp.ones((8, 8), jnp.float32)
        compiled = f.lower(x, x).compile()
        exe = thunky.from_compiled(compiled)
        self.assertTrue(exe.layers.startswith("pickle+"), exe.layers)
        again = thunky.to_compiled(exe.optimize(), like=compiled)
        np.testing.assert_allclose(np.asarray(again(x, x)), np.asarray(compiled(x, x)))

    def test_with_executable_keeps_the_container(self):
        # What to_compiled does to serialize()'s pickle, without JAX.
        like = thunky.load(CONTAINERS[1])
        self.assertEqual(like.export(), like.with_executable(like).export())
        bare = thunky.load(like.export("executable"))
        self.assertEqual(like.export(), like.with_executable(bare).export())
        # Another executable inside: the pickle around it stays.
        fast = like.optimize()
        swapped = like.with_executable(thunky.load(fast.export("executable")))
        self.assertTrue(swapped.layers.startswith("pickle+"), swapped.layers)
        self.assertEqual(fast.export(), swapped.export())
        self.assertNotEqual(like.export(), swapped.export())


class Docs(unittest.TestCase):
    def test_docs_example_runs(self):
        doc = (ROOT / "docs" / "python.md").read_text()
        start = doc.index("```python\n", doc.index("<!-- run by test/Python/thunky_test.py -->"))
        code = doc[start + len("```python\n"):doc.index("```\n", start + 10)]
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, env=dict(os.environ))
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertIn("same: 1 output(s) on 2 rank(s)", out.stdout)


if __name__ == "__main__":
    import unittest_summary
    unittest_summary.main("python package")
