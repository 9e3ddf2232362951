"""numpy, when installed: ``import thunky`` works without it (load, MLIR,
passes, export), and what needs arrays says so."""

try:
    import numpy as np
except ImportError as _e:  # pragma: no cover - exercised where numpy is missing
    _why = str(_e)

    class _Missing:
        def __getattr__(self, name):
            from .errors import Error
            raise Error(f"numpy is needed to run executables and read their arrays "
                        f"({_why}); Debian: apt-get install python3-numpy")

    np = _Missing()
