// How a layer declares its settings once: each key is one line naming the
// member of the layer's settings struct it sets, its kind, its allowed
// values and its help text. Parsing, validation, the dump, `joule-config`
// and the tables of docs/configuration.md all come from these rows.
//
//   std::vector<ConfigKey> engine_config_keys() {
//     KeyTable<EngineSettings> t;
//     t.integer("JOULE_WORKERS", &EngineSettings::workers, 0, 4096, "number of workers",
//               "0: one per CPU");
//     t.flag("JOULE_BIND", &EngineSettings::bind, "pin each worker to its CPU");
//     return t.keys();
//   }
//
// A renamed key keeps its old name as an alias of the row just added:
//
//     t.choice("JOULE_QUEUES", ...).alias("JOULE_SCHEDULER");
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"

namespace joule::core {

template <class S>
class KeyTable {
 public:
  using Parse = std::function<void(S&, std::string_view)>;  // throws std::invalid_argument
  using Print = std::function<std::string(const S&)>;

  KeyTable& flag(const char* name, bool S::*m, const char* help) {
    return add(
        name, "boolean", bool_values(), help,
        [m](S& s, std::string_view v) { s.*m = parse_bool(v); },
        [m](const S& s) { return format_bool(s.*m); });
  }

  template <class I>
  KeyTable& integer(const char* name, I S::*m, std::int64_t lo, std::int64_t hi, const char* help,
                    const char* note = nullptr) {
    return add(
        name, "integer", range_text("an integer", std::to_string(lo), std::to_string(hi), note),
        help, [m, lo, hi](S& s, std::string_view v) { s.*m = I(parse_int(v, lo, hi)); },
        [m](const S& s) { return std::to_string(s.*m); });
  }

  KeyTable& number(const char* name, double S::*m, double lo, double hi, const char* help,
                   const char* note = nullptr) {
    return add(
        name, "number", range_text("a number", format_double(lo), format_double(hi), note), help,
        [m, lo, hi](S& s, std::string_view v) { s.*m = parse_double(v, lo, hi); },
        [m](const S& s) { return format_double(s.*m); });
  }

  template <class E>
  KeyTable& choice(const char* name, E S::*m, Choices<E> names, const char* help) {
    return add(
        name, "choice", choice_list(names), help,
        [m, names](S& s, std::string_view v) {
          for (const auto& [n, e] : names)
            if (v == n) {
              s.*m = e;
              return;
            }
          throw std::invalid_argument("not one of the allowed values");
        },
        [m, names](const S& s) { return std::string(choice_name(names, s.*m)); });
  }

  // Free text, checked only by `parse` (if any) when the runtime starts.
  KeyTable& text(const char* name, std::string S::*m, const char* type, std::string allowed,
                 const char* help) {
    return add(
        name, type, std::move(allowed), help,
        [m](S& s, std::string_view v) { s.*m = std::string(v); }, [m](const S& s) { return s.*m; });
  }

  // Any other shape (lists, pairs, special words): the layer's own parser.
  KeyTable& custom(const char* name, const char* type, std::string allowed, const char* help,
                   Parse parse, Print print) {
    return add(name, type, std::move(allowed), help, std::move(parse), std::move(print));
  }

  // The row just added also answers to `old_name` (config.hpp, ConfigKey::aliases).
  KeyTable& alias(const char* old_name) {
    if (keys_.empty()) throw std::logic_error("KeyTable::alias before any key");
    keys_.back().aliases.emplace_back(old_name);
    return *this;
  }

  std::vector<ConfigKey> keys() const { return keys_; }

 private:
  static std::string range_text(const char* what, const std::string& lo, const std::string& hi,
                                const char* note) {
    std::string out = std::string(what) + " " + lo + ".." + hi;
    return note ? out + " (" + note + ")" : out;
  }

  KeyTable& add(const char* name, const char* type, std::string allowed, const char* help,
                Parse parse, Print print) {
    ConfigKey k;
    k.name = name;
    k.type = type;
    k.allowed = [allowed = std::move(allowed)] { return allowed; };
    k.help = help;
    k.set = [parse = std::move(parse)](Config& c, std::string_view v) { parse(c.get<S>(), v); };
    k.get = [print = std::move(print)](const Config& c) { return print(c.get<S>()); };
    keys_.push_back(std::move(k));
    return *this;
  }

  std::vector<ConfigKey> keys_;
};

}  // namespace joule::core
