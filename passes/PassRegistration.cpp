//===- PassRegistration.cpp - register C passes globally ------*- C++ -*-===//
//
// MLIR's pass registry is C++ only; these two calls bridge it.
//
//===----------------------------------------------------------------------===//

#include "thunky-c/Passes.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <vector>

void thunkyRegisterPass(ThunkyPassFactory factory) {
  mlir::registerPass([factory]() -> std::unique_ptr<mlir::Pass> {
    return std::unique_ptr<mlir::Pass>(unwrap(factory()));
  });
}

void thunkyRegisterPipeline(const char *argument, const char *description,
                            const ThunkyPassFactory *factories, size_t count) {
  std::vector<ThunkyPassFactory> passes(factories, factories + count);
  mlir::PassPipelineRegistration<>(
      argument, description, [passes](mlir::OpPassManager &pm) {
        for (ThunkyPassFactory factory : passes)
          pm.addPass(std::unique_ptr<mlir::Pass>(unwrap(factory())));
      });
}
