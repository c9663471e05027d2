// joule-ctl numa: the nodes of a fake sysfs tree and a fake numa_maps, and
// this very process's memory after joule_alloc placed 8 MiB on node 0.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "joule/joule.hpp"
#include "joule/memory.h"

namespace {

namespace fs = std::filesystem;

std::string run(const std::string& args) {
  const std::string cmd = std::string(JOULE_CTL) + " numa " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  if (p) pclose(p);
  return out;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(NumaCtl, NodesAndAProcessFromAFakeTree) {
  const fs::path root = fs::temp_directory_path() / ("joule-numa-ctl-" + std::to_string(getpid()));
  const fs::path nodes = root / "sys/devices/system/node";
  write(nodes / "node0/cpulist", "0-7\n");
  write(nodes / "node0/meminfo", "Node 0 MemTotal:  2097152 kB\nNode 0 MemFree:  1048576 kB\n");
  write(nodes / "node1/cpulist", "8-15\n");
  write(nodes / "node1/meminfo", "Node 1 MemTotal:  2097152 kB\nNode 1 MemFree:  524288 kB\n");
  write(nodes / "online", "0-1\n");  // not a node folder: skipped
  write(root / "proc/42/numa_maps",
        "7f0000000000 prefer:1 anon=256 dirty=256 N1=256 kernelpagesize_kB=4\n"
        "7f1000000000 interleave:0-1 anon=512 N0=256 N1=256 kernelpagesize_kB=4\n"
        "7f2000000000 default anon=1 N0=1 kernelpagesize_kB=2048\n");
  const std::string out = run("--root " + root.string() + " --pid 42");
  EXPECT_NE(out.find("node 0: cpus 0-7, memory 2048 MiB, free 1024 MiB"), std::string::npos) << out;
  EXPECT_NE(out.find("node 1: cpus 8-15, memory 2048 MiB, free 512 MiB"), std::string::npos) << out;
  EXPECT_NE(out.find("pid 42 node 0: 3.0 MiB (default 2.0, interleave 1.0)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("pid 42 node 1: 2.0 MiB (interleave 1.0, prefer 1.0)"), std::string::npos)
      << out;
  EXPECT_NE(run("--root " + root.string() + " --pid 43").find("cannot read"), std::string::npos);
  EXPECT_NE(run("--pid x").find("--pid"), std::string::npos);  // CLI11 names the option
  fs::remove_all(root);
}

TEST(NumaCtl, ShowsThisProcesssPlacedMemory) {
  if (!fs::exists("/proc/self/numa_maps")) GTEST_SKIP() << "no /proc/self/numa_maps here";
  joule::runtime rt({{"JOULE_WORKERS", "2"}, {"JOULE_LENDING", "off"}});
  joule_placement_t where{JOULE_PLACE_NODE, 0, 0, 0, nullptr, nullptr};
  constexpr std::size_t kBytes = 8 << 20;
  auto* p = static_cast<char*>(joule_alloc(kBytes, &where));
  ASSERT_NE(p, nullptr) << joule_last_error();
  std::memset(p, 1, kBytes);
  const std::string out = run("--pid " + std::to_string(getpid()));
  // A node-0 line with at least the 8 MiB preferred there.
  const auto at = out.find("pid " + std::to_string(getpid()) + " node 0:");
  ASSERT_NE(at, std::string::npos) << out;
  const auto prefer = out.find("prefer ", at);
  ASSERT_NE(prefer, std::string::npos) << out;
  EXPECT_GE(std::stod(out.substr(prefer + 7)), 8.0) << out;
  EXPECT_EQ(joule_free(p), JOULE_OK);
}

}  // namespace
