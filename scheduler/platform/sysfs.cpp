#include "sysfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>

namespace joule::platform {

Sysfs::Sysfs(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_ == "/") root_.clear();  // kernel paths already start with '/'
}

std::string Sysfs::path(std::string_view kernel_path) const {
  return root_ + std::string(kernel_path);
}

bool Sysfs::exists(std::string_view kernel_path) const {
  return ::access(path(kernel_path).c_str(), F_OK) == 0;
}

std::optional<std::string> Sysfs::read_raw(std::string_view kernel_path) const {
  const int fd = ::open(path(kernel_path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, std::size_t(n));
  }
  ::close(fd);
  return out;
}

std::optional<std::string> Sysfs::read(std::string_view kernel_path) const {
  auto s = read_raw(kernel_path);
  if (!s) return s;
  while (!s->empty() && (s->back() == '\n' || s->back() == ' ' || s->back() == '\t')) s->pop_back();
  return s;
}

std::optional<std::uint64_t> Sysfs::read_u64(std::string_view kernel_path) const {
  auto s = read(kernel_path);
  if (!s) return std::nullopt;
  std::string_view v(*s);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  std::uint64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size() || v.empty()) return std::nullopt;
  return x;
}

bool Sysfs::writable(std::string_view kernel_path) const {
  const std::string p = path(kernel_path);
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if ((st.st_mode & 0222) == 0) return false;
  return ::access(p.c_str(), W_OK) == 0;
}

bool Sysfs::write(std::string_view kernel_path, std::string_view value) const {
  if (!writable(kernel_path)) {
    errno = exists(kernel_path) ? EACCES : ENOENT;
    return false;
  }
  return write_file_raw(path(kernel_path).c_str(), value.data(), value.size());
}

std::vector<std::string> Sysfs::list(std::string_view kernel_dir) const {
  std::vector<std::string> out;
  DIR* d = ::opendir(path(kernel_dir).c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string Sysfs::canonical(std::string_view kernel_path) const {
  const std::string p = path(kernel_path);
  char buf[PATH_MAX];
  if (::realpath(p.c_str(), buf)) return buf;
  return p;
}

bool write_file_raw(const char* real_path, const char* data, std::size_t len) noexcept {
  const int fd = ::open(real_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = true;
  while (len > 0) {
    const ssize_t n = ::write(fd, data, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    data += n;
    len -= std::size_t(n);
  }
  if (::close(fd) != 0) ok = false;
  return ok;
}

std::vector<int> parse_cpu_set(std::string_view text) {
  std::vector<int> out;
  std::size_t i = 0;
  auto number = [&](int& x) {
    auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), x);
    if (ec != std::errc()) return false;
    i = std::size_t(p - text.data());
    return true;
  };
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == ',' || text[i] == '\n' || text[i] == '\t') {
      ++i;
      continue;
    }
    int a = 0, b = 0;
    if (!number(a)) break;
    b = a;
    if (i < text.size() && text[i] == '-') {
      ++i;
      if (!number(b)) break;
    }
    for (int c = a; c <= b && c - a < 65536; ++c) out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace joule::platform
