"""thunky: XLA:GPU executables at the thunk level, from Python.

A thin layer of ctypes over thunky's shared C libraries (no compiled
extension): read any container JAX or XLA writes, look at it as MLIR,
rewrite it with thunky's passes, write it back byte for byte, run it on the
host reference backend or on CUDA, and compare two runs. docs/python.md
has an example; ``help(thunky.Executable)`` the details.

    >>> import thunky
    >>> exe = thunky.load("step.pickle")
    >>> fast = exe.optimize()
    >>> assert exe.compare(fast, ranks=2).same
"""

from .comparison import Comparison
from .errors import ArgumentError, Error
from .executable import Diagnostic, Executable, from_mlir, load
from .jax import from_compiled, to_compiled
from ._session import run_options

__version__ = "0.2.0"

__all__ = ["ArgumentError", "Comparison", "Diagnostic", "Error", "Executable", "from_compiled", "from_mlir",
           "load", "to_compiled", "library_paths", "run_options"]


def library_paths() -> dict:
    """Where the C libraries were found: {"runtime": path, "plugin": path}
    (loading them if need be; raises Error naming where it looked)."""
    from . import _library
    return {"runtime": _library.path_of(_library.RUNTIME),
            "plugin": _library.path_of(_library.PLUGIN)}
