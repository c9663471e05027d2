#include "device.hpp"

#include "joule/types.hpp"

namespace joule::offload {

void Ticket::wait() const {
  std::unique_lock lk(s_->m);
  s_->cv.wait(lk, [&] { return s_->done; });
  if (s_->error) std::rethrow_exception(s_->error);
}

bool Ticket::done() const {
  std::lock_guard lk(s_->m);
  return s_->done;
}

void Ticket::finish(std::exception_ptr error) {
  std::lock_guard lk(s_->m);
  s_->error = std::move(error);
  s_->done = true;
  s_->cv.notify_all();
}

void Device::set_frequency(double) {
  throw joule::error(JOULE_ERR_INVALID, "joule card: " + describe() + " has no P-states");
}

Ticket Device::launch(const Launch& l) {
  Ticket t;
  submit(l, [t](std::exception_ptr e) mutable { t.finish(std::move(e)); });
  return t;
}

namespace {
Launch transfer(const void* host, std::size_t bytes, Access access, bool to_card, bool to_host) {
  Launch l;
  l.regions.push_back({host, bytes, access, to_card, to_host});
  return l;
}
}  // namespace

void Device::allocate(const void* host, std::size_t bytes) {
  launch(transfer(host, bytes, kOut, false, false)).wait();
}
void Device::copy_in(const void* host, std::size_t bytes) {
  launch(transfer(host, bytes, kOut, true, false)).wait();
}
void Device::copy_out(void* host, std::size_t bytes) {
  launch(transfer(host, bytes, kIn, false, true)).wait();
}
void Device::release(const void* host, std::size_t bytes) {
  Launch l = transfer(host, bytes, kOut, false, false);
  l.release = true;
  launch(l).wait();
}

}  // namespace joule::offload
