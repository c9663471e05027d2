// The pragma parser alone (no Clang): directives, clauses, data references
// and the diagnostics for malformed input.
#include <gtest/gtest.h>

#include "directive.hpp"
#include "pragma_lexer.hpp"
#include "pragma_text.hpp"
#include "region.hpp"
#include "source_scan.hpp"

using namespace joulecc;

namespace {

Directive parse_ok(const std::string& text) {
  Directive d;
  ParseError e;
  EXPECT_TRUE(parse_directive(text, d, e)) << text << ": " << e.message;
  return d;
}

std::string parse_error(const std::string& text, unsigned* pos = nullptr) {
  Directive d;
  ParseError e;
  EXPECT_FALSE(parse_directive(text, d, e)) << text;
  if (pos) *pos = e.pos;
  return e.message;
}

Region region_ok(const std::string& text, bool colon_len = false) {
  Region r;
  ParseError e;
  Expr x{text, 0, static_cast<unsigned>(text.size())};
  EXPECT_TRUE(parse_region(x, colon_len, r, e)) << text << ": " << e.message;
  return r;
}

std::string region_error(const std::string& text) {
  Region r;
  ParseError e;
  Expr x{text, 0, static_cast<unsigned>(text.size())};
  EXPECT_FALSE(parse_region(x, false, r, e)) << text;
  return e.message;
}

}  // namespace

TEST(PragmaText, JoinsContinuationsAndDropsComments) {
  std::string src = "int x;\n  #  pragma oss task in(a) /* c */ \\\n   out(b) // tail\nx++;\n";
  PragmaText p;
  ASSERT_TRUE(read_pragma(src, static_cast<unsigned>(src.find('#')), p));
  EXPECT_EQ(pragma_namespace(p), "oss");
  EXPECT_NE(p.text.find("in(a)"), std::string::npos);
  EXPECT_NE(p.text.find("out(b)"), std::string::npos);
  EXPECT_EQ(p.text.find("tail"), std::string::npos);
  EXPECT_EQ(src[p.end], '\n');
  EXPECT_EQ(src.substr(p.end + 1, 4), "x++;");
  // Offsets map text back to the buffer, across the continuation.
  std::size_t o = p.text.find("out");
  EXPECT_EQ(src.substr(p.offset_of(static_cast<unsigned>(o)), 3), "out");
  PragmaText q;
  EXPECT_FALSE(read_pragma("#include <x.h>\n", 0, q));
  EXPECT_FALSE(read_pragma("#pragmatic\n", 0, q));
}

TEST(SourceScan, NextTokenSkipsPreprocessorLines) {
  const std::string a = "#pragma omp task\n#endif\n/* c */ #  endif\nvoid f(void);\n";
  EXPECT_EQ(next_token(a, 16), a.find("void"));
  const std::string b = "#pragma omp task\n#else\n#if X\nint y;\n#endif\nint z;\n#endif\n  x++;\n";
  EXPECT_EQ(next_token(b, 16), b.find("x++"));
  const std::string c = "#pragma omp task\n#pragma omp task\n";
  EXPECT_EQ(next_token(c, 16), 17u);  // another pragma is a token of its own
  const std::string d = "#pragma omp task\n// note\n#define M 1 \\\n  2\n{ }\n";
  EXPECT_EQ(next_token(d, 16), d.find('{'));
}

TEST(PragmaText, LineTable) {
  LineTable t("ab\n\tcd\nef");
  EXPECT_EQ(t.line(0), 1u);
  EXPECT_EQ(t.line(4), 2u);
  EXPECT_EQ(t.column(5), 3u);
  EXPECT_EQ(t.indent_for(5), "\t ");
  EXPECT_EQ(t.line(8), 3u);
}

TEST(Lexer, TokensAndErrors) {
  std::vector<Token> t;
  LexError e;
  ASSERT_TRUE(lex("a->b[0;n] \"s\\\"x\" 'c' 1.5e+3 :: <<=", t, e));
  ASSERT_EQ(t.size(), 14u);
  EXPECT_EQ(t[1].text, "->");
  EXPECT_EQ(t[8].kind, Tok::String);
  EXPECT_EQ(t[9].kind, Tok::Char);
  EXPECT_EQ(t[10].text, "1.5e+3");
  EXPECT_EQ(t[11].text, "::");
  EXPECT_EQ(t[12].text, "<<=");
  EXPECT_FALSE(lex("in(\"abc)", t, e));
  EXPECT_EQ(e.pos, 3u);
  EXPECT_FALSE(lex("in(a @ b)", t, e));
}

TEST(Parser, TaskClauses) {
  Directive d =
      parse_ok("oss task in(a, b[0;n]) out(*p) inout(s->f) priority(n+1) label(foo) final(x>1)");
  EXPECT_EQ(d.kind, DirKind::Task);
  EXPECT_EQ(d.prefix, Prefix::Oss);
  ASSERT_EQ(d.clauses.size(), 6u);
  EXPECT_EQ(d.clauses[0].args.size(), 2u);
  EXPECT_EQ(d.clauses[0].args[1].text, "b[0;n]");
  EXPECT_EQ(d.find("priority")->args[0].text, "n+1");
  Directive o = parse_ok("omp task input([ts][ts]A) output(B) commutative(r), concurrent(c)");
  EXPECT_EQ(o.clauses[0].canonical, "in");
  EXPECT_EQ(o.clauses[1].canonical, "out");
  Directive w = parse_ok("oss task weakin(a) weakout(b) weakinout(c) weakcommutative(d)");
  for (const Clause& c : w.clauses) EXPECT_TRUE(c.weak);
  Directive r = parse_ok("oss task reduction(+: x, y) reduction(max: [n]v) reduction(&&: ok)");
  EXPECT_EQ(r.clauses[0].modifier, "+");
  EXPECT_EQ(r.clauses[0].args.size(), 2u);
  EXPECT_EQ(r.clauses[1].modifier, "max");
  Directive dp =
      parse_ok("omp task depend(in: a[0:n]) depend(mutexinoutset: m) depend(inoutset: c)");
  EXPECT_EQ(dp.clauses[0].modifier, "in");
  EXPECT_EQ(dp.clauses[1].modifier, "commutative");
  EXPECT_EQ(dp.clauses[2].modifier, "concurrent");
  Directive dv =
      parse_ok("omp task device(smp) copy_in(a[0;n]) copy_out(b) copy_inout(c) copy_deps");
  EXPECT_EQ(dv.find("device")->modifier, "smp");
  Directive ds =
      parse_ok("oss task private(a) firstprivate(b, c) shared(d) default(none) if(0) cost(2)");
  EXPECT_EQ(ds.find("default")->modifier, "none");
}

// Spellings Mercurium accepted that public OmpSs programs still use.
TEST(Parser, MercuriumSyntax) {
  Directive tl = parse_ok("oss task loop grainsize(4)");
  EXPECT_EQ(tl.kind, DirKind::Taskloop);
  EXPECT_EQ(tl.name, "taskloop");
  EXPECT_EQ(parse_ok("omp task loop").kind, DirKind::Taskloop);
  EXPECT_EQ(parse_ok("oss task label(gauss seidel) inout(x)").find("label")->args[0].text,
            "gauss seidel");
  EXPECT_EQ(parse_ok("omp taskwait noflush(a, b)").clauses.size(), 1u);
  EXPECT_EQ(parse_ok("oss task affinity(a[0;n]) in(a[0;n])").clauses.size(), 2u);
  Directive f = parse_ok("oss task device(fpga) num_instances(2) in(a)");
  EXPECT_EQ(f.find("device")->modifier, "fpga");
  EXPECT_EQ(parse_ok("omp target device(fpga) num_instances(4) copy_deps").kind, DirKind::Target);
  EXPECT_EQ(parse_error("omp taskwait noflush(a"), "missing ')' to match this '('");
}

TEST(Parser, CudaNdrange) {
  Directive k = parse_ok("oss task device(cuda) ndrange(2, w, h * 2, 16, 8) out([w * h]m)");
  const Clause* r = k.find("ndrange");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->modifier, "2");
  ASSERT_EQ(r->args.size(), 5u);
  EXPECT_EQ(r->args[2].text, "h * 2");
  EXPECT_EQ(k.find("device")->modifier, "cuda");
  EXPECT_EQ(parse_ok("omp target device(cuda) ndrange(1, n, 64) copy_deps").kind, DirKind::Target);
  EXPECT_EQ(parse_error("oss task device(cuda) ndrange(1, n, 128, 4)"),
            "'ndrange(1, ...)' takes 3 values (1, then the global sizes, then the block sizes), "
            "not 4");
  EXPECT_EQ(parse_error("oss task device(cuda) ndrange(n, 1, 1)"),
            "the first value of 'ndrange' is the number of dimensions: 1, 2 or 3 (an integer "
            "literal), not 'n'");
  EXPECT_EQ(parse_error("oss task ndrange(1, n, 128)"),
            "'ndrange' needs 'device(cuda)' (the task function is a CUDA kernel)");
  EXPECT_EQ(parse_error("oss task device(smp, cuda)"),
            "device(cuda) cannot be combined with other devices");
  EXPECT_EQ(parse_error("oss taskwait ndrange(1, n, 1)"),
            "clause 'ndrange' is not allowed on '#pragma oss taskwait'");
}

TEST(Parser, OtherDirectives) {
  EXPECT_EQ(parse_ok("oss taskwait").kind, DirKind::Taskwait);
  EXPECT_EQ(parse_ok("oss taskwait on(x) in(y)").clauses.size(), 2u);
  EXPECT_EQ(parse_ok("omp taskwait noflush").clauses[0].name, "noflush");
  Directive l = parse_ok("oss taskloop grainsize(4) collapse(2) in(v[0;n])");
  EXPECT_EQ(l.kind, DirKind::Taskloop);
  EXPECT_EQ(parse_ok("oss taskloop for chunksize(2)").kind, DirKind::Taskloop);
  EXPECT_EQ(parse_ok("omp taskloop num_tasks(3) nogroup").kind, DirKind::Taskloop);
  Directive c = parse_ok("oss critical(lock1)");
  EXPECT_EQ(c.kind, DirKind::Critical);
  EXPECT_EQ(c.argument.text, "lock1");
  EXPECT_EQ(parse_ok("omp critical").argument.text, "");
  Directive a = parse_ok("oss atomic update seq_cst");
  EXPECT_EQ(a.kind, DirKind::Atomic);
  EXPECT_EQ(a.argument.text, "update seq_cst");
  EXPECT_EQ(parse_ok("oss release in(a) weakout(b)").kind, DirKind::Release);
  EXPECT_EQ(parse_ok("omp target device(mic) copy_deps").kind, DirKind::Target);
  EXPECT_EQ(parse_ok("omp target teams distribute").kind, DirKind::Passthrough);
  EXPECT_EQ(parse_ok("omp parallel for schedule(static)").kind, DirKind::Passthrough);
  EXPECT_EQ(parse_ok("omp taskgroup").kind, DirKind::Taskgroup);
  EXPECT_EQ(parse_ok("oss assert(\"version.dependencies==regions\")").kind, DirKind::Assert);
}

// Unknown clauses are skipped with their arguments (joulecc warns about
// each); `target` in a task pragma is OmpSs-1's placement word alone, and
// the device and copy clauses after it are the task's.
TEST(Parser, UnknownClausesAreIgnored) {
  Directive d = parse_ok("oss task foo(3, (a)) inout(x) bar");
  ASSERT_EQ(d.ignored.size(), 2u);
  EXPECT_EQ(d.ignored[0].name, "foo");
  EXPECT_EQ(d.ignored[0].pos, 9u);
  EXPECT_EQ(d.ignored[1].name, "bar");
  ASSERT_EQ(d.clauses.size(), 1u);
  EXPECT_EQ(d.clauses[0].canonical, "inout");
  Directive t = parse_ok("omp task inout(x) target device(cuda) copy_deps");
  ASSERT_EQ(t.ignored.size(), 1u);
  EXPECT_EQ(t.ignored[0].name, "target");
  ASSERT_NE(t.find("device"), nullptr);
  EXPECT_EQ(t.find("device")->modifier, "cuda");
  EXPECT_NE(t.find("copy_deps"), nullptr);
  EXPECT_EQ(parse_error("oss task foo(3"), "missing ')' to match this '('");
  EXPECT_EQ(parse_error("oss task detach(e)"), "clause 'detach' is not supported by joulecc");
}

TEST(Parser, Errors) {
  unsigned pos = 0;
  EXPECT_EQ(parse_error("oss taskwait grainsize(2)"),
            "clause 'grainsize' is not allowed on '#pragma oss taskwait'");
  EXPECT_EQ(parse_error("oss frobnicate"), "unknown OmpSs-2 directive 'frobnicate'");
  EXPECT_EQ(parse_error("oss task in(a"), "missing ')' to match this '('");
  EXPECT_EQ(parse_error("oss task in(a[0;2)"), "expected ']' before ')'");
  EXPECT_EQ(parse_error("oss task in()"), "expected a data reference in 'in'");
  EXPECT_EQ(parse_error("oss task priority(1, 2)"), "'priority' takes one expression");
  EXPECT_EQ(parse_error("oss task priority(1) priority(2)"),
            "clause 'priority' appears more than once");
  EXPECT_EQ(parse_error("oss task untied(1)"), "clause 'untied' takes no arguments");
  EXPECT_EQ(parse_error("oss task reduction(x)"), "expected 'operator:' in 'reduction'");
  EXPECT_NE(parse_error("oss task reduction(foo: x)").find("unsupported reduction operator"),
            std::string::npos);
  EXPECT_NE(parse_error("oss task device(opencl)").find("not supported"), std::string::npos);
  EXPECT_NE(parse_error("oss task reduction(+: {v[i], i=0:n})").find("multidependencies"),
            std::string::npos);
  EXPECT_EQ(parse_error("oss taskloop grainsize(2) num_tasks(3)"),
            "'grainsize' and 'num_tasks' cannot be used together");
  EXPECT_EQ(parse_error("oss critical(a b)"), "expected a name in 'critical(...)'");
  EXPECT_EQ(parse_error("oss task private(a+b)"), "expected a variable name in 'private'");
  EXPECT_EQ(parse_error("oss task default(maybe)"),
            "expected 'shared', 'none', 'firstprivate' or 'private' in 'default'");
  EXPECT_EQ(parse_error("oss"), "expected a directive name after '#pragma oss'");
  EXPECT_NE(parse_error("oss task in(\"x)").find("missing terminating"), std::string::npos);
}

TEST(Region, Forms) {
  Region x = region_ok("x");
  EXPECT_TRUE(x.base_is_name);
  EXPECT_TRUE(x.lvalue_syntax);
  Region p = region_ok("*p");
  EXPECT_EQ(p.base_name, "p");
  EXPECT_TRUE(p.lvalue_syntax);
  Region f = region_ok("p->f.g[3]");
  EXPECT_TRUE(f.sections.empty());
  EXPECT_EQ(f.base_name, "p");
  Region s = region_ok("a[i;n]");
  ASSERT_EQ(s.sections.size(), 1u);
  EXPECT_EQ(s.sections[0].form, Section::Form::Length);
  EXPECT_EQ(s.sections[0].lo.text, "i");
  EXPECT_EQ(s.sections[0].second.text, "n");
  Region u = region_ok("a[lo:hi]");
  EXPECT_EQ(u.sections[0].form, Section::Form::Upper);
  Region dl = region_ok("a[lo:len]", true);
  EXPECT_EQ(dl.sections[0].form, Section::Form::Length);
  Region m = region_ok("m[i][0;n][j:k][2]");
  EXPECT_EQ(m.base.text, "m[i]");
  ASSERT_EQ(m.sections.size(), 3u);
  EXPECT_EQ(m.sections[2].form, Section::Form::Single);
  Region open = region_ok("a[3:]");
  EXPECT_TRUE(open.sections[0].second.empty());
  Region tern = region_ok("a[c ? 1 : 2 : 5]");
  EXPECT_EQ(tern.sections[0].lo.text, "c ? 1 : 2");
  Region sh = region_ok("[n][m]p");
  EXPECT_EQ(sh.shape.size(), 2u);
  EXPECT_EQ(sh.base.text, "p");
  Region shs = region_ok("([n][m]p)[1;2][0:m-1]");
  EXPECT_EQ(shs.shape.size(), 2u);
  EXPECT_EQ(shs.sections.size(), 2u);
  Region cast = region_ok("[n](double *)q");
  EXPECT_FALSE(cast.lvalue_syntax);  // fine with shaping: any pointer expression
  Region call = region_ok("get(x)");
  EXPECT_TRUE(call.base_is_call);
  EXPECT_FALSE(region_ok("x + 1").lvalue_syntax);
  EXPECT_FALSE(region_ok("&x").lvalue_syntax);
  EXPECT_FALSE(region_ok("3").lvalue_syntax);
  EXPECT_FALSE(region_ok("(double *)q").lvalue_syntax);
  EXPECT_TRUE(region_ok("*(double *)q").lvalue_syntax);
  EXPECT_TRUE(region_ok("*(p + 1)").lvalue_syntax);
  EXPECT_FALSE(region_ok("*p + 1").lvalue_syntax);
  EXPECT_TRUE(region_ok("(*p).f").lvalue_syntax);
}

TEST(Region, Errors) {
  EXPECT_EQ(region_error("a[]"), "empty subscript '[]'");
  EXPECT_EQ(region_error("[]p"), "empty shaping dimension '[]'");
  EXPECT_EQ(region_error("[n]"), "expected an expression after the shaping dimensions");
  EXPECT_NE(region_error("[n]p[0;2]").find("needs parentheses"), std::string::npos);
  EXPECT_EQ(region_error("a[0;1;2]"), "more than one separator in a section");
  EXPECT_EQ(region_error("a[0;2)"), "mismatched ')'");
  EXPECT_EQ(region_error("[0;2]"), "expected an expression after the shaping dimensions");
}

TEST(Region, Multidependencies) {
  Region r = region_ok("{v[i][0; m], i = lo; n}");
  ASSERT_EQ(r.iters.size(), 1u);
  EXPECT_EQ(r.base_name, "v");
  EXPECT_EQ(r.iters[0].name, "i");
  EXPECT_EQ(r.iters[0].lo.text, "lo");
  EXPECT_EQ(r.iters[0].second.text, "n");
  EXPECT_FALSE(r.iters[0].upper);
  EXPECT_EQ(r.whole.text, "{v[i][0; m], i = lo; n}");
  r = region_ok("{a[i + j], i = 0 : n - 1 : 2, j = 0;4}");
  ASSERT_EQ(r.iters.size(), 2u);
  EXPECT_TRUE(r.iters[0].upper);
  EXPECT_EQ(r.iters[0].second.text, "n - 1");
  EXPECT_EQ(r.iters[0].step.text, "2");
  EXPECT_EQ(r.iters[1].name, "j");
  EXPECT_EQ(r.iters[1].second.text, "4");
  EXPECT_NE(region_error("{v[i]}").find("needs an iterator"), std::string::npos);
  EXPECT_NE(region_error("{v[i], i}").find("lower"), std::string::npos);
  EXPECT_NE(region_error("{v[i], i = 0;n;2}").find("lower"), std::string::npos);
}

TEST(Region, RenameIdentifiers) {
  std::vector<std::pair<std::string, std::string>> r = {{"x", "(*__jp_x)"}};
  EXPECT_EQ(rename_identifiers("x + s.x + p->x + xx", r), "(*__jp_x) + s.x + p->x + xx");
}
