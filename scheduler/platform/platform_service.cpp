// Backend selection through jouled (docs/service.md, "For users"): DVFS and
// the meter share one session, so a process holds one lease. The service
// comes after the kernel files in auto (root writes cpufreq itself), and a
// failure falls back to no DVFS / the next meter: with one warning when the
// user asked for the service, silently (noted in the report) for auto.
#include <unistd.h>

#include "dvfs_service.hpp"
#include "log.hpp"
#include "platform.hpp"
#include "service_session.hpp"

namespace joule::platform {

service_client::Session* Platform::open_service(const PlatformSettings& ps) {
  if (service_tried_) return service_.get();
  service_tried_ = true;
  const std::string socket = service_client::socket_path(ps.service_socket);
  // No socket file: no connect at all, so auto costs one stat where no
  // service runs.
  if (::access(socket.c_str(), F_OK) != 0) {
    service_why_ = "no jouled socket at " + socket;
    return nullptr;
  }
  service_ = service_client::Session::open(socket, ps.slurm_job_id, &service_why_);
  return service_.get();
}

bool Platform::choose_service_dvfs(const PlatformSettings& ps, bool asked,
                                   const std::string& before) {
  std::string why;
  if (open_service(ps)) {
    dvfs_ = make_service_dvfs(service_, &why);
    if (dvfs_) {
      dvfs_note_ = (asked ? "" : "auto: ") + describe_service_dvfs(*dvfs_, *service_);
      return true;
    }
  } else {
    why = service_why_;
  }
  dvfs_ = make_none_dvfs();
  if (asked) {
    // One key for a session that failed, so DVFS and the meter asking for
    // the same absent or refusing service warn once between them.
    core::warn_once(service_ ? "service-dvfs" : "service",
                    "service: " + why + "; frequencies are not changed");
    dvfs_note_ = "service requested: " + why;
  } else {
    dvfs_note_ = "auto: " + before + "; " + why;
  }
  return false;
}

bool Platform::choose_service_meter(const PlatformSettings& ps, bool asked, std::string* reason) {
  std::string& why = *reason;
  if (open_service(ps)) {
    meter_ = make_service_meter(service_, &why);
    if (meter_) return true;
  } else {
    why = service_why_;
  }
  if (asked) {
    core::warn_once(service_ ? "service-meter" : "service",
                    "service: " + why + "; energy is modelled");
    meter_note_ = "service requested: " + why;
  }
  return false;
}

}  // namespace joule::platform
