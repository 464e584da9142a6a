#include "timer/system_timer.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <vector>

#include <spdlog/spdlog.h>

#include "timer/timing_wheel.h"

namespace spool::timer {

namespace {

// Floor division that stays correct for negative times (a ManualClock may
// start anywhere).
int64_t round_up(int64_t t, int64_t tick) {
  int64_t mod = t % tick;
  if (mod < 0) mod += tick;
  return mod == 0 ? t : t - mod + tick;
}

void run_task(const std::shared_ptr<TimerTask>& task, const std::string& name) {
  if (task->is_cancelled()) return;
  try {
    task->run();
  } catch (const std::exception& e) {
    spdlog::error("timer {}: task threw: {}", name, e.what());
  } catch (...) {
    spdlog::error("timer {}: task threw a non-standard exception", name);
  }
}

}  // namespace

// Everything a task's cancel() may reach; shared so a task can outlive the
// SystemTimer object without dangling.
class SystemTimer::Core final : public detail::TaskOwner {
 public:
  explicit Core(const SystemTimerOptions& o)
      : name_(o.name),
        clock_(clock_or_system(o.clock)),
        tick_ms_(std::clamp<int64_t>(o.tick_ms, 1, int64_t{1} << 20)),
        wheel_size_(std::clamp(o.wheel_size, 2, 1 << 16)),
        wheel_(std::make_unique<TimingWheel>(tick_ms_, wheel_size_, clock_->monotonic_ms(), &queue_)) {}

  void add(const std::shared_ptr<TimerTask>& task, const std::shared_ptr<Core>& self) {
    std::shared_ptr<detail::TaskOwner> previous;
    {
      std::lock_guard<std::mutex> g(task->owner_mu_);
      if (task->owner_.get() != this) {
        previous = std::move(task->owner_);
        task->owner_ = self;
      }
    }
    if (previous) previous->remove(task.get());  // moved to this timer

    const int64_t now = clock_->monotonic_ms();
    const int64_t exp = now + std::min(task->delay_ms(), kMaxDelayMs);
    bool run_now = false;
    bool new_head = false;
    std::shared_ptr<TimerTask> replaced;
    std::shared_ptr<TimerTask> ref = task;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (task->is_cancelled()) return;
      if (task->list_ != nullptr) {
        replaced = task->list_->remove(task.get());
        size_.fetch_sub(1, std::memory_order_relaxed);
      }
      if (exp <= now) {
        run_now = true;
      } else {
        TimerTaskList* head = queue_.peek();
        const int64_t before = head ? head->expiration() : std::numeric_limits<int64_t>::max();
        task->expiration_ms_ = round_up(exp, tick_ms_);
        if (wheel_->add(ref)) {
          size_.fetch_add(1, std::memory_order_relaxed);
          head = queue_.peek();
          new_head = head != nullptr && head->expiration() < before;
        } else {
          run_now = true;  // the wheel's time is already past the due tick
        }
      }
    }
    if (new_head) cv_.notify_all();
    if (run_now) run_task(task, name_);
  }

  void remove(TimerTask* task) override {
    std::shared_ptr<TimerTask> ref;  // dropped after the lock is released
    std::lock_guard<std::mutex> g(mu_);
    if (task->list_ != nullptr) {
      ref = task->list_->remove(task);
      size_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  // reaper: also return as soon as stop() clears `running`.
  bool advance_clock(int64_t timeout_ms, bool reaper) {
    std::vector<std::shared_ptr<TimerTask>> due;
    {
      std::unique_lock<std::mutex> lk(mu_);
      const uint64_t gen = wake_gen_;
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<int64_t>(timeout_ms, 0));
      for (;;) {
        TimerTaskList* head = queue_.peek();
        const int64_t now = clock_->monotonic_ms();
        if (head != nullptr && head->expiration() <= now) break;
        const auto real_now = std::chrono::steady_clock::now();
        if (real_now >= deadline || wake_gen_ != gen) return false;
        if (reaper && !running.load()) return false;
        auto wait = deadline - real_now;
        if (head != nullptr) {
          wait = std::min<std::chrono::steady_clock::duration>(
              wait, std::chrono::milliseconds(head->expiration() - now));
        }
        cv_.wait_for(lk, wait);
      }
      const int64_t now = clock_->monotonic_ms();
      while (TimerTaskList* bucket = queue_.poll_due(now)) {
        wheel_->advance_clock(bucket->expiration());
        // Re-adding cascades overflow-wheel tasks into finer buckets. A task
        // already due by `now` skips the cascade (the clock may have jumped
        // over several buckets); a cancelled one is released after unlock.
        bucket->flush_each([&](std::shared_ptr<TimerTask>&& t) {
          size_.fetch_sub(1, std::memory_order_relaxed);
          if (t->is_cancelled() || t->expiration_ms_ <= now) {
            due.push_back(std::move(t));
          } else if (wheel_->add(t)) {
            size_.fetch_add(1, std::memory_order_relaxed);
          } else {
            due.push_back(std::move(t));
          }
        });
      }
    }
    // Run and release in one pass: each task's memory is touched once.
    for (auto& t : due) {
      run_task(t, name_);
      t.reset();
    }
    return true;
  }

  void wake() {
    {
      std::lock_guard<std::mutex> g(mu_);
      ++wake_gen_;
    }
    cv_.notify_all();
  }

  // Unlinks every scheduled task; dropping the returned references breaks
  // the cycle task -> owner_ -> core -> bucket -> task.
  void drain(std::vector<std::shared_ptr<TimerTask>>& out) {
    std::lock_guard<std::mutex> g(mu_);
    wheel_->drain(out);
    queue_ = BucketQueue();
    size_.store(0, std::memory_order_relaxed);
  }

  int size() const { return size_.load(std::memory_order_relaxed); }
  int64_t now_ms() const { return clock_->monotonic_ms(); }
  int levels() const {
    std::lock_guard<std::mutex> g(mu_);
    return wheel_->levels();
  }
  const std::string& name() const { return name_; }
  std::atomic<bool> running{false};

 private:
  const std::string name_;
  const std::shared_ptr<Clock> clock_;
  const int64_t tick_ms_;
  const int wheel_size_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  BucketQueue queue_;
  std::unique_ptr<TimingWheel> wheel_;
  std::atomic<int> size_{0};
  uint64_t wake_gen_ = 0;
};

SystemTimer::SystemTimer(SystemTimerOptions options) : core_(std::make_shared<Core>(options)) {}

SystemTimer::~SystemTimer() {
  stop();
  drain();  // the references are dropped here, outside the timer lock
}

std::vector<std::shared_ptr<TimerTask>> SystemTimer::drain() {
  std::vector<std::shared_ptr<TimerTask>> out;
  core_->drain(out);
  return out;
}

void SystemTimer::add(std::shared_ptr<TimerTask> task) {
  if (task) core_->add(task, core_);
}

bool SystemTimer::advance_clock(int64_t timeout_ms) { return core_->advance_clock(timeout_ms, false); }

void SystemTimer::start() {
  std::lock_guard<std::mutex> g(reaper_mu_);
  if (reaper_.joinable()) return;
  core_->running.store(true);
  reaper_ = std::thread([this] { reaper_loop(); });
}

void SystemTimer::stop() {
  std::lock_guard<std::mutex> g(reaper_mu_);
  if (!reaper_.joinable()) return;
  core_->running.store(false);
  core_->wake();
  reaper_.join();
}

void SystemTimer::reaper_loop() {
  std::string thread_name = ("reaper-" + core_->name()).substr(0, 15);
  pthread_setname_np(pthread_self(), thread_name.c_str());
  while (core_->running.load()) core_->advance_clock(kReaperPollMs, true);
}

int SystemTimer::size() const { return core_->size(); }
int64_t SystemTimer::now_ms() const { return core_->now_ms(); }
int SystemTimer::levels() const { return core_->levels(); }

}  // namespace spool::timer
