//===- PassRegistration.cpp - register C passes globally ------*- C++ -*-===//
//
// MLIR's pass registry is C++ only; this call bridges it.
//
//===----------------------------------------------------------------------===//

#include "thunky-c/passes/Passes.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassRegistry.h"

void thunkyRegisterPass(ThunkyPassFactory factory) {
  mlir::registerPass([factory]() -> std::unique_ptr<mlir::Pass> {
    return std::unique_ptr<mlir::Pass>(unwrap(factory()));
  });
}

