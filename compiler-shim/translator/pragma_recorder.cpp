// The preprocessor callbacks of the front end: see pragma_recorder.hpp.
#include "pragma_recorder.hpp"

#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroInfo.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

using namespace clang;

namespace joulecc {

// Escapes a directive's text for a string literal.
std::string string_literal(const std::string& t) {
  std::string out = "\"";
  for (char ch : t) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

namespace {

// Offset just past `_Pragma ( "..." )` written at buf[b] (not through a macro).
unsigned underscore_pragma_end(llvm::StringRef buf, unsigned b) {
  unsigned i = b + 7;  // past "_Pragma"
  while (i < buf.size() && buf[i] != '(') ++i;
  bool in_string = false;
  for (++i; i < buf.size(); ++i) {
    if (in_string && buf[i] == '\\') {
      ++i;
    } else if (buf[i] == '"') {
      in_string = !in_string;
    } else if (!in_string && buf[i] == ')') {
      return i + 1;
    }
  }
  return static_cast<unsigned>(buf.size());
}

class PragmaRecorder : public PPCallbacks {
 public:
  PragmaRecorder(Preprocessor& pp, std::vector<PragmaSeen>& seen, std::set<std::string>& macros,
                 std::vector<IncludeSeen>& includes, std::vector<FileID>& entered)
      : pp_(pp),
        sm_(pp.getSourceManager()),
        seen_(seen),
        macros_(macros),
        includes_(includes),
        entered_(entered) {}

  void FileChanged(SourceLocation loc, FileChangeReason reason, SrcMgr::CharacteristicKind,
                   FileID) override {
    if (reason == EnterFile && loc.isFileID()) entered_.push_back(sm_.getFileID(loc));
  }

  void InclusionDirective(SourceLocation, const clang::Token& directive, StringRef spelled,
                          bool angled, CharSourceRange name, const FileEntry* file, StringRef,
                          StringRef, const Module*, SrcMgr::CharacteristicKind) override {
    if (!file) return;
    SmallString<256> abs(file->getName());
    if (llvm::sys::fs::make_absolute(abs)) return;
    llvm::sys::path::remove_dots(abs, true);
    SourceLocation b = name.getBegin(), e = name.getEnd(), at = b;
    if (b.isMacroID()) {  // `#include MACRO`: the preprocessor includes at the expansion's end
      CharSourceRange r = sm_.getExpansionRange(b);
      b = r.getBegin();
      at = r.getEnd();
      e = Lexer::getLocForEndOfToken(at, 0, sm_, pp_.getLangOpts());
    }
    const IdentifierInfo* id = directive.getIdentifierInfo();
    bool macros_only = id && id->getPPKeywordID() == tok::pp___include_macros;
    includes_.push_back({b, e, at, abs.str().str(), spelled.str(), angled, macros_only});
  }

  void PragmaDirective(SourceLocation loc, PragmaIntroducerKind kind) override {
    if (kind == PIK__Pragma) return underscore(loc);
    if (kind != PIK_HashPragma) return;
    auto [fid, off] = sm_.getDecomposedLoc(sm_.getExpansionLoc(loc));
    seen_.push_back({fid, off, {}, 0, FileID(), 0, 0});
  }
  void MacroDefined(const clang::Token& name, const MacroDirective* md) override {
    macros_.insert(name.getIdentifierInfo()->getName().str());
    pragma_line_macro(name, md);
  }

 private:
  // The directive is what the pragma lexer is about to read: the string,
  // destringized, up to its newline (Preprocessor::Handle_Pragma).
  void underscore(SourceLocation loc) {
    const char* p = static_cast<Lexer*>(pp_.getCurrentLexer())->getBufferLocation();
    std::string text;
    while (p && *p && *p != '\n') text += *p++;
    SourceLocation b = sm_.getExpansionLoc(loc);
    auto [fid, off] = sm_.getDecomposedLoc(b);
    unsigned end;
    if (loc.isMacroID()) {
      SourceLocation e = sm_.getExpansionRange(loc).getEnd();
      e = Lexer::getLocForEndOfToken(e, 0, sm_, pp_.getLangOpts());
      end = sm_.getDecomposedLoc(e).second;
    } else {
      end = underscore_pragma_end(sm_.getBufferData(fid), off);
    }
    seen_.push_back({fid, off, text.empty() ? std::string(" ") : text, end, FileID(), 0, 0});
    if (loc.isMacroID()) in_macro_body(sm_.getSpellingLoc(loc), seen_.back());
  }

  // The _Pragma's own text in a macro body, when its string is written
  // there (not `_Pragma(#x)`, which every use of DO_PRAGMA shares).
  void in_macro_body(SourceLocation sp, PragmaSeen& p) {
    if (!sp.isFileID() || sm_.isWrittenInScratchSpace(sp)) return;
    auto [fid, off] = sm_.getDecomposedLoc(sp);
    llvm::StringRef buf = sm_.getBufferData(fid);
    if (!buf.substr(off).startswith("_Pragma")) return;
    std::size_t open = buf.find('(', off);
    std::size_t str = buf.find_first_not_of(" \t", open + 1);
    if (open == llvm::StringRef::npos || str == llvm::StringRef::npos || buf[str] != '"') return;
    p.spell_fid = fid;
    p.spell_off = off;
    p.spell_end = underscore_pragma_end(buf, off);
  }

  // `#define TASKWAIT #pragma omp taskwait`: Mercurium read preprocessed
  // output, where such an expansion is a pragma line. The macro is redefined
  // as `_Pragma("omp taskwait")`, which the preprocessor runs as a pragma.
  void pragma_line_macro(const clang::Token& name, const MacroDirective* md) {
    const MacroInfo* mi = md->getMacroInfo();
    ArrayRef<clang::Token> toks = mi->tokens();
    if (!mi->isObjectLike() || toks.size() < 3 || !toks[0].is(tok::hash) ||
        !toks[1].is(tok::identifier) || toks[1].getIdentifierInfo()->getName() != "pragma")
      return;
    if (ends_in_clause(toks)) return clause_macro(name, mi, toks);
    std::string text;
    for (std::size_t i = 2; i < toks.size(); ++i)
      text += (i > 2 && toks[i].hasLeadingSpace() ? " " : "") + pp_.getSpelling(toks[i]);
    MacroInfo* nmi = pp_.AllocateMacroInfo(mi->getDefinitionLoc());
    nmi->setDefinitionEndLoc(mi->getDefinitionEndLoc());
    const std::pair<tok::TokenKind, std::string> body[] = {
        {tok::identifier, "_Pragma"},
        {tok::l_paren, "("},
        {tok::string_literal, string_literal(text)},
        {tok::r_paren, ")"}};
    for (const auto& [kind, spelling] : body) {
      clang::Token t;
      t.startToken();
      t.setKind(kind);
      pp_.CreateString(spelling, t);
      if (kind == tok::identifier) t.setIdentifierInfo(pp_.getIdentifierInfo(spelling));
      nmi->AddTokenToBody(t);
    }
    pp_.appendDefMacroDirective(name.getIdentifierInfo(), nmi);
  }

  // `#define TD #pragma oss task depend`, used as `TD(inout: x)`: the
  // use's parentheses are the last clause's arguments (in Mercurium's
  // preprocessed input it was one pragma line). Such a macro is redefined
  // as `TD(...)` = `__joule_pragma(oss task depend(__VA_ARGS__))`, which
  // stringizes into a _Pragma (translate() defines __joule_pragma).
  static bool ends_in_clause(ArrayRef<clang::Token> toks) {
    static const std::set<std::string> k = {
        "depend",        "in",           "out",        "inout",     "input",     "output",
        "concurrent",    "commutative",  "weakin",     "weakout",   "weakinout", "reduction",
        "weakreduction", "on",           "if",         "final",     "priority",  "label",
        "private",       "firstprivate", "shared",     "grainsize", "num_tasks", "device",
        "copy_in",       "copy_out",     "copy_inout", "cost"};
    const clang::Token& last = toks.back();
    return last.is(tok::identifier) && k.count(last.getIdentifierInfo()->getName().str());
  }

  void clause_macro(const clang::Token& name, const MacroInfo* mi, ArrayRef<clang::Token> toks) {
    MacroInfo* nmi = pp_.AllocateMacroInfo(mi->getDefinitionLoc());
    nmi->setDefinitionEndLoc(mi->getDefinitionEndLoc());
    nmi->setIsFunctionLike();
    nmi->setIsC99Varargs();
    IdentifierInfo* va = pp_.getIdentifierInfo("__VA_ARGS__");
    nmi->setParameterList({va}, pp_.getPreprocessorAllocator());
    auto add = [&](tok::TokenKind kind, const std::string& spelling, bool space = false) {
      clang::Token t;
      t.startToken();
      t.setKind(kind);
      if (space) t.setFlag(clang::Token::LeadingSpace);
      pp_.CreateString(spelling, t);
      if (kind == tok::identifier) t.setIdentifierInfo(pp_.getIdentifierInfo(spelling));
      nmi->AddTokenToBody(t);
    };
    add(tok::identifier, "__joule_pragma");
    add(tok::l_paren, "(");
    // Fresh tokens from the directive's spelling (the definition's own
    // tokens do not stringize as written once moved into this body).
    std::string text;
    for (std::size_t i = 2; i < toks.size(); ++i) text += pp_.getSpelling(toks[i]) + " ";
    Lexer raw(SourceLocation(), pp_.getLangOpts(), text.data(), text.data(),
              text.data() + text.size());
    clang::Token t;
    while (!raw.LexFromRawLexer(t) || t.isNot(tok::eof)) {
      if (t.is(tok::eof)) break;
      const char* end = raw.getBufferLocation();
      std::string sp(end - t.getLength(), t.getLength());
      add(t.is(tok::raw_identifier) ? tok::identifier : t.getKind(), sp, t.hasLeadingSpace());
    }
    add(tok::l_paren, "(");
    add(tok::identifier, "__VA_ARGS__");
    add(tok::r_paren, ")");
    add(tok::r_paren, ")");
    pp_.appendDefMacroDirective(name.getIdentifierInfo(), nmi);
  }

  Preprocessor& pp_;
  SourceManager& sm_;
  std::vector<PragmaSeen>& seen_;
  std::set<std::string>& macros_;
  std::vector<IncludeSeen>& includes_;
  std::vector<FileID>& entered_;
};

}  // namespace

std::unique_ptr<PPCallbacks> make_pragma_recorder(Preprocessor& pp, std::vector<PragmaSeen>& seen,
                                                  std::set<std::string>& macros,
                                                  std::vector<IncludeSeen>& includes,
                                                  std::vector<FileID>& entered) {
  return std::make_unique<PragmaRecorder>(pp, seen, macros, includes, entered);
}

}  // namespace joulecc
