// The fake driver's streams and events (a test double: see fake_cuda.cpp).
// A stream is a thread running its queue in order; an event is a mark the
// stream reaches.
#pragma once

#include <cuda.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

// A point in a stream's queue; done once the stream has run everything
// enqueued before it.
struct FakeMark {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  void finish();
  void wait();
};

struct CUstream_st {
  CUstream_st();
  ~CUstream_st();  // runs what is queued, then stops the thread
  CUresult enqueue(std::function<void()> op);
  std::shared_ptr<FakeMark> mark();  // a new mark at the end of the queue

 private:
  void run();
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread thread_;
};

struct CUevent_st {
  std::shared_ptr<FakeMark> mark;  // null: never recorded (complete)
};

int fake_stream_error();  // the sticky error set by fake_cuda_fail (0: none)
long fake_live_streams();
