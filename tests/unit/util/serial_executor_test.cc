// SerialExecutor: FIFO on one other thread, stop() runs what is queued, a
// post after stop() runs inline, an exception does not end the thread.
#include "util/serial_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace spool {
namespace {

TEST(SerialExecutor, RunsInPostingOrderOnItsOwnThread) {
  SerialExecutor ex("test-exec");
  std::mutex mu;
  std::vector<int> seen;
  std::atomic<bool> other_thread{true};
  const auto me = std::this_thread::get_id();
  for (int i = 0; i < 1000; ++i) {
    ex.post([&, i] {
      if (std::this_thread::get_id() == me) other_thread = false;
      std::lock_guard lk(mu);
      seen.push_back(i);
    });
  }
  ex.stop();  // runs everything queued first
  ASSERT_EQ(seen.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(seen[i], i);
  EXPECT_TRUE(other_thread.load());
}

TEST(SerialExecutor, ExceptionIsLoggedAndLaterWorkStillRuns) {
  SerialExecutor ex("test-exec");
  std::atomic<int> ran{0};
  ex.post([] { throw std::runtime_error("boom"); });
  ex.post([&] { ++ran; });
  ex.stop();
  EXPECT_EQ(ran.load(), 1);
}

TEST(SerialExecutor, PostAfterStopRunsInline) {
  SerialExecutor ex("test-exec");
  ex.stop();
  ex.stop();  // idempotent
  std::thread::id where;
  ex.post([&] { where = std::this_thread::get_id(); });
  EXPECT_EQ(where, std::this_thread::get_id());
}

}  // namespace
}  // namespace spool
