"""XLA element types as numpy dtypes, and arrays handed to C without copies."""

from __future__ import annotations

from typing import Optional, Tuple

from ._numpy import np

from .errors import Error

# xla.PrimitiveType numbers (thunky-c/base/ElementTypes.h) numpy names itself.
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


def as_input(value, dtype: np.dtype, shape: Tuple[int, ...], index: int,
             type_name: str) -> np.ndarray:
    """``value`` as a C-ordered array of ``dtype`` and ``shape``, for
    parameter ``index`` (of XLA type ``type_name``): the array itself when
    it already is one (no copy), else a converted copy. Refuses a shape
    that differs, a conversion that changes the values' kind, a value that
    does not fit, and, for a type numpy cannot name without ml_dtypes
    (bf16, fp8), any array but its raw bits (unsigned ints of its width)."""
    what = f"input {index}"
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as e:
        raise Error(f"{what} is not an array: {e}") from None
    if array.dtype != dtype:
        if dtype.kind == "V":
            bits = np.dtype(f"u{dtype.itemsize}") if dtype.itemsize in (1, 2, 4, 8) else None
            if array.dtype.kind != "V" and array.dtype != bits:
                raise Error(f"{what} is {array.dtype}, parameter {index} {type_name}, which "
                            f"numpy names only with ml_dtypes: install it, or give the raw "
                            f"bits as {bits or 'bytes'}")
            if array.dtype.itemsize != dtype.itemsize:
                raise Error(f"{what} is {array.dtype}, parameter {index} {type_name}")
            array = array.view(dtype)
        elif array.dtype.kind == "V":
            if array.dtype.itemsize != dtype.itemsize:
                raise Error(f"{what} is {array.dtype}, parameter {index} {dtype}")
            array = array.view(dtype)
        elif not (np.can_cast(array.dtype, dtype, casting="same_kind") or
                  array.dtype.kind in "biu" and dtype.kind in "iu"):
            raise Error(f"{what} is {array.dtype}, parameter {index} {dtype}: "
                        f"not converted, it would change the values' kind")
        else:
            array = _converted(array, dtype, what)
    if tuple(array.shape) != tuple(shape):
        raise Error(f"{what} has shape {tuple(array.shape)}, parameter {index} "
                    f"{tuple(shape)}")
    return np.ascontiguousarray(array)


def _converted(array: np.ndarray, dtype: np.dtype, what: str) -> np.ndarray:
    """``array`` as ``dtype``, refused where a value does not fit: numpy
    wraps integers (2**32 + 5 as int32 is 5) and turns large floats into
    infinities."""
    with np.errstate(all="ignore"):
        result = array.astype(dtype)
        if dtype.kind in "iub":
            lost = result.astype(array.dtype) != array
        elif dtype.kind in "fc":
            lost = np.isfinite(array) & ~np.isfinite(result)
        else:
            lost = np.zeros(array.shape, dtype=bool)
    if np.any(lost):
        at = tuple(int(i) for i in np.argwhere(lost)[0])
        value = array[at] if at else array[()]
        raise Error(f"{what}: {value!r} at {at} does not fit in {dtype}")
    return result
