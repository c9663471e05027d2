// joule-ctl jobs: the per-job energy records jouled keeps (docs/service.md,
// the `jobs` request). By default it asks the service, which shows users
// their own jobs and root every job; --db reads the SQLite file directly,
// for administrators (the file is root's, mode 0600).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "commands.hpp"
#include "job_store.hpp"
#include "service_client.hpp"

namespace joule::ctl {
namespace {

namespace svc = platform::service_client;

struct JobsOptions {
  std::string socket;
  std::string db;
  std::optional<std::string> job;
  std::optional<std::string> user;
  int limit = 100;
};

int from_db(const JobsOptions& o) {
  std::string why;
  auto store = service::JobStore::open_read_only(o.db, &why);
  if (!store) {
    std::fprintf(stderr, "joule-ctl jobs: %s\n", why.c_str());
    return kFailed;
  }
  service::JobQuery q;
  q.job = o.job;
  q.user = o.user;
  q.limit = o.limit;
  const auto records = store->query(q, &why);
  if (!why.empty()) {
    std::fprintf(stderr, "joule-ctl jobs: %s\n", why.c_str());
    return kFailed;
  }
  for (const auto& r : records) std::printf("%s\n", service::format_record(r).c_str());
  return kOk;
}

// A data line's fields as sent: the same text format_record makes.
std::string fields_text(const svc::Line& line) {
  std::string out;
  for (const auto& [k, v] : line.fields())
    out += (out.empty() ? "" : " ") + k + "=" + svc::escape_value(v);
  return out;
}

std::optional<svc::Reply> ask(svc::Client& c, const svc::Line& req, const std::string& path) {
  std::string why;
  auto reply = c.call(req, &why);
  if (!reply)
    std::fprintf(stderr, "joule-ctl jobs: jouled at %s: %s\n", path.c_str(), why.c_str());
  else if (!reply->ok())
    std::fprintf(stderr, "joule-ctl jobs: jouled refused '%s': %s: %s\n", req.verb().c_str(),
                 reply->error_code().c_str(), reply->error_message().c_str());
  if (!reply || !reply->ok()) return std::nullopt;
  return reply;
}

int from_service(const JobsOptions& o) {
  const char* env = std::getenv("JOULE_SERVICE_SOCKET");
  const std::string path = svc::socket_path(o.socket.empty() && env ? env : o.socket);
  std::string why;
  auto client = svc::Client::connect(path, 5000, &why);
  if (!client) {
    std::fprintf(stderr, "joule-ctl jobs: cannot reach jouled at %s: %s (start it, or use --db)\n",
                 path.c_str(), why.c_str());
    return kFailed;
  }
  // No hello: it starts a lease and needs a grant; `jobs` needs neither
  // (the service answers from the caller's uid), and root is rarely granted.
  svc::Line req("jobs");
  if (o.job) req.add("job", *o.job);
  if (o.user) req.add("user", *o.user);
  req.add("limit", o.limit);
  const auto reply = ask(*client, req, path);
  if (!reply) return kFailed;
  for (const auto& line : reply->data) std::printf("%s\n", fields_text(line).c_str());
  return kOk;
}

}  // namespace

int cmd_jobs(int argc, char** argv) {
  CLI::App app(
      "Print jouled's per-job records (energy, frequencies), newest first, one line per job.\n"
      "Asks the service unless --db names its SQLite file.",
      "joule-ctl jobs");
  JobsOptions o;
  app.add_option("--socket", o.socket,
                 "jouled's socket (default: $JOULE_SERVICE_SOCKET, else /run/joule/jouled.sock)");
  app.add_option("--job", o.job, "only this job id");
  app.add_option("--user", o.user, "only this user's jobs");
  app.add_option("--limit", o.limit, "at most N jobs (1..10000, default 100)")
      ->check(CLI::Range(1, service::kMaxLimit));
  app.add_option("--db", o.db, "read this job database directly instead of asking jouled");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  }
  return o.db.empty() ? from_service(o) : from_db(o);
}

}  // namespace joule::ctl
