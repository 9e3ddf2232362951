/*===- thunky-c/base/Work.h - what an operation does: arithmetic and bytes ---===*
 *
 * The measure of work that the executable's HLO gives (format) and the
 * schedule model prices (runtime): multiply-adds counted as two operations,
 * by the precision the device runs them at, and the bytes moved to and from
 * memory. No MLIR, no protobuf.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_WORK_H
#define THUNKY_C_WORK_H

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of arithmetic a device has a peak rate for. */
typedef enum ThunkyFlopsKind {
  THUNKY_FLOPS_F64,
  THUNKY_FLOPS_F32,  /* f32 computed as f32 */
  THUNKY_FLOPS_TF32, /* f32 inputs rounded to TF32 on tensor cores */
  THUNKY_FLOPS_F16,  /* f16 and bf16 */
  THUNKY_FLOPS_F8,   /* 8-bit floats and integers */
  THUNKY_FLOPS_KINDS
} ThunkyFlopsKind;

typedef struct ThunkyWork {
  double flops[THUNKY_FLOPS_KINDS]; /* operations, by the rate they run at */
  double bytes;                     /* read and written */
} ThunkyWork;

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_WORK_H */
