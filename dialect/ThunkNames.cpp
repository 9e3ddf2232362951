//===- ThunkNames.cpp - diagnostics that name their thunk -----*- C++ -*-===//
//
// Import gives every op the location `fused<#thunky.info<...>>[file]`: the
// input's position, with the thunk's id and annotation as metadata (older
// imports used a NameLoc `"thunk <id> <annotation>"(file)`). MLIR's
// diagnostic printers show only the file part of either, so an error the
// verifier (or a pass) finds in an imported module would point at the input
// file and not say which thunk.
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
/// The thunk a location names, "thunk <id> <annotation>": the first
/// #thunky.info fused into it, or NameLoc "thunk ..."; empty if none.
std::string thunkName(Location loc) {
  std::string found;
  loc->walk([&](Location inner) {
    if (auto fused = dyn_cast<FusedLoc>(inner))
      if (auto info = dyn_cast_or_null<thunky::ThunkInfoAttr>(fused.getMetadata())) {
        found = "thunk " + std::to_string(info.getId());
        if (!info.getAnnotation().empty())
          found += (" " + info.getAnnotation()).str();
        return WalkResult::interrupt();
      }
    if (auto name = dyn_cast<NameLoc>(inner))
      if (name.getName().getValue().starts_with("thunk ")) {
        found = name.getName().getValue().str();
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

LogicalResult nameThunk(Diagnostic &diag) {
  std::string name = thunkName(diag.getLocation());
  if (name.empty())
    return failure();
  std::string prefix = "in " + name + ": ";
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
