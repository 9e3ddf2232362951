//===- thunky-opt.cpp - mlir-opt with thunky built in ---------*- C++ -*-===//
//
// Stock mlir-opt can load thunky as a plugin, but a plugin's passes are not
// flags there (its pass list is fixed before plugins load). This driver has
// the dialect and passes built in, so `thunky-opt --thunky-flatten-sequential`
// works, along with every upstream dialect and pass. It also refuses text
// nested past --thunky-max-nesting before MLIR's parser recurses into it,
// so it reads the input itself and hands MlirOptMain the buffer.
//
//===----------------------------------------------------------------------===//

#include "thunky-c/Dialect.h"
#include "thunky-c/Limits.h"
#include "thunky-c/Passes.h"
#include "thunky-c/Version.h"

#include "mlir/CAPI/IR.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  thunkyRegisterPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__thunky__(),
                                 wrap(&registry));
  static llvm::cl::opt<std::string> maxNesting(
      "thunky-max-nesting",
      llvm::cl::desc("Refuse text whose brackets nest deeper (default 1000)"));
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "thunky version " THUNKY_VERSION "\n"; });
  auto [inputName, outputName] = mlir::registerAndParseCLIOptions(
      argc, argv, "thunky optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputName, outputName, registry));
  ThunkyLimits limits = thunkyLimitsDefault();
  ThunkyError error;
  std::string why;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputName, &why);
  if (!input) {
    llvm::errs() << why << "\n";
    return 1;
  }
  if ((maxNesting.getNumOccurrences() &&
       !thunkyLimitsSet(&limits, "max-nesting", maxNesting.c_str(), &error)) ||
      !thunkyCheckTextNesting(input->getBufferStart(), input->getBufferSize(),
                              input->getBufferIdentifier().str().c_str(),
                              limits.maxNesting, "--thunky-max-nesting", &error)) {
    llvm::errs() << error.message << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputName, &why);
  if (!output) {
    llvm::errs() << why << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
