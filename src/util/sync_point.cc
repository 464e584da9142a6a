#include "util/sync_point.h"

#include <map>
#include <memory>
#include <mutex>

namespace spool::sync_point {
namespace detail {
std::atomic<int> g_active{0};
}  // namespace detail

namespace {
struct Entry {
  std::shared_ptr<std::function<void()>> callback;
  int hits = 0;
};
std::mutex& mu() {
  static std::mutex m;
  return m;
}
std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> r;
  return r;
}
int count_set_locked() {
  int n = 0;
  for (const auto& [_, e] : registry()) n += e.callback != nullptr;
  return n;
}
}  // namespace

void detail::process(const char* name) {
  std::shared_ptr<std::function<void()>> cb;
  {
    std::lock_guard lk(mu());
    auto it = registry().find(name);
    if (it == registry().end() || !it->second.callback) return;
    ++it->second.hits;
    cb = it->second.callback;
  }
  (*cb)();
}

void set_callback(const std::string& name, std::function<void()> callback) {
  std::lock_guard lk(mu());
  Entry& e = registry()[name];
  e.callback = std::make_shared<std::function<void()>>(std::move(callback));
  e.hits = 0;
  detail::g_active.store(count_set_locked(), std::memory_order_relaxed);
}

void clear_callback(const std::string& name) {
  std::lock_guard lk(mu());
  auto it = registry().find(name);
  if (it != registry().end()) it->second.callback.reset();
  detail::g_active.store(count_set_locked(), std::memory_order_relaxed);
}

void clear_all() {
  std::lock_guard lk(mu());
  for (auto& [_, e] : registry()) e.callback.reset();
  detail::g_active.store(0, std::memory_order_relaxed);
}

int hits(const std::string& name) {
  std::lock_guard lk(mu());
  auto it = registry().find(name);
  return it == registry().end() ? 0 : it->second.hits;
}

}  // namespace spool::sync_point
