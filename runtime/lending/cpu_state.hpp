// The ownership state machine of one CPU, as pure functions over a packed
// word (state, owner pid, guest pid) so that the shared table can change a
// CPU with one compare-and-swap. Nothing here touches memory or the OS.
//
//   Disabled --own--> Busy --lend--> Idle --borrow--> Borrowed --reclaim--> Claimed
//                      ^  <-reclaim--  ^  <--return---            <--lend--    |
//                      +-------------------------------return------------------+
//
// Only the owner lends, reclaims, revokes or disowns; only the guest returns;
// only a non-owner borrows. Revoke (Claimed -> Busy) is the owner's way out
// when the guest does not return a claimed CPU in time. A dead process's CPUs are cleaned with the
// same verbs (disown for its owned CPUs, return for its borrowed ones).
#pragma once

#include <sys/types.h>
#include <cstdint>

namespace joule::lending {

enum class CpuState : std::uint8_t { Disabled = 0, Busy = 1, Idle = 2, Borrowed = 3, Claimed = 4 };
constexpr int kNumStates = 5;

enum class CpuOp : std::uint8_t {
  Own,      // a process registers the CPU as its own (also adopts an ownerless claimed CPU)
  Disown,   // the owner leaves (exit, DROM removal, death)
  Lend,     // the owner offers its CPU (also cancels its own pending claim)
  Reclaim,  // the owner wants it back: Idle at once, Borrowed becomes Claimed
  Borrow,   // a non-owner takes an Idle CPU
  Return,   // the guest gives a Borrowed or Claimed CPU back (also on its death)
  Revoke,   // the owner takes a Claimed CPU back from a guest past the reclaim deadline
};
constexpr int kNumOps = 7;

// pid 0 means "nobody". Linux pids fit in 22 bits; 30 are kept.
struct CpuWord {
  CpuState state = CpuState::Disabled;
  pid_t owner = 0;
  pid_t guest = 0;

  static constexpr int kPidBits = 30;
  static constexpr std::uint64_t kPidMask = (std::uint64_t(1) << kPidBits) - 1;

  constexpr std::uint64_t pack() const noexcept {
    return (std::uint64_t(state) << 60) | ((std::uint64_t(owner) & kPidMask) << kPidBits) |
           (std::uint64_t(guest) & kPidMask);
  }
  static constexpr CpuWord unpack(std::uint64_t w) noexcept {
    return CpuWord{CpuState((w >> 60) & 0xf), pid_t((w >> kPidBits) & kPidMask),
                   pid_t(w & kPidMask)};
  }
  friend constexpr bool operator==(const CpuWord&, const CpuWord&) = default;
};

enum class Outcome : std::uint8_t {
  Done,      // the transition happened
  Pending,   // Reclaim of a borrowed CPU: now Claimed, the guest returns it later
  NoChange,  // legal but nothing to do (e.g. reclaiming a CPU already held)
  Illegal,   // not allowed from this state for this actor
};

struct Transition {
  Outcome outcome = Outcome::Illegal;
  CpuWord next;  // equals the input unless outcome is Done or Pending
};

// The single definition of what each actor may do to a CPU.
Transition apply(CpuWord w, CpuOp op, pid_t actor) noexcept;

// Well-formed words only: Disabled has no owner or guest; Busy and Idle have
// an owner and no guest; Borrowed has both (distinct); Claimed has a guest
// and an owner that may be 0 (its owner died or left).
bool valid(CpuWord w) noexcept;

// May `pid` run a thread on a CPU in this state right now?
constexpr bool runs_on(CpuWord w, pid_t pid) noexcept {
  return (w.state == CpuState::Busy && w.owner == pid) ||
         ((w.state == CpuState::Borrowed || w.state == CpuState::Claimed) && w.guest == pid);
}

// The pid running on this CPU now, or 0.
constexpr pid_t runner(CpuWord w) noexcept {
  if (w.state == CpuState::Busy) return w.owner;
  if (w.state == CpuState::Borrowed || w.state == CpuState::Claimed) return w.guest;
  return 0;
}

const char* state_name(CpuState s) noexcept;
const char* op_name(CpuOp op) noexcept;
const char* outcome_name(Outcome o) noexcept;

}  // namespace joule::lending
