"""What the JAX scripts (make-jax-fixtures.py, check-jax-schema.py,
reload-jax-exports.py) share: the repository's paths, the exit codes, and
the installed JAX packages.

Imports nothing outside the standard library (in particular not jax), so
that every script's --help works on a machine without JAX.
"""
import importlib.metadata
import os
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES_ROOT = os.path.join(REPO_ROOT, "test", "Translate", "jax-fixtures")

# One numbering for the scripts: 1 is the schema check's, 3 the fixture
# maker's, 4 a program that failed (fixture maker, reload).
EXIT_OK, EXIT_DIFFERENCES, EXIT_ENVIRONMENT, EXIT_TOO_BIG, EXIT_FAILED = range(5)

# Distributions whose versions go into the manifest and the schema report.
VERSIONED_PACKAGES = ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt",
                      "jax-cuda12-plugin", "jax-cuda12-pjrt", "numpy",
                      "protobuf")


class EnvironmentProblem(Exception):
    """Something this machine lacks; reported with exit code 2."""


def report_problem(problem):
    """Prints an EnvironmentProblem (or a like error); returns exit code 2."""
    print("error: %s" % problem, file=sys.stderr)
    return EXIT_ENVIRONMENT


def installed_versions():
    versions = {}
    for name in VERSIONED_PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return versions


def default_out_dir(jax_version, platform_name="gpu"):
    """test/Translate/jax-fixtures/<jax version>[-<platform>]."""
    suffix = "" if platform_name == "gpu" else "-" + platform_name
    return os.path.join(FIXTURES_ROOT, jax_version + suffix)
