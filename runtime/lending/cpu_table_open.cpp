// Creating, attaching, validating and removing the shared segment.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>

#include "cpu_table.hpp"
#include "os_support.hpp"

namespace joule::lending {
namespace {

using Kind = TableError::Kind;

std::string sys_error(const std::string& what, const std::string& name) {
  return "joule: " + what + " CPU table " + name + ": " + std::strerror(errno);
}

std::uint64_t load_magic(const ShmSegment* seg) {
  return __atomic_load_n(&seg->header.magic, __ATOMIC_ACQUIRE);
}

std::string hint_remove(const std::string& name) {
  return " If no joule process is running, remove it with `joule-ctl clean --force " + name +
         "`, or set JOULE_LENDING_SHM to another name.";
}

}  // namespace

std::string CpuTable::default_name() { return "/joule-cpus-" + std::to_string(::geteuid()); }

std::string CpuTable::check_name(const std::string& name) {
  std::string n = name.empty() || name[0] == '/' ? name : "/" + name;
  if (n.size() < 2 || n.size() > 200 || n.find('/', 1) != std::string::npos)
    throw std::invalid_argument("a shared-memory name like /joule-cpus-test (one leading '/')");
  return n;
}

CpuTable::CpuTable(ShmSegment* seg, std::string name, bool shared, int fd)
    : seg_(seg), name_(std::move(name)), shared_(shared), fd_(fd) {
  ncpus_ = int(std::min<std::uint32_t>(seg_->header.ncpus, kMaxCpus));
}

CpuTable::~CpuTable() {
  ::munmap(seg_, kSegmentSize);
  if (fd_ >= 0) ::close(fd_);
}

void CpuTable::init_header(pid_t creator) {
  ShmHeader& h = seg_->header;
  h.creator_pid = std::uint32_t(creator);
  h.version = kVersion;
  h.header_size = sizeof(ShmHeader);
  h.segment_size = kSegmentSize;
  h.max_cpus = kMaxCpus;
  h.max_procs = kMaxProcs;
  const long n = ::sysconf(_SC_NPROCESSORS_CONF);
  h.ncpus = std::uint32_t(std::clamp<long>(n, 1, kMaxCpus));
  h.uid = ::geteuid();
  h.ready.store(1, std::memory_order_relaxed);
  // The magic goes last: a reader that sees it sees a complete header.
  __atomic_store_n(&h.magic, kMagic, __ATOMIC_RELEASE);
}

std::unique_ptr<CpuTable> CpuTable::open_private() {
  void* p =
      ::mmap(nullptr, kSegmentSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw TableError(Kind::System, sys_error("cannot allocate the", "(private)"));
  auto* seg = new (p) ShmSegment();
  std::unique_ptr<CpuTable> t(new CpuTable(seg, "(private)", false, -1));
  t->init_header(::getpid());
  t->ncpus_ = int(seg->header.ncpus);
  return t;
}

std::unique_ptr<CpuTable> CpuTable::open_shared(const std::string& name) {
  return open(name, true);
}

std::unique_ptr<CpuTable> CpuTable::attach_existing(const std::string& name) {
  return open(name, false);
}

std::unique_ptr<CpuTable> CpuTable::open(const std::string& name, bool create) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (create) {
      const int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0) {
        if (::fchmod(fd, 0600) != 0 || ::ftruncate(fd, off_t(kSegmentSize)) != 0) {
          const std::string msg = sys_error("cannot size the", name);
          ::close(fd);
          ::shm_unlink(name.c_str());
          throw TableError(Kind::System, msg);
        }
        void* p = ::mmap(nullptr, kSegmentSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) throw TableError(Kind::System, sys_error("cannot map the", name));
        std::unique_ptr<CpuTable> t(new CpuTable(static_cast<ShmSegment*>(p), name, true, fd));
        t->init_header(::getpid());
        t->ncpus_ = int(t->seg_->header.ncpus);
        return t;
      }
      if (errno != EEXIST) throw TableError(Kind::System, sys_error("cannot create the", name));
    }
    const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
      if (errno == ENOENT) {
        if (!create) return nullptr;
        continue;  // removed meanwhile: create it
      }
      if (errno == EACCES)
        throw TableError(Kind::Foreign, "joule: CPU table " + name +
                                            " belongs to another user; set JOULE_LENDING_SHM to a "
                                            "name of your own");
      throw TableError(Kind::System, sys_error("cannot open the", name));
    }
    bool retry = false;
    auto t = try_attach(name, fd, retry);
    if (t) return t;
    if (!retry) return nullptr;
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + attempt));
  }
  throw TableError(Kind::Busy, "joule: CPU table " + name + " keeps being removed and recreated");
}

// Validates an opened segment. On a stale one (its creator died before it was
// initialised, or the last user just removed it) sets retry and returns null.
std::unique_ptr<CpuTable> CpuTable::try_attach(const std::string& name, int fd, bool& retry) {
  auto fail = [&](Kind k, const std::string& msg) -> std::unique_ptr<CpuTable> {
    ::close(fd);
    throw TableError(k, msg);
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(Kind::System, sys_error("cannot stat the", name));
  if (st.st_uid != ::geteuid())
    return fail(Kind::Foreign, "joule: CPU table " + name + " belongs to uid " +
                                   std::to_string(st.st_uid) +
                                   ", not to you; set JOULE_LENDING_SHM to a name of your own");
  if ((st.st_mode & 077) != 0) {
    char mode[16];
    std::snprintf(mode, sizeof mode, "%03o", unsigned(st.st_mode & 0777));
    return fail(Kind::Foreign, "joule: CPU table " + name + " has mode " + mode +
                                   " (other users may write it); refusing it, it must be 0600." +
                                   hint_remove(name));
  }
  // A creator sizes the segment right after creating it: wait a little.
  for (int i = 0; i < 1000 && st.st_size == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ::fstat(fd, &st);
  }
  if (st.st_size == 0) {  // its creator died between create and size
    ::close(fd);
    ::shm_unlink(name.c_str());
    retry = true;
    return nullptr;
  }
  if (std::size_t(st.st_size) < 16)
    return fail(Kind::Corrupt, "joule: CPU table " + name + " is corrupt or not a joule table (" +
                                   std::to_string(st.st_size) + " bytes)." + hint_remove(name));
  const std::size_t map_size = std::min<std::size_t>(std::size_t(st.st_size), kSegmentSize);
  void* p = ::mmap(nullptr, kSegmentSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return fail(Kind::System, sys_error("cannot map the", name));
  (void)map_size;
  std::unique_ptr<CpuTable> t(new CpuTable(static_cast<ShmSegment*>(p), name, true, fd));
  ShmHeader& h = t->seg_->header;
  for (int i = 0; i < 1000 && load_magic(t->seg_) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::uint64_t magic = load_magic(t->seg_);
  if (magic == 0) {
    const pid_t creator = pid_t(h.creator_pid);
    if (creator != 0 && pid_exists(creator))
      throw TableError(Kind::Busy, "joule: CPU table " + name + " is still being set up by pid " +
                                       std::to_string(creator) + " after 1 s");
    t.reset();
    ::shm_unlink(name.c_str());  // half-made by a dead process: stale
    retry = true;
    return nullptr;
  }
  if (magic != kMagic) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "%016" PRIx64, magic);
    throw TableError(Kind::Corrupt,
                     "joule: " + name + " is not a joule CPU table (bad magic 0x" + hex +
                         "): another program uses this name or it is corrupt." + hint_remove(name));
  }
  if (h.version != kVersion)
    throw TableError(
        Kind::Version,
        "joule: CPU table " + name + " has layout version " + std::to_string(h.version) +
            " but this joule uses version " + std::to_string(kVersion) +
            ": a joule of another version is (or was) running on this node." + hint_remove(name));
  if (std::size_t(st.st_size) != kSegmentSize || h.header_size != sizeof(ShmHeader) ||
      h.segment_size != kSegmentSize || h.max_cpus != kMaxCpus || h.max_procs != kMaxProcs ||
      h.ncpus == 0 || h.ncpus > kMaxCpus || h.procs_used.load() > kMaxProcs)
    throw TableError(Kind::Corrupt, "joule: CPU table " + name +
                                        " is corrupt (its sizes do not match version " +
                                        std::to_string(kVersion) + ")." + hint_remove(name));
  if (h.closing.load(std::memory_order_acquire)) {  // its last user is removing it
    retry = true;
    return nullptr;
  }
  t->ncpus_ = int(h.ncpus);
  return t;
}

std::string CpuTable::clean(const std::string& name, bool force, bool* failed) {
  bool ignored = false;
  bool& fail = failed ? *failed : ignored;
  fail = true;
  std::unique_ptr<CpuTable> t;
  try {
    t = attach_existing(name);
  } catch (const TableError& e) {
    if (!force || e.kind() == Kind::System) return std::string(e.what());
    if (::shm_unlink(name.c_str()) != 0) return sys_error("cannot remove the", name);
    fail = false;
    return name + ": removed (forced): " + e.what();
  }
  if (!t) return name + ": no such segment";
  const int dead = t->reap_dead();
  int live = 0;
  for (const auto& p : t->processes()) live += p.alive;
  fail = false;
  if (live > 0 && !force)
    return name + ": in use by " + std::to_string(live) + " live process(es); cleaned " +
           std::to_string(dead) + " dead one(s)";
  t->lock();
  t->seg_->header.closing.store(1, std::memory_order_release);
  const int rc = ::shm_unlink(name.c_str());
  t->unlock();
  if (rc != 0) {
    fail = true;
    return sys_error("cannot remove the", name);
  }
  return name + ": removed (" + std::to_string(dead) + " dead process(es) cleaned" +
         (live ? ", " + std::to_string(live) + " live ignored: forced" : "") + ")";
}

}  // namespace joule::lending
