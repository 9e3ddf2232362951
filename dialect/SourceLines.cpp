//===- SourceLines.cpp - diagnostics that never echo a huge line -*- C++ -*-===//
//
// MLIR's printers echo the source line of a diagnostic's location, whole.
// Import writes a module whose line 1 holds every kernel binary, so one
// error there printed tens of kilobytes of escaped cubin. The handler the
// dialect installs in every context that loads it reads the line as MLIR
// would (from the file its location names), and when it is longer than
// kMaxLine bytes, emits the diagnostic again at column 0 of that line,
// which MLIR prints without echoing, with the kMaxLine bytes around the
// column appended and marked as cut. --verify-diagnostics matches the line
// and a substring of the message, so it sees the diagnostic as before.
//
//===----------------------------------------------------------------------===//

#include "ThunkyDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {
constexpr size_t kMaxLine = 240;

/// One file's text and where each of its lines starts, read once.
struct SourceFile {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::vector<size_t> lineStarts;
};

class SourceLines {
public:
  /// Line `line` (1-based) of `file`; empty when unreadable.
  StringRef get(StringRef file, unsigned line) {
    auto [it, inserted] = files.try_emplace(file);
    SourceFile &f = it->second;
    if (inserted) {
      auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/false);
      if (!buffer)
        return {};
      f.buffer = std::move(*buffer);
      StringRef text = f.buffer->getBuffer();
      f.lineStarts.push_back(0);
      for (size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n')
          f.lineStarts.push_back(i + 1);
    }
    if (!f.buffer || line == 0 || line > f.lineStarts.size())
      return {};
    StringRef text = f.buffer->getBuffer();
    size_t start = f.lineStarts[line - 1];
    size_t end = line < f.lineStarts.size() ? f.lineStarts[line] - 1 : text.size();
    return text.slice(start, end);
  }

private:
  llvm::StringMap<SourceFile> files;
};

/// Where `loc` points on a line too long to echo, with the excerpt to show
/// instead; null when MLIR may echo it as usual.
FileLineColLoc cutLocation(Location loc, SourceLines &lines, std::string &excerpt) {
  auto fileLoc = loc->findInstanceOf<FileLineColLoc>();
  if (!fileLoc || fileLoc.getLine() == 0 || fileLoc.getColumn() == 0)
    return {};
  StringRef line = lines.get(fileLoc.getFilename().getValue(), fileLoc.getLine());
  if (line.size() <= kMaxLine)
    return {};
  size_t column = std::min<size_t>(fileLoc.getColumn() - 1, line.size());
  size_t from = column > kMaxLine / 2 ? column - kMaxLine / 2 : 0;
  from = std::min(from, line.size() - kMaxLine);
  excerpt = ("\n  at column " + llvm::Twine(fileLoc.getColumn()) + " of line " +
             llvm::Twine(fileLoc.getLine()) + " (" + llvm::Twine(line.size()) +
             " bytes, cut to " + llvm::Twine(kMaxLine) + "):\n  " +
             (from ? "[...]" : "") + line.substr(from, kMaxLine) +
             (from + kMaxLine < line.size() ? "[...]" : "") + "\n  " +
             std::string(column - from + (from ? 5 : 0), ' ') + "^")
                .str();
  return FileLineColLoc::get(fileLoc.getFilename(), fileLoc.getLine(), 0);
}

LogicalResult cutLongLines(Diagnostic &diag, SourceLines &lines) {
  std::string excerpt;
  FileLineColLoc at = cutLocation(diag.getLocation(), lines, excerpt);
  bool noteCut = false;
  for (Diagnostic &note : diag.getNotes()) {
    std::string ignored;
    noteCut |= static_cast<bool>(cutLocation(note.getLocation(), lines, ignored));
  }
  if (!at && !noteCut)
    return failure();
  MLIRContext *context = diag.getLocation()->getContext();
  InFlightDiagnostic again = context->getDiagEngine().emit(
      at ? Location(at) : diag.getLocation(), diag.getSeverity());
  again << diag.str() << excerpt;
  for (Diagnostic &note : diag.getNotes()) {
    std::string noteExcerpt;
    FileLineColLoc noteAt = cutLocation(note.getLocation(), lines, noteExcerpt);
    again.attachNote(noteAt ? Location(noteAt) : note.getLocation())
        << note.str() << noteExcerpt;
  }
  return success();
}
} // namespace

void mlir::thunky::registerSourceLineCuts(MLIRContext *context) {
  auto lines = std::make_shared<SourceLines>();
  context->getDiagEngine().registerHandler(
      [lines](Diagnostic &diag) { return cutLongLines(diag, *lines); });
}
