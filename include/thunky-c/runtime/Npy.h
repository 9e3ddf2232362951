/*===- thunky-c/runtime/Npy.h - NumPy .npy files, in and out ---------------------===*
 *
 * thunky-run takes each parameter from a .npy file and writes each output
 * to one, so that arrays move to and from Python with np.load and np.save.
 * Arrays are held as XLA sees them: an xla.PrimitiveType, dims, and dense
 * little-endian bytes in C (row-major) order.
 *
 * Element types and their descr in a file:
 *   pred '|b1'   s8 '|i1'   s16 '<i2'   s32 '<i4'   s64 '<i8'
 *   u8   '|u1'   u16 '<u2'  u32 '<u4'   u64 '<u8'
 *   f16  '<f2'   f32 '<f4'  f64 '<f8'   c64 '<c8'   c128 '<c16'
 *   bf16 and the 1-byte f8 types: '<V2' and '<V1', as ml_dtypes writes them.
 *
 * numpy has no bfloat16 or float8: an array of ml_dtypes.bfloat16 is saved
 * with descr '<V2' (2 opaque bytes), which says nothing about what the
 * bytes are. A void descr is therefore read as raw bytes (elementType 0)
 * unless the caller expects a type numpy cannot name and of that byte
 * size: `expectedType` BF16 reads '<V2' (or '|V2') as bf16. Type names as
 * descrs ("bfloat16", "float8_e4m3fn", "float32"), which some tools write,
 * are read as those types whatever is expected. The writer writes '<V2'
 * for bf16 so that plain numpy can load the file (as void;
 * `.view(ml_dtypes.bfloat16)` restores it) and thunky-run can read it back.
 *
 * Reading is otherwise exact, not a conversion: the file's dtype decides
 * elementType, and the caller compares it and the dims with what it wants.
 * Files in Fortran order are transposed into C order; big-endian data
 * ('>f4') is byte-swapped. Versions 1.0, 2.0 and 3.0 are read; the writer
 * writes 1.0 (a header of at most 8 dims always fits it), byte for byte
 * as np.save does.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_NPY_H
#define THUNKY_C_NPY_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most dims an array may have here (XLA shapes in a plan have 8). */
#define THUNKY_NPY_MAX_RANK 8

typedef struct ThunkyNpyArray {
  int32_t elementType; /* xla.PrimitiveType; 0 for raw bytes */
  uint32_t rank;
  int64_t dims[THUNKY_NPY_MAX_RANK];
  uint8_t *data; /* C order, little-endian; owned: free with thunkyNpyArrayDestroy */
  uint64_t size; /* bytes of data */
} ThunkyNpyArray;

/* Reads the .npy file at `path` into `out`. `expectedType` is the
 * xla.PrimitiveType the caller wants, or 0: it only decides how a void
 * descr is read (see above), it is no check. On failure `out` is left
 * empty and the error names the file and what is wrong, e.g.
 * "x.npy: unsupported dtype '<U3'" or "x.npy: header byte 52: ...". */
THUNKY_EXPORT bool thunkyNpyRead(const char *path, int32_t expectedType, ThunkyNpyArray *out,
                                 ThunkyError *error);

/* The same for a .npy file held in memory; the data is copied. `name`
 * (may be NULL) stands for the file in messages. */
THUNKY_EXPORT bool thunkyNpyReadMemory(const void *data, size_t size, const char *name,
                                       int32_t expectedType, ThunkyNpyArray *out,
                                       ThunkyError *error);

/* Writes `array` as a .npy file (version 1.0) that np.load reads. Raw bytes
 * (elementType 0) are written as '|u1' with shape (size,). The file is
 * written to "<path>.partial" and renamed, so a failed write leaves no
 * half file at `path`. Fails when size is not what the type and dims say. */
THUNKY_EXPORT bool thunkyNpyWrite(const char *path, const ThunkyNpyArray *array,
                                  ThunkyError *error);

/* Frees the data and empties the array; safe on an empty array. */
THUNKY_EXPORT void thunkyNpyArrayDestroy(ThunkyNpyArray *array);

/* "f32[2,3]" (XLA's spelling; "f32[]" for a scalar, "raw[...]" for type 0)
 * into out, truncated to size. */
THUNKY_EXPORT void thunkyNpyDescribe(int32_t elementType, uint32_t rank, const int64_t *dims,
                                     char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_NPY_H */
