// The layout of the node-wide CPU table in shared memory. Every field that
// processes change concurrently is a lock-free atomic; the registry lock only
// orders registration, DROM requests and the cleaning of dead processes.
// Change kVersion whenever anything in this file changes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace joule::lending {

constexpr std::uint64_t kMagic = 0x4c42544355504a31ull;  // "1JPUCTBL" little-endian
// 2: the idle summary (ShmIdle) replaced the header's idle counter.
// 3: ShmProc's home_cpu (refused DROM removals) and revoked count.
constexpr std::uint32_t kVersion = 3;
constexpr int kMaxCpus = 1024;
constexpr int kMaxProcs = 256;
constexpr int kMaskWords = kMaxCpus / 64;

static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

struct alignas(64) ShmHeader {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t header_size;  // sizeof(ShmHeader), a cheap layout check
  std::uint64_t segment_size;
  std::uint32_t max_cpus;
  std::uint32_t max_procs;
  std::uint32_t ncpus;  // CPUs of the node when the segment was created
  std::uint32_t creator_pid;
  std::uint32_t uid;
  std::atomic<std::uint32_t> ready;    // 1 once the creator has initialised everything
  std::atomic<std::uint32_t> closing;  // 1 once the last process unlinked it
  std::atomic<std::uint32_t> lock;     // pid holding the registry lock, 0 if free
  std::uint32_t reserved0;
  std::atomic<std::uint32_t> procs_used;  // high-water mark of registry slots
  std::atomic<std::uint64_t> epoch;       // bumped by every registration change
};

// One CPU, alone on its cache line: the packed CpuWord and a futex word that
// every transition bumps so that parked workers (in any process) wake.
struct alignas(64) ShmCpu {
  std::atomic<std::uint64_t> word;
  std::atomic<std::uint32_t> futex;
  std::atomic<std::uint32_t> waiters;
};

struct alignas(64) ShmProc {
  std::atomic<std::uint32_t> pid;  // 0: free slot
  std::uint32_t mode;              // 1 local (never shared), 2 node
  std::uint64_t start_time;        // /proc/<pid>/stat field 22: tells a reused pid apart
  char comm[16];
  // DROM: a requester writes mask under the registry lock as a seqlock
  // (drom_seq odd while writing); the process applies it at its next poll
  // and publishes the sequence it applied in drom_ack (a futex word).
  std::atomic<std::uint32_t> drom_seq;
  std::atomic<std::uint32_t> drom_ack;
  std::atomic<std::uint32_t> drom_error;  // cpu+1 that could not be taken, 0 if none
  std::uint32_t reserved;
  std::atomic<std::uint64_t> drom_mask[kMaskWords];
  // cpu+1 of the thread that started the process's runtime (worker 0), 0
  // without a runtime: DROM may not remove it, that thread never parks.
  std::atomic<std::uint32_t> home_cpu;
  // CPUs this process took back from a guest that ignored its claim past
  // JOULE_LENDING_RECLAIM_TIMEOUT_MS (stopped or hung); joule-ctl show prints it.
  std::atomic<std::uint32_t> revoked;
};

// The idle summary: bit c set while CPU c is Idle, so a borrower finds idle
// CPUs with one load per 64 CPUs instead of reading every CPU's line. Kept
// exact whenever the table is quiet (CpuTable::sync_idle re-checks the word
// after each bit change); under traffic a bit may lag its CPU for a moment,
// and a borrower's CAS on the word is what decides.
struct alignas(64) ShmIdle {
  std::atomic<std::uint64_t> mask[kMaskWords];
};

struct ShmSegment {
  ShmHeader header;
  ShmIdle idle;
  ShmCpu cpus[kMaxCpus];
  ShmProc procs[kMaxProcs];
};

constexpr std::size_t kSegmentSize = sizeof(ShmSegment);

}  // namespace joule::lending
