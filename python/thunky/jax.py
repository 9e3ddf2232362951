"""JAX's compiled executables to and from thunky, through JAX's public API:
``jax.experimental.serialize_executable``. JAX is imported only when these
are called; without it they raise :class:`thunky.Error`."""

from __future__ import annotations

from typing import Any

from .errors import Error
from .executable import Executable


def _serialize_executable():
    try:
        from jax.experimental import serialize_executable  # type: ignore
    except ImportError as e:
        raise Error(f"JAX is not installed here ({e}): thunky.from_compiled and "
                    "thunky.to_compiled need jax") from None
    return serialize_executable


def from_compiled(compiled: Any) -> Executable:
    """The Executable of a JAX compiled function
    (``jax.jit(f).lower(*args).compile()``), read from the pickle
    ``jax.experimental.serialize_executable.serialize`` writes. Its
    :meth:`~Executable.export` is that pickle again."""
    payload, _in_tree, _out_tree = _serialize_executable().serialize(compiled)
    return Executable(payload, f"<compiled {getattr(compiled, '__name__', 'function')}>")


def to_compiled(executable: Executable, like: Any, backend: Any = None) -> Any:
    """A JAX compiled function that runs ``executable`` in place of ``like``'s
    executable: ``like`` (the compiled function it was made from, or one of
    the same signature) is serialized, the executable's bytes are put in its
    pickle in place of its own (an executable that came from a pickle is
    written back in it as it is), and the result is loaded with
    ``deserialize_and_load`` with ``like``'s input and output trees. The
    executable must take and give what ``like`` does; check it first
    (:meth:`Executable.compare`)."""
    se = _serialize_executable()
    payload, in_tree, out_tree = se.serialize(like)
    data = Executable(payload, "like").with_executable(executable).export()
    if backend is None:
        return se.deserialize_and_load(data, in_tree, out_tree)
    return se.deserialize_and_load(data, in_tree, out_tree, backend=backend)
