/*===- thunky-c/Export.h - what the installed libraries export ----------===*
 *
 * thunky builds its C with hidden visibility, so that each installed
 * library exports the functions its public headers declare and nothing
 * else (test/Build/exports.test checks each against its headers).
 * THUNKY_EXPORT marks those declarations; the MLIR-facing headers use
 * MLIR's MLIR_CAPI_EXPORTED, which means the same.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_EXPORT_H
#define THUNKY_C_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define THUNKY_EXPORT __attribute__((visibility("default")))
#else
#define THUNKY_EXPORT
#endif

#endif /* THUNKY_C_EXPORT_H */
