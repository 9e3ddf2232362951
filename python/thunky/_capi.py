"""ctypes declarations of the C functions thunky calls: the one place that
mirrors C types in Python.

Runtime (``libThunkyRuntime.so``, thunky-c/runtime/Session.h, RunOptions.h and
ElementTypes.h):
opaque ``ThunkySession`` handles and ``ThunkyError`` (a 512-byte message).
Plugin (``libThunkyPlugin.so``): MLIR's C API (mlir-c/IR.h, Pass.h,
Diagnostics.h), whose handles are one-pointer structs passed by value, and
thunky's (thunky-c/translate/Translate.h, Dialect.h, Passes.h).
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char, c_char_p, c_int,
                    c_int8, c_int32, c_int64, c_size_t, c_uint, c_uint32, c_uint64,
                    c_void_p)

from . import _library
from .errors import Error


class ThunkyError(Structure):
    """thunky-c/base/Error.h: one line of what went wrong."""
    _fields_ = [("message", c_char * 512)]

    def text(self) -> str:
        return self.message.decode("utf-8", "replace")


class ThunkyRunOption(Structure):
    """thunky-c/runtime/RunOptions.h: one row of the table of a run's options."""
    _fields_ = [("id", c_int), ("name", c_char_p), ("value_name", c_char_p), ("value", c_int),
                ("min", c_uint64), ("max", c_uint64), ("choices", c_char_p), ("what", c_char_p),
                ("older", c_char_p), ("flags", c_uint), ("help", c_char_p)]


OPTION_SESSION = 1 << 4  # THUNKY_OPTION_SESSION: thunkySessionSet takes it


def _bind(lib, name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


class Runtime:
    """The functions of libThunkyRuntime.so the package calls."""

    def __init__(self) -> None:
        lib = _library.load(_library.RUNTIME)
        err = POINTER(ThunkyError)
        s = c_void_p  # ThunkySession *
        self.sessionCreate = _bind(lib, "thunkySessionCreate", s)
        self.sessionDestroy = _bind(lib, "thunkySessionDestroy", None, s)
        self.sessionSet = _bind(lib, "thunkySessionSet", c_bool, s, c_char_p, c_char_p, err)
        self.sessionLoad = _bind(lib, "thunkySessionLoad", c_bool, s, c_char_p, c_size_t, err)
        self.sessionCount = _bind(lib, "thunkySessionCount", c_uint32, s, c_bool)
        self.sessionArray = _bind(lib, "thunkySessionArray", c_bool, s, c_bool, c_uint32,
                                  POINTER(c_int32), POINTER(c_uint32), POINTER(c_int64),
                                  POINTER(c_uint64))
        self.sessionThunks = _bind(lib, "thunkySessionThunks", c_uint32, s)
        self.sessionAllocations = _bind(lib, "thunkySessionAllocations", c_uint32, s)
        self.sessionRun = _bind(lib, "thunkySessionRun", c_bool, s, POINTER(c_void_p),
                                POINTER(c_uint64), c_uint32, c_uint64, err)
        self.sessionReadOutput = _bind(lib, "thunkySessionReadOutput", c_bool, s, c_uint32,
                                       c_uint32, c_void_p, c_uint64, err)
        self.sessionCompare = _bind(lib, "thunkySessionCompare", c_int, s, c_char_p, s,
                                    c_char_p, POINTER(c_void_p), POINTER(c_uint64), c_uint32,
                                    c_uint64, POINTER(c_void_p), err)
        self.describeContainer = _bind(lib, "thunkyDescribeContainer", c_bool, c_char_p,
                                       c_size_t, c_char_p, c_size_t, err)
        self.free = _bind(lib, "thunkyFree", None, c_void_p)
        self.containerSwapExecutable = _bind(lib, "thunkyContainerSwapExecutable", c_bool,
                                             c_char_p, c_size_t, c_char_p, c_size_t,
                                             POINTER(c_void_p), POINTER(c_size_t), err)
        self.sessionInterrupt = _bind(lib, "thunkySessionInterrupt", None, s)
        self.sessionRanks = _bind(lib, "thunkySessionRanks", c_uint32, s)
        self.validateTextNesting = _bind(lib, "thunkyValidateTextNesting", c_bool, c_char_p, c_size_t,
                                      c_char_p, c_uint64, c_char_p, err)
        self.elementTypeName = _bind(lib, "thunkyElementTypeName", c_char_p, c_int32)
        self.runOptionAt = _bind(lib, "thunkyRunOptionAt", POINTER(ThunkyRunOption), c_uint32)
        self.runOptionNearest = _bind(lib, "thunkyRunOptionNearest", c_char_p, c_char_p, c_uint)
        self.elementBytes = _bind(lib, "thunkyElementBytes", c_uint32, c_int32)


# --- MLIR's C API --------------------------------------------------------------

class MlirStringRef(Structure):
    _fields_ = [("data", c_void_p), ("length", c_size_t)]

    @classmethod
    def of(cls, data: bytes) -> "MlirStringRef":
        """A view of ``data``, which the caller keeps alive while it is used."""
        return cls(ctypes.cast(c_char_p(data), c_void_p), len(data))


def _handle(name: str):
    return type(name, (Structure,), {"_fields_": [("ptr", c_void_p)]})


MlirContext = _handle("MlirContext")
MlirOperation = _handle("MlirOperation")
MlirModule = _handle("MlirModule")
MlirPassManager = _handle("MlirPassManager")
MlirOpPassManager = _handle("MlirOpPassManager")
MlirDiagnostic = _handle("MlirDiagnostic")
MlirLocation = _handle("MlirLocation")


class MlirLogicalResult(Structure):
    _fields_ = [("value", c_int8)]


# Callbacks. A callback's result cannot be a struct in ctypes: the handler's
# MlirLogicalResult ({int8_t}) is returned as the int8 it is in registers.
MlirStringCallback = CFUNCTYPE(None, MlirStringRef, c_void_p)
MlirDiagnosticHandler = CFUNCTYPE(c_int8, MlirDiagnostic, c_void_p)
DeleteUserData = CFUNCTYPE(None, c_void_p)

SEVERITIES = {0: "error", 1: "warning", 2: "note", 3: "remark"}


class Plugin:
    """The functions of libThunkyPlugin.so the package calls."""

    def __init__(self) -> None:
        lib = _library.load(_library.PLUGIN)
        sr, ctx, op, mod = MlirStringRef, MlirContext, MlirOperation, MlirModule
        self.contextCreateWithThreading = _bind(lib, "mlirContextCreateWithThreading", ctx,
                                                c_bool)
        self.contextDestroy = _bind(lib, "mlirContextDestroy", None, ctx)
        self.loadDialects = _bind(lib, "thunkyContextLoadDialects", None, ctx)
        self.attachDiagnosticHandler = _bind(lib, "mlirContextAttachDiagnosticHandler",
                                             ctypes.c_uint64, ctx, MlirDiagnosticHandler,
                                             c_void_p, DeleteUserData)
        self.diagnosticPrint = _bind(lib, "mlirDiagnosticPrint", None, MlirDiagnostic,
                                     MlirStringCallback, c_void_p)
        self.diagnosticGetSeverity = _bind(lib, "mlirDiagnosticGetSeverity", c_int,
                                           MlirDiagnostic)
        self.diagnosticGetLocation = _bind(lib, "mlirDiagnosticGetLocation", MlirLocation,
                                           MlirDiagnostic)
        self.diagnosticGetNumNotes = _bind(lib, "mlirDiagnosticGetNumNotes", ctypes.c_ssize_t,
                                           MlirDiagnostic)
        self.diagnosticGetNote = _bind(lib, "mlirDiagnosticGetNote", MlirDiagnostic,
                                       MlirDiagnostic, ctypes.c_ssize_t)
        self.locationPrint = _bind(lib, "mlirLocationPrint", None, MlirLocation,
                                   MlirStringCallback, c_void_p)
        self.moduleCreateParse = _bind(lib, "mlirModuleCreateParse", mod, ctx, sr)
        self.moduleGetOperation = _bind(lib, "mlirModuleGetOperation", op, mod)
        self.operationDestroy = _bind(lib, "mlirOperationDestroy", None, op)
        self.operationPrint = _bind(lib, "mlirOperationPrint", None, op, MlirStringCallback,
                                    c_void_p)
        self.importExecutable = _bind(lib, "thunkyImportExecutableWithFlags", op, ctx, sr, sr,
                                      c_void_p, c_uint)
        self.exportExecutableAs = _bind(lib, "thunkyExportExecutableAs", MlirLogicalResult,
                                        op, sr, MlirStringCallback, c_void_p)
        self.registerPasses = _bind(lib, "thunkyRegisterPasses", None)
        self.passManagerCreate = _bind(lib, "mlirPassManagerCreate", MlirPassManager, ctx)
        self.passManagerDestroy = _bind(lib, "mlirPassManagerDestroy", None, MlirPassManager)
        self.passManagerGetAsOpPassManager = _bind(lib, "mlirPassManagerGetAsOpPassManager",
                                                   MlirOpPassManager, MlirPassManager)
        self.parsePassPipeline = _bind(lib, "mlirParsePassPipeline", MlirLogicalResult,
                                       MlirOpPassManager, sr, MlirStringCallback, c_void_p)
        self.passManagerRunOnOp = _bind(lib, "mlirPassManagerRunOnOp", MlirLogicalResult,
                                        MlirPassManager, op)


class PassPluginInfo(Structure):
    """thunky-c/plugin/Plugin.h's ThunkyPassPluginInfo: what mlirGetPassPluginInfo
    of a pass plugin returns."""
    _fields_ = [("apiVersion", c_uint32), ("pluginName", c_char_p),
                ("pluginVersion", c_char_p), ("registerPassRegistryCallbacks", CFUNCTYPE(None))]


MLIR_PLUGIN_API_VERSION = 1  # thunky-c/plugin/Plugin.h: MLIR 22's

_runtime = None
_plugin = None
_pass_plugins: dict = {}  # real path -> the loaded library, its passes registered
# Threads that use thunky for the first time at once must bind and
# register once, and none may use the passes before they are registered.
_lock = threading.Lock()


def runtime() -> Runtime:
    """The runtime's functions, bound on first use."""
    global _runtime
    with _lock:
        if _runtime is None:
            _runtime = Runtime()
        return _runtime


def plugin() -> Plugin:
    """The plugin's functions, bound on first use (passes registered once)."""
    global _plugin
    with _lock:
        if _plugin is None:
            p = Plugin()
            p.registerPasses()
            _plugin = p
        return _plugin


def load_pass_plugin(path: str) -> None:
    """Loads the pass plugin at ``path`` (as ``thunky-opt
    --load-pass-plugin``) and registers its passes, once per library."""
    plugin()
    real = os.path.realpath(path)
    with _lock:
        if real in _pass_plugins:
            return
        try:
            lib = ctypes.CDLL(real)
        except OSError as e:
            raise Error(f"{path}: cannot load it as a pass plugin: {e}") from None
        try:
            entry = lib.mlirGetPassPluginInfo
        except AttributeError:
            raise Error(f"{path}: not a pass plugin (it defines no mlirGetPassPluginInfo; "
                        f"thunky-c/plugin/Plugin.h: THUNKY_DEFINE_PASS_PLUGIN)") from None
        entry.restype = PassPluginInfo
        entry.argtypes = []
        info = entry()
        if info.apiVersion != MLIR_PLUGIN_API_VERSION:
            raise Error(f"{path}: a pass plugin for MLIR's plugin API {info.apiVersion}, "
                        f"not {MLIR_PLUGIN_API_VERSION} (MLIR 22)")
        if info.registerPassRegistryCallbacks:
            info.registerPassRegistryCallbacks()
        _pass_plugins[real] = lib


def check(ok: bool, error: ThunkyError, context: str = "") -> None:
    """Raises :class:`Error` with the C message when ``ok`` is false."""
    if not ok:
        raise Error((context + ": " if context else "") + error.text())
