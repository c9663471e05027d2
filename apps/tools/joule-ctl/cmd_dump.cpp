// joule-ctl dump PID: what a running joule program is doing now, each
// worker and each blocked task, as the program itself writes it (its dump
// listener, runtime/engine/dump_listener.hpp). For a program that seems to
// hang: safe on a production job (it reads, it changes nothing) and
// answered only for the program's own user and root.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli_parse.hpp"
#include "commands.hpp"
#include "dump_endpoint.hpp"

namespace joule::ctl {
namespace {

// The process's answer, or an empty string with errno set.
std::string ask(long pid) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {};
  sockaddr_un addr;
  const socklen_t len = core::dump_endpoint_address(pid, addr);
  std::string text;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      text.append(buf, std::size_t(n));
    }
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return text;
}

}  // namespace

int cmd_dump(int argc, char** argv) {
  CLI::App app(
      "Prints what a running joule program is doing: each worker's task and what it waits for, "
      "the blocked tasks, the ready queues (the program's user or root only).",
      "joule-ctl dump");
  long pid = 0;
  app.add_option("pid", pid, "the program's process id")->required()->check(CLI::PositiveNumber);
  if (int rc = kOk; !parse_options(app, argc, argv, &rc)) return rc;
  const std::string text = ask(pid);
  if (text.empty()) {
    std::fprintf(stderr,
                 "joule-ctl dump: process %ld does not answer (%s): it is not a running joule "
                 "program, its runtime has not started or has stopped, or it runs with "
                 "JOULE_DUMP=no\n",
                 pid, errno ? std::strerror(errno) : "no reply");
    return kFailed;
  }
  std::fputs(text.c_str(), stdout);
  return text.rfind("joule: uid ", 0) == 0 ? kFailed : kOk;
}

}  // namespace joule::ctl
