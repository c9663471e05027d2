// The LibTooling front end: parses the source with Clang, records the OmpSs
// pragmas (Clang ignores them), ties each to the statement or function that
// follows, and builds the Model that codegen turns into C or C++. This file
// runs Clang; clang_consumer.cpp drives the passes of the Builder
// (clang_builder.hpp) over the parsed translation unit.
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "clang_consumer.hpp"
#include "pragma_recorder.hpp"
#include "translate.hpp"

using namespace clang;

namespace joulecc {
namespace {

class Action : public ASTFrontendAction {
 public:
  explicit Action(RunState& st) : st_(st) {}
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getPreprocessor().addPPCallbacks(
        make_pragma_recorder(ci.getPreprocessor(), seen_, macros_, includes_, entered_));
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, llvm::StringRef) override {
    return make_consumer(ci, st_, seen_, macros_, includes_, entered_);
  }

 private:
  RunState& st_;
  std::vector<PragmaSeen> seen_;
  std::set<std::string> macros_;
  std::vector<IncludeSeen> includes_;
  std::vector<FileID> entered_;
};

bool is_cxx_name(const std::string& path) {
  static const char* const exts[] = {".cc", ".cpp", ".cxx", ".c++", ".C",
                                     ".cp", ".CPP", ".ii",  ".hpp", ".hh"};
  for (const char* e : exts) {
    std::size_t n = std::strlen(e);
    if (path.size() > n && path.compare(path.size() - n, n, e) == 0) return true;
  }
  return false;
}

// True when the text holds `#pragma <ns>` or `_Pragma("<ns>` (a quick scan,
// before parsing).
bool has_pragma(const std::string& text, const char* ns, const char* word = "pragma") {
  if (std::strcmp(word, "pragma") == 0 && has_pragma(text, ns, "_Pragma(\"")) return true;
  std::size_t i = 0;
  const std::size_t n = std::strlen(word);
  while ((i = text.find(word, i)) != std::string::npos) {
    std::size_t j = i + n;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
    if (text.compare(j, 3, ns) == 0 &&
        (j + 3 >= text.size() || !std::isalnum(static_cast<unsigned char>(text[j + 3]))))
      return true;
    i = j;
  }
  return false;
}

}  // namespace

int translate(const TranslateOptions& opts, TranslateResult& result) {
  RunState st;
  st.opts = &opts;
  st.result = &result;
  st.lang = opts.lang == 1 || (opts.lang < 0 && is_cxx_name(opts.input)) ? Lang::Cxx : Lang::C;
  std::string text;
  if (opts.contents) {
    text = *opts.contents;
  } else {
    std::ifstream in(opts.input, std::ios::binary);
    if (!in) {
      std::string msg = "joulecc: error: cannot open '" + opts.input + "'\n";
      if (opts.diagnostics)
        *opts.diagnostics += msg;
      else
        llvm::errs() << msg;
      return 1;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  // As `mcc --ompss-2` and `clang -fompss-2`: every file sees _OMPSS_2,
  // whatever its pragmas; only an explicit --ompss (OmpSs-1) leaves it out.
  st.ompss2 = opts.mode != 1;
  // As Mercurium: sources with OmpSs/OpenMP pragmas see _OPENMP (joule's
  // <omp.h> answers the omp_* calls); with -fopenmp the compiler defines it.
  st.openmp_macro = !opts.openmp && (has_pragma(text, "oss") || has_pragma(text, "omp"));
  std::vector<std::string> args = {st.lang == Lang::Cxx ? "-xc++" : "-xc"};
  for (const std::string& f : opts.flags) args.push_back(f);
  args.push_back("-w");
  args.push_back("-Wno-unknown-pragmas");
  args.push_back("-ferror-limit=20");
  args.push_back("-D_OMPSS=1");
  args.push_back("-D__joule_pragma(x)=_Pragma(#x)");  // pragma-line macros with clause arguments
  if (st.ompss2) args.push_back("-D_OMPSS_2=1");
  if (st.openmp_macro) args.push_back("-D_OPENMP=" JOULE_OPENMP_VERSION);
  if (!opts.resource_dir.empty()) args.push_back("-resource-dir=" + opts.resource_dir);
  // ToolInvocation keeps the file name as given, so diagnostics read like the compiler's.
  std::vector<std::string> cmd = {"joulecc", "-fsyntax-only"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  cmd.push_back(opts.input);
  auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  if (opts.contents) {  // the text to parse comes from memory (tests, fuzzing)
    auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    if (auto cwd = fs->getCurrentWorkingDirectory()) mem->setCurrentWorkingDirectory(*cwd);
    mem->addFile(opts.input, 0, llvm::MemoryBuffer::getMemBufferCopy(*opts.contents));
    fs->pushOverlay(mem);
  }
  llvm::IntrusiveRefCntPtr<FileManager> files(new FileManager(FileSystemOptions(), fs));
  tooling::ToolInvocation inv(cmd, std::make_unique<Action>(st), files.get());
  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  DiagnosticOptions* dopts = new DiagnosticOptions;
  dopts->ShowColors = !opts.diagnostics && llvm::errs().has_colors();
  llvm::raw_ostream& dest =
      opts.diagnostics ? static_cast<llvm::raw_ostream&>(diag_os) : llvm::errs();
  TextDiagnosticPrinter printer(dest, dopts);
  inv.setDiagnosticConsumer(&printer);
  int rc = inv.run() ? 0 : 1;
  diag_os.flush();
  if (opts.diagnostics) *opts.diagnostics += diag_os.str();
  return rc == 0 && st.ok ? 0 : 1;
}

}  // namespace joulecc
