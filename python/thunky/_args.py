"""Arguments checked before they reach C: C strings end at a NUL and hold
bytes, C integers wrap. Each check names the argument it refuses."""

from __future__ import annotations

import os
from typing import Any

from .errors import ArgumentError, Error


def text(value: Any, what: str) -> bytes:
    """``value``, a str, as the UTF-8 bytes of a C string."""
    if not isinstance(value, str):
        raise ArgumentError(f"{what}: a str is needed, not {type(value).__name__}")
    if "\0" in value:
        raise Error(f"{what}: {value!r} holds a NUL character, which would cut it short")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise Error(f"{what}: {value!r} is not valid Unicode ({e.reason})") from None


def option(value: Any, what: str) -> bytes:
    """An option's value (a str, a whole number or a path) as a C string."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ArgumentError(f"{what}: a str or an int is needed, not {type(value).__name__}")
    return text(str(value), what)


def whole(value: Any, what: str, low: int, high: int) -> int:
    """``value``, an int from ``low`` to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"{what}: an int is needed, not {type(value).__name__}")
    if not low <= value <= high:
        raise Error(f"{what}: {value} is not from {low} to {high}")
    return value


def path(value: Any, what: str) -> str:
    """``value``, a str, bytes or os.PathLike, as a path str."""
    if isinstance(value, (str, bytes, os.PathLike)):
        result = os.fsdecode(os.fspath(value))
        if "\0" in result:
            raise Error(f"{what}: {result!r} holds a NUL character")
        return result
    raise ArgumentError(f"{what}: a path (str or os.PathLike) is needed, "
                        f"not {type(value).__name__}")
