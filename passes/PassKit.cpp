//===- PassKit.cpp - a C pass as an mlir::Pass ----------------*- C++ -*-===//
//
// MLIR's external passes (mlirCreateExternalPass) take no options, so a pass
// described by a ThunkyPassInfo is this small mlir::Pass instead: it owns one
// Pass::Option per declared option, so pipelines can set them and crash
// reproducers and --dump-pass-pipeline keep them, and calls the C run
// function with their values.
//
//===----------------------------------------------------------------------===//

#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/passes/PassKit.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>
#include <vector>

struct ThunkyPassState {
  std::vector<int64_t> options;
  std::vector<std::string> strings; /* by option index; empty for the others */
  bool failed = false;
  bool unchanged = false;
};

namespace {
class ThunkyPass : public mlir::Pass {
public:
  explicit ThunkyPass(const ThunkyPassInfo *info)
      : Pass(mlir::TypeID::getFromOpaquePointer(info)), info(info) {
    for (size_t i = 0; i < info->numOptions; ++i) {
      const ThunkyPassOption &o = info->options[i];
      if (o.kind == THUNKY_OPTION_BOOL)
        flags.push_back(std::make_unique<Option<bool>>(
            *this, o.name, llvm::cl::desc(o.description),
            llvm::cl::init(o.defaultValue != 0)));
      else if (o.kind == THUNKY_OPTION_STRING)
        texts.push_back(std::make_unique<Option<std::string>>(
            *this, o.name, llvm::cl::desc(o.description)));
      else
        integers.push_back(std::make_unique<Option<int64_t>>(
            *this, o.name, llvm::cl::desc(o.description),
            llvm::cl::init(o.defaultValue)));
    }
  }

  llvm::StringRef getName() const override { return info->name; }
  llvm::StringRef getArgument() const override { return info->argument; }
  llvm::StringRef getDescription() const override { return info->description; }
  bool canScheduleOn(mlir::RegisteredOperationName) const override { return true; }

  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    mlirDialectHandleInsertDialect(mlirGetDialectHandle__thunky__(), wrap(&registry));
  }

  std::unique_ptr<mlir::Pass> clonePass() const override {
    auto copy = std::make_unique<ThunkyPass>(info);
    copy->copyOptionValuesFrom(this);
    return copy;
  }

  void runOnOperation() override {
    ThunkyPassState state;
    size_t flag = 0, integer = 0, text = 0;
    for (size_t i = 0; i < info->numOptions; ++i) {
      ThunkyOptionKind kind = info->options[i].kind;
      state.strings.push_back(kind == THUNKY_OPTION_STRING ? std::string(*texts[text++])
                                                           : std::string());
      state.options.push_back(kind == THUNKY_OPTION_BOOL     ? int64_t(*flags[flag++])
                              : kind == THUNKY_OPTION_STRING ? 0
                                                             : int64_t(*integers[integer++]));
    }
    info->run(wrap(getOperation()), &state);
    if (state.failed)
      signalPassFailure();
    else if (state.unchanged)
      markAllAnalysesPreserved(); // MLIR then skips verifying what it verified
  }

private:
  const ThunkyPassInfo *info;
  std::vector<std::unique_ptr<Option<bool>>> flags;
  std::vector<std::unique_ptr<Option<int64_t>>> integers;
  std::vector<std::unique_ptr<Option<std::string>>> texts;
};
} // namespace

MlirPass thunkyPassCreate(const ThunkyPassInfo *info) {
  return wrap(static_cast<mlir::Pass *>(new ThunkyPass(info)));
}

int64_t thunkyPassGetOption(const ThunkyPassState *state, size_t index) {
  return state->options.at(index);
}

const char *thunkyPassGetStringOption(const ThunkyPassState *state, size_t index) {
  return state->strings.at(index).c_str();
}

void thunkyPassSignalFailure(ThunkyPassState *state) { state->failed = true; }

void thunkyPassMarkUnchanged(ThunkyPassState *state) { state->unchanged = true; }

bool thunkyPassRunStage(const ThunkyPassInfo *stage, MlirOperation root,
                        ThunkyPassState *state, bool *changed) {
  ThunkyPassState inner;
  for (size_t i = 0; i < stage->numOptions; ++i) {
    const ThunkyPassOption &o = stage->options[i];
    inner.options.push_back(o.kind == THUNKY_OPTION_STRING ? 0 : o.defaultValue);
    inner.strings.emplace_back();
  }
  stage->run(root, &inner);
  if (changed && !inner.unchanged)
    *changed = true;
  if (inner.failed)
    state->failed = true;
  return !inner.failed;
}
