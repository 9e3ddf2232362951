"""The thunky Python package tried adversarially, each case in an
interpreter of its own, so that a crash is a failure of that case, not of
the suite: every bad argument raises thunky.Error, nothing crashes, and no
answer is wrong. Run by package.test and scripts/test.sh, as thunky_test.py.

    PYTHONPATH=python THUNKY_BUILD_DIR=build python3 test/Python/adversarial_test.py
"""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "test" / "Translate" / "jax-fixtures" / "0.11.2"
BUILD = Path(os.environ.get("THUNKY_BUILD_DIR", ROOT / "build"))

# A loop of a billion iterations: a run that only a deadline or Ctrl-C ends.
SPIN = """
module {
  func.func @main(%out: !thunky.buffer<4096> {thunky.role = "output {}", thunky.shape = tensor<1024xf32>},
                  %p: !thunky.buffer<1> {thunky.role = "scratch"}) {
    thunky.memzero %out : <4096>
    thunky.while %p : <1> cond {
      thunky.memzero %p : <1>
    } body {
      thunky.memset32 %out, 1 : <4096>
    } {thunky.thunk = {while_thunk = {trip_count = 1000000000}}}
    return
  }
}
"""

# One parameter of each type numpy cannot name alone, or that wraps.
TYPED = """
module {
  func.func @main(%h: !thunky.buffer<8> {thunky.role = "parameter 0", thunky.shape = tensor<4xbf16>},
                  %i: !thunky.buffer<8> {thunky.role = "parameter 1", thunky.shape = tensor<2xi32>},
                  %u: !thunky.buffer<4> {thunky.role = "parameter 2", thunky.shape = tensor<1xui32>},
                  %f: !thunky.buffer<4> {thunky.role = "parameter 3", thunky.shape = tensor<f32>},
                  %o: !thunky.buffer<8> {thunky.role = "output {}", thunky.shape = tensor<2xi32>}) {
    thunky.copy %i, %o : <8>, <8>
    return
  }
}
"""

# A real-size program: 1.5 TiB of scratch, far past this machine's memory,
# which only a symbolic run (terms, no bytes) can compare.
HUGE = """
module {
  func.func @main(%in: !thunky.buffer<64> {thunky.role = "parameter 0", thunky.shape = tensor<16xf32>},
                  %out: !thunky.buffer<64> {thunky.role = "output {}", thunky.shape = tensor<16xf32>},
                  %big: !thunky.buffer<1649267441664> {thunky.role = "scratch"}) {
    %head = thunky.slice_buffer %big offset = 0 : <1649267441664> -> <64>
    thunky.copy %in, %head : <64>, <64>
    thunky.copy %head, %out : <64>, <64>
    return
  }
}
"""


def python(code: str, env=None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``code`` run by a fresh interpreter with the package and the build."""
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT / "python")
    e.setdefault("THUNKY_BUILD_DIR", str(BUILD))
    e.update(env or {})
    prelude = ("import sys, numpy as np, thunky\n"
               f"SPIN, TYPED, HUGE = {SPIN!r}, {TYPED!r}, {HUGE!r}\n"
               f"FIXTURES = {str(FIXTURES)!r}\n")
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                          capture_output=True, text=True, env=e, timeout=timeout, cwd=ROOT)


class Case(unittest.TestCase):
    def ok(self, code: str, expect: str = "", **kw) -> str:
        """Runs ``code``, which must exit 0 and print ``expect``."""
        out = python(code, **kw)
        self.assertEqual(0, out.returncode,
                         f"exit {out.returncode}\nstdout: {out.stdout}\nstderr: {out.stderr}")
        self.assertIn(expect, out.stdout)
        return out.stdout


class Crashes(Case):
    def test_scalar_output_of_jax_mlp_step(self):
        out = self.ok("""
            exe = thunky.load(FIXTURES + "/containers/step/mlp-step.exe")
            outs = exe.run(kernels="fingerprint")
            print([o.shape for o in outs], outs[1].dtype)
            two = exe.run(kernels="fingerprint", ranks=2)
            print(two[1].shape, bool(two[1][0] == outs[1]))
        """)
        self.assertIn("[(4, 512, 512), ()] float32", out)
        self.assertIn("(2,) True", out)

    def test_deep_nesting_is_refused_not_a_segfault(self):
        self.ok("""
            text = "module {" + "thunky.sequential {" * 5000 + "}" * 5000 + "}"
            try:
                thunky.from_mlir(text)
            except thunky.Error as e:
                print("refused:", e)
        """, "error: nested more than 1000 deep (the max-nesting limit; max_nesting raises it)")


class Answers(Case):
    def test_symbolic_compare_of_a_real_size_program(self):
        # thunky-run proves it the same; Python must too, both sides under
        # the same options and load limits.
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "huge.mlir"
            path.write_text(HUGE)
            cli = subprocess.run([str(BUILD / "bin" / "thunky-run"), "--kernels", "symbolic",
                                  "--max-allocation-bytes", "2T", str(path), "--compare",
                                  str(path)], capture_output=True, text=True)
            self.assertEqual(0, cli.returncode, cli.stderr)
            self.assertIn("same", cli.stdout)
        self.ok("""
            a = thunky.from_mlir(HUGE, name="a")
            b = thunky.from_mlir(HUGE.replace("offset = 0 :", "offset = 64 :"), name="b")
            r = a.compare(b, backend="symbolic", max_allocation_bytes="2T")
            print(r.same, r.report)
        """, "True same")

    def test_bf16_without_ml_dtypes_takes_only_raw_bits(self):
        out = self.ok("""
            sys.modules["ml_dtypes"] = None  # as where it is not installed
            exe = thunky.from_mlir(TYPED)
            args = [None, np.array([1, 2], np.int32), np.array([3], np.uint32), 1.5]
            for bad in (np.ones(4, np.float16), np.ones(4, np.int16), np.ones(4, np.float32)):
                try:
                    exe.run([bad] + args[1:], kernels="fingerprint")
                except thunky.Error as e:
                    print("refused:", e)
            bits = np.array([0x3f80, 0x4000, 0, 0xbf80], np.uint16)  # 1, 2, 0, -1
            print("ran:", exe.run([bits] + args[1:], kernels="fingerprint")[0])
        """)
        self.assertEqual(3, out.count("refused: input 0 is"), out)
        self.assertIn("bf16, which numpy names only with ml_dtypes", out)
        self.assertIn("ran: [1 2]", out)

    def test_integers_that_do_not_fit_are_refused(self):
        out = self.ok("""
            exe = thunky.from_mlir(TYPED)
            bits = np.zeros(4, np.uint16)
            for i, u in (([2**32 + 5, 0], [3]), ([1, 2], [-1]), ([2**31, 0], [0])):
                try:
                    print("ran:", exe.run([bits, i, u, 0.5], kernels="fingerprint")[0])
                except thunky.Error as e:
                    print("refused:", e)
            try:
                exe.run([bits, [0, 0], [0], 1e300], kernels="fingerprint")
            except thunky.Error as e:
                print("refused:", e)
            print("ran:", exe.run([bits, [-(2**31), 2**31 - 1], [2**32 - 1], 0.5],
                                  kernels="fingerprint")[0])
        """)
        self.assertIn("refused: input 1: 4294967301 at (0,) does not fit in int32", out)
        self.assertIn("refused: input 2: -1 at (0,) does not fit in uint32", out)
        self.assertIn("refused: input 1: 2147483648 at (0,) does not fit in int32", out)
        self.assertIn("refused: input 3: 1e+300 at () does not fit in float32", out)
        self.assertIn("ran: [-2147483648  2147483647]", out)

    def test_comparison_names_sides_whose_names_share_a_prefix(self):
        # fast.compare(exe) after optimize(): "x (thunky-optimize)" and "x".
        with open(ROOT / "test" / "Runtime" / "memops.textproto", "rb") as f:
            memops = subprocess.run(["bash", str(ROOT / "scripts" / "encode.sh"),
                                     "xla.gpu.GpuExecutableProto"], stdin=f, check=True,
                                    capture_output=True).stdout
        out = self.ok(f"""
            exe = thunky.Executable({memops!r}, "x")
            text = exe.to_mlir().replace("memset32 %0, 7 {{", "memset32 %0, 9 {{", 1)
            wrong = thunky.from_mlir(text, name="x (thunky-optimize)")
            for a, b in ((wrong, exe), (exe, wrong)):
                r = a.compare(b)
                print(a.name, "| thunk:", r.thunk, "| other:", r.other_thunk)
            extra = thunky.from_mlir(SPIN.replace("1000000000", "3")
                                          .replace("%out, 1 :", "%out, 2 :"),
                                     name="x (thunky-optimize)")
            r = extra.compare(thunky.from_mlir(SPIN.replace("1000000000", "3"), name="x"))
            print("only |", r.thunk, "|", r.other_thunk, "|", r.divergence)
        """)
        self.assertIn("x (thunky-optimize) | thunk: thunk 0 (fill) | other: thunk 0 (fill)", out)
        self.assertIn("x | thunk: thunk 0 (fill) | other: thunk 0 (fill)", out)
        self.assertIn("only | thunk 3 | None | first divergent thunk on rank 0: thunk 3 of "
                      "x (thunky-optimize)", out)


class Runs(Case):
    def test_timeout_ends_a_host_run(self):
        start = time.monotonic()
        self.ok("""
            exe = thunky.from_mlir(SPIN)
            try:
                exe.run(kernels="fingerprint", timeout=1, max_iterations=2**40)
            except thunky.Error as e:
                print("stopped:", e)
        """, "the run took more than 1 second(s) (timeout)")
        self.assertLess(time.monotonic() - start, 60)

    def test_ctrl_c_interrupts_a_host_run(self):
        e = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
        e.setdefault("THUNKY_BUILD_DIR", str(BUILD))
        # lit starts tests with SIGINT ignored, and Python then installs no
        # KeyboardInterrupt handler: put it back, as in a terminal.
        code = ("import signal, thunky, sys\n"
                "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
                f"exe = thunky.from_mlir({SPIN!r})\n"
                "print('running', flush=True)\n"
                "try:\n"
                "    exe.run(kernels='fingerprint', max_iterations=2**40, timeout=120)\n"
                "except KeyboardInterrupt:\n"
                "    print('interrupted', flush=True)\n"
                f"short = thunky.from_mlir({SPIN.replace('1000000000', '3')!r})\n"
                "print(short.run(kernels='fingerprint')[0][:2])\n")
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=e, cwd=ROOT)
        try:
            self.assertEqual("running\n", p.stdout.readline())
            time.sleep(1)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()  # a run that did not stop must not outlive the test
        self.assertEqual(0, p.returncode, err)
        # Interrupted, and the next run is not.
        self.assertIn("interrupted\n", out)
        self.assertIn("[1.e-45 1.e-45]", out)

    def test_first_use_from_many_threads(self):
        for _ in range(6):
            self.ok("""
                import threading
                exe = thunky.load(FIXTURES + "/matmul.exe")
                errors, barrier = [], threading.Barrier(16)
                def work():
                    barrier.wait()
                    try:
                        exe.optimize()
                    except Exception as e:
                        errors.append(e)
                threads = [threading.Thread(target=work) for _ in range(16)]
                for t in threads: t.start()
                for t in threads: t.join()
                print("errors:", errors)
            """, "errors: []")

    def test_reports_with_tmpdir_holding_a_space_and_a_brace(self):
        with tempfile.TemporaryDirectory(prefix="a b}c{") as d:
            self.ok("""
                import tempfile
                exe = thunky.load(FIXTURES + "/matmul.exe")
                print(tempfile.gettempdir())
                print("thunks", exe.stats()["thunks"], "peak" in exe.memory_report())
            """, "thunks 2 True", env={"TMPDIR": d})

    def test_check_races_frees_what_a_failed_import_made(self):
        out = self.ok("""
            def rss():
                return int(open("/proc/self/statm").read().split()[1]) * 4096
            bad = thunky.Executable(b"\\x08\\x01" * 64, "bad")
            def attempt():
                try:
                    bad.check_races()
                except thunky.Error:
                    pass
            for _ in range(50):
                attempt()
            before = rss()
            for _ in range(400):
                attempt()
            print("grew", (rss() - before) // 1024, "KiB")
        """)
        grew = int(out.split("grew ")[1].split()[0])
        self.assertLess(grew, 8 * 1024, out)  # a leak of 140 KB a call is 55 MB

    def test_optimize_loads_a_pass_plugin(self):
        plugin = BUILD / "lib" / "libExamplePass.so"
        if not plugin.exists():
            self.skipTest(f"{plugin} is not built")
        self.ok(f"""
            exe = thunky.from_mlir('''
              module {{
                func.func @main(%o: !thunky.buffer<64> {{thunky.role = "output {{}}"}}) {{
                  thunky.memset32 %o, 0 : <64>
                  return
                }}
              }}''')
            for _ in range(2):  # loaded and registered once
                fast = exe.optimize("example-memset-to-memzero", plugins={str(plugin)!r})
            print("memzero" in fast.to_mlir(), exe.compare(fast).same)
            try:
                exe.optimize("thunky-optimize", plugins="/nonexistent/plugin.so")
            except thunky.Error as e:
                print("refused:", e)
        """, "True True\nrefused: /nonexistent/plugin.so: cannot load it as a pass plugin")


class BadArguments(Case):
    def test_every_bad_argument_is_a_thunky_error(self):
        out = self.ok("""
            m = thunky.load(FIXTURES + "/matmul.exe")
            cases = {
                "load(5)": lambda: thunky.load(5),
                "load(name=5)": lambda: thunky.load(FIXTURES + "/matmul.exe", name=5),
                "from_mlir(bytes)": lambda: thunky.from_mlir(b"module {}"),
                "from_mlir(surrogate)": lambda: thunky.from_mlir("\\udcff"),
                "from_mlir(NUL)": lambda: thunky.from_mlir("module {}\\0junk"),
                "optimize(5)": lambda: m.optimize(5),
                "optimize(NUL)": lambda: m.optimize("thunky-optimize\\0"),
                "export(3)": lambda: m.export(3),
                "compare(5)": lambda: m.compare(5),
                "with_executable(5)": lambda: m.with_executable(5),
                "save(5)": lambda: m.save(5),
                "run(inputs=5)": lambda: m.run(inputs=5, kernels="fingerprint"),
                "run(inputs=ragged)": lambda: m.run(inputs=[[[1], [1, 2]], 0],
                                                    kernels="fingerprint"),
                "run(seed=2**64)": lambda: m.run(kernels="fingerprint", seed=2**64),
                "run(seed=-1)": lambda: m.run(kernels="fingerprint", seed=-1),
                "run(seed=1.5)": lambda: m.run(kernels="fingerprint", seed=1.5),
                "run(ranks=2**40)": lambda: m.run(kernels="fingerprint", ranks=2**40),
                "run(ranks='2\\\\0')": lambda: m.run(kernels="fingerprint", ranks="2\\0"),
                "run(schedule=NUL)": lambda: m.run(kernels="fingerprint", schedule="start\\0x"),
                "run(timeout=0.5)": lambda: m.run(kernels="fingerprint", timeout=0.5),
                "run(max_iterations=0)": lambda: m.run(kernels="fingerprint", max_iterations=0),
                "run(nonsense=1)": lambda: m.run(kernels="fingerprint", nonsense=1),
                "run(libraries=5)": lambda: m.run(libraries=5),
                "Executable(5)": lambda: thunky.Executable(5),
            }
            for name, call in cases.items():
                try:
                    call()
                    print(name, "ACCEPTED")
                except thunky.Error as e:
                    print(name, "thunky.Error:", str(e).splitlines()[0])
                except BaseException as e:
                    print(name, "WRONG", type(e).__name__, e)
        """)
        self.assertNotIn("WRONG", out)
        self.assertNotIn("ACCEPTED", out)
        self.assertIn("run(seed=2**64) thunky.Error: seed: 18446744073709551616 is not from 0 "
                      "to 18446744073709551615", out)
        self.assertIn("holds a NUL character", out)


if __name__ == "__main__":
    import unittest_summary
    unittest_summary.main("python adversarial")
