// Host code addresses on a joule-card daemon's worker (code_relocation.hpp):
// the worker is the host's binary re-executed, so every object is the same
// but loaded at another bias. Here the "host" table is this process's,
// moved by a made-up bias; relocating a moved address must give the real one.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "code_relocation.hpp"
#include "joule/types.hpp"

namespace {

using joule::offload::ModuleTable;
using joule::offload::Relocator;

int probe(int x) { return x + 1; }
const char kStatic[] = "static data";
constexpr std::uint64_t kShift = 0x40000000;

ModuleTable moved_table() {
  ModuleTable t;
  joule::offload::record_modules(t);
  for (std::uint32_t i = 0; i < t.count; ++i) {
    t.module[i].base += kShift;
    t.module[i].lo += kShift;
    t.module[i].hi += kShift;
  }
  return t;
}

const void* moved(const void* p) {
  return reinterpret_cast<const void*>(reinterpret_cast<std::uint64_t>(p) + kShift);
}

std::string relocate_error(const Relocator& r, const void* p) {
  try {
    r.relocate(p);
  } catch (const joule::error& e) {
    return e.what();
  }
  return "";
}

TEST(CardRelocation, FindsCodeAndStaticDataAtTheWorkersAddresses) {
  const ModuleTable t = moved_table();
  ASSERT_GT(t.count, 1u);
  EXPECT_STREQ(t.module[0].name, "");  // the program itself
  const Relocator r(t);
  const auto fn = reinterpret_cast<const void*>(&probe);
  EXPECT_EQ(r.relocate(moved(fn)), fn);
  EXPECT_EQ(r.relocate(moved(kStatic)), static_cast<const void*>(kStatic));
  const auto libc_fn = reinterpret_cast<const void*>(&std::strlen);  // another object
  EXPECT_EQ(r.relocate(moved(libc_fn)), libc_fn);
}

TEST(CardRelocation, ObjectsTheWorkerLacksAndStrayAddressesAreErrors) {
  ModuleTable t = moved_table();
  std::snprintf(t.module[0].name, sizeof t.module[0].name, "%s", "/opt/plugin.so");
  const Relocator r(t);
  const std::string e = relocate_error(r, moved(reinterpret_cast<const void*>(&probe)));
  EXPECT_NE(e.find("is in '/opt/plugin.so', which the card worker has not loaded"),
            std::string::npos)
      << e;
  int on_stack = 0;
  const std::string e2 = relocate_error(r, &on_stack);
  EXPECT_NE(e2.find("is in none of the host's loaded objects"), std::string::npos) << e2;
}

TEST(CardRelocation, ForkedCardsRelocateNothing) {
  joule::offload::install_relocator(nullptr);
  const auto fn = reinterpret_cast<const void*>(&probe);
  EXPECT_EQ(joule::offload::relocate_host_code(fn), fn);
}

}  // namespace
