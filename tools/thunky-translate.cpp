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
// really lacks the terminator: a chunk of --split-input-file. It also copies
// what it writes from the input file to file (SplicingStream) and asks for
// huge pages (reexecWithHugePages).
//
//===----------------------------------------------------------------------===//

#include "in_place.h"
#include "thunky-c/translate/Translate.h"
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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
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

// The input, mapped, and a descriptor of the same file: what a translation
// writes straight out of the mapping (import's kernel binaries, borrowed as
// resources) the kernel can copy file to file.
struct Input {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  int fd = -1;
  const char *mapBegin = nullptr, *mapEnd = nullptr; // empty unless mapped
  ~Input() {
    if (fd >= 0)
      close(fd);
  }
};

// As mlir::openInputFile, but the descriptor stays open (a file, not stdin).
bool openInput(Input &input, std::optional<llvm::Align> alignment, std::string *error) {
  if (inputFilename != "-") {
    input.fd = open(inputFilename.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (input.fd >= 0 && fstat(input.fd, &st) == 0 && S_ISREG(st.st_mode)) {
      auto buffer = llvm::MemoryBuffer::getOpenFile(input.fd, inputFilename, st.st_size,
                                                    /*RequiresNullTerminator=*/true,
                                                    /*IsVolatile=*/false, alignment);
      if (buffer) {
        input.buffer = std::move(*buffer);
        if (input.buffer->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap) {
          input.mapBegin = input.buffer->getBufferStart();
          input.mapEnd = input.buffer->getBufferEnd();
        }
        return true;
      }
    }
    if (input.fd >= 0)
      close(input.fd);
    input.fd = -1;
  }
  // Anything else (stdin, a pipe, an error to report) the stock way.
  input.buffer = alignment ? openInputFile(inputFilename, *alignment, error)
                           : openInputFile(inputFilename, error);
  return input.buffer != nullptr;
}

// Writes to the output file, and copies a large piece that lies in the
// input's mapping with copy_file_range. A write() from a mapping faults
// in every page it reads, and the faults cost more than the copy: a
// 62 MB module binary went out in 16 ms this way, against 25 ms for
// write() after MADV_POPULATE_READ and 38 ms without. Where the kernel
// cannot copy (a pipe, another file system on an old kernel) it writes.
class SplicingStream : public llvm::raw_ostream {
public:
  SplicingStream(llvm::raw_fd_ostream &out, int fd, const Input &input)
      : out(out), fd(fd), input(input) {
    out.SetUnbuffered(); // this stream buffers
    SetBufferSize(kLarge);
  }
  ~SplicingStream() override { flush(); }

private:
  static constexpr size_t kLarge = 64 * 1024;

  void write_impl(const char *ptr, size_t size) override {
    written += size;
    if (size >= kLarge && ptr >= input.mapBegin && ptr < input.mapEnd &&
        size <= size_t(input.mapEnd - ptr)) {
      off_t from = ptr - input.mapBegin;
      while (size) {
        ssize_t n = copy_file_range(input.fd, &from, fd, nullptr, size, 0);
        if (n <= 0)
          break; // the rest the ordinary way, which reports a real error
        ptr += n;
        size -= n;
      }
      if (!size)
        return;
    }
    out.write(ptr, size);
  }
  uint64_t current_pos() const override { return written; }

  llvm::raw_fd_ostream &out;
  int fd; // out's
  const Input &input;
  uint64_t written = 0;
};

// An import allocates a few hundred megabytes in small pieces, and with
// 4 KB pages each new page is a fault: a fifth of importing 80,000
// parameters, and of a 100 MB executable, went to faults. glibc's malloc
// asks for huge pages (where the kernel gives them on request, THP
// "madvise") only if GLIBC_TUNABLES says so before the process starts, so
// the tool starts itself again with glibc.malloc.hugetlb=1: 20-25% off an
// import's time, for a few milliseconds of exec. A GLIBC_TUNABLES that
// already names hugetlb is the caller's choice and is kept, and under
// valgrind, whose malloc this is not, the tool runs as it is. It runs as
// the executable's first constructor, before LLVM's and MLIR's own: that
// start-up, wasted in the image that is replaced, is most of a start.
// glibc hands init_array functions main's arguments.
__attribute__((constructor(101))) void reexecWithHugePages(int, char **argv, char **) {
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
  Input input;
  std::unique_ptr<llvm::ToolOutputFile> output;
  int outFd = STDOUT_FILENO;
  char written[4096];
  if (!toolWritePath(inputFilename.c_str(), outputFilename.c_str(), written, sizeof written))
    error = "output file name too long: " + outputFilename;
  else if (openInput(input, chain[0]->getInputAlignment(), &error)) {
    // Opened here, as mlir::openOutputFile would, to know the descriptor.
    std::error_code ec;
    if (outputFilename == "-")
      output = openOutputFile(outputFilename, &error);
    else if ((ec = llvm::sys::fs::openFileForWrite(written, outFd)))
      error = "cannot open output file '" + std::string(written) + "': " + ec.message();
    else
      output = std::make_unique<llvm::ToolOutputFile>(written, outFd);
  }
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::raw_ostream &os) {
    return translate(chain, std::move(buffer), os, timing);
  };
  {
    // The mapping lives until split/process is done with it, and only
    // translations, inside it, write from it.
    SplicingStream os(output->os(), outFd, input);
    if (failed(splitAndProcessBuffer(std::move(input.buffer), process, os, inputSplitMarker,
                                     outputSplitMarker)))
      return 1;
  }
  output->keep();
  output.reset(); // closed before it is renamed
  if (!toolFinishWrite(written, outputFilename.c_str())) {
    llvm::errs() << "cannot replace '" << outputFilename << "': " << strerror(errno) << "\n";
    return 1;
  }
  return 0;
}
