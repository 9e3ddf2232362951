"""Runs a test module's unittest cases and prints the one summary line that
package.test, adversarial.test and scripts/test.sh read; exits 1 on a
failure, or when no test passed."""

import sys
import unittest


def main(label: str) -> None:
    result = unittest.main(module="__main__", exit=False, verbosity=2).result
    skipped = len(result.skipped)
    ran = result.testsRun - skipped
    failed = len(result.failures) + len(result.errors)
    reasons = "; ".join(sorted({reason for _, reason in result.skipped}))
    print(f"{label}: {ran - failed} tests passed, {failed} failed, {skipped} skipped"
          + (f" ({reasons})" if reasons else ""))
    # A run that passed nothing proves nothing: a module whose tests were all
    # skipped or not found fails, as a failure does.
    sys.exit(1 if failed or ran == failed else 0)
