// Small shared segments of the DLB API beside the node's CPU table (the
// barriers, TALP's published times): named after the table, mode 0600, a
// robust process-shared mutex at their head so that a process killed inside
// a critical section does not wedge the others.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace joule::dlb {

// The head every such segment starts with.
struct SegmentHead {
  std::atomic<std::uint32_t> ready;  // set by the creator once initialised
  std::uint32_t removed;             // the last user unlinked the name
  pthread_mutex_t mutex;
};

// "/joule-<kind>-<uid>-<hash of key>"; key holds the table's name.
std::string segment_name(const char* kind, const std::string& key);

// Maps segment `name` of `size` bytes (starting with a SegmentHead),
// creating and zero-filling it if it does not exist and `create`. Returns
// null when it does not exist and !create; throws std::runtime_error if it
// cannot be created or mapped.
SegmentHead* map_segment(const std::string& name, std::size_t size, bool create);
void unmap_segment(SegmentHead* head, std::size_t size);

void lock_segment(SegmentHead& head);
void unlock_segment(SegmentHead& head);

// False once p exited; a zombie counts as dead (its parent may be the very
// process waiting on it, which would only reap it afterwards).
bool process_alive(pid_t p);

}  // namespace joule::dlb
