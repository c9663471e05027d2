#include "cpu_state.hpp"

namespace joule::lending {
namespace {

using S = CpuState;

constexpr Transition done(CpuWord w) { return {Outcome::Done, w}; }
constexpr Transition same(CpuWord w) { return {Outcome::NoChange, w}; }
constexpr Transition illegal(CpuWord w) { return {Outcome::Illegal, w}; }

Transition own(CpuWord w, pid_t a) {
  if (w.state == S::Disabled) return done({S::Busy, a, 0});
  if (w.owner == a) return same(w);
  if (w.state == S::Claimed && w.owner == 0) {
    // An ownerless CPU still run by a guest: adopt it; it comes back on return.
    if (w.guest == a) return done({S::Busy, a, 0});
    return {Outcome::Pending, {S::Claimed, a, w.guest}};
  }
  return illegal(w);
}

Transition disown(CpuWord w, pid_t a) {
  if (w.state == S::Disabled || w.owner != a) return illegal(w);
  if (w.state == S::Busy || w.state == S::Idle) return done({});
  return done({S::Claimed, 0, w.guest});  // the guest still runs there: it returns it later
}

Transition lend(CpuWord w, pid_t a) {
  if (w.state == S::Disabled || w.owner != a) return illegal(w);
  if (w.state == S::Busy) return done({S::Idle, a, 0});
  if (w.state == S::Claimed) return done({S::Borrowed, a, w.guest});  // claim withdrawn
  return same(w);
}

Transition reclaim(CpuWord w, pid_t a) {
  if (w.state == S::Disabled || w.owner != a) return illegal(w);
  if (w.state == S::Idle) return done({S::Busy, a, 0});
  if (w.state == S::Borrowed) return {Outcome::Pending, {S::Claimed, a, w.guest}};
  return same(w);
}

// The guest ignored the claim (stopped or hung): the owner runs there again;
// the guest sees at its next task boundary that the CPU is not its own.
Transition revoke(CpuWord w, pid_t a) {
  if (w.state == S::Disabled || w.owner != a) return illegal(w);
  if (w.state == S::Claimed) return done({S::Busy, a, 0});
  return same(w);
}

Transition borrow(CpuWord w, pid_t a) {
  if (w.state == S::Idle && w.owner != a) return done({S::Borrowed, w.owner, a});
  if (w.state == S::Borrowed && w.guest == a) return same(w);
  return illegal(w);
}

Transition give_back(CpuWord w, pid_t a) {
  if (w.guest != a) return illegal(w);
  if (w.state == S::Borrowed) return done({S::Idle, w.owner, 0});
  if (w.state == S::Claimed) return done(w.owner ? CpuWord{S::Busy, w.owner, 0} : CpuWord{});
  return illegal(w);
}

}  // namespace

Transition apply(CpuWord w, CpuOp op, pid_t actor) noexcept {
  if (actor <= 0 || !valid(w)) return illegal(w);
  switch (op) {
    case CpuOp::Own:
      return own(w, actor);
    case CpuOp::Disown:
      return disown(w, actor);
    case CpuOp::Lend:
      return lend(w, actor);
    case CpuOp::Reclaim:
      return reclaim(w, actor);
    case CpuOp::Borrow:
      return borrow(w, actor);
    case CpuOp::Return:
      return give_back(w, actor);
    case CpuOp::Revoke:
      return revoke(w, actor);
  }
  return illegal(w);
}

bool valid(CpuWord w) noexcept {
  switch (w.state) {
    case S::Disabled:
      return w.owner == 0 && w.guest == 0;
    case S::Busy:
    case S::Idle:
      return w.owner > 0 && w.guest == 0;
    case S::Borrowed:
      return w.owner > 0 && w.guest > 0 && w.owner != w.guest;
    case S::Claimed:
      return w.owner >= 0 && w.guest > 0 && w.owner != w.guest;
  }
  return false;
}

const char* state_name(CpuState s) noexcept {
  switch (s) {
    case S::Disabled:
      return "disabled";
    case S::Busy:
      return "busy";
    case S::Idle:
      return "idle";
    case S::Borrowed:
      return "borrowed";
    case S::Claimed:
      return "claimed";
  }
  return "corrupt";
}

const char* op_name(CpuOp op) noexcept {
  switch (op) {
    case CpuOp::Own:
      return "own";
    case CpuOp::Disown:
      return "disown";
    case CpuOp::Lend:
      return "lend";
    case CpuOp::Reclaim:
      return "reclaim";
    case CpuOp::Borrow:
      return "borrow";
    case CpuOp::Return:
      return "return";
    case CpuOp::Revoke:
      return "revoke";
  }
  return "?";
}

const char* outcome_name(Outcome o) noexcept {
  switch (o) {
    case Outcome::Done:
      return "done";
    case Outcome::Pending:
      return "pending";
    case Outcome::NoChange:
      return "no-change";
    case Outcome::Illegal:
      return "illegal";
  }
  return "?";
}

}  // namespace joule::lending
