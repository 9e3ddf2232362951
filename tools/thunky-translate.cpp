//===- thunky-translate.cpp - mlir-translate with thunky ------*- C++ -*-===//
//
// A drop-in mlir-translate: every stock translation, plus thunky's own.
// Stock mlir-translate cannot load plugins, hence this tool.
//
//===----------------------------------------------------------------------===//

#include "thunky-c/Translate.h"
#include "thunky-c/Version.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  thunkyRegisterTranslations();
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "thunky version " THUNKY_VERSION "\n"; });
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "thunky translation driver\n"));
}
