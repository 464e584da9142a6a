// Timer micro-benchmarks: the hierarchical timing wheel (SystemTimer) against
// the usual baseline, a binary heap (std::priority_queue) with lazy
// cancellation flags. Workload modelled on request timeouts: 1M timers with
// delays uniform in [1, 30000) ms, 90% cancelled before they fire (most
// requests complete before their timeout), then the clock jumps past every
// deadline so the rest expire. Both sides take an uncontended mutex per
// operation, use the same task objects and a fake clock.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <type_traits>
#include <vector>

#include "timer/clock.h"
#include "timer/system_timer.h"
#include "timer/timer_task.h"

namespace spool::timer {
namespace {

constexpr int kTimers = 1'000'000;
constexpr int64_t kMaxDelayMs = 30'000;

std::atomic<int64_t> g_runs{0};

class BenchTask final : public TimerTask {
 public:
  explicit BenchTask(int64_t delay) : TimerTask(delay) {}
  void run() override { g_runs.fetch_add(1, std::memory_order_relaxed); }
};

const std::vector<int64_t>& delays() {
  static const std::vector<int64_t> d = [] {
    std::mt19937_64 rng(7);
    std::vector<int64_t> v(kTimers);
    for (auto& x : v) x = 1 + static_cast<int64_t>(rng() % (kMaxDelayMs - 1));
    return v;
  }();
  return d;
}

std::vector<std::shared_ptr<BenchTask>> make_tasks() {
  std::vector<std::shared_ptr<BenchTask>> tasks;
  tasks.reserve(kTimers);
  for (int64_t d : delays()) tasks.push_back(std::make_shared<BenchTask>(d));
  return tasks;
}

// Baseline: min-heap on deadline; cancel only flags the task, so cancelled
// entries are popped (and skipped) when their deadline comes.
class HeapTimer {
 public:
  explicit HeapTimer(const Clock* clock) : clock_(clock) {}
  void add(std::shared_ptr<TimerTask> task) {
    std::lock_guard<std::mutex> g(mu_);
    heap_.push(Entry{clock_->now_ms() + task->delay_ms(), std::move(task)});
  }
  void advance() {
    std::vector<std::shared_ptr<TimerTask>> due;
    {
      std::lock_guard<std::mutex> g(mu_);
      const int64_t now = clock_->now_ms();
      while (!heap_.empty() && heap_.top().due <= now) {
        if (!heap_.top().task->is_cancelled()) due.push_back(heap_.top().task);
        heap_.pop();
      }
    }
    for (auto& t : due) t->run();
  }
  size_t size() const { return heap_.size(); }

 private:
  struct Entry {
    int64_t due;
    std::shared_ptr<TimerTask> task;
    bool operator>(const Entry& o) const { return due > o.due; }
  };
  const Clock* clock_;
  std::mutex mu_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
};

SystemTimerOptions wheel_options(std::shared_ptr<Clock> clock, int wheel_size) {
  SystemTimerOptions o;
  o.name = "bench";
  o.tick_ms = 1;
  o.wheel_size = wheel_size;
  o.clock = std::move(clock);
  return o;
}

// One round: insert every timer, cancel 90% (optionally), then expire the
// rest — either by one jump of the clock past every deadline (step_ms = 0) or
// by stepping it like a reaper waking every step_ms.
template <typename Timer>
void cycle(benchmark::State& state, Timer& timer, ManualClock& clock, bool cancel_most, int64_t step_ms) {
  state.PauseTiming();
  auto tasks = make_tasks();
  const int64_t start = clock.now_ms();
  state.ResumeTiming();
  for (auto& t : tasks) timer.add(t);
  if (cancel_most) {
    for (int i = 0; i < kTimers; ++i) {
      if (i % 10 != 0) tasks[i]->cancel();
    }
  }
  const int64_t end = start + kMaxDelayMs + 1;
  for (int64_t now = step_ms > 0 ? start + step_ms : end;; now = std::min(end, now + step_ms)) {
    clock.set(now);
    if constexpr (std::is_same_v<Timer, SystemTimer>) {
      timer.advance_clock(0);
    } else {
      timer.advance();
    }
    if (now == end) break;
  }
  state.PauseTiming();
  tasks.clear();
  state.ResumeTiming();
}

// The clock is shared by every timer of one run and only moves forward,
// like a steady clock.
template <typename Timer>
void run_bench(benchmark::State& state, bool cancel_most) {
  static auto clock = std::make_shared<ManualClock>(0);
  const int64_t step_ms = state.range(0);
  g_runs = 0;
  for (auto _ : state) {
    if constexpr (std::is_same_v<Timer, SystemTimer>) {
      SystemTimer timer(wheel_options(clock, static_cast<int>(state.range(1))));
      cycle(state, timer, *clock, cancel_most, step_ms);
    } else {
      HeapTimer timer(clock.get());
      cycle(state, timer, *clock, cancel_most, step_ms);
    }
  }
  state.SetItemsProcessed(state.iterations() * kTimers);
  state.counters["fired_per_iter"] = static_cast<double>(g_runs.load()) / static_cast<double>(state.iterations());
}

void BM_Wheel_Insert1M_Cancel90_Expire(benchmark::State& state) { run_bench<SystemTimer>(state, true); }
void BM_Heap_Insert1M_Cancel90_Expire(benchmark::State& state) { run_bench<HeapTimer>(state, true); }
void BM_Wheel_Insert1M_Expire(benchmark::State& state) { run_bench<SystemTimer>(state, false); }
void BM_Heap_Insert1M_Expire(benchmark::State& state) { run_bench<HeapTimer>(state, false); }

// Args: step = clock step in ms while expiring (0: one jump past every
// deadline, 1: a reaper waking every ms); wheel = wheel size with a 1 ms tick
// (20 is Kafka's purgatory default: 4 levels for 30 s; 512 needs 2).
void wheel_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"step", "wheel"});
  for (int64_t step : {0, 1}) {
    for (int64_t wheel : {20, 512}) b->Args({step, wheel});
  }
}
void heap_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"step"});
  b->Arg(0)->Arg(1);
}
BENCHMARK(BM_Wheel_Insert1M_Cancel90_Expire)->Apply(wheel_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Heap_Insert1M_Cancel90_Expire)->Apply(heap_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Wheel_Insert1M_Expire)->Apply(wheel_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Heap_Insert1M_Expire)->Apply(heap_args)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace spool::timer
