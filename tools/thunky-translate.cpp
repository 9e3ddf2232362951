//===- thunky-translate.cpp - mlir-translate with thunky ------*- C++ -*-===//
//
// A drop-in mlir-translate: every stock translation, plus thunky's own.
// Stock mlir-translate cannot load plugins, hence this tool.
//
// The driver is mlirTranslateMain's, with the same options, less one copy:
// MLIR 22 copies every input whose last byte is not a NUL before it hands it
// to a translation (the file's own terminator lies past the buffer, so that
// is every file). Import of a 100 MB executable spent a fifth of its time on
// that copy and its page faults, so here a buffer is copied only where it
// really lacks the terminator: a chunk of --split-input-file. It also maps
// its input in one go and asks for huge pages (prefault, reexecWithHugePages).
//
//===----------------------------------------------------------------------===//

#include "thunky-c/Translate.h"
#include "thunky-c/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <sys/mman.h>
#include <unistd.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

using namespace mlir;

namespace {
namespace cl = llvm::cl;

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"), cl::init("-"));
cl::opt<std::string> outputFilename("o", cl::desc("Output filename"),
                                    cl::value_desc("filename"), cl::init("-"));
cl::opt<bool> allowUnregisteredDialects(
    "allow-unregistered-dialect",
    cl::desc("Allow operation with no registered dialects (discouraged: testing only!)"));
cl::opt<std::string> inputSplitMarker(
    "split-input-file", cl::ValueOptional,
    cl::callback([](const std::string &marker) {
      if (marker.empty())
        inputSplitMarker.setValue(kDefaultSplitMarker);
    }),
    cl::desc("Split the input file into chunks using the given or default marker and "
             "process each chunk independently"),
    cl::init(""));
cl::opt<SourceMgrDiagnosticVerifierHandler::Level> verifyDiagnostics(
    "verify-diagnostics", cl::ValueOptional,
    cl::desc("Check that emitted diagnostics match expected-* lines on the corresponding line"),
    cl::values(clEnumValN(SourceMgrDiagnosticVerifierHandler::Level::All, "all",
                          "Check all diagnostics (expected, unexpected, near-misses)"),
               clEnumValN(SourceMgrDiagnosticVerifierHandler::Level::All, "",
                          "Check all diagnostics (expected, unexpected, near-misses)"),
               clEnumValN(SourceMgrDiagnosticVerifierHandler::Level::OnlyExpected,
                          "only-expected", "Check only expected diagnostics")));
cl::opt<bool> errorDiagnosticsOnly(
    "error-diagnostics-only",
    cl::desc("Filter all non-error diagnostics (discouraged: testing only!)"));
cl::opt<std::string> outputSplitMarker("output-split-marker",
                                       cl::desc("Split marker to use for merging the ouput"),
                                       cl::init(""));

// Chained translations (-a -b) hand each one's output to the next as text.
LogicalResult translate(const cl::list<const Translation *, bool, TranslationParser> &chain,
                        std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::raw_ostream &os,
                        TimingScope &timing) {
  // A chunk of a split file ends inside the file; the file itself, read
  // whole, has a NUL just past its end, where translations look for one.
  if (*buffer->getBufferEnd() != '\0')
    buffer = llvm::MemoryBuffer::getMemBufferCopy(buffer->getBuffer(),
                                                  buffer->getBufferIdentifier());
  std::string between;
  for (size_t i = 0; i < chain.size(); ++i) {
    bool last = i + 1 == chain.size();
    std::string out;
    llvm::raw_string_ostream toNext(out);
    llvm::raw_ostream &stream = last ? os : toNext;
    TimingScope scope = timing.nest(chain[i]->getDescription());
    // Made before the context, so that it outlives it: import points the
    // module's resources into the input (thunkyImportExecutableBorrowing).
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    MLIRContext context;
    context.allowUnregisteredDialects(allowUnregisteredDialects);
    context.printOpOnDiagnostic(verifyDiagnostics.getNumOccurrences() == 0);
    if (verifyDiagnostics.getNumOccurrences()) {
      // The translation is expected to fail here; what counts is whether
      // the diagnostics were the expected ones.
      SourceMgrDiagnosticVerifierHandler handler(*sourceMgr, &context, verifyDiagnostics);
      (void)(*chain[i])(sourceMgr, os, &context);
      return handler.verify();
    }
    SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
    std::optional<ScopedDiagnosticHandler> onlyErrors;
    if (errorDiagnosticsOnly)
      onlyErrors.emplace(&context, [](Diagnostic &diag) {
        return success(diag.getSeverity() != DiagnosticSeverity::Error);
      });
    if (failed((*chain[i])(sourceMgr, stream, &context)))
      return failure();
    if (!last) {
      between = std::move(out);
      buffer = llvm::MemoryBuffer::getMemBuffer(between, "<translated>");
    }
  }
  return success();
}

// LLVM maps a large input file, and every page of it is then a fault when
// import first touches it: for the kernel binaries, inside the write() that
// copies them out, where the faults cost three times the copy. One madvise
// maps them all at once.
void prefault(const llvm::MemoryBuffer &buffer) {
  if (buffer.getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  uintptr_t page = sysconf(_SC_PAGESIZE);
  uintptr_t start = reinterpret_cast<uintptr_t>(buffer.getBufferStart()) & ~(page - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(buffer.getBufferEnd());
  // Best effort: a kernel older than 5.14 has no MADV_POPULATE_READ.
  (void)madvise(reinterpret_cast<void *>(start), end - start, MADV_POPULATE_READ);
}

// An import allocates a few hundred megabytes in small pieces, and with
// 4 KB pages each new page is a fault: a fifth of importing 80,000
// parameters, and of a 100 MB executable, went to faults. glibc's malloc
// asks for huge pages (where the kernel gives them on request, THP
// "madvise") only if GLIBC_TUNABLES says so before the process starts, so
// the tool starts itself again with glibc.malloc.hugetlb=1: 20-25% off an
// import's time, for a few milliseconds of exec. A GLIBC_TUNABLES that
// already names hugetlb is the caller's choice and is kept, and under
// valgrind, whose malloc this is not, the tool runs as it is.
void reexecWithHugePages(char **argv) {
#if __has_include(<valgrind/valgrind.h>)
  if (RUNNING_ON_VALGRIND)
    return;
#endif
  const char *tunables = getenv("GLIBC_TUNABLES");
  if (tunables && strstr(tunables, "glibc.malloc.hugetlb"))
    return;
  char mode[64] = "";
  if (FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) {
    if (!fgets(mode, sizeof mode, thp))
      mode[0] = 0;
    fclose(thp);
  }
  if (!strstr(mode, "[madvise]"))
    return; // "always" needs no asking, "never" will not give them
  std::string value = "glibc.malloc.hugetlb=1";
  if (tunables && *tunables)
    value = std::string(tunables) + ":" + value;
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) == 0)
    execv("/proc/self/exe", argv);
  // Not started again: it runs with small pages.
}
} // namespace

int main(int argc, char **argv) {
  reexecWithHugePages(argv);
  registerAllTranslations();
  thunkyRegisterTranslations();
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "thunky version " THUNKY_VERSION "\n"; });
  cl::list<const Translation *, bool, TranslationParser> chain(
      "", cl::desc("Translations to perform"), cl::Required);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerTranslationCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "thunky translation driver\n");

  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      chain[0]->getInputAlignment()
          ? openInputFile(inputFilename, *chain[0]->getInputAlignment(), &error)
          : openInputFile(inputFilename, &error);
  if (input)
    prefault(*input);
  std::unique_ptr<llvm::ToolOutputFile> output =
      input ? openOutputFile(outputFilename, &error) : nullptr;
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::raw_ostream &os) {
    return translate(chain, std::move(buffer), os, timing);
  };
  if (failed(splitAndProcessBuffer(std::move(input), process, output->os(), inputSplitMarker,
                                   outputSplitMarker)))
    return 1;
  output->keep();
  return 0;
}
