// SystemTimer / TimingWheel behaviour on a fake clock: exact firing tick,
// overflow wheels, cancel, already-due tasks, crowded buckets.
#include "timer/system_timer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "timer/clock.h"

namespace spool::timer {
namespace {

// Records the clock reading each time it runs.
class RecordingTask : public TimerTask {
 public:
  RecordingTask(int64_t delay, const Clock* clock) : TimerTask(delay), clock_(clock) {}
  void run() override {
    fired_at.push_back(clock_->now_ms());
    if (on_run) on_run();
  }
  std::vector<int64_t> fired_at;
  std::function<void()> on_run;

 private:
  const Clock* clock_;
};

struct Fixture {
  explicit Fixture(int64_t tick = 1, int wheel = 20, int64_t start = 0)
      : clock(std::make_shared<ManualClock>(start)), timer([&] {
          SystemTimerOptions o;
          o.tick_ms = tick;
          o.wheel_size = wheel;
          o.clock = clock;
          return o;
        }()) {}
  std::shared_ptr<RecordingTask> add(int64_t delay) {
    auto t = std::make_shared<RecordingTask>(delay, clock.get());
    timer.add(t);
    return t;
  }
  void set(int64_t now) {
    clock->set(now);
    timer.advance_clock(0);
  }
  std::shared_ptr<ManualClock> clock;
  SystemTimer timer;
};

TEST(SystemTimer, FiresAtExactTickAcrossOverflowLevels) {
  Fixture f(1, 20);
  // 20, 400, 8000, 160000, 3.2M: each boundary of the first five levels.
  std::vector<int64_t> delays = {1, 2, 19, 20, 21, 399, 400, 401, 7999, 8000, 8001,
                                 159999, 160000, 160001, 3'200'000, 3'200'001, 64'000'123};
  std::vector<std::shared_ptr<RecordingTask>> tasks;
  for (int64_t d : delays) tasks.push_back(f.add(d));
  EXPECT_EQ(f.timer.size(), static_cast<int>(delays.size()));
  EXPECT_GE(f.timer.levels(), 6);
  for (size_t i = 0; i < delays.size(); ++i) {
    f.set(delays[i] - 1);
    EXPECT_TRUE(tasks[i]->fired_at.empty()) << "delay " << delays[i] << " fired early";
    f.set(delays[i]);
    ASSERT_EQ(tasks[i]->fired_at.size(), 1u) << "delay " << delays[i];
    EXPECT_EQ(tasks[i]->fired_at[0], delays[i]);
    for (size_t j = i + 1; j < delays.size(); ++j) EXPECT_TRUE(tasks[j]->fired_at.empty());
  }
  EXPECT_EQ(f.timer.size(), 0);
  f.set(100'000'000);
  for (auto& t : tasks) EXPECT_EQ(t->fired_at.size(), 1u);
}

TEST(SystemTimer, CoarseTickNeverEarlyAtMostOneTickLate) {
  Fixture f(10, 8, 3);  // the clock starts mid-tick
  std::vector<std::shared_ptr<RecordingTask>> tasks;
  for (int64_t d = 1; d <= 400; ++d) tasks.push_back(f.add(d));
  for (int64_t now = 3; now <= 3 + 420; ++now) {
    f.set(now);
    for (int64_t d = 1; d <= 400; ++d) {
      const auto& fired = tasks[d - 1]->fired_at;
      if (now < 3 + d) {
        EXPECT_TRUE(fired.empty()) << "d=" << d << " now=" << now;
      }
      if (now >= 3 + d + 10) {
        EXPECT_EQ(fired.size(), 1u) << "d=" << d << " now=" << now;
      }
    }
  }
  for (auto& t : tasks) {
    ASSERT_EQ(t->fired_at.size(), 1u);
    EXPECT_GE(t->fired_at[0], 3 + t->delay_ms());
    EXPECT_LT(t->fired_at[0], 3 + t->delay_ms() + 10);
  }
}

TEST(SystemTimer, RandomStepsFireEachTaskOnceInOrder) {
  Fixture f(1, 8);
  std::mt19937_64 rng(42);
  std::vector<std::shared_ptr<RecordingTask>> tasks;
  for (int i = 0; i < 5000; ++i) tasks.push_back(f.add(1 + static_cast<int64_t>(rng() % 100'000)));
  EXPECT_GE(f.timer.levels(), 5);
  int64_t now = 0;
  while (now < 100'000) {
    now += 1 + static_cast<int64_t>(rng() % 700);
    f.set(now);
    for (auto& t : tasks) {
      if (t->delay_ms() <= now) {
        ASSERT_EQ(t->fired_at.size(), 1u);
        EXPECT_GE(t->fired_at[0], t->delay_ms());
      } else {
        ASSERT_TRUE(t->fired_at.empty());
      }
    }
  }
  EXPECT_EQ(f.timer.size(), 0);
}

TEST(SystemTimer, CancelBeforeExpiryPreventsRun) {
  Fixture f;
  std::vector<std::shared_ptr<RecordingTask>> tasks;
  for (int i = 0; i < 1000; ++i) tasks.push_back(f.add(1 + i * 37));
  for (int i = 0; i < 1000; i += 2) tasks[i]->cancel();
  EXPECT_EQ(f.timer.size(), 500);
  tasks[1]->cancel();
  tasks[1]->cancel();  // idempotent
  EXPECT_EQ(f.timer.size(), 499);
  f.set(1'000'000);
  for (int i = 0; i < 1000; ++i) {
    const bool cancelled = i % 2 == 0 || i == 1;
    EXPECT_EQ(tasks[i]->fired_at.size(), cancelled ? 0u : 1u) << i;
  }
  // A cancelled task stays cancelled.
  f.timer.add(tasks[0]);
  EXPECT_EQ(f.timer.size(), 0);
}

TEST(SystemTimer, AlreadyDueTaskRunsAtOnce) {
  Fixture f(1, 20, 500);
  auto zero = f.add(0);
  ASSERT_EQ(zero->fired_at.size(), 1u);
  EXPECT_EQ(zero->fired_at[0], 500);
  auto negative = f.add(-20);
  EXPECT_EQ(negative->fired_at.size(), 1u);
  EXPECT_EQ(f.timer.size(), 0);
}

TEST(SystemTimer, ManyTasksInOneBucket) {
  Fixture f;
  std::vector<std::shared_ptr<RecordingTask>> tasks;
  for (int i = 0; i < 20000; ++i) tasks.push_back(f.add(7));
  for (int i = 0; i < 20000; i += 3) tasks[i]->cancel();
  f.set(6);
  EXPECT_EQ(f.timer.size(), 20000 - 6667);
  f.set(7);
  EXPECT_EQ(f.timer.size(), 0);
  for (int i = 0; i < 20000; ++i) EXPECT_EQ(tasks[i]->fired_at.size(), i % 3 == 0 ? 0u : 1u);
}

TEST(SystemTimer, ReAddingReschedules) {
  Fixture f;
  auto t = f.add(10);
  f.set(5);
  f.timer.add(t);  // now due at 15
  EXPECT_EQ(f.timer.size(), 1);
  f.set(14);
  EXPECT_TRUE(t->fired_at.empty());
  f.set(15);
  EXPECT_EQ(t->fired_at, std::vector<int64_t>{15});
}

TEST(SystemTimer, TaskMayScheduleAnotherWhileRunning) {
  Fixture f;
  auto second = std::make_shared<RecordingTask>(5, f.clock.get());
  auto first = f.add(3);
  first->on_run = [&] { f.timer.add(second); };
  f.set(3);
  EXPECT_EQ(f.timer.size(), 1);
  f.set(8);
  EXPECT_EQ(second->fired_at, std::vector<int64_t>{8});
}

TEST(SystemTimer, IdleTimerCascadesToFreshTime) {
  // The wheel's own time stays where the last bucket left it; a task added
  // much later must still fire exactly on time.
  Fixture f;
  f.set(1'000'000);
  auto t = f.add(5);
  f.set(1'000'004);
  EXPECT_TRUE(t->fired_at.empty());
  f.set(1'000'005);
  EXPECT_EQ(t->fired_at, std::vector<int64_t>{1'000'005});
}

TEST(SystemTimer, DestructionReleasesPendingTasks) {
  std::weak_ptr<RecordingTask> weak;
  {
    Fixture f;
    auto t = f.add(100);
    weak = t;
  }
  EXPECT_TRUE(weak.expired());
}

TEST(SystemTimer, CancelRacesWithExpiry) {
  Fixture f;
  std::vector<std::shared_ptr<RecordingTask>> tasks;
  for (int i = 0; i < 20000; ++i) tasks.push_back(f.add(1 + i % 200));
  std::thread canceller([&] {
    for (size_t i = 0; i < tasks.size(); i += 2) tasks[i]->cancel();
  });
  for (int64_t now = 1; now <= 200; ++now) f.set(now);
  canceller.join();
  f.set(1000);
  for (size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_LE(tasks[i]->fired_at.size(), 1u);
    if (i % 2 == 1) {
      EXPECT_EQ(tasks[i]->fired_at.size(), 1u);
    }
  }
  EXPECT_EQ(f.timer.size(), 0);
}

TEST(SystemTimer, ReaperThreadFiresOnRealClock) {
  SystemTimerOptions o;
  o.name = "test";
  SystemTimer timer(o);
  timer.start();
  std::atomic<int> fired{0};
  struct Flag : TimerTask {
    Flag(std::atomic<int>* f) : TimerTask(20), f_(f) {}
    void run() override { f_->fetch_add(1); }
    std::atomic<int>* f_;
  };
  const auto start = std::chrono::steady_clock::now();
  timer.add(std::make_shared<Flag>(&fired));
  while (fired.load() == 0 && std::chrono::steady_clock::now() - start < std::chrono::seconds(2)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(fired.load(), 1);
  EXPECT_GE(waited, std::chrono::milliseconds(19));
  const auto stop_start = std::chrono::steady_clock::now();
  timer.stop();
  timer.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - stop_start, std::chrono::milliseconds(100));
}

}  // namespace
}  // namespace spool::timer
