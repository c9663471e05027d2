#include "trace_test_util.hpp"

#include <cctype>
#include <charconv>

namespace trace_test {

namespace tr = joule::core::trace;

PrvFile read_prv(const std::string& path) {
  PrvFile out;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::getline(in, out.header);
  // #Paraver (date):FTIME_ns:1(CPUS):1:TASKS(T1:N,T2:N,...)
  EXPECT_EQ(out.header.rfind("#Paraver (", 0), 0u) << out.header;
  const auto close = out.header.find("):");
  EXPECT_NE(close, std::string::npos);
  std::string rest = out.header.substr(close + 2);
  out.ftime = std::stoll(rest);
  EXPECT_NE(rest.find("_ns:"), std::string::npos);
  const auto appl = rest.find("):1:");
  EXPECT_NE(appl, std::string::npos) << rest;
  std::string tasks = rest.substr(appl + 4);
  out.tasks = std::stoi(tasks);
  std::string list = tasks.substr(tasks.find('(') + 1);
  for (std::size_t pos = 0; pos < list.size();) {
    out.threads.push_back(std::stoi(list.substr(pos)));
    const auto comma = list.find(',', pos);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  EXPECT_EQ(int(out.threads.size()), out.tasks);
  std::string line;
  for (int n = 2; std::getline(in, line); ++n) {
    PrvLine l;
    const char* p = line.data();
    const char* end = p + line.size();
    while (p < end) {
      long long v = 0;
      auto [q, ec] = std::from_chars(p, end, v);
      if (ec != std::errc() || (q != end && *q != ':')) {
        ADD_FAILURE() << path << ":" << n << ": bad field in '" << line << "'";
        break;
      }
      l.f.push_back(v);
      p = q == end ? end : q + 1;
    }
    if (l.f.empty()) continue;
    l.type = int(l.f[0]);
    if (l.type == 1)
      EXPECT_EQ(l.f.size(), 8u) << line;
    else if (l.type == 2)
      EXPECT_TRUE(l.f.size() >= 8 && l.f.size() % 2 == 0) << line;
    else
      ADD_FAILURE() << path << ":" << n << ": unexpected record type " << l.type;
    out.lines.push_back(std::move(l));
  }
  return out;
}

std::string xml_error(const std::string& s) {
  std::vector<std::string> open;
  bool root_seen = false;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '&') {
      const auto semi = s.find(';', i);
      if (semi == std::string::npos || semi - i > 10) return "bare & at " + std::to_string(i);
      i = semi + 1;
      continue;
    }
    if (s[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(s[i])))
        return "text outside the root at " + std::to_string(i);
      ++i;
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0) {
      const auto e = s.find("-->", i);
      if (e == std::string::npos) return "unterminated comment";
      i = e + 3;
      continue;
    }
    if (s.compare(i, 2, "<?") == 0 || s.compare(i, 2, "<!") == 0) {
      const auto e = s.find('>', i);
      if (e == std::string::npos) return "unterminated declaration";
      i = e + 1;
      continue;
    }
    // A tag: find its end outside quotes.
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < s.size(); ++j) {
      if (quote) {
        if (s[j] == quote)
          quote = 0;
        else if (s[j] == '<')
          return "'<' inside an attribute at " + std::to_string(j);
      } else if (s[j] == '"' || s[j] == '\'') {
        quote = s[j];
      } else if (s[j] == '>') {
        break;
      }
    }
    if (j >= s.size()) return "unterminated tag at " + std::to_string(i);
    std::string tag = s.substr(i + 1, j - i - 1);
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool self = !tag.empty() && tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" \t\n/"));
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "mismatched </" + name + "> at " + std::to_string(i);
      open.pop_back();
    } else if (!self) {
      if (open.empty() && root_seen) return "second root element <" + name + ">";
      open.push_back(name);
      root_seen = true;
    } else if (open.empty()) {
      if (root_seen) return "second root element";
      root_seen = true;
    }
    i = j + 1;
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  return root_seen ? "" : "no root element";
}

Expect run_workload(std::vector<std::pair<std::string, std::string>> settings, int flat,
                    int iterations) {
  Expect e;
  joule::detail::runtime_start(settings.data(), settings.size());
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < flat / iterations; ++i) {
      const bool a = i % 3 != 0;
      joule::spawn(
          [] {
            volatile int x = 0;
            for (int k = 0; k < 200; ++k) x = x + k;
          },
          {.label = a ? "alpha" : "beta"});
      ++(a ? e.alpha : e.beta);
    }
    for (int p = 0; p < 3; ++p) {
      joule::spawn(
          [] {
            for (int c = 0; c < 4; ++c) joule::spawn([] {}, {.label = "child"});
            joule::taskwait();
          },
          {.label = "parent"});
      ++e.parent;
      e.child += 4;
    }
    joule::spawn(
        [it] {
          // One of each subsystem event, as the platform / lending / MPI layers will emit them.
          tr::emit_counter("power_w", 10.0 + it);
          tr::emit_counter("frequency_mhz", 1200.0 + 100 * it, 0);
          tr::begin_state(tr::State::kLent);
          tr::emit_event(tr::Event::kEvCpuLend, 1);
          tr::end_state(tr::State::kLent);
          tr::emit_named(tr::Event::kEvMpiCall, "MPI_Barrier");
          tr::emit_named(tr::Event::kEvMpiCall, nullptr);
        },
        {.label = "events"});
    ++e.events;
    joule::taskwait();
    joule::iteration_boundary();
    ++e.iterations;
  }
  joule::detail::runtime_stop();
  return e;
}

}  // namespace trace_test
