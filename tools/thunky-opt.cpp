//===- thunky-opt.cpp - mlir-opt with thunky built in ---------*- C++ -*-===//
//
// Stock mlir-opt can load thunky as a plugin, but a plugin's passes are not
// flags there: its pass flags are made before it loads plugins. This driver
// has the dialect and passes built in, and loads the plugins named with
// --load-pass-plugin and --load-dialect-plugin itself, before the command
// line is parsed, so that `thunky-opt --load-pass-plugin=lib.so --my-pass`
// works, options too (`--my-pass=limit=3`), and a plugin that cannot be
// loaded stops the run instead of being a warning. It also refuses text
// nested past --thunky-max-nesting before MLIR's parser recurses into it,
// so it reads the input itself and hands MlirOptMain the buffer.
//
//===----------------------------------------------------------------------===//

#include "in_place.h"
#include "thunky-c/format/Container.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/Limits.h"
#include "thunky-c/passes/Passes.h"
#include "thunky-c/base/TextLayout.h"
#include "thunky-c/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/CAPI/IR.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {
/// The value of `--name=value`, `-name=value` or `--name value` at argv[i]
/// (advancing i past a separate value); false when argv[i] is not `name`.
bool takeOption(int argc, char **argv, int &i, llvm::StringRef name, std::string &value) {
  llvm::StringRef arg = argv[i];
  if (!arg.consume_front("--") && !arg.consume_front("-"))
    return false;
  if (!arg.consume_front(name))
    return false;
  if (arg.consume_front("=")) {
    value = arg.str();
    return true;
  }
  if (!arg.empty() || i + 1 >= argc)
    return false; // another flag that begins with `name`, or no value: MLIR reports it
  value = argv[++i];
  return true;
}

/// Loads the plugins the command line names and takes their options out of
/// it; false, having said why, when one cannot be loaded.
bool loadPlugins(int &argc, char **argv, mlir::DialectRegistry &registry) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string path;
    if (llvm::StringRef(argv[i]) == "--") {
      while (i < argc)
        argv[kept++] = argv[i++];
      break;
    }
    if (takeOption(argc, argv, i, "load-pass-plugin", path)) {
      llvm::Expected<mlir::PassPlugin> plugin = mlir::PassPlugin::load(path);
      if (!plugin) {
        llvm::errs() << "thunky-opt: --load-pass-plugin=" << path
                     << ": cannot load it: " << llvm::toString(plugin.takeError()) << "\n";
        return false;
      }
      plugin->registerPassRegistryCallbacks();
    } else if (takeOption(argc, argv, i, "load-dialect-plugin", path)) {
      llvm::Expected<mlir::DialectPlugin> plugin = mlir::DialectPlugin::load(path);
      if (!plugin) {
        llvm::errs() << "thunky-opt: --load-dialect-plugin=" << path
                     << ": cannot load it: " << llvm::toString(plugin.takeError()) << "\n";
        return false;
      }
      plugin->registerDialectRegistryCallbacks(registry);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  return true;
}
/// What MlirOptMain prints, laid out as thunky-translate lays out an
/// import (thunky-c/base/TextLayout.h).
class LaidOutStream : public llvm::raw_ostream {
public:
  explicit LaidOutStream(llvm::raw_ostream &out)
      : layout(thunkyTextLayoutCreate(THUNKY_TEXT_LINE_LIMIT, sink, &out)) {}
  ~LaidOutStream() override {
    flush();
    thunkyTextLayoutDestroy(layout);
  }
  bool laidOut() const { return layout; }

private:
  static void sink(const char *bytes, size_t size, void *out) {
    static_cast<llvm::raw_ostream *>(out)->write(bytes, size);
  }
  void write_impl(const char *bytes, size_t size) override {
    thunkyTextLayoutWrite(layout, bytes, size);
    written += size;
  }
  uint64_t current_pos() const override { return written; }

  ThunkyTextLayout *layout;
  uint64_t written = 0;
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  thunkyRegisterPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__thunky__(), wrap(&registry));
  if (!loadPlugins(argc, argv, registry))
    return 2;
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
  std::string name = input->getBufferIdentifier().str();
  if (!thunkyInputExpectModule(input->getBufferStart(), input->getBufferSize(), name.c_str(),
                               &error)) {
    llvm::errs() << name << ":0:0: error: " << error.message << "\n";
    return 1;
  }
  if ((maxNesting.getNumOccurrences() &&
       !thunkyLimitsSet(&limits, "max-nesting", maxNesting.c_str(), &error)) ||
      !thunkyValidateTextNesting(input->getBufferStart(), input->getBufferSize(),
                              name.c_str(), limits.maxNesting, "--thunky-max-nesting", &error)) {
    llvm::errs() << error.message << "\n";
    return 1;
  }
  char written[4096];
  std::unique_ptr<llvm::ToolOutputFile> output;
  if (!toolWritePath(inputName.c_str(), outputName.c_str(), written, sizeof written))
    why = "output file name too long: " + outputName;
  else
    output = mlir::openOutputFile(written, &why);
  if (!output) {
    llvm::errs() << why << "\n";
    return 1;
  }
  // Bytecode is bytes, not lines.
  std::optional<LaidOutStream> laidOut;
  if (!config.shouldEmitBytecode())
    laidOut.emplace(output->os());
  llvm::raw_ostream &os =
      laidOut && laidOut->laidOut() ? static_cast<llvm::raw_ostream &>(*laidOut) : output->os();
  if (mlir::failed(mlir::MlirOptMain(os, std::move(input), registry, config)))
    return 1;
  laidOut.reset();
  output->keep();
  output.reset(); // closed before it is renamed
  if (!toolFinishWrite(written, outputName.c_str())) {
    llvm::errs() << "cannot replace '" << outputName << "': " << strerror(errno) << "\n";
    return 1;
  }
  return 0;
}
