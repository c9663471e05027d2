// joule-card: serves one emulated many-core card to host processes, one at
// a time (docs/card.md, "The joule-card daemon"). The card's settings
// come from the JOULE_CARD_* environment keys, then from the options (which
// win); both go through the card's key table, so a bad value is the same
// error as in the runtime. SIGTERM or SIGINT stops it and removes its
// socket and segment.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

#include "card_daemon.hpp"
#include "device.hpp"
#include "joule/types.hpp"

namespace {

using joule::core::Config;
using joule::offload::CardDaemon;

std::atomic<bool> g_stop{false};
int g_wake[2] = {-1, -1};

void on_signal(int) {
  g_stop.store(true);
  const char b = 1;
  [[maybe_unused]] ssize_t n = write(g_wake[1], &b, 1);
}

// One JOULE_CARD_* key through the card's key table; `from` names where the
// value came from in the error.
void apply(Config& c, const std::string& key, const std::string& value, const std::string& from) {
  for (const joule::core::ConfigKey& k : joule::offload::card_config_keys()) {
    if (key != k.name) continue;
    try {
      k.set(c, value);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(from + "=" + value + ": " + e.what() +
                               "; allowed values: " + k.allowed());
    }
    return;
  }
}

void install_signals() {
  if (pipe2(g_wake, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a host that died mid-reply is handled by its socket
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "joule-card: an emulated many-core card that joule programs attach to with "
      "JOULE_CARD=attach JOULE_CARD_DAEMON=NAME. It serves one host process at a time, "
      "running the host's task functions in a re-execution of the host's own binary. "
      "Settings: the JOULE_CARD_* environment keys, overridden by the options."};
  std::map<std::string, std::string> opts;  // key -> value given on the command line
  std::string name =
      std::getenv("JOULE_CARD_DAEMON") ? std::getenv("JOULE_CARD_DAEMON") : "default";
  app.add_option("--name", name,
                 "daemon name: socket /tmp/joule-card.NAME.sock, segment /joule-card.NAME")
      ->capture_default_str();
  const std::pair<const char*, const char*> keys[] = {{"--topology", "JOULE_CARD_TOPOLOGY"},
                                                      {"--threads", "JOULE_CARD_THREADS"},
                                                      {"--affinity", "JOULE_CARD_AFFINITY"},
                                                      {"--cpus", "JOULE_CARD_CPUS"},
                                                      {"--pcie-gbs", "JOULE_CARD_PCIE_GBS"},
                                                      {"--power", "JOULE_CARD_POWER"},
                                                      {"--staging-mb", "JOULE_CARD_STAGING_MB"},
                                                      {"--freqs", "JOULE_CARD_FREQS"},
                                                      {"--freq", "JOULE_CARD_FREQ"}};
  for (const auto& [opt, key] : keys)
    app.add_option_function<std::string>(
        opt, [&opts, key = std::string(key)](const std::string& v) { opts[key] = v; },
        std::string("as ") + key);
  CLI11_PARSE(app, argc, argv);
  try {
    Config cfg;
    for (const auto& [opt, key] : keys)
      if (const char* v = std::getenv(key)) apply(cfg, key, v, key);
    for (const auto& [opt, key] : keys)
      if (auto it = opts.find(key); it != opts.end()) apply(cfg, key, it->second, opt);
    install_signals();
    CardDaemon daemon(name, cfg.get<joule::offload::CardSettings>());
    std::printf("joule-card: serving %s\n", daemon.describe().c_str());
    std::fflush(stdout);
    daemon.serve(g_stop, g_wake[0]);
    std::printf("joule-card: stopped after %d host(s); socket and segment removed\n",
                daemon.sessions());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
