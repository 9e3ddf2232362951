"""Runs a test module's unittest cases and prints the one summary line that
package.test, adversarial.test and scripts/test.sh read; exits 1 on a failure."""

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
    sys.exit(1 if failed else 0)
