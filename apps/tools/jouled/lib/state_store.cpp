#include "state_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "state_check.hpp"

namespace joule::service {

namespace ps = platform::service_client;
constexpr const char* kLeasesFile = "leases";

StateStore::StateStore(std::string dir, std::string sysfs_root)
    : dir_(std::move(dir)), sysfs_root_(std::move(sysfs_root)) {}

bool StateStore::open(std::string* why) {
  if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
    *why = "cannot create the state folder " + dir_ + ": " + std::strerror(errno);
    return false;
  }
  std::string reason;
  if (!platform::trusted_state_dir(dir_, &reason)) {
    *why = "state folder " + dir_ + " refused: " + reason +
           " (allowed: a folder owned by root, mode 0700 or 0755)";
    return false;
  }
  return true;
}

void StateStore::load(std::vector<std::string>* messages) {
  const std::string mine = platform::state_file_name(::getpid());
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (auto* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.rfind("joule-", 0) == 0 && n.size() > 6 && n.substr(n.size() - 6) == ".state" &&
          n != mine)
        names.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    std::string why;
    auto rec = platform::load_trusted_state(dir_, n, sysfs_root_, &why);
    if (!rec) {
      messages->push_back(dir_ + "/" + n + " refused: " + why + "; left alone");
      continue;
    }
    for (const auto& f : rec->files)
      if (!originals_.count(f.path)) {
        originals_[f.path] = f.content;
        order_.push_back(f.path);
      }
    stale_files_.push_back(dir_ + "/" + n);
  }
  std::string why;
  auto text = platform::read_trusted_state_text(dir_, kLeasesFile, &why);
  if (!text) {
    if (::access((dir_ + "/" + kLeasesFile).c_str(), F_OK) == 0)
      messages->push_back(dir_ + "/" + kLeasesFile + " refused: " + why);
    return;
  }
  std::istringstream in(*text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    std::string err;
    auto l = ps::parse_line(line, &err);
    if (!l || l->verb() != "lease") {
      messages->push_back(dir_ + "/" + kLeasesFile + ":" + std::to_string(n) +
                          ": not a lease line (" + (l ? "verb " + l->verb() : err) + "); skipped");
      continue;
    }
    loaded_leases_.push_back(*l);
  }
}

bool StateStore::save(const std::string& real_path, const std::string& content, std::string* why) {
  if (originals_.count(real_path)) return true;
  originals_[real_path] = content;
  order_.push_back(real_path);
  if (write_originals(why)) return true;
  originals_.erase(real_path);
  order_.pop_back();
  return false;
}

std::optional<std::string> StateStore::original(const std::string& real_path) const {
  auto it = originals_.find(real_path);
  if (it == originals_.end()) return std::nullopt;
  return it->second;
}

std::vector<platform::SavedFile> StateStore::originals_of(
    const std::vector<std::string>& real_paths) const {
  std::vector<platform::SavedFile> out;
  for (const auto& p : order_)
    if (std::find(real_paths.begin(), real_paths.end(), p) != real_paths.end())
      out.push_back({p, originals_.at(p)});
  return out;
}

void StateStore::drop(const std::vector<std::string>& real_paths) {
  for (const auto& p : real_paths) originals_.erase(p);
  order_.erase(std::remove_if(order_.begin(), order_.end(),
                              [&](const std::string& p) { return !originals_.count(p); }),
               order_.end());
}

bool StateStore::write_originals(std::string* why) {
  platform::StateRecord rec;
  rec.pid = ::getpid();
  rec.start_time = platform::process_start_time(rec.pid);
  rec.files = originals_of(order_);
  if (!platform::write_state_file(dir_, rec, why)) return false;
  // Ours now holds everything the earlier instances' files held.
  for (const auto& f : stale_files_) ::unlink(f.c_str());
  stale_files_.clear();
  return true;
}

bool StateStore::write_leases(const std::vector<ps::Line>& leases, std::string* why) {
  std::string text;
  for (const auto& l : leases) text += l.format();
  return platform::write_private_file(dir_ + "/" + kLeasesFile, text, why);
}

}  // namespace joule::service
