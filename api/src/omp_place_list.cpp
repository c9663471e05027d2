// The OMP_PLACES grammar of OpenMP 5.x (an abstract name with an optional
// count, or a list of places with intervals and "!" exclusions) and GCC's
// GOMP_CPU_AFFINITY, by recursive descent over the text. Blanks may stand
// between tokens.
#include "omp_place_list.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace joule::api {
namespace {

constexpr std::int64_t kMaxCpu = 65535;
// CPU numbers a list may spell out in all ("{0:4096}:4096:0" would be 16M).
constexpr std::size_t kMaxEntries = std::size_t(1) << 20;

// One pass over the text of an explicit place list:
//   list     := interval (',' interval)*
//   interval := '!' place | place [':' length [':' stride]]
//   place    := '{' res (',' res)* '}' | number        (a single CPU)
//   res      := '!' number | number [':' count [':' stride]]
class ListParser {
 public:
  explicit ListParser(std::string_view text) : s_(text) {}

  std::vector<std::vector<int>> places() {
    std::vector<std::vector<int>> out, excluded;
    do {
      if (eat('!'))
        excluded.push_back(place());
      else
        add_interval(out);
    } while (eat(','));
    if (!at_end()) fail("expected ',' or the end");
    std::erase_if(out, [&](const auto& p) {
      return std::find(excluded.begin(), excluded.end(), p) != excluded.end();
    });
    if (out.empty()) fail("every place is excluded");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(what + " at character " + std::to_string(pos_ + 1));
  }
  void skip_blanks() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool at_end() {
    skip_blanks();
    return pos_ == s_.size();
  }
  bool eat(char c) {
    skip_blanks();
    if (pos_ >= s_.size() || s_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  std::int64_t number(bool allow_sign) {
    skip_blanks();
    const bool negative = allow_sign && pos_ < s_.size() && s_[pos_] == '-';
    if (negative || (allow_sign && pos_ < s_.size() && s_[pos_] == '+')) ++pos_;
    if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_])))
      fail("expected a number");
    std::int64_t x = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      x = x * 10 + (s_[pos_++] - '0');
      if (x > kMaxCpu + 1) fail("number too large");
    }
    return negative ? -x : x;
  }
  // ':' length [':' stride] after a CPU or a place; {1, 1} when absent.
  std::pair<std::int64_t, std::int64_t> repeat() {
    if (!eat(':')) return {1, 1};
    const std::int64_t length = number(false);
    if (length < 1) fail("a length must be at least 1");
    return {length, eat(':') ? number(true) : 1};
  }
  int cpu_at(std::int64_t x) {
    if (x < 0 || x > kMaxCpu) fail("CPU " + std::to_string(x) + " out of range 0..65535");
    if (++entries_ > kMaxEntries) fail("the list names more than 2^20 CPUs in all");
    return int(x);
  }

  std::vector<int> place() {
    if (!eat('{')) return {cpu_at(number(false))};
    std::vector<int> in, out;
    do {
      const bool exclude = eat('!');
      const std::int64_t first = number(false);
      const auto [count, stride] = exclude ? std::pair<std::int64_t, std::int64_t>{1, 1} : repeat();
      for (std::int64_t i = 0; i < count; ++i)
        (exclude ? out : in).push_back(cpu_at(first + i * stride));
    } while (eat(','));
    if (!eat('}')) fail("expected ',' or '}'");
    std::erase_if(in, [&](int c) { return std::find(out.begin(), out.end(), c) != out.end(); });
    std::sort(in.begin(), in.end());
    in.erase(std::unique(in.begin(), in.end()), in.end());
    if (in.empty()) fail("a place without CPUs");
    return in;
  }

  // place:length:stride is the place, then copies of it shifted by stride.
  void add_interval(std::vector<std::vector<int>>& out) {
    const std::vector<int> base = place();
    const auto [length, stride] = repeat();
    for (std::int64_t i = 0; i < length; ++i) {
      std::vector<int> p;
      for (int c : base) p.push_back(cpu_at(c + i * stride));
      std::sort(p.begin(), p.end());
      out.push_back(std::move(p));
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::size_t entries_ = 0;
};

constexpr std::pair<const char*, PlaceKind> kAbstract[] = {
    {"threads", PlaceKind::threads},
    {"cores", PlaceKind::cores},
    {"ll_caches", PlaceKind::ll_caches},
    {"numa_domains", PlaceKind::numa_domains},
    {"sockets", PlaceKind::sockets}};

std::string lowered(std::string_view v) {
  std::string s(v);
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string_view blank_trimmed(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// "cores" or "cores(4)"; false when the text does not start with a letter.
bool parse_abstract(std::string_view v, PlaceSpec& spec) {
  if (v.empty() || !std::isalpha(static_cast<unsigned char>(v.front()))) return false;
  const auto paren = v.find('(');
  const std::string name = lowered(blank_trimmed(v.substr(0, paren)));
  for (const auto& [n, kind] : kAbstract)
    if (name == n) spec.kind = kind;
  if (spec.kind == PlaceKind::none)
    throw std::invalid_argument("unknown place name '" + name + "'");
  if (paren == std::string_view::npos) return true;
  const std::string_view rest = v.substr(paren + 1);
  if (rest.empty() || rest.back() != ')') throw std::invalid_argument("expected ')' at the end");
  const std::string_view digits = blank_trimmed(rest.substr(0, rest.size() - 1));
  int count = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || count > 65536)
      throw std::invalid_argument("the count must be a positive integer");
    count = count * 10 + (c - '0');
  }
  if (count < 1) throw std::invalid_argument("the count must be a positive integer");
  spec.count = count;
  return true;
}

int gomp_cpu(const std::string& s) {
  if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("'" + s + "' is not a CPU number");
  const int x = std::stoi(s);
  if (x > int(kMaxCpu)) throw std::invalid_argument("CPU " + s + " out of range 0..65535");
  return x;
}

// One GOMP_CPU_AFFINITY item: a, a-b or a-b:stride.
void add_gomp_item(const std::string& item, std::vector<int>& cpus) {
  const auto dash = item.find('-');
  const auto colon = item.find(':');
  if (colon != std::string::npos && (dash == std::string::npos || colon < dash))
    throw std::invalid_argument("a stride needs a range: '" + item + "'");
  const int a = gomp_cpu(item.substr(0, std::min(dash, colon)));
  const int b = dash == std::string::npos ? a : gomp_cpu(item.substr(dash + 1, colon - dash - 1));
  const int step = colon == std::string::npos ? 1 : gomp_cpu(item.substr(colon + 1));
  if (b < a || step < 1) throw std::invalid_argument("bad range '" + item + "'");
  for (int c = a; c <= b; c += step) cpus.push_back(c);
}

}  // namespace

std::string place_forms() {
  return "threads, cores, ll_caches, numa_domains or sockets, each with an optional (count); "
         "or a list of places such as {0,1},{2,3} or {0:4}:4:4 (CPU:count:stride inside a "
         "place, place:length:stride between them, ! excludes a CPU or a place)";
}

PlaceSpec parse_places(std::string_view text) {
  PlaceSpec spec;
  const std::string_view v = blank_trimmed(text);
  if (v.empty() || parse_abstract(v, spec)) return spec;
  spec.kind = PlaceKind::list;
  spec.places = ListParser(v).places();
  return spec;
}

std::vector<int> parse_gomp_cpu_affinity(std::string_view text) {
  std::vector<int> cpus;
  std::string item;
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != ',' && c != '\n') {
      item += c;
    } else if (!item.empty()) {
      add_gomp_item(item, cpus);
      item.clear();
    }
  }
  if (!item.empty()) add_gomp_item(item, cpus);
  return cpus;
}

}  // namespace joule::api
