/*===- fuzz_export.c - export, then import again -------------------------===*
 *
 * Whatever imports must export to bytes that import again into the same
 * module: the round trip loses nothing and never crashes.
 *
 *===--------------------------------------------------------------------===*/
#include "fuzz_mlir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MlirContext ctx = thunkyFuzzContext();
  MlirOperation first = thunkyFuzzImport(ctx, data, size);
  if (mlirOperationIsNull(first) ||
      !mlirOperationVerify(first)) {
    if (!mlirOperationIsNull(first))
      mlirOperationDestroy(first);
    mlirContextDestroy(ctx);
    return 0;
  }
  ThunkyBuffer exported = {0};
  /* Export may refuse (with a diagnostic) what XLA could not read back. */
  if (mlirLogicalResultIsSuccess(thunkyExportExecutable(first, thunkyFuzzAppend, &exported))) {
    /* A context of its own: resource names are unique per context, so the
     * same bytes imported twice into one would print under new names. */
    MlirContext again = thunkyFuzzContext();
    MlirOperation second = thunkyFuzzImport(again, exported.data, exported.size);
    if (mlirOperationIsNull(second))
      thunkyFuzzFail("an exported executable does not import again", first);
    ThunkyBuffer a = {0}, b = {0};
    thunkyFuzzPrint(first, &a);
    thunkyFuzzPrint(second, &b);
    if (a.size != b.size || memcmp(a.data, b.data, a.size)) {
      fprintf(stderr, "--- imported:\n%.*s\n--- exported and imported again:\n%.*s\n",
              (int)a.size, (const char *)a.data, (int)b.size, (const char *)b.data);
      thunkyFuzzFail("export then import changed the module", second);
    }
    thunkyBufferDestroy(&a), thunkyBufferDestroy(&b);
    mlirOperationDestroy(second);
    mlirContextDestroy(again);
  }
  thunkyBufferDestroy(&exported);
  mlirOperationDestroy(first);
  mlirContextDestroy(ctx);
  return 0;
}
