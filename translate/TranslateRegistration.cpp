//===- TranslateRegistration.cpp - --import-thunky/--export-thunky -*- C++ -*-===//
//
// mlir-translate's registry is C++ only; the translations themselves are C
// (import_executable.c, export_executable.c).
//
//===----------------------------------------------------------------------===//

#include "thunky-c/format/Container.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/TextLayout.h"
#include "thunky-c/translate/Translate.h"
#include "resource_text.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static void appendToStream(MlirStringRef bytes, void *stream) {
  static_cast<llvm::raw_ostream *>(stream)->write(bytes.data, bytes.length);
}

static bool lookupBlob(MlirStringRef name, MlirStringRef *bytes, size_t *alignment,
                       void *context) {
  auto &manager = DenseResourceElementsHandle::getManagerInterface(
                      static_cast<MLIRContext *>(context))
                      .getBlobManager();
  auto *entry = manager.lookup(llvm::StringRef(name.data, name.length));
  if (!entry || !entry->getBlob())
    return false;
  llvm::ArrayRef<char> data = entry->getBlob()->getData();
  *bytes = mlirStringRefCreate(data.data(), data.size());
  *alignment = entry->getBlob()->getDataAlignment();
  return true;
}

static void appendToLayout(MlirStringRef bytes, void *layout) {
  thunkyTextLayoutWrite(static_cast<ThunkyTextLayout *>(layout), bytes.data, bytes.length);
}

static void writeToStream(const char *bytes, size_t size, void *stream) {
  static_cast<llvm::raw_ostream *>(stream)->write(bytes, size);
}

// The module as text: MLIR prints the ops, thunky the resources
// (resource_text.h), unless the command line asked MLIR to elide some; a
// long @main signature one argument a line (thunky-c/base/TextLayout.h).
static void printModule(Operation *module, llvm::raw_ostream &output) {
  OpPrintingFlags flags;
  flags.assumeVerified();
  std::string text;
  llvm::raw_string_ostream ops(text);
  bool ownTrailer = !flags.getLargeResourceStringLimit();
  module->print(ops, ownTrailer ? OpPrintingFlags(flags).elideLargeResourceString(0) : flags);
  ThunkyTextLayout *layout =
      thunkyTextLayoutCreate(THUNKY_TEXT_LINE_LIMIT, writeToStream, &output);
  if (!layout) {
    output << text;
    return;
  }
  MlirStringRef printed = mlirStringRefCreate(text.data(), text.size());
  if (!ownTrailer ||
      !thunkyWriteWithResources(printed, lookupBlob, module->getContext(), appendToLayout, layout)) {
    // Without thunky's trailer, or where it failed: MLIR's, in full.
    if (ownTrailer) {
      text.clear();
      module->print(ops, flags);
    }
    thunkyTextLayoutWrite(layout, text.data(), text.size());
  }
  thunkyTextLayoutDestroy(layout);
}

extern "C" void thunkyRegisterTranslations(void) {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  static llvm::cl::opt<bool> describeContainer(
      "thunky-describe-container",
      llvm::cl::desc("import-thunky: print the container layers found to stderr"));
  static llvm::cl::opt<std::string> containerLayering(
      "thunky-container",
      llvm::cl::desc("export-thunky: write this layering instead of the imported one "
                     "(executable, split, options, split-options, ifrt+options, "
                     "ifrt+split-options)"));
  // mlir-translate prints what a translation to MLIR returns as text; a
  // module of a million thunks reads back several times faster as bytecode,
  // so import writes itself and offers mlir-opt's --emit-bytecode.
  static llvm::cl::opt<bool> emitBytecode(
      "emit-bytecode", llvm::cl::desc("import-thunky: write MLIR bytecode, not text"));
  static llvm::cl::opt<bool> importHloNames(
      "thunky-hlo-names",
      llvm::cl::desc("import-thunky: give each launch the HLO instruction and computation it "
                     "runs (thunky.hlo), from the HLO module the executable keeps"));
  static llvm::cl::opt<std::string> maxThunks(
      "thunky-max-thunks",
      llvm::cl::desc("import-thunky: refuse an executable of more thunks (default 16777216)"));
  static llvm::cl::opt<std::string> maxDecodedBytes(
      "thunky-max-decoded-bytes",
      llvm::cl::desc("import-thunky: refuse a container that decompresses to more bytes "
                     "(default 4G; K, M, G, T suffixes)"));
  static llvm::cl::opt<std::string> maxAllocationBytes(
      "thunky-max-allocation-bytes",
      llvm::cl::desc("import-thunky: refuse a buffer allocation of more bytes (default 1T)"));
  static llvm::cl::opt<std::string> maxAllocations(
      "thunky-max-allocations",
      llvm::cl::desc("import-thunky: refuse an executable of more buffer allocations "
                     "(default 16777216)"));
  static llvm::cl::opt<std::string> maxNesting(
      "thunky-max-nesting",
      llvm::cl::desc("export-thunky: refuse text whose brackets nest deeper (default 1000)"));
  static TranslateRegistration importThunky(
      "import-thunky",
      "import an XLA:GPU executable (a GpuExecutableProto, bare or in "
      "split-proto, ExecutableAndOptionsProto or JAX's IFRT envelope, or "
      "XLA's golden HumanReadableAotExecutable) as a thunky module",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr, llvm::raw_ostream &output,
         MLIRContext *context) -> LogicalResult {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        ThunkyLimits limits = thunkyLimitsDefault();
        ThunkyError why;
        for (auto [name, value] : {std::pair{"max-thunks", &maxThunks},
                                   {"max-decoded-bytes", &maxDecodedBytes},
                                   {"max-allocation-bytes", &maxAllocationBytes},
                                   {"max-allocations", &maxAllocations}})
          if (value->getNumOccurrences() &&
              !thunkyLimitsSet(&limits, name, value->c_str(), &why)) {
            llvm::errs() << "thunky-" << why.message << "\n";
            return failure();
          }
        if (describeContainer) {
          ThunkyContainer container;
          ThunkyError error;
          char line[1024];
          if (thunkyContainerCreate(buffer->getBufferStart(), buffer->getBufferSize(), &limits,
                                  &container, &error)) {
            thunkyContainerDescribe(&container, line, sizeof line);
            llvm::errs() << buffer->getBufferIdentifier() << ": " << line << "\n";
            thunkyContainerDestroy(&container);
          }
        }
        // The source manager holds the input for as long as the context
        // lives (thunky-translate.cpp), so resources can point into it.
        OwningOpRef<Operation *> module(unwrap(thunkyImportExecutableWithFlags(
            wrap(context),
            mlirStringRefCreate(buffer->getBufferStart(), buffer->getBufferSize()),
            wrap(buffer->getBufferIdentifier()), &limits,
            THUNKY_IMPORT_BORROW | (importHloNames ? THUNKY_IMPORT_HLO_NAMES : 0))));
        // Import verified the module already (thunky-c/translate/Translate.h).
        if (!module)
          return failure();
        if (emitBytecode)
          return writeBytecodeToFile(*module, output);
        printModule(module.get(), output);
        return success();
      });
  // Not a TranslateFromMLIRRegistration: the text is checked for nesting
  // before MLIR's parser recurses into it.
  static TranslateRegistration exportThunky(
      "export-thunky",
      "export a thunky module as an XLA:GPU executable, in the layering it "
      "was imported from",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr, llvm::raw_ostream &output,
         MLIRContext *context) -> LogicalResult {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        ThunkyLimits limits = thunkyLimitsDefault();
        ThunkyError error;
        std::string name = buffer->getBufferIdentifier().str();
        if (!thunkyInputExpectModule(buffer->getBufferStart(), buffer->getBufferSize(),
                                     name.c_str(), &error))
          return emitError(FileLineColLoc::get(context, name, 0, 0)) << error.message;
        if ((maxNesting.getNumOccurrences() &&
             !thunkyLimitsSet(&limits, "max-nesting", maxNesting.c_str(), &error)) ||
            !thunkyValidateTextNesting(buffer->getBufferStart(), buffer->getBufferSize(),
                                    name.c_str(), limits.maxNesting,
                                    "--thunky-max-nesting", &error)) {
          llvm::errs() << error.message << "\n";
          return failure();
        }
        DialectRegistry registry;
        mlirDialectHandleInsertDialect(mlirGetDialectHandle__thunky__(), wrap(&registry));
        registry.insert<func::FuncDialect>();
        context->appendDialectRegistry(registry);
        OwningOpRef<Operation *> module;
        {
          // thunky-opt loads every dialect, as mlir-opt does; export only
          // thunky's. MLIR's "Dialect `arith' not found" says what, not why.
          ScopedDiagnosticHandler otherDialect(context, [&](Diagnostic &diag) {
            std::string message = diag.str();
            size_t op = message.find("' not found for custom op '");
            if (diag.getSeverity() != DiagnosticSeverity::Error ||
                message.rfind("Dialect `", 0) != 0 || op == std::string::npos)
              return failure();
            std::string dialect = message.substr(9, op - 9);
            std::string name = message.substr(op + 27);
            name = name.substr(0, name.find('\''));
            emitError(diag.getLocation())
                << "'" << name << "' is an op of dialect '" << dialect
                << "', which export cannot write: an executable holds thunks, so only thunky "
                   "ops (in func.func @main) export; lower it to thunky ops or remove it";
            return success();
          });
          module = parseSourceFileForTool(sourceMgr, context, /*insertImplicitModule=*/true);
        }
        if (!module || failed(verify(*module)))
          return failure();
        return unwrap(thunkyExportExecutableAs(
            wrap(module.get()),
            mlirStringRefCreate(containerLayering.data(), containerLayering.size()),
            appendToStream, &output));
      });
}
