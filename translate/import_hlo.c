/*===- import_hlo.c - the HLO each launch runs, on request --------------===*
 *
 * With THUNKY_IMPORT_HLO_NAMES, each thunky.launch whose kernel names an
 * instruction of the HLO module the executable keeps is given
 * THUNKY_ATTR_HLO: that instruction and the computation it calls. Passes
 * read no formats, so this is how they learn what a launch computes. Off
 * by default: indexing a module of megabytes would cost every import.
 *
 *===--------------------------------------------------------------------===*/
#include "import.h"

#include "thunky-c/format/HloText.h"
#include "thunky-c/dialect/Ops.h"

typedef struct Annotator {
  Importer *im;
  const ThunkyHloLaunches *launches;
  MlirIdentifier hlo, instruction, computation;
} Annotator;

static MlirWalkResult annotate(MlirOperation op, void *userData) {
  Annotator *a = userData;
  if (thunkyOpGetKind(op) != THUNKY_OP_LAUNCH)
    return MlirWalkResultAdvance;
  MlirAttribute kernel = mlirOperationGetAttributeByName(op, str("kernel_name"));
  if (mlirAttributeIsNull(kernel) || !mlirAttributeIsAString(kernel))
    return MlirWalkResultAdvance;
  MlirStringRef name = mlirStringAttrGetValue(kernel);
  const char *computation;
  const Xla__HloInstructionProto *in =
      thunkyHloLaunchFind(a->launches, name.data, name.length, &computation);
  if (!in)
    return MlirWalkResultAdvance;
  MlirNamedAttribute fields[2];
  intptr_t n = 0;
  if (computation)
    fields[n++] =
        mlirNamedAttributeGet(a->computation, mlirStringAttrGet(a->im->ctx, str(computation)));
  fields[n++] = mlirNamedAttributeGet(a->instruction, mlirStringAttrGet(a->im->ctx, str(in->name)));
  mlirOperationSetDiscardableAttributeByName(op, mlirIdentifierStr(a->hlo),
                                             mlirDictionaryAttrGet(a->im->ctx, n, fields));
  return MlirWalkResultAdvance;
}

bool thunkyImportHloNames(Importer *im, MlirOperation main) {
  const Xla__HloModuleProtoWithConfig *kept = im->exe->hlo_module_with_config;
  if (!kept || !kept->hlo_module)
    return true;
  ThunkyHloLaunches *launches = thunkyHloLaunchesCreate(kept->hlo_module);
  if (!launches)
    return thunkyImportError(im, "%s", "out of memory indexing the HLO module");
  Annotator a = {im, launches, mlirIdentifierGet(im->ctx, str(THUNKY_ATTR_HLO)),
                 mlirIdentifierGet(im->ctx, str("instruction")),
                 mlirIdentifierGet(im->ctx, str("computation"))};
  mlirOperationWalk(main, annotate, &a, MlirWalkPreOrder);
  thunkyHloLaunchesDestroy(launches);
  return true;
}
