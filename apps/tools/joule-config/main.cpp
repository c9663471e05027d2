// joule-config: every configuration key joule reads, from the one key table
// the runtime itself parses with (its default, allowed values and help), and
// the values the current environment would give. `--markdown` prints the
// tables docs/configuration.md includes (scripts/gen-config-doc), each key's
// old names (aliases) in its meaning.
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "config.hpp"
#include "joule/types.hpp"

namespace {

using joule::core::Config;
using joule::core::ConfigKey;

// Markdown table cells: pipes escaped, empty shown as such.
std::string cell(std::string_view s, bool code) {
  if (s.empty()) return "*(empty)*";
  std::string out = code ? "`" : "";
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return code ? out + "`" : out;
}

// The help text, then the key's old names: a reader of an old script finds
// the key it sets under its new name.
std::string meaning(const ConfigKey& k) {
  std::string out = k.help;
  if (k.aliases.empty()) return cell(out, false);
  out += ". Old name" + std::string(k.aliases.size() > 1 ? "s" : "") + ", still accepted: ";
  for (std::size_t i = 0; i < k.aliases.size(); ++i) out += (i ? ", `" : "`") + k.aliases[i] + "`";
  return cell(out, false);
}

void print_markdown() {
  const Config defaults;
  const auto& keys = joule::core::config_keys();
  for (const auto& sec : joule::core::config_sections()) {
    std::printf("<!-- keys:%s -->\n", sec.title.c_str());
    std::printf("| key | type | default | allowed values | meaning |\n|---|---|---|---|---|\n");
    for (std::size_t i = sec.first; i < sec.first + sec.count; ++i) {
      const ConfigKey& k = keys[i];
      std::printf("| `%s` | %s | %s | %s | %s |\n", k.name.c_str(), k.type.c_str(),
                  cell(k.get(defaults), true).c_str(), cell(k.allowed(), false).c_str(),
                  meaning(k).c_str());
    }
    std::printf("<!-- /keys:%s -->\n\n", sec.title.c_str());
  }
}

void print_effective() {
  const Config cfg = Config::load({});
  for (const auto& sec : joule::core::config_sections()) {
    std::printf("[%s]\n", sec.title.c_str());
    const auto& keys = joule::core::config_keys();
    for (std::size_t i = sec.first; i < sec.first + sec.count; ++i)
      std::printf("  %-30s %s\n", keys[i].name.c_str(), keys[i].get(cfg).c_str());
  }
}

int usage(FILE* to, int status) {
  std::fprintf(to,
               "usage: joule-config [--effective | --markdown | --help]\n"
               "  --effective  the value of every key in this environment (the default)\n"
               "  --markdown   the key tables of docs/configuration.md\n");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view arg = argc > 1 ? argv[1] : "--effective";
  if (argc > 2) return usage(stderr, 2);
  try {
    if (arg == "--markdown") {
      print_markdown();
    } else if (arg == "--effective") {
      print_effective();
    } else if (arg == "--help" || arg == "-h") {
      return usage(stdout, 0);
    } else {
      std::fprintf(stderr, "joule-config: unknown option '%s'\n", argv[1]);
      return usage(stderr, 2);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
