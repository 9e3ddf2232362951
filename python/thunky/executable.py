"""An XLA:GPU executable in its container, and what thunky does with it."""

from __future__ import annotations

import ctypes
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Union

from ._numpy import np

from . import _args, _capi, _mlir, _session
from .comparison import Comparison
from .errors import ArgumentError, Error

PathOrBytes = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


class Diagnostic(NamedTuple):
    """One MLIR diagnostic: "error", "warning", "note" or "remark", where, what."""
    severity: str
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message}"


class Executable:
    """An XLA:GPU executable as the bytes of the container it came in.

    Every layering thunky reads is kept as it is (a bare GpuExecutableProto,
    split-proto, ExecutableAndOptionsProto, the IFRT envelope, XLA's AOT
    wrapper, a JAX compilation cache entry, a ``serialize()`` pickle), so
    :meth:`export` gives back the same kind of file. Rewrites (:meth:`optimize`,
    :func:`from_mlir`) return new Executables; an Executable never changes.
    """

    def __init__(self, data: bytes, name: str = "executable") -> None:
        """Wraps container bytes; use :func:`load` to check them first."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ArgumentError(f"data: bytes are needed, not {type(data).__name__}")
        _args.text(name, "name")
        self._data = bytes(data)
        self.name = name

    def __repr__(self) -> str:
        return f"<thunky.Executable {self.name}: {len(self._data)} bytes>"

    # --- the container --------------------------------------------------------------

    @property
    def layers(self) -> str:
        """The container's layers, outermost first (thunky-container info)."""
        return _session.describe(self._data)

    def export(self, layering: Optional[str] = None) -> bytes:
        """The executable's bytes in the container it came in: byte for byte
        what was loaded, unless it was rewritten. ``layering`` ("executable",
        "split", "options", "split-options", "ifrt+options",
        "ifrt+split-options") writes it in another one, through import and
        export."""
        if layering is None:
            return self._data
        _args.text(layering, "layering")
        with _mlir.Context() as ctx:
            op = ctx.import_executable(self._data, self.name)
            try:
                return ctx.export(op, layering)
            finally:
                _mlir.destroy(op)

    def with_executable(self, other: "Executable") -> "Executable":
        """This container (a cache entry, a ``serialize()`` pickle, the IFRT
        envelope, ...) around ``other``'s executable: what replaces a cache
        entry, or goes back into ``deserialize_and_load``, in place of this
        one. Everything around the executable is kept as it is."""
        _expect_executable(other, "other")
        return Executable(_session.swap_executable(self._data, other._data),
                          f"{self.name} with {other.name}")

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes :meth:`export`'s bytes to ``path``; raises :class:`Error`
        naming the path when it cannot (a missing folder, no permission)."""
        path = _args.path(path, "path")
        try:
            Path(path).write_bytes(self._data)
        except OSError as e:
            raise Error(f"{path}: {e.strerror}") from None

    # --- MLIR -----------------------------------------------------------------------

    def to_mlir(self) -> str:
        """The executable as a thunky module (MLIR text). The module keeps
        what the dialect does not model as attributes, the container's
        layering included, so :func:`from_mlir` of it gives back these
        bytes."""
        with _mlir.Context() as ctx:
            op = ctx.import_executable(self._data, self.name)
            try:
                return ctx.print(op)
            finally:
                _mlir.destroy(op)

    def _with_module(self, pipeline: str):
        """Imports and runs ``pipeline``; gives (ctx, op), which the caller
        frees."""
        ctx = _mlir.Context()
        op = None
        try:
            op = ctx.import_executable(self._data, self.name)
            ctx.run_pipeline(op, pipeline)
            return ctx, op
        except BaseException:
            _mlir.destroy(op)
            ctx.close()
            raise

    def optimize(self, pipeline: str = "thunky-optimize",
                 plugins: Iterable[Union[str, "os.PathLike[str]"]] = ()) -> "Executable":
        """A new Executable rewritten by a pass pipeline (docs/passes.md):
        "thunky-optimize" (every rewrite), "thunky-fold-slices,
        thunky-elide-copies", or a full "builtin.module(...)". ``plugins``:
        pass plugins (shared libraries, as ``thunky-opt --load-pass-plugin``)
        whose passes the pipeline may name, loaded and registered once per
        process. Raises :class:`Error` with the diagnostics when a pass
        fails."""
        if isinstance(plugins, (str, bytes, os.PathLike)):
            plugins = [plugins]  # one path is one plugin
        for plugin in plugins:
            _capi.load_pass_plugin(_args.path(plugin, "plugins"))
        ctx, op = self._with_module(pipeline)
        try:
            return Executable(ctx.export(op), f"{self.name} ({pipeline})")
        finally:
            _mlir.destroy(op)
            ctx.close()

    def check_races(self) -> List[Diagnostic]:
        """thunky-check-races: the races between async regions and the ops
        beside them, found statically (docs/checking.md).

        Returns the pass's diagnostics, an empty list when it finds nothing:
        an "error" for each async_start whose region touches bytes an op in
        flight beside it writes (or writes what one reads), each followed by
        its "note"s, and a "warning" where XLA's rules for async execution
        are broken. A race is a finding, not a failure, so it is returned
        rather than raised; :class:`Error` is raised only when the check
        could not run (the executable does not import, or the pass failed
        without saying why)."""
        ctx = _mlir.Context()
        op = None
        try:
            op = ctx.import_executable(self._data, self.name)
            try:
                ctx.run_pipeline(op, "thunky-check-races")
            except Error:
                if not ctx.diagnostics:
                    raise
            return [Diagnostic(*d) for d in ctx.diagnostics]
        finally:
            _mlir.destroy(op)
            ctx.close()

    def _report(self, pass_name: str) -> Dict[str, Any]:
        """The JSON report of analysis pass ``pass_name``, which it writes to
        a file of its own (its ``output`` option), not to stderr. The file is
        named by its descriptor: a pass option ends at a space or a brace,
        which $TMPDIR may hold."""
        with tempfile.TemporaryFile() as f:
            path = f"/proc/self/fd/{f.fileno()}"
            ctx, op = self._with_module(f"{pass_name}{{json=true output={path}}}")
            _mlir.destroy(op)
            ctx.close()
            f.seek(0)
            text = f.read().decode("utf-8", "replace")
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise Error(f"{pass_name} wrote no JSON ({e}): {text[:200]}") from None

    def stats(self) -> Dict[str, Any]:
        """thunky-stats as a dict: thunks by op kind ("thunk_ops"), other
        ops, bytes set, copied and communicated, kernels, collectives,
        arguments, scratch and constants (docs/passes.md#thunky-stats)."""
        return self._report("thunky-stats")

    def memory_report(self) -> Dict[str, Any]:
        """thunky-memory-report as a dict: each allocation's live range over
        the thunks and the peak of live bytes with what is live there
        (docs/passes.md#thunky-memory-report)."""
        return self._report("thunky-memory-report")

    # --- running --------------------------------------------------------------------

    def _session(self, backend: str, kernels: str, ranks: int, partitions: int,
                 libraries: Iterable[str], options: Dict[str, Any]) -> _session.Session:
        settings = [("backend", backend), ("kernels", kernels)]
        # Left out, ranks and partitions are what the executable records.
        settings += [(k, v) for k, v in (("ranks", ranks), ("partitions", partitions))
                     if v is not None]
        # One path is one library, not a string of one-letter paths.
        if isinstance(libraries, (str, bytes, os.PathLike)):
            libraries = [libraries]
        if not hasattr(libraries, "__iter__"):
            raise ArgumentError(f"libraries: a path or a list of paths is needed, "
                                f"not {type(libraries).__name__}")
        settings += [("library", _args.path(lib, "libraries")) for lib in libraries]
        settings += [(k.replace("_", "-"), v) for k, v in options.items()]
        return settings

    @property
    def parameters(self) -> List[_session.ArrayInfo]:
        """The parameters, in order: ``.dtype``, ``.shape``, ``.nbytes``."""
        return _session.Session(self._data).parameters

    @property
    def outputs(self) -> List[_session.ArrayInfo]:
        """The outputs, in order: ``.dtype``, ``.shape``, ``.nbytes``."""
        return _session.Session(self._data).outputs

    def run(self, inputs: Optional[Sequence[Any]] = None, ranks: Optional[int] = None,
            backend: str = "host", kernels: str = "registered", seed: int = 1,
            partitions: Optional[int] = None, libraries: Iterable[str] = (),
            **options: Any) -> List[np.ndarray]:
        """Runs the executable once on every rank and returns its outputs.

        ``inputs``: one array per parameter (anything numpy takes), the same
        on every rank; a C-ordered array of the parameter's dtype and shape
        is handed to C without a copy. None: seeded random inputs, as
        ``thunky-run --seed seed`` makes. ``backend``: "host" (the reference
        backend, ``ranks`` simulated ranks) or "cuda" (``ranks`` local GPUs).
        ``ranks`` and ``partitions`` left out are what the executable
        records (an 8-GPU SPMD executable runs on 8 ranks of 8 partitions),
        else 1. ``kernels``: "registered" (kernels run from ``libraries`` of
        host kernels, else the run is refused) or "fingerprint" (each kernel
        a keyed hash of what it reads: docs/checking.md). Other thunky-run
        options by keyword, with ``_`` for ``-``: :func:`thunky.run_options`
        lists them with their help (``max_iterations``, ``max_host_memory``,
        ``scratch_byte``, ``schedule``, ``timeout``, ...), read from the one
        table thunky-run parses its command line with. Ctrl-C stops a run on the host
        before its next thunk and raises KeyboardInterrupt.

        Returns one array per output. With one rank each has the
        output's shape; with more, each gets a leading axis of the ranks:
        ``outputs[i][r]`` is output i of rank r.
        """
        s = _session.Session(self._data, self._session(backend, kernels, ranks, partitions,
                                                      libraries, options))
        s.run(inputs, seed)
        ranks = s.ranks
        results = []
        for i, info in enumerate(s.outputs):
            out = np.empty((ranks,) + tuple(info.shape), dtype=info.dtype)
            if out.nbytes != ranks * info.nbytes:  # raw bytes or an opaque type
                out = np.empty((ranks, info.nbytes), dtype=np.uint8)
            # Rank r's bytes as an array even for a scalar output, whose
            # out[r] would be a numpy scalar, not a view.
            flat = out.reshape(ranks, -1)
            for r in range(ranks):
                s.read_output(r, i, flat[r])
            results.append(out[0] if ranks == 1 else out)
        return results

    def compare(self, other: "Executable", ranks: Optional[int] = None, seed: int = 1,
                inputs: Optional[Sequence[Any]] = None, kernels: str = "fingerprint",
                backend: str = "host", partitions: Optional[int] = None,
                libraries: Iterable[str] = (),
                **options: Any) -> Comparison:
        """Runs this executable and ``other`` on the same inputs (``inputs``,
        else seeded random ones) and compares every output of every rank bit
        for bit, as ``thunky-run --compare`` does. On a difference both run
        again with write logs, and the result names the first divergent
        thunk. Fingerprint kernels by default: each kernel a keyed hash of
        what it reads, so that the dataflow is what is compared
        (docs/checking.md); ``backend="symbolic"`` compares terms instead of
        bytes, at any size and through loops whose predicate a kernel
        computes, where fingerprints cannot follow. Raises :class:`Error` when the two cannot be
        compared (other parameters, no outputs) or a run fails."""
        _expect_executable(other, "other")
        name, other_name = self.name, other.name
        if other_name == name:
            other_name = f"{other_name} (other)"
        # Both sides load under the same options and limits; the runs take a's.
        settings = self._session(backend, kernels, ranks, partitions, libraries, options)
        a = _session.Session(self._data, settings)
        b = _session.Session(other._data, settings)
        status, report = a.compare(b, name, other_name, inputs, seed)
        return Comparison.parse(status, report, name, other_name)


def load(source: PathOrBytes, name: Optional[str] = None) -> Executable:
    """An executable from a file path or its bytes, in any container thunky
    reads (thunky-c/format/Container.h): a bare GpuExecutableProto, split-proto,
    ExecutableAndOptionsProto, the IFRT envelope, XLA's AOT wrapper, a JAX
    compilation cache entry, a ``jax.experimental.serialize_executable``
    pickle. Raises :class:`Error` saying what the bytes are when they are
    none of these (an MLIR module: use :func:`from_mlir`)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, default = bytes(source), "<bytes>"
    else:
        path = _args.path(source, "source")
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise Error(f"{path}: {e.strerror}") from None
        default = path
    name = name or default
    _args.text(name, "name")
    _capi.runtime()  # a missing library is no fault of the file's
    try:
        _session.describe(data)
    except Error as e:
        raise Error(f"{name}: {e}") from None
    return Executable(data, name)


def from_mlir(text: str, name: str = "<mlir>", max_nesting: int = 1000) -> Executable:
    """An executable from a thunky module (MLIR text), exported in the
    container its attributes name (the one it was imported from), else as a
    bare GpuExecutableProto. Raises :class:`Error` with the parser's or
    the exporter's diagnostics, and for text whose brackets nest deeper than
    ``max_nesting`` (``thunky-opt --max-nesting``), before MLIR's parser
    recurses into it."""
    data = _args.text(text, "text")
    name_b = _args.text(name, "name")
    api = _capi.runtime()
    error = _capi.ThunkyError()
    _capi.check(api.validateTextNesting(data, len(data), name_b,
                                     _args.whole(max_nesting, "max_nesting", 1, 2**63),
                                     b"max_nesting", ctypes.byref(error)), error)
    with _mlir.Context() as ctx:
        op = ctx.parse(text)
        try:
            return Executable(ctx.export(op), name)
        finally:
            _mlir.destroy(op)


def _expect_executable(value: Any, what: str) -> None:
    if not isinstance(value, Executable):
        raise ArgumentError(f"{what}: a thunky.Executable is needed (thunky.load), "
                            f"not {type(value).__name__}")
