// Named sync points (RocksDB's test_util/sync_point.h is the model).
//
// Production code marks a place with SPOOL_SYNC_POINT("Component::Where").
// A test attaches a callback to that name to stop the thread there (block on
// a latch), change state under it, or crash at exactly that instant (freeze
// the FaultFs: storage/fault_fs.h). Unmarked behaviour never changes: with
// no callback set anywhere, a sync point costs one relaxed atomic load.
//
// Names are "Class::place" and are listed where they are used; a test that
// sets a name nobody reaches fails its own expectations (hits() stays 0).
//
// Threading: callbacks run on the thread that reaches the point, outside
// the registry lock (they may block, and may set or clear other points).
// set/clear from any thread; a callback being cleared may still be running.
#pragma once

#include <atomic>
#include <functional>
#include <string>

namespace spool::sync_point {

namespace detail {
extern std::atomic<int> g_active;  // callbacks set
void process(const char* name);
}  // namespace detail

inline bool active() { return detail::g_active.load(std::memory_order_relaxed) != 0; }

void set_callback(const std::string& name, std::function<void()> callback);
void clear_callback(const std::string& name);
void clear_all();
// Times `name` was reached while it had a callback.
int hits(const std::string& name);

// A callback for the life of the object.
class Scoped {
 public:
  Scoped(std::string name, std::function<void()> callback) : name_(std::move(name)) {
    set_callback(name_, std::move(callback));
  }
  ~Scoped() { clear_callback(name_); }
  Scoped(const Scoped&) = delete;
  Scoped& operator=(const Scoped&) = delete;

 private:
  std::string name_;
};

}  // namespace spool::sync_point

#define SPOOL_SYNC_POINT(name)                                            \
  do {                                                                    \
    if (::spool::sync_point::active()) ::spool::sync_point::detail::process(name); \
  } while (0)
