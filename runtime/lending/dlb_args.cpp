// DLB_ARGS parsing (dlb_args.hpp).
#include "dlb_args.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace joule::lending {
namespace {

bool parse_bool(const std::string& name, const std::string& value) {
  if (value == "yes" || value == "true" || value == "1") return true;
  if (value == "no" || value == "false" || value == "0") return false;
  throw std::invalid_argument("DLB_ARGS: " + name + "=" + value +
                              ": expected yes, no, true, false, 1 or 0");
}

// An option that joule always provides: only its "yes" form is accepted.
void always_on(const std::string& name, bool on, const char* why) {
  if (!on) throw std::invalid_argument("DLB_ARGS: " + name + "=no is not supported: " + why);
}

MpiCalls parse_mpi_calls(std::string value) {
  for (char& ch : value) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (value == "none") return MpiCalls::none;
  if (value == "all") return MpiCalls::all;
  if (value == "barrier") return MpiCalls::barrier;
  if (value == "collectives") return MpiCalls::collectives;
  throw std::invalid_argument("DLB_ARGS: --lewi-mpi-calls=" + value +
                              ": expected none, all, barrier or collectives");
}

}  // namespace

const char* DlbArgs::allowed() {
  return "--lewi, --lewi-keep-one-cpu, --lewi-mpi-calls=none|all|barrier|collectives, --drom, "
         "--talp, --barrier, --ompt, --mode=polling|async, --verbose[=components], --quiet";
}

void DlbArgs::parse(std::string_view text) {
  std::istringstream words{std::string(text)};
  std::string word;
  while (words >> word) {
    if (word.rfind("--", 0) != 0)
      throw std::invalid_argument("DLB_ARGS: '" + word + "' is not an option (--name[=value])");
    const auto eq = word.find('=');
    std::string name = word.substr(0, eq);
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? word.substr(eq + 1) : "yes";
    bool negated = false;
    if (name.rfind("--no-", 0) == 0 && !has_value) {
      name = "--" + name.substr(5);
      negated = true;
    }
    const auto flag = [&] { return negated ? false : parse_bool(name, value); };
    if (name == "--lewi") {
      lewi = flag();
    } else if (name == "--lewi-keep-one-cpu") {
      keep_one_cpu = flag();
    } else if (name == "--drom") {
      always_on(name, drom = flag(), "joule always answers DROM requests");
    } else if (name == "--talp") {
      always_on(name, talp = flag(), "joule's monitoring regions always measure");
    } else if (name == "--barrier") {
      always_on(name, barrier = flag(), "the node barrier is always available");
    } else if (name == "--ompt") {
      ompt = flag();
    } else if (name == "--quiet") {
      quiet = flag();
    } else if (name == "--verbose") {
      verbose = negated || value == "no" ? "" : (has_value ? value : "api");
    } else if (name == "--mode" && !negated) {
      if (value != "polling" && value != "async")
        throw std::invalid_argument("DLB_ARGS: --mode=" + value + ": expected polling or async");
      async = value == "async";
    } else if (name == "--lewi-mpi-calls" && !negated) {
      lewi_mpi_calls = parse_mpi_calls(value);
    } else if (name == "--mngo") {
      throw std::invalid_argument(
          "DLB_ARGS: --mngo is not supported: joule has no application manager (MNGO); its "
          "runtime lends and reclaims CPUs itself (docs/dlb-api.md)");
    } else {
      throw std::invalid_argument("DLB_ARGS: unknown option '" + word + "'; joule accepts " +
                                  allowed());
    }
  }
}

}  // namespace joule::lending
