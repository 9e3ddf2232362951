"""Finding and loading thunky's shared C libraries.

The package has no compiled code of its own: it calls two libraries through
ctypes.

- ``libThunkyRuntime.so``: containers, planning and running (no MLIR);
- ``libThunkyPlugin.so``: the thunky dialect, import/export, the passes and
  MLIR's C API (loaded only when something needs MLIR).

Each is looked for, in order:

1. in ``$THUNKY_LIBRARY_DIR`` when it is set (and only there);
2. in the checkout's build tree, when the package runs from a checkout
   (``<checkout>/build/lib``, ``build/runtime``; ``$THUNKY_BUILD_DIR``
   stands for ``<checkout>/build``);
3. in the prefix the package was pip-installed from
   (``<prefix>/share/thunky/python``, which ``cmake --install`` writes: the
   wheel records ``<prefix>/lib``);
4. in ``lib/`` of this Python's prefix and of ``/usr/local``, and the
   ``libdir`` pkg-config gives for ``thunky-runtime``;
5. by the system loader (``LD_LIBRARY_PATH``, ``ld.so.cache``).

When none has it, :class:`thunky.Error` lists every place looked at.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Dict, List, Optional

from .errors import Error

RUNTIME = "libThunkyRuntime.so"
PLUGIN = "libThunkyPlugin.so"

_loaded: Dict[str, ctypes.CDLL] = {}
_lock = threading.Lock()


def _checkout_build() -> Optional[Path]:
    """The build directory of the checkout this package lies in, if any."""
    if os.environ.get("THUNKY_BUILD_DIR"):
        return Path(os.environ["THUNKY_BUILD_DIR"])
    checkout = Path(__file__).resolve().parent.parent.parent
    if (checkout / "include" / "thunky-c").is_dir():
        return checkout / "build"
    return None


def _pkg_config_libdir() -> Optional[Path]:
    """``pkg-config --variable=libdir thunky-runtime``, or None."""
    if not shutil.which("pkg-config"):
        return None
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "thunky-runtime"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def search_dirs() -> List[Path]:
    """The folders searched for the libraries, in order (before the loader's own)."""
    explicit = os.environ.get("THUNKY_LIBRARY_DIR")
    if explicit:
        return [Path(explicit)]
    dirs: List[Path] = []
    build = _checkout_build()
    if build is not None:
        dirs += [build / "lib", build / "runtime", build / "format"]
    try:
        from . import _installed  # type: ignore[attr-defined]
        dirs.append(Path(_installed.LIBDIR))
    except ImportError:
        pass
    for prefix in dict.fromkeys([sys.prefix, sys.base_prefix, "/usr/local"]):
        dirs.append(Path(prefix) / "lib")
    libdir = _pkg_config_libdir()
    if libdir is not None:
        dirs.append(libdir)
    return list(dict.fromkeys(dirs))


def load(name: str) -> ctypes.CDLL:
    """The library ``name`` (RUNTIME or PLUGIN), loaded once per process.

    Raises :class:`thunky.Error` naming every place looked at when it is
    not found or does not load.
    """
    with _lock:
        if name in _loaded:
            return _loaded[name]
        tried: List[str] = []
        dirs = search_dirs()
        for d in dirs:
            path = d / name
            if not path.exists():
                tried.append(f"{path} (not there)")
                continue
            try:
                lib = ctypes.CDLL(str(path))
            except OSError as e:
                tried.append(f"{path} ({e})")
                continue
            _loaded[name] = lib
            return lib
        if not os.environ.get("THUNKY_LIBRARY_DIR"):
            try:
                lib = ctypes.CDLL(name)
                _loaded[name] = lib
                return lib
            except OSError as e:
                tried.append(f"the system loader ({e})")
        raise Error(f"cannot load {name}; looked in: " + "; ".join(tried) +
                    ". Build thunky (scripts/build.sh) or set THUNKY_LIBRARY_DIR to the "
                    "folder that holds it.")


def make_global(name: str) -> None:
    """Puts the loaded library's symbols in the process's global scope, for
    shared libraries of host kernels, which call the runtime's registry
    (thunkyRegistryAdd...) as thunky-run, linked with it, exports it."""
    path = path_of(name)
    ctypes.CDLL(path, mode=os.RTLD_GLOBAL | os.RTLD_NOLOAD)


def path_of(name: str) -> str:
    """Where the loaded library ``name`` lives (loading it if need be)."""
    return load(name)._name
