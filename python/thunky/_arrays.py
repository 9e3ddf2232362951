"""XLA element types as numpy dtypes, and arrays handed to C without copies."""

from __future__ import annotations

from typing import Optional, Tuple

from ._numpy import np

from .errors import Error

# xla.PrimitiveType numbers (thunky-c/ElementTypes.h) numpy names itself.
_NUMPY = {
    1: "bool_", 2: "int8", 3: "int16", 4: "int32", 5: "int64",
    6: "uint8", 7: "uint16", 8: "uint32", 9: "uint64",
    10: "float16", 11: "float32", 12: "float64", 15: "complex64", 18: "complex128",
}
# The ones only ml_dtypes names (JAX installs it), by its names.
_ML_DTYPES = {16: "bfloat16", 19: "float8_e5m2", 20: "float8_e4m3fn",
              23: "float8_e4m3b11fnuz", 24: "float8_e5m2fnuz", 25: "float8_e4m3fnuz",
              28: "float8_e4m3", 29: "float8_e3m4", 33: "float8_e8m0fnu"}


def dtype_of(element_type: int, nbytes_per_element: int) -> np.dtype:
    """The numpy dtype of an XLA element type: numpy's own, else
    ml_dtypes' when it is installed, else opaque bytes of its width
    (``np.dtype('V2')`` for bf16; ``.view(ml_dtypes.bfloat16)`` restores it).
    Type 0 (no program shape) is raw bytes, uint8."""
    if element_type == 0:
        return np.dtype(np.uint8)
    if element_type in _NUMPY:
        return np.dtype(getattr(np, _NUMPY[element_type]))
    name = _ML_DTYPES.get(element_type)
    if name is not None:
        try:
            import ml_dtypes  # type: ignore
            return np.dtype(getattr(ml_dtypes, name))
        except (ImportError, AttributeError):
            pass
    return np.dtype(f"V{max(nbytes_per_element, 1)}")


def as_input(value, dtype: np.dtype, shape: Tuple[int, ...], index: int) -> np.ndarray:
    """``value`` as a C-ordered array of ``dtype`` and ``shape``, for
    parameter ``index``: the array itself when it already is one (no
    copy), else a converted copy. Refuses a shape that differs."""
    array = np.asarray(value)
    if array.dtype != dtype:
        if array.dtype.kind == "V" or dtype.kind == "V":
            if array.dtype.itemsize != dtype.itemsize:
                raise Error(f"input {index} is {array.dtype}, parameter {index} {dtype}")
            array = array.view(dtype)
        elif not np.can_cast(array.dtype, dtype, casting="same_kind"):
            raise Error(f"input {index} is {array.dtype}, parameter {index} {dtype}: "
                        f"not converted, it would change the values' kind")
        else:
            array = array.astype(dtype)
    if tuple(array.shape) != tuple(shape):
        raise Error(f"input {index} has shape {tuple(array.shape)}, parameter {index} "
                    f"{tuple(shape)}")
    return np.ascontiguousarray(array)
