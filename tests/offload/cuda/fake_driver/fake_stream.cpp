// The fake driver's streams and events (a test double: see fake_cuda.cpp;
// semantics from the CUDA driver API's "Stream Management" and "Event
// Management": work on a stream runs in order, an event completes when the
// stream reaches it, a stream waiting on an event waits for the work
// recorded before it).
#include "fake_stream.hpp"

#include <atomic>

namespace {
std::atomic<long> g_streams{0};
CUresult sticky() { return CUresult(fake_stream_error()); }
}  // namespace

long fake_live_streams() { return g_streams.load(); }

void FakeMark::finish() {
  std::lock_guard lk(m);
  done = true;
  cv.notify_all();
}

void FakeMark::wait() {
  std::unique_lock lk(m);
  cv.wait(lk, [&] { return done; });
}

CUstream_st::CUstream_st() : thread_([this] { run(); }) { ++g_streams; }

CUstream_st::~CUstream_st() {
  {
    std::lock_guard lk(m_);
    stop_ = true;
    cv_.notify_all();
  }
  thread_.join();
  --g_streams;
}

CUresult CUstream_st::enqueue(std::function<void()> op) {
  std::lock_guard lk(m_);
  queue_.push_back(std::move(op));
  cv_.notify_all();
  return CUDA_SUCCESS;
}

std::shared_ptr<FakeMark> CUstream_st::mark() {
  auto mark = std::make_shared<FakeMark>();
  enqueue([mark] { mark->finish(); });
  return mark;
}

void CUstream_st::run() {
  while (true) {
    std::function<void()> op;
    {
      std::unique_lock lk(m_);
      cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      op = std::move(queue_.front());
      queue_.pop_front();
    }
    op();
  }
}

extern "C" {

CUresult CUDAAPI cuStreamCreate(CUstream* s, unsigned int flags) {
  if (flags & ~unsigned(CU_STREAM_NON_BLOCKING)) return CUDA_ERROR_INVALID_VALUE;
  *s = new CUstream_st;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamDestroy(CUstream s) {
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  delete s;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamSynchronize(CUstream s) {
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  s->mark()->wait();
  return sticky();
}
CUresult CUDAAPI cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
  if (!s || !e) return CUDA_ERROR_INVALID_HANDLE;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (!e->mark) return CUDA_SUCCESS;
  return s->enqueue([mark = e->mark] { mark->wait(); });
}
CUresult CUDAAPI cuLaunchHostFunc(CUstream s, CUhostFn fn, void* data) {
  if (!s || !fn) return CUDA_ERROR_INVALID_HANDLE;
  return s->enqueue([=] {
    if (!sticky()) fn(data);
  });
}
CUresult CUDAAPI cuEventCreate(CUevent* e, unsigned int) {
  *e = new CUevent_st;
  return CUDA_SUCCESS;
}
// Destroying an event its stream has not reached is allowed: the mark
// lives on in the queue.
CUresult CUDAAPI cuEventDestroy(CUevent e) {
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  delete e;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s) {
  if (!e || !s) return CUDA_ERROR_INVALID_HANDLE;
  e->mark = s->mark();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventQuery(CUevent e) {
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  if (e->mark) {
    std::lock_guard lk(e->mark->m);
    if (!e->mark->done) return CUDA_ERROR_NOT_READY;
  }
  return sticky();
}
CUresult CUDAAPI cuEventSynchronize(CUevent e) {
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  if (e->mark) e->mark->wait();
  return sticky();
}

}  // extern "C"
