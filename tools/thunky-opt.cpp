//===- thunky-opt.cpp - mlir-opt with thunky built in ---------*- C++ -*-===//
//
// Stock mlir-opt can load thunky as a plugin, but a plugin's passes are not
// flags there (its pass list is fixed before plugins load). This driver has
// the dialect and passes built in, so `thunky-opt --thunky-flatten-sequential`
// works, along with every upstream dialect and pass.
//
//===----------------------------------------------------------------------===//

#include "thunky-c/Dialect.h"
#include "thunky-c/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  thunkyRegisterPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__thunky__(),
                                 wrap(&registry));
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "thunky optimizer driver\n", registry));
}
