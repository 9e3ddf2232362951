"""The sanitized suite's test format: a sanitizer's report fails the test.

A test that expects a tool to fail (`not`, or a script that checks the exit
status) would take ASan's or UBSan's exit for that failure, and FileCheck
reading stderr would skip over the report. So every process a test starts
writes its reports to files of the test's own (the sanitizers' log_path),
and any report there fails the test, with the report as the reason
(test/Build/sanitizer-fails.test)."""
import os
import re

import lit.formats
import lit.Test
import lit.TestRunner


class SanitizedShTest(lit.formats.ShTest):
    def __init__(self, options, mlir_opt_options):
        """options: ASAN_OPTIONS and UBSAN_OPTIONS as the suite runs with
        them; mlir_opt_options: the ASAN_OPTIONS=... that the %mlir_opt
        substitutions give stock mlir-opt, which gets the log path too."""
        super().__init__(execute_external=False)
        self.options = options
        self.mlir_opt_options = mlir_opt_options

    def execute(self, test, litConfig):
        logs = lit.TestRunner.getTempPaths(test)[1] + ".sanitizer"
        os.makedirs(logs, exist_ok=True)
        for name in os.listdir(logs):
            os.remove(os.path.join(logs, name))
        log_path = "log_path=" + os.path.join(logs, "report")
        for var, value in self.options.items():
            test.config.environment[var] = ":".join(filter(None, [value, log_path]))
        # The config is this worker's copy, shared by the tests it runs:
        # each test puts its own folder where the last one put its.
        mlir_opt = re.compile(re.escape(self.mlir_opt_options) + r"(:log_path=\S*)?")
        test.config.substitutions = [
            (key, mlir_opt.sub(lambda m: self.mlir_opt_options + ":" + log_path, value))
            for key, value in test.config.substitutions]
        result = super().execute(test, litConfig)
        reports = sorted(os.listdir(logs))
        if not reports:
            return result
        text = ""
        for name in reports:
            with open(os.path.join(logs, name), errors="replace") as f:
                text += "--- %s\n%s" % (name, f.read(20000))
        return lit.Test.Result(
            lit.Test.FAIL,
            "a sanitizer reported an error (the test %s without it):\n%s\n%s"
            % ("passed" if result.code == lit.Test.PASS else "failed", text, result.output))
