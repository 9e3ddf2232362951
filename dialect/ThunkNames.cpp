//===- ThunkNames.cpp - diagnostics that name their thunk -----*- C++ -*-===//
//
// Import gives every op the location `"thunk <id> <annotation>"(file)`, a
// NameLoc around the input's position. MLIR's diagnostic printers show only
// the file part of a NameLoc, so an error the verifier (or a pass) finds in
// an imported module would point at the input file and not say which thunk.
// The handler the dialect installs in every context that loads it puts the
// name in front of such a message, "in thunk 7 zero_tail: ...", as import's
// own errors read, and lets the handlers installed before it (the tools'
// printers, --verify-diagnostics) report it as usual. This also holds for a
// module printed with --mlir-print-debuginfo and read back by thunky-opt.
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <string>

using namespace mlir;

namespace {
/// The thunk a location names: the first NameLoc "thunk ..." in it.
StringRef thunkName(Location loc) {
  StringRef found;
  loc->walk([&](Location inner) {
    if (auto name = dyn_cast<NameLoc>(inner))
      if (name.getName().getValue().starts_with("thunk ")) {
        found = name.getName().getValue();
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

LogicalResult nameThunk(Diagnostic &diag) {
  StringRef name = thunkName(diag.getLocation());
  if (name.empty())
    return failure();
  std::string prefix = ("in " + name + ": ").str();
  // Import's own errors already say it.
  if (StringRef(diag.str()).starts_with(prefix))
    return failure();
  // Append the prefix (a Twine: the diagnostic keeps a copy, this string
  // is gone before the diagnostic is printed) and move it in front.
  diag << llvm::Twine(prefix);
  MutableArrayRef<DiagnosticArgument> args = diag.getArguments();
  std::rotate(args.begin(), args.end() - 1, args.end());
  // Not handled: the handlers registered before this one print it.
  return failure();
}
} // namespace

void mlir::thunky::registerThunkNames(MLIRContext *context) {
  context->getDiagEngine().registerHandler(nameThunk);
}
