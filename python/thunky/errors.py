"""The exceptions thunky raises."""


class Error(Exception):
    """A failure reported by thunky's C libraries, or a misuse of the API.

    ``str(error)`` is the C library's diagnostic text: the ``ThunkyError``
    line of the runtime, or the MLIR diagnostics (one per line, with their
    locations) of import, export, parsing and passes. ``diagnostics`` holds
    the MLIR ones as ``(severity, location, message)`` tuples, when any.
    """

    def __init__(self, message: str, diagnostics=None) -> None:
        super().__init__(message)
        self.diagnostics = list(diagnostics or [])


class ArgumentError(Error, TypeError):
    """An argument of the wrong type: both an :class:`Error`, which every
    failure of thunky's API is, and the ``TypeError`` Python code expects."""
