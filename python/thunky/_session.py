"""A runtime session (thunky-c/runtime/Session.h) around one executable's bytes."""

from __future__ import annotations

import ctypes
import math
import threading
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ._numpy import np

from . import _args, _arrays, _capi, _library
from .errors import ArgumentError, Error


class ArrayInfo:
    """A parameter or output as the plan has it: XLA element type, shape, bytes."""

    def __init__(self, element_type: int, shape: Tuple[int, ...], nbytes: int,
                 type_name: str) -> None:
        self.element_type = element_type
        self.shape = shape
        self.nbytes = nbytes
        self.type_name = type_name  # "f32", or "raw" for bytes without a program shape

    @property
    def dtype(self) -> "np.dtype":
        """The numpy dtype of its elements (numpy needed only here)."""
        count = math.prod(self.shape)
        return _arrays.dtype_of(self.element_type, self.nbytes // count if count else 1)

    def __repr__(self) -> str:
        return f"{self.type_name}[{','.join(map(str, self.shape))}]"


def run_options() -> Dict[str, str]:
    """The options a run takes by keyword, as thunky-c/runtime/RunOptions.h's
    table lists them for sessions: {name with dashes: help}."""
    global _RUN_OPTIONS
    if _RUN_OPTIONS is None:
        api, found, i = _capi.runtime(), {}, 0
        while api.runOptionAt(i):
            row = api.runOptionAt(i).contents
            if row.flags & _capi.OPTION_SESSION:
                found[row.name.decode()] = " ".join(row.help.decode().split())
            i += 1
        _RUN_OPTIONS = found
    return _RUN_OPTIONS


_RUN_OPTIONS: Optional[Dict[str, str]] = None


class Session:
    """A planned executable with run options; freed when garbage collected."""

    def __init__(self, data: bytes, options: Sequence[Tuple[str, str]] = ()) -> None:
        self.api = _capi.runtime()
        self.handle = self.api.sessionCreate()
        if not self.handle:
            raise Error("out of memory")
        for name, value in options:
            self.set(name, value)
        error = _capi.ThunkyError()
        _capi.check(self.api.sessionLoad(self.handle, data, len(data), ctypes.byref(error)),
                    error)
        self.parameters = self._arrays(False)
        self.outputs = self._arrays(True)

    def __del__(self) -> None:
        if getattr(self, "handle", None):
            self.api.sessionDestroy(self.handle)
            self.handle = None

    def set(self, name: str, value) -> None:
        if name not in run_options():
            near = self.api.runOptionNearest(name.encode(), _capi.OPTION_SESSION)
            hint = f"; did you mean {near.decode().replace('-', '_')}?" if near else ""
            raise ArgumentError(f"unknown option {name.replace('-', '_')!r}{hint} "
                                f"(thunky.run_options() lists them)")
        if name == "library":
            _library.make_global(_library.RUNTIME)
        error = _capi.ThunkyError()
        what = name.replace("-", "_")
        _capi.check(self.api.sessionSet(self.handle, _args.text(name, "option"),
                                        _args.option(value, what), ctypes.byref(error)), error)

    def _interruptible(self, call: Callable[[], object]):
        """``call()``'s result, the C call in it run on a thread of its
        own: a C call holds the main thread, where Python raises
        KeyboardInterrupt, until it returns. On Ctrl-C the run is
        interrupted (thunkySessionInterrupt) and the KeyboardInterrupt goes
        on once it has stopped."""
        result: list = []
        failure: list = []

        def work() -> None:
            try:
                result.append(call())
            except BaseException as e:  # handed to the caller's thread
                failure.append(e)

        worker = threading.Thread(target=work, name="thunky-run", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.1)
        except KeyboardInterrupt:
            # Asked again until the worker ends: the C call may not have
            # started (and cleared the flag) when the first one came.
            while worker.is_alive():
                self.api.sessionInterrupt(self.handle)
                worker.join(0.05)
            raise
        if failure:
            raise failure[0]
        return result[0]

    def _arrays(self, outputs: bool) -> List[ArrayInfo]:
        result = []
        for i in range(self.api.sessionCount(self.handle, outputs)):
            t, r, b = ctypes.c_int32(), ctypes.c_uint32(), ctypes.c_uint64()
            dims = (ctypes.c_int64 * 8)()
            self.api.sessionArray(self.handle, outputs, i, ctypes.byref(t), ctypes.byref(r),
                                  dims, ctypes.byref(b))
            name = self.api.elementTypeName(t.value) if t.value else b"raw"
            result.append(ArrayInfo(t.value, tuple(dims[k] for k in range(r.value)), b.value,
                                    (name or b"?").decode()))
        return result

    @property
    def ranks(self) -> int:
        """The ranks a run takes: those set, else the executable's."""
        return self.api.sessionRanks(self.handle)

    @property
    def thunks(self) -> int:
        return self.api.sessionThunks(self.handle)

    @property
    def allocations(self) -> int:
        return self.api.sessionAllocations(self.handle)

    def inputs(self, values) -> Tuple[Optional[ctypes.Array], Optional[ctypes.Array], int,
                                      List[np.ndarray]]:
        """Pointers and sizes for the C call (None: random inputs), and the
        arrays that must stay alive while it runs."""
        if values is None:
            return None, None, 0, []
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise ArgumentError(f"inputs: a sequence of one array per parameter is needed, "
                                f"not {type(values).__name__}")
        values = list(values)
        if len(values) != len(self.parameters):
            raise Error(f"the executable takes {len(self.parameters)} parameter(s) "
                        f"({', '.join(map(repr, self.parameters))}); {len(values)} given")
        kept = []
        for i, (v, p) in enumerate(zip(values, self.parameters)):
            if p.element_type == 0:  # raw bytes: any array of that many bytes
                a = np.ascontiguousarray(v).reshape(-1).view(np.uint8)
                if a.nbytes != p.nbytes:
                    raise Error(f"input {i} holds {a.nbytes} bytes, parameter {i} {p.nbytes}")
            else:
                a = _arrays.as_input(v, p.dtype, p.shape, i, p.type_name)
            kept.append(a)
        pointers = (ctypes.c_void_p * max(len(kept), 1))(*[a.ctypes.data for a in kept])
        sizes = (ctypes.c_uint64 * max(len(kept), 1))(*[a.nbytes for a in kept])
        return pointers, sizes, len(kept), kept

    def run(self, values, seed: int) -> None:
        seed = _args.whole(seed, "seed", 0, 2**64 - 1)
        pointers, sizes, count, kept = self.inputs(values)
        error = _capi.ThunkyError()
        ok = self._interruptible(lambda: self.api.sessionRun(
            self.handle, pointers, sizes, count, seed, ctypes.byref(error)))
        del kept
        _capi.check(ok, error)

    def read_output(self, rank: int, index: int, out: np.ndarray) -> None:
        """Copies output ``index`` of ``rank`` into ``out`` (C-contiguous, its bytes)."""
        error = _capi.ThunkyError()
        _capi.check(self.api.sessionReadOutput(self.handle, rank, index, out.ctypes.data,
                                               out.nbytes, ctypes.byref(error)), error)

    def compare(self, other: "Session", name: str, other_name: str, values,
                seed: int) -> Tuple[int, str]:
        seed = _args.whole(seed, "seed", 0, 2**64 - 1)
        name_b, other_b = _args.text(name, "name"), _args.text(other_name, "name")
        pointers, sizes, count, kept = self.inputs(values)
        error = _capi.ThunkyError()
        report = ctypes.c_void_p()
        status = self._interruptible(lambda: self.api.sessionCompare(
            self.handle, name_b, other.handle, other_b, pointers, sizes, count, seed,
            ctypes.byref(report), ctypes.byref(error)))
        del kept
        if status == 2:
            raise Error(error.text())
        text = ctypes.string_at(report.value).decode("utf-8", "replace") if report.value else ""
        self.api.free(report)
        return status, text


def describe(data: bytes) -> str:
    """thunky-container info's line: the container's layers, outermost first."""
    api = _capi.runtime()
    out = ctypes.create_string_buffer(1024)
    error = _capi.ThunkyError()
    _capi.check(api.describeContainer(data, len(data), out, len(out), ctypes.byref(error)),
                error)
    return out.value.decode("utf-8", "replace")


def swap_executable(like: bytes, executable: bytes) -> bytes:
    """The container ``like`` with its executable replaced by ``executable``'s."""
    api = _capi.runtime()
    out, size = ctypes.c_void_p(), ctypes.c_size_t()
    error = _capi.ThunkyError()
    _capi.check(api.containerSwapExecutable(like, len(like), executable, len(executable),
                                            ctypes.byref(out), ctypes.byref(size),
                                            ctypes.byref(error)), error)
    try:
        return ctypes.string_at(out.value, size.value) if size.value else b""
    finally:
        api.free(out)
