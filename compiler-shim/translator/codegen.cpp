#include "codegen.hpp"

#include <algorithm>

namespace joulecc {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string basename_of(const std::string& p) {
  std::size_t k = p.find_last_of('/');
  return k == std::string::npos ? p : p.substr(k + 1);
}

const char* kind_const(const std::string& k) {
  if (k == "in") return "JOULE_DEP_IN";
  if (k == "out") return "JOULE_DEP_OUT";
  if (k == "commutative") return "JOULE_DEP_COMMUTATIVE";
  if (k == "concurrent") return "JOULE_DEP_CONCURRENT";
  if (k == "reduction") return "JOULE_DEP_REDUCTION";
  return "JOULE_DEP_INOUT";
}

std::string zeros(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += "[0]";
  return s;
}

bool zero_length(const Construct* c) { return c->begin == c->end; }

}  // namespace

Generator::Generator(Model& m) : m_(m), main_(m.files[m.main_src]) {}

// ---- text ---------------------------------------------------------------------

std::string Generator::line(int src, unsigned offset) const {
  const SourceFile& f = m_.files[src];
  return "\n#line " + std::to_string(f.lines->line(offset)) + " " + quote(f.line_name) + "\n";
}

std::string Generator::sync(unsigned off) const {
  return line(m_.main_src, off) + main_.lines->indent_for(off);
}

std::string Generator::inline_text(const Expr& e, const Scope& s) const {
  return "(" + rename_identifiers(e.text, s.by_name) + ")";
}

std::string Generator::user(const Construct& c, const Expr& e, const Scope& s) const {
  const SourceFile& f = m_.files[c.src];
  unsigned off = c.pragma.offset_of(e.pos);
  return line(c.src, off) + f.lines->indent_for(off) + rename_identifiers(e.text, s.by_name);
}

std::string Generator::source(unsigned off, const std::string& t, const Scope& s) const {
  return sync(off) + "(" + rename_identifiers(t, s.by_name) + ")";
}

std::string Generator::text(unsigned b, unsigned e) const {
  if (b >= e || b >= main_.text.size()) return {};
  return main_.text.substr(b, e - b);
}

std::string Generator::label(const Construct& c) const {
  if (const Clause* l = c.dir.find("label")) {
    const std::string& t = l->args[0].text;
    // Names (Mercurium's `label(gauss seidel)`, several words) are the label
    // itself; anything else is a string expression (OmpSs-2 spec, label clause).
    bool ident =
        !t.empty() &&
        t.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \t") ==
            std::string::npos;
    return ident ? quote(t) : "(" + t + ")";
  }
  if (c.function_task) return quote(m_.functions[c.function].name);
  const SourceFile& f = m_.files[c.src];
  return quote(basename_of(f.line_name) + ":" + std::to_string(f.lines->line(c.pragma.begin)));
}

// ---- tree -----------------------------------------------------------------------

void Generator::build_tree() {
  std::vector<Construct*> all;
  for (Construct& c : m_.constructs) {
    c.children.clear();
    if (c.kind == CKind::Task && c.function_task && c.src != m_.main_src) continue;  // header
    all.push_back(&c);
  }
  std::stable_sort(all.begin(), all.end(), [](const Construct* a, const Construct* b) {
    if (a->begin != b->begin) return a->begin < b->begin;
    if (zero_length(a) != zero_length(b)) return zero_length(a);
    if (a->end != b->end) return a->end > b->end;
    return a->id < b->id;
  });
  std::vector<Construct*> stack;
  for (Construct* c : all) {
    while (!stack.empty()) {
      Construct* p = stack.back();
      bool inside = c->begin >= p->begin && c->end <= p->end && c->begin < p->end;
      if (inside) break;
      stack.pop_back();
    }
    (stack.empty() ? roots_ : stack.back()->children).push_back(c);
    if (!zero_length(c)) stack.push_back(c);
  }
}

std::string Generator::render_range(unsigned b, unsigned e, const std::vector<Construct*>& kids,
                                    Scope& s) {
  std::string out;
  unsigned pos = b;
  for (Construct* k : kids) {
    if (k->begin < pos) continue;  // overlapping (malformed) constructs are skipped
    out += text(pos, k->begin);
    out += render(*k, s);
    pos = k->end;
  }
  out += text(pos, e);
  return out;
}

std::string Generator::body(Construct& c, Scope& s) {
  return sync(c.body_begin) + render_range(c.body_begin, c.body_end, c.children, s) + "\n";
}

std::string Generator::render(Construct& c, Scope& s) {
  bool cxx = m_.lang == Lang::Cxx;
  switch (c.kind) {
    case CKind::Rename:
      return s.access(c.var_id, c.var_name);
    case CKind::TaskCall:
      return m_.functions[c.function].wrapper;
    case CKind::Remove:
    case CKind::Taskyield:
      return "";
    case CKind::Flush:
      return "__sync_synchronize();";
    case CKind::Insert:
      return function_insert(c);
    case CKind::Splice:
      return c.splice;
    case CKind::TopDecl:
      return top_decl(c, s);
    case CKind::Taskwait:
    case CKind::Release:
      return taskwait(c, s);
    case CKind::Task:
      if (c.function_task) return "";
      return cxx ? task_cxx(c, s) : task_c(c, s);
    case CKind::Taskloop:
      return cxx ? taskloop_cxx(c, s) : taskloop_c(c, s);
    case CKind::Critical: {
      std::string id = "__jcs_" + std::to_string(c.id);
      std::string name = c.dir.argument.empty() ? "" : c.dir.argument.text;
      std::string enter =
          "static void *" + id + "; joule_oss_critical_enter(&" + id + ", " + quote(name) + ");";
      if (cxx)
        return wrapped(
            c, s,
            enter + " ::joule_oss::critical_guard __jcg_" + std::to_string(c.id) + "(&" + id + ");",
            "");
      return wrapped(c, s, enter, "joule_oss_critical_exit(&" + id + ");");
    }
    case CKind::Atomic:
      if (m_.openmp) return "#pragma omp atomic " + c.dir.argument.text;
      return atomic(c, s);
    case CKind::Taskgroup:
      return wrapped(c, s, "", cxx ? "::joule_oss::taskwait();" : "joule_oss_taskwait();");
  }
  return "";
}

// { enter <statement> exit } with the statement at its own lines.
std::string Generator::wrapped(Construct& c, Scope& s, const std::string& enter,
                               const std::string& exit) {
  return "{" + line(c.src, c.pragma.begin) + enter + body(c, s) + exit + "}" + sync(c.end);
}

std::string Generator::taskwait(Construct& c, Scope& s) {
  bool cxx = m_.lang == Lang::Cxx;
  if (c.kind == CKind::Taskwait && c.deps.empty())
    return cxx ? "::joule_oss::taskwait();" : "joule_oss_taskwait();";
  std::string call = c.kind == CKind::Release ? "joule_oss_release(&__jd);"
                     : cxx                    ? "::joule_oss::taskwait_on(&__jd);"
                                              : "joule_oss_taskwait_on(&__jd);";
  return "{" + line(c.src, c.pragma.begin) + deps(c, c.deps, s) + call + "}" + sync(c.end);
}

std::string Generator::top_decl(Construct& c, Scope& s) {
  std::string pre, post;
  Scope inner = s;
  inner.pre = &pre;
  inner.post = &post;
  std::string mid = render_range(c.begin, c.end, c.children, inner);
  return pre + sync(c.begin) + mid + "\n" + post + sync(c.end);
}

// ---- options and dependencies ----------------------------------------------------

std::string Generator::options(const Construct& c, const Scope& s, const std::string& def_label) {
  std::string o = "joule_task_options_t __jo = JOULE_TASK_OPTIONS_INIT;\n__jo.label = ";
  o += def_label.empty() ? label(c) : def_label;
  o += ";\n";
  struct Opt {
    const char* clause;
    const char* pre;
    const char* post;
  };
  static const Opt opts[] = {{"if", "__jo.if_ = (", ") ? 1 : 0;\n"},
                             {"final", "__jo.final_ = (", ") ? 1 : 0;\n"},
                             {"priority", "__jo.priority = (int)(", ");\n"},
                             {"cost", "__jo.cost = (double)(", ");\n"}};
  for (const Opt& op : opts)
    if (const Clause* cl = c.dir.find(op.clause)) o += op.pre + user(c, cl->args[0], s) + op.post;
  return o;
}

std::string Generator::deps(const Construct& c, const std::vector<RegionRef>& list,
                            const Scope& s) {
  std::string d = "joule_oss_deps_t __jd; joule_oss_deps_init(&__jd);\n";
  for (const RegionRef& r : list) d += region(c, r, s);
  return d;
}

std::string Generator::region(const Construct& c, const RegionRef& r, const Scope& s) {
  if (!r.region.iters.empty()) return multidep(c, r, s);
  std::string runs = region_runs(c, r, s);
  return task_reduction(c, r) || loop_reduction(c, r) ? reduction_region(c, r, s, runs) : runs;
}

// A multidependency: the region once per value of its iterators (outermost
// first), each a loop over lo;size or lo:hi (inclusive) by step, as
// OmpSs-2 defines them. The iterator hides a variable of the same name.
std::string Generator::multidep(const Construct& c, const RegionRef& r, const Scope& s) {
  Scope in = s;
  std::string open, close;
  for (const MultiIter& it : r.region.iters) {
    auto& names = in.by_name;
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const auto& p) { return p.first == it.name; }),
                names.end());
    const std::string& n = it.name;
    const std::string lo = user(c, it.lo, s), step = it.step.empty() ? "1" : user(c, it.step, s);
    const std::string hi = it.upper
                               ? "(long long)(" + user(c, it.second, s) + ")"
                               : "__jmlo_" + n + " + (long long)(" + user(c, it.second, s) + ")";
    // The trip count as a taskloop's (a zero step stops the program); lo:hi
    // may count down with a negative step.
    open += "{ const long long __jmlo_" + n + " = (long long)(" + lo + "), __jmst_" + n +
            " = (long long)(" + step + ");\nconst int64_t __jmn_" + n +
            " = joule_oss_trip_count(__jmlo_" + n + ", " + hi + ", __jmst_" + n + ", " +
            (it.upper ? "__jmst_" + n + " > 0 ? 1 : 3" : std::string("0")) +
            ");\nfor (int64_t __jmk_" + n + " = 0; __jmk_" + n + " < __jmn_" + n + "; ++__jmk_" +
            n + ") {\nconst long long " + n + " = __jmlo_" + n + " + __jmk_" + n + " * __jmst_" +
            n + ";\n";
    close += "}\n}\n";
  }
  RegionRef one = r;
  one.region.iters.clear();
  return open + region(c, one, in) + close;
}

// A length the program computes (a[lo;len], or hi - lo + 1 of a[lo:hi]):
// checked at run time, so that a negative one stops the program at the
// clause's file and line instead of becoming a huge size_t.
std::string Generator::section_length(const Construct& c, const Region& g, const Section& sec,
                                      const std::string& lo, const Scope& s) const {
  const SourceFile& f = m_.files[c.src];
  const unsigned line = f.lines->line(c.pragma.offset_of(sec.second.pos));
  std::string n = "(long long)" + inline_text(sec.second, s);
  if (sec.form == Section::Form::Upper) n += " - (long long)" + lo + " + 1";
  return "joule_oss_section_length(" + n + ", " + quote(f.line_name) + ", " + std::to_string(line) +
         ", " + quote(g.base_name.empty() ? g.base.text : g.base_name) + ")";
}

std::string Generator::region_runs(const Construct& c, const RegionRef& r, const Scope& s) {
  const Region& g = r.region;
  std::string k = kind_const(r.kind);
  std::string base = inline_text(g.base, s);
  std::string first = "(" + user(c, g.base, s) + ")";  // the same, placed at the user's column
  if (g.shape.empty() && g.sections.empty()) {
    if (!r.array_param.empty())
      return "{ const size_t __je[1] = {(size_t)(" + rename_identifiers(r.array_param, s.by_name) +
             ")}; joule_oss_dep_shaped(&__jd, " + k + ", (const void *)" + first + ", sizeof(*" +
             base + "), 1, __je, 0, 0); }\n";
    return "joule_oss_dep(&__jd, " + k + ", (const void *)&" + first + ", sizeof" + base + ");\n";
  }
  if (!g.shape.empty()) {
    std::size_t n = g.shape.size();
    std::string ext, lo, len;
    for (std::size_t i = 0; i < n; ++i) {
      std::string e = "(size_t)" + inline_text(g.shape[i], s);
      ext += (i ? ", " : "") + e;
      std::string l = "0", ln = e;
      if (i < g.sections.size()) {
        const Section& sec = g.sections[i];
        l = sec.form == Section::Form::Single ? inline_text(sec.second, s)
            : sec.lo.empty()                  ? "0"
                                              : inline_text(sec.lo, s);
        if (sec.form == Section::Form::Single)
          ln = "1";
        else if (sec.second.empty())
          ln = e + " - (size_t)" + l;
        else
          ln = section_length(c, g, sec, l, s);
      }
      lo += (i ? ", " : "") + std::string("(ptrdiff_t)") + l;
      len += (i ? ", " : "") + ln;
    }
    std::string ns = std::to_string(n);
    std::string head = "{ const size_t __je[" + ns + "] = {" + ext + "}; ";
    if (g.sections.empty())
      return head + "joule_oss_dep_shaped(&__jd, " + k + ", (const void *)" + first + ", sizeof(*" +
             base + "), " + ns + ", __je, 0, 0); }\n";
    return head + "const ptrdiff_t __jlo[" + ns + "] = {" + lo + "}; const size_t __jln[" + ns +
           "] = {" + len + "}; joule_oss_dep_shaped(&__jd, " + k + ", (const void *)" + first +
           ", sizeof(*" + base + "), " + ns + ", __je, __jlo, __jln); }\n";
  }
  std::size_t n = g.sections.size();
  std::string strides, lens, subs;
  for (std::size_t i = 0; i < n; ++i) {
    const Section& sec = g.sections[i];
    std::string stride = "sizeof(" + base + zeros(i + 1) + ")";
    std::string extent = "(sizeof(" + base + zeros(i) + ") / " + stride + ")";
    std::string l = sec.form == Section::Form::Single ? inline_text(sec.second, s)
                    : sec.lo.empty()                  ? "0"
                                                      : inline_text(sec.lo, s);
    std::string ln;
    if (sec.form == Section::Form::Single)
      ln = "1";
    else if (sec.second.empty())
      ln = extent + " - (size_t)" + l;
    else
      ln = section_length(c, g, sec, l, s);
    strides += (i ? ", " : "") + stride;
    lens += (i ? ", " : "") + ln;
    subs += "[" + l + "]";
  }
  std::string ns = std::to_string(n);
  return "{ const size_t __js[" + ns + "] = {" + strides + "}; const size_t __jl[" + ns + "] = {" +
         lens + "}; joule_oss_dep_strided(&__jd, " + k + ", (const void *)&" + first + subs + ", " +
         ns + ", __js, __jl); }\n";
}

std::string Generator::device(const Construct& c) const {
  const Clause* d = c.dir.find("device");
  bool copy_deps = c.dir.find("copy_deps") != nullptr;
  if (!d && c.copies.empty() && !copy_deps) return "";
  return "joule_oss_record_device(" + quote(d ? d->modifier : "smp") + ", " +
         (copy_deps ? "1" : "0") + ", " + std::to_string(c.copies.size()) + ");\n";
}

// ---- the file ---------------------------------------------------------------------

std::string Generator::run() {
  build_tree();
  Scope top;
  std::string out = "/* Translated by joulecc from " + main_.line_name +
                    ": edit the original, not this file. */\n";
  out += "#define _OMPSS 1\n";
  if (m_.ompss2) out += "#define _OMPSS_2 1\n";
  if (m_.openmp_macro) out += "#ifndef _OPENMP\n#define _OPENMP " JOULE_OPENMP_VERSION "\n#endif\n";
  if (m_.header_pragmas)  // joulecc handled them; the compiler would warn about each one
    out += "#pragma GCC diagnostic ignored \"-Wunknown-pragmas\"\n";
  out += "#include <joule/ompss.h>\n";
  if (cuda_use(m_) == 2) out += "#include <cuda_runtime_api.h>\n";  // ndrange: cudaLaunchKernel
  out += m_.forced_headers;
  out += "#line 1 " + quote(main_.line_name) + "\n";
  out += render_range(0, static_cast<unsigned>(main_.text.size()), roots_, top);
  if (out.empty() || out.back() != '\n') out += "\n";
  return out;
}

std::string generate(Model& m) { return Generator(m).run(); }

}  // namespace joulecc
