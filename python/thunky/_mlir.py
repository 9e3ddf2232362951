"""MLIR through libThunkyPlugin.so: import, export, parse, print, passes.

Every call makes its own context (without threads) and destroys it after,
so nothing MLIR owns outlives a call; what crosses between calls is bytes
(an executable) or text (a module). Diagnostics are collected, never
printed, and become :class:`thunky.Error` text.
"""

from __future__ import annotations

import ctypes
from typing import List, Optional, Tuple

from . import _args, _capi
from .errors import Error

Diagnostic = Tuple[str, str, str]  # severity, location, message

class _Collector:
    """Bytes handed to an MlirStringCallback, gathered in order."""

    def __init__(self) -> None:
        self.parts: List[bytes] = []
        self.callback = _capi.MlirStringCallback(self._append)

    def _append(self, ref: _capi.MlirStringRef, _user: int) -> None:
        if ref.length:
            self.parts.append(ctypes.string_at(ref.data, ref.length))

    def bytes(self) -> bytes:
        return b"".join(self.parts)

    def text(self) -> str:
        return self.bytes().decode("utf-8", "replace")


class Context:
    """An MLIR context with the thunky dialect loaded and diagnostics kept."""

    def __init__(self) -> None:
        self.api = _capi.plugin()
        self.ctx = self.api.contextCreateWithThreading(False)
        self.api.loadDialects(self.ctx)
        self.diagnostics: List[Diagnostic] = []
        self._handler = _capi.MlirDiagnosticHandler(self._on_diagnostic)
        self.api.attachDiagnosticHandler(self.ctx, self._handler, None,
                                         _capi.DeleteUserData())

    def _print(self, fn, handle) -> str:
        c = _Collector()
        fn(handle, c.callback, None)
        return c.text()

    def _on_diagnostic(self, diag: _capi.MlirDiagnostic, _user: int) -> int:
        api = self.api
        severity = _capi.SEVERITIES.get(api.diagnosticGetSeverity(diag), "error")
        location = self._print(api.locationPrint, api.diagnosticGetLocation(diag))
        self.diagnostics.append((severity, location, self._print(api.diagnosticPrint, diag)))
        for i in range(api.diagnosticGetNumNotes(diag)):
            note = api.diagnosticGetNote(diag, i)
            self.diagnostics.append(("note", self._print(api.locationPrint,
                                                         api.diagnosticGetLocation(note)),
                                     self._print(api.diagnosticPrint, note)))
        return 1  # handled: not printed

    def error(self, what: str) -> Error:
        """An Error saying ``what`` failed, with the diagnostics so far."""
        lines = [f"{loc}: {sev}: {msg}" for sev, loc, msg in self.diagnostics]
        return Error(what + (":\n" + "\n".join(lines) if lines else ""), self.diagnostics)

    def close(self) -> None:
        if self.ctx.ptr:
            self.api.contextDestroy(self.ctx)
            self.ctx.ptr = None

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- modules ---------------------------------------------------------------

    def import_executable(self, data: bytes, name: str = "executable"):
        """The module of an executable's bytes; the caller destroys it."""
        name_b = _args.text(name, "name")
        op = self.api.importExecutable(self.ctx, _capi.MlirStringRef.of(data),
                                       _capi.MlirStringRef.of(name_b), None, 0)
        if not op.ptr:
            raise self.error(f"{name}: cannot import it as an XLA:GPU executable")
        return op

    def parse(self, text: str):
        """The module of MLIR text; the caller destroys it."""
        data = _args.text(text, "text")
        module = self.api.moduleCreateParse(self.ctx, _capi.MlirStringRef.of(data))
        if not module.ptr:
            raise self.error("cannot parse the MLIR module")
        return self.api.moduleGetOperation(module)

    def print(self, op) -> str:
        """The module as MLIR text (generic locations left out)."""
        return self._print(self.api.operationPrint, op)

    def export(self, op, layering: str = "") -> bytes:
        """The module's executable in its container (or `layering`)."""
        c = _Collector()
        layering_b = _args.text(layering, "layering")
        result = self.api.exportExecutableAs(op, _capi.MlirStringRef.of(layering_b),
                                             c.callback, None)
        if not result.value:
            raise self.error("cannot export the module as an executable")
        return c.bytes()

    def run_pipeline(self, op, pipeline: str) -> None:
        """Runs a pass pipeline ("thunky-optimize", or "builtin.module(...)") on op."""
        api = self.api
        _args.text(pipeline, "pipeline")
        if not pipeline.startswith("builtin.module("):
            pipeline = f"builtin.module({pipeline})"
        pm = api.passManagerCreate(self.ctx)
        try:
            errors = _Collector()
            text = _args.text(pipeline, "pipeline")
            if not api.parsePassPipeline(api.passManagerGetAsOpPassManager(pm),
                                         _capi.MlirStringRef.of(text), errors.callback,
                                         None).value:
                raise Error(f"bad pass pipeline '{pipeline}': {errors.text().strip()}")
            if not api.passManagerRunOnOp(pm, op).value:
                raise self.error(f"the pass pipeline '{pipeline}' failed")
        finally:
            api.passManagerDestroy(pm)


def destroy(op) -> None:
    """Frees a module made by import or parse."""
    if op is not None and op.ptr:
        _capi.plugin().operationDestroy(op)
