/*===- fuzz_import.c - the importer on arbitrary bytes -------------------===*
 *
 * Any bytes (a bare executable or any container layering) either import into
 * a module that verifies or are refused with a diagnostic: never a crash, a
 * read out of bounds or a leak.
 *
 *===--------------------------------------------------------------------===*/
#include "fuzz_mlir.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MlirContext ctx = thunkyFuzzContext();
  MlirOperation module = thunkyFuzzImport(ctx, data, size);
  if (!mlirOperationIsNull(module)) {
    if (!mlirOperationVerify(module))
      thunkyFuzzFail("an imported module does not verify", module);
    mlirOperationDestroy(module);
  }
  mlirContextDestroy(ctx);
  return 0;
}
