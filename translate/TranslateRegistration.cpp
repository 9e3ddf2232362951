//===- TranslateRegistration.cpp - --import-thunky/--export-thunky -*- C++ -*-===//
//
// mlir-translate's registry is C++ only; the translations themselves are C
// (import_executable.c, export_executable.c).
//
//===----------------------------------------------------------------------===//

#include "thunky-c/Dialect.h"
#include "thunky-c/Translate.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static void appendToStream(MlirStringRef bytes, void *stream) {
  static_cast<llvm::raw_ostream *>(stream)->write(bytes.data, bytes.length);
}

extern "C" void thunkyRegisterTranslations(void) {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  static TranslateToMLIRRegistration importThunky(
      "import-thunky",
      "import an XLA:GPU executable (GpuExecutableProto, or XLA's golden "
      "HumanReadableAotExecutable) as a thunky module",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        MlirOperation module = thunkyImportExecutable(
            wrap(context),
            mlirStringRefCreate(buffer->getBufferStart(), buffer->getBufferSize()),
            wrap(buffer->getBufferIdentifier()));
        return OwningOpRef<Operation *>(unwrap(module));
      });
  static TranslateFromMLIRRegistration exportThunky(
      "export-thunky",
      "export a thunky module as an XLA:GPU executable, in the layering it "
      "was imported from",
      [](Operation *module, llvm::raw_ostream &os) -> LogicalResult {
        return unwrap(thunkyExportExecutable(wrap(module), appendToStream, &os));
      },
      [](DialectRegistry &registry) {
        mlirDialectHandleInsertDialect(mlirGetDialectHandle__thunky__(),
                                       wrap(&registry));
        registry.insert<func::FuncDialect>();
      });
}
