#include "trace_session.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <stdexcept>

namespace joule::trace {
namespace {

std::atomic<std::uint64_t> g_sessions{0};

// The calling thread's buffer in the current session; a stale generation
// means "not registered yet".
struct Binding {
  std::uint64_t gen = 0;
  ThreadBuffer* buf = nullptr;
};
thread_local Binding tl_binding;

}  // namespace

std::uint32_t TraceSession::Table::intern(const char* s) {
  auto it = ids.find(std::string_view(s));
  if (it != ids.end()) return it->second;
  const auto id = std::uint32_t(names.size());
  names.emplace_back(s);
  ids.emplace(names.back(), id);
  return id;
}

TraceSession::TraceSession(Options opt) : opt_(std::move(opt)), gen_(++g_sessions) {
  labels_.names = {"End", "unlabelled"};  // ids 0 and 1, fixed
  for (std::uint32_t i = 0; i < 2; ++i) labels_.ids.emplace(labels_.names[i], i);
  names_.names = {"End"};
  names_.ids.emplace("End", 0);
}

TraceSession::~TraceSession() = default;

void TraceSession::start(const std::vector<int>& cpus, std::uint64_t now) {
  start_ns_ = now;
  if (opt_.format != Format::none) {
    // JOULE_TRACE_DIR's parent was checked: only the last component is made.
    // A failure shows at the first write.
    std::error_code ec;
    std::filesystem::create_directory(opt_.dir, ec);
  }
  const std::size_t cap =
      opt_.format == Format::none ? 0 : opt_.buffer_bytes / sizeof(trace_format::Record);
  for (std::size_t w = 0; w < cpus.size(); ++w)
    workers_.push_back(std::make_unique<ThreadBuffer>(*this, int(w), cpus[w], cap));
}

void TraceSession::bind_worker(int w, int cpu, std::uint64_t now) {
  if (w >= 0 && std::size_t(w) < workers_.size()) {
    tl_binding = Binding{gen_, workers_[std::size_t(w)].get()};
    return;
  }
  const std::size_t cap =
      opt_.format == Format::none ? 0 : opt_.buffer_bytes / sizeof(trace_format::Record);
  ThreadBuffer* b;
  {
    std::lock_guard guard(mutex_);
    others_.push_back(std::make_unique<ThreadBuffer>(*this, w, cpu, cap, true));
    b = others_.back().get();
  }
  tl_binding = Binding{gen_, b};
  b->push(trace_format::Record{now, trace_format::kRecStateBegin, trace_format::kNoCpu,
                               trace_format::kBorrowed, 0});
}

ThreadBuffer& TraceSession::this_thread() {
  Binding& b = tl_binding;
  if (b.gen == gen_) return *b.buf;
  const std::size_t cap =
      opt_.format == Format::none ? 0 : opt_.buffer_bytes / sizeof(trace_format::Record);
  std::lock_guard guard(mutex_);
  others_.push_back(std::make_unique<ThreadBuffer>(*this, -1, -1, cap));
  b = Binding{gen_, others_.back().get()};
  return *b.buf;
}

std::uint32_t TraceSession::intern_label(const char* label) {
  std::lock_guard guard(mutex_);
  return labels_.intern(label);
}

std::uint32_t TraceSession::intern_name(const char* name) {
  if (!name) return 0;
  std::lock_guard guard(mutex_);
  return names_.intern(name);
}

std::uint32_t TraceSession::intern_counter(const char* name, int cpu) {
  std::string track = name ? name : "counter";
  if (cpu >= 0) track.append(" cpu ").append(std::to_string(cpu));
  std::lock_guard guard(mutex_);
  return counters_.intern(track.c_str());
}

std::vector<const ThreadBuffer*> TraceSession::threads() const {
  std::vector<const ThreadBuffer*> out;
  for (const auto& b : workers_) out.push_back(b.get());
  for (const auto& b : others_) out.push_back(b.get());
  return out;
}

std::string TraceSession::file_base() const {
  std::string base = opt_.dir + "/joule-" + std::to_string(::getpid());
  if (opt_.rank >= 0) base.append("-rank").append(std::to_string(opt_.rank));
  if (gen_ > 1) base.append("-").append(std::to_string(gen_));  // later runtimes of this process
  return base;
}

bool TraceSession::truncated() const {
  for (const ThreadBuffer* b : threads())
    if (b->truncated()) return true;
  return false;
}

void TraceSession::stop(std::uint64_t now) {
  stop_ns_ = now;
  std::lock_guard guard(mutex_);
  stats_ = trace_format::RunStats{};
  stats_.set_elapsed_ns(stop_ns_ - start_ns_);
  stats_.set_label_names(labels_.names);
  for (const ThreadBuffer* b : threads())
    stats_.add_thread(b->worker(), b->cpu(), b->stats(), b->guest());
  try {
    if (opt_.format == Format::paraver) files_ = write_paraver(*this, file_base());
    if (opt_.format == Format::chrome) files_ = write_chrome(*this, file_base());
  } catch (const std::exception& e) {
    write_error_ = e.what();
  }
}

}  // namespace joule::trace
