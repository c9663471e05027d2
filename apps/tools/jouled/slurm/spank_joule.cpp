// spank_joule.so: joule's SPANK plugin (`man spank`). It adds
// --joule-energy=auto|off|<policy> to srun, sbatch and salloc, turns it into
// the job's JOULE_* environment on the compute node, and at job end asks
// jouled to end the job's leases (restoring its CPUs) and close its record.
// What it decides is in spank_settings.cpp; this file is the SPANK glue.
//
// A plugstack.conf line (docs/service.md, "Slurm"):
//   optional /usr/lib/x86_64-linux-gnu/joule/spank_joule.so socket=/run/joule/jouled.sock
//
// A job must never fail because of this plugin: every hook returns 0 except
// the option check in srun/sbatch/salloc, which rejects a bad value before
// the job is submitted.
// spank.h declares the hooks (slurm_spank_init, ...) outside its own
// extern "C" block; Slurm looks them up by their C names.
extern "C" {
#include <slurm/spank.h>
}

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "service_client.hpp"
#include "spank_settings.hpp"

namespace {

namespace client_api = joule::platform::service_client;
using joule::slurm::PlugArgs;

// Every call to jouled is bounded by this: a stalled service delays the
// epilog by at most a few seconds, never hangs it.
constexpr int kServiceTimeoutMs = 2000;

PlugArgs g_args;
bool g_enabled = false;  // the plugstack arguments were valid
std::string g_option;    // --joule-energy's value; empty when not given

// slurmstepd and slurmd log to the node's slurmd log, where the
// administrator looks; srun and sbatch would show it to every user.
bool on_node() {
  const spank_context_t ctx = spank_context();
  return ctx == S_CTX_REMOTE || ctx == S_CTX_SLURMD || ctx == S_CTX_JOB_SCRIPT;
}

int on_option(int /*val*/, const char* optarg, int /*remote*/) {
  std::string why;
  const std::string value = optarg ? optarg : "";
  if (!joule::slurm::valid_option(value, &why)) {
    slurm_error("%s", why.c_str());
    return -1;  // srun/sbatch/salloc stop here, before the job starts
  }
  g_option = value;
  return 0;
}

// Slurm keeps a pointer to this struct, and its fields are not const.
char kOptName[] = "joule-energy";
char kOptArg[] = "auto|off|POLICY";
std::string g_usage;  // built once in init: it lists the registered policies
spank_option g_opt = {kOptName, kOptArg, nullptr, 1, 0, on_option};

std::vector<std::string> args_of(int ac, char** av) {
  std::vector<std::string> out;
  for (int i = 0; i < ac; ++i) out.emplace_back(av[i]);
  return out;
}

// job-end: the backstop for a job whose programs did not release their
// leases (killed, crashed, or still running when the time limit hit).
void end_job(std::uint32_t job) {
  const std::string path = client_api::socket_path(g_args.socket);
  std::string why;
  auto client = client_api::Client::connect(path, kServiceTimeoutMs, &why);
  if (!client) {
    // Nodes without jouled are normal: the jobs there changed nothing.
    slurm_info("spank_joule: job %u: no jouled at %s (%s); nothing to end", job, path.c_str(),
               why.c_str());
    return;
  }
  // No hello: it starts a lease and needs a grant, and root is usually not
  // in the access file; job-end, jobs and status are root's requests.
  auto end = client->call(client_api::Line("job-end").add("job", std::uint64_t(job)), &why);
  if (!end || !end->ok()) {
    slurm_error("spank_joule: job %u: jouled at %s refused job-end: %s", job, path.c_str(),
                end ? end->error_message().c_str() : why.c_str());
    return;
  }
  slurm_info("spank_joule: job %u: jouled ended %s lease(s)", job,
             end->final.get_or("leases", "?").c_str());
}

}  // namespace

// SPANK_PLUGIN(joule, 1), spelled out: in C++ a const at namespace scope has
// internal linkage, and Slurm's loader looks these symbols up by name.
extern "C" {
extern const char plugin_name[] = "joule";
extern const char plugin_type[] = "spank";
extern const unsigned int plugin_version = SLURM_VERSION_NUMBER;
extern const unsigned int spank_plugin_version = 1;
}

extern "C" int slurm_spank_init(spank_t sp, int ac, char** av) {
  try {
    std::string why;
    auto args = joule::slurm::parse_plug_args(args_of(ac, av), &why);
    g_enabled = args.has_value();
    if (args) {
      g_args = *args;
    } else if (on_node()) {
      slurm_error("spank_joule: %s; the plugin does nothing", why.c_str());
    } else {
      slurm_verbose("spank_joule: %s; the plugin does nothing", why.c_str());
    }
    // Registered even when disabled, so that scripts using the option keep
    // running while an administrator fixes plugstack.conf.
    const spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR || ctx == S_CTX_REMOTE) {
      g_usage =
          "joule's energy management: auto, off (no frequency changes), or an "
          "energy policy: " +
          joule::slurm::allowed_values();
      g_opt.usage = g_usage.data();
      if (spank_option_register(sp, &g_opt) != ESPANK_SUCCESS)
        slurm_error("spank_joule: cannot register --%s", kOptName);
    }
  } catch (const std::exception& e) {
    slurm_error("spank_joule: init: %s", e.what());
    g_enabled = false;
  }
  return 0;
}

// Remote context: options are processed, the tasks not yet started.
extern "C" int slurm_spank_init_post_opt(spank_t sp, int /*ac*/, char** /*av*/) {
  if (!g_enabled || !spank_remote(sp)) return 0;
  try {
    const std::string value = g_option.empty() ? g_args.default_value : g_option;
    for (const auto& [key, val] : joule::slurm::job_environment(value, g_args)) {
      // overwrite=0: a value the user exported for the job wins.
      const spank_err_t rc = spank_setenv(sp, key.c_str(), val.c_str(), 0);
      if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_EXISTS)
        slurm_error("spank_joule: cannot set %s: %s", key.c_str(), spank_strerror(rc));
    }
  } catch (const std::exception& e) {
    slurm_error("spank_joule: %s", e.what());
  }
  return 0;
}

// The backstop runs once per job and node, in the job epilog (as root), not
// in slurm_spank_exit: that runs at the end of every step, and ending the
// job's leases there would take the CPUs of its other, still running steps.
extern "C" int slurm_spank_job_epilog(spank_t sp, int ac, char** av) {
  try {
    // The job_script context calls no slurm_spank_init (`man spank`): the
    // arguments are read here.
    std::string why;
    auto args = joule::slurm::parse_plug_args(args_of(ac, av), &why);
    if (!args) {
      slurm_error("spank_joule: %s; the plugin does nothing", why.c_str());
      return 0;
    }
    g_args = *args;
    std::uint32_t job = 0;
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS || job == 0) {
      // The epilog's environment has it too (slurm.conf(5), Prolog and Epilog).
      const char* env = std::getenv("SLURM_JOB_ID");
      job = env ? std::uint32_t(std::strtoul(env, nullptr, 10)) : 0;
    }
    if (job == 0) {
      slurm_error("spank_joule: epilog without a job id; nothing to end");
      return 0;
    }
    end_job(job);
  } catch (const std::exception& e) {
    slurm_error("spank_joule: epilog: %s", e.what());
  }
  return 0;
}
