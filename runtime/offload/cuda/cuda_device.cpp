// A launch on a GPU (cuda_device.hpp): copies in, the body on the calling
// thread, copies back and a completion event, all on one of the device's
// streams; poll_completions() runs `done` once the event has completed.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "cuda_gpu.hpp"
#include "joule/types.hpp"

namespace joule::cuda {
namespace {

thread_local CudaKernelContext* t_context = nullptr;

std::string address_of(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

// What the body sees: its stream and its regions' device copies.
class LaunchContext final : public CudaKernelContext {
 public:
  LaunchContext(const CudaDriver& d, CUstream s, const CudaDeviceInfo& info,
                const std::vector<MappedRegion>& m)
      : d_(d), s_(s), info_(info), m_(m) {}

  void* map(const void* host) const override {
    const auto* p = static_cast<const unsigned char*>(host);
    for (const MappedRegion& r : m_) {
      const auto* lo = static_cast<const unsigned char*>(r.host);
      if (p >= lo && p < lo + r.bytes) return reinterpret_cast<void*>(r.ptr + (p - lo));
    }
    throw joule::error(JOULE_ERR_INVALID, "joule cuda: map(" + address_of(host) +
                                              "): the address is in none of the task's regions");
  }
  int threads() const override { return info_.sm_count; }
  void parallel_for(offload::ChunkFn, void*, std::int64_t, std::int64_t) override {
    throw joule::error(JOULE_ERR_INVALID,
                       "joule cuda: parallel_for is not available in a CUDA task; launch a "
                       "kernel on its stream()");
  }
  void* stream() const override { return s_; }
  int device() const override { return info_.index; }
  void host_fn(void (*fn)(void*), void* arg) override {
    d_.check(d_.cuLaunchHostFunc(s_, fn, arg), "cuLaunchHostFunc");
  }

 private:
  const CudaDriver& d_;
  CUstream s_;
  const CudaDeviceInfo& info_;
  const std::vector<MappedRegion>& m_;
};

struct ContextBinding {
  explicit ContextBinding(CudaKernelContext* c) : saved(t_context) { t_context = c; }
  ~ContextBinding() { t_context = saved; }
  CudaKernelContext* saved;
};

void check_regions(const offload::Launch& l) {
  for (const offload::Region& r : l.regions)
    if (!r.host || r.bytes == 0)
      throw joule::error(JOULE_ERR_INVALID,
                         "joule cuda: a region needs a host address and at least one byte");
}

}  // namespace

CudaKernelContext* current_cuda_context() noexcept { return t_context; }

void CudaDevice::submit(const offload::Launch& l, Completion done) {
  check_regions(l);
  CudaContextScope scope(d_, ctx_);
  if (!l.fn) return transfer_only(l, done);
  const std::size_t si = next_stream_.fetch_add(1) % streams_.size();
  const std::vector<MappedRegion> mapped = prepare(l, streams_[si]);
  std::exception_ptr error;
  run_body(l, streams_[si], mapped, &error);
  finish(l, si, std::move(done), std::move(error));
}

// Allocates the copies, orders the stream after their last users on other
// streams and enqueues the copies in; the copied regions' new writer is an
// event right after those copies, so readers on other streams need not wait
// for this launch's body.
std::vector<MappedRegion> CudaDevice::prepare(const offload::Launch& l, CUstream s) {
  std::lock_guard lk(m_);
  std::vector<MappedRegion> out;
  bool copied = false;
  for (const offload::Region& r : l.regions) {
    ResidentCopy& c = residency_.acquire(r, settings_.pin);
    wait_for_copy(d_, s, r, c);
    if (r.to_card) {
      d_.check(d_.cuMemcpyHtoDAsync_v2(c.ptr, r.host, r.bytes, s), "cuMemcpyHtoDAsync");
      bytes_to_card_ += r.bytes;
      copied = true;
    }
    out.push_back({r.host, r.bytes, c.ptr});
  }
  if (!copied) return out;
  const StreamEvent in{new_event(), s};
  d_.check(d_.cuEventRecord(in.event.get(), s), "cuEventRecord");
  for (const offload::Region& r : l.regions)
    if (r.to_card) {
      ResidentCopy& c = *residency_.find(r.host);
      c.writer = in;
      c.readers.clear();
    }
  return out;
}

void CudaDevice::run_body(const offload::Launch& l, CUstream s, const std::vector<MappedRegion>& m,
                          std::exception_ptr* error) const {
  LaunchContext ctx(d_, s, info_, m);
  ContextBinding bind(&ctx);
  try {
    l.fn(const_cast<void*>(l.args), static_cast<CudaKernelContext*>(&ctx));
  } catch (...) {
    *error = std::current_exception();
  }
}

// Copies back, the completion event, and the regions' new last users. A
// failed body still gets its event, so its `done` comes in stream order.
void CudaDevice::finish(const offload::Launch& l, std::size_t si, Completion done,
                        std::exception_ptr error) {
  const CUstream s = streams_[si];
  std::lock_guard lk(m_);
  if (!error) enqueue_copies_back(l, s);
  const StreamEvent ev{new_event(), s};
  d_.check(d_.cuEventRecord(ev.event.get(), s), "cuEventRecord");
  for (const offload::Region& r : l.regions)
    if (ResidentCopy* c = residency_.find(r.host)) note_use(d_, r, *c, ev);
  ++launches_;
  pending_[si].push_back({ev.event, std::move(done), std::move(error)});
  in_flight_.fetch_add(1, std::memory_order_release);
}

void CudaDevice::enqueue_copies_back(const offload::Launch& l, CUstream s) {
  for (const offload::Region& r : l.regions)
    if (r.to_host) {
      const ResidentCopy* c = residency_.find(r.host);
      d_.check(d_.cuMemcpyDtoHAsync_v2(const_cast<void*>(r.host), c->ptr, r.bytes, s),
               "cuMemcpyDtoHAsync");
      bytes_to_host_ += r.bytes;
    }
}

// copy_in / copy_out / allocate / release: synchronous (a taskwait, a host
// task's data or stop waits on them), so `done` runs here.
void CudaDevice::transfer_only(const offload::Launch& l, const Completion& done) {
  const CUstream s = streams_[next_stream_.fetch_add(1) % streams_.size()];
  {
    std::lock_guard lk(m_);
    for (const offload::Region& r : l.regions) {
      if (!residency_.find(r.host)) {
        if (l.release) continue;  // nothing to drop
        if (r.to_host)            // no launch wrote it: there is nothing to copy back
          throw joule::error(JOULE_ERR_STATE, describe() + ": copy back of " + address_of(r.host) +
                                                  ", which has no copy on the GPU");
      }
      const ResidentCopy& c = residency_.acquire(r, settings_.pin);
      wait_for_copy(d_, s, r, c);
      if (r.to_card) {
        d_.check(d_.cuMemcpyHtoDAsync_v2(c.ptr, r.host, r.bytes, s), "cuMemcpyHtoDAsync");
        bytes_to_card_ += r.bytes;
      }
    }
    enqueue_copies_back(l, s);
  }
  d_.check(d_.cuStreamSynchronize(s), "cuStreamSynchronize");
  if (l.release) {
    std::lock_guard lk(m_);
    for (const offload::Region& r : l.regions) residency_.release(r.host);
  }
  done(nullptr);
}

// Idle workers call this all the time: with nothing in flight it costs one
// atomic load, and only one thread polls at once. A context that cannot be
// made current any more (a lost GPU) fails what is in flight: none of it
// could ever complete, and its tasks must not wait for it.
bool CudaDevice::poll_completions() {
  if (in_flight_.load(std::memory_order_acquire) == 0) return false;
  if (polling_.exchange(true, std::memory_order_acquire)) return false;
  struct Release {
    std::atomic<bool>& flag;
    ~Release() { flag.store(false, std::memory_order_release); }
  } release{polling_};
  std::optional<CudaContextScope> scope;
  try {
    scope.emplace(d_, ctx_);
  } catch (...) {
    fail_pending(std::current_exception());
    return true;
  }
  bool any = false;
  for (std::size_t si = 0; si < streams_.size(); ++si) any |= poll_stream(si);
  return any;
}

// Runs the `done` of the stream's completed launches, oldest first; an
// event that reports an error completes its launch with that error.
bool CudaDevice::poll_stream(std::size_t si) {
  bool any = false;
  while (true) {
    Pending p;
    {
      std::lock_guard lk(m_);
      if (pending_[si].empty()) return any;
      const CUresult r = d_.cuEventQuery(pending_[si].front().event.get());
      if (r == CUDA_ERROR_NOT_READY) return any;
      p = std::move(pending_[si].front());
      pending_[si].pop_front();
      in_flight_.fetch_sub(1, std::memory_order_release);
      if (r != CUDA_SUCCESS && !p.error)
        p.error = std::make_exception_ptr(joule::error(
            JOULE_ERR_STATE, describe() + ": a launch failed: cuEventQuery: " + d_.error_text(r)));
    }
    any = true;
    p.done(p.error);
  }
}

}  // namespace joule::cuda
