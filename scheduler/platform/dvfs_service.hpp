// DVFS through jouled (docs/service.md): for a job that is not root, the
// node service changes the frequencies of the job's own CPUs. Domains and
// P-state tables come from the service's `domains` answer (only the CPUs in
// `mine`); a change is `set cpu=N khz=K`; restore() ends the lease with
// `release`, and the service puts the CPUs back (no local state file: the
// service also restores when the process dies).
#pragma once

#include <memory>
#include <string>

#include "dvfs.hpp"
#include "service_session.hpp"

namespace joule::platform {

// Over an open session (shared with the service meter). nullptr with the
// reason in *why when the service grants no frequency control or no domain.
std::unique_ptr<Dvfs> make_service_dvfs(std::shared_ptr<service_client::Session> session,
                                        std::string* why);

// Opens its own session: hello carries job=<job> when job is not empty.
std::unique_ptr<Dvfs> make_service_dvfs(const std::string& socket, const std::string& job,
                                        std::string* why);

// "jouled at PATH, CPUs LIST, N domain(s)": what the report's dvfs line
// says about a service backend.
std::string describe_service_dvfs(const Dvfs& dvfs, const service_client::Session& session);

}  // namespace joule::platform
