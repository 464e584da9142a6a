// ControllerEventManager: order, one thread, preemption, bounded shutdown.
#include "cluster/controller/controller_event_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace spool::cluster::controller {
namespace {

using namespace std::chrono_literals;

TEST(ControllerEventManager, ManualModeRunsInOrderIncludingEventsPutWhileRunning) {
  std::vector<std::string> seen;
  ControllerEventManager* self = nullptr;
  ControllerEventManager em([&](ControllerEvent& e) {
    seen.push_back(event_name(e));
    if (std::holds_alternative<StartupEvent>(e)) self->put(TopicChangeEvent{});
  });
  self = &em;
  em.put(StartupEvent{});
  em.put(BrokerChangeEvent{});
  EXPECT_EQ(em.queue_size(), 2u);
  EXPECT_EQ(em.run_pending(), 3u);
  EXPECT_EQ(seen, (std::vector<std::string>{"Startup", "BrokerChange", "TopicChange"}));
  EXPECT_EQ(em.run_pending(), 0u);
}

TEST(ControllerEventManager, ThreadProcessesEveryEventOnOneThreadInOrder) {
  std::vector<int> order;
  std::set<std::thread::id> threads;
  ControllerEventManager em([&](ControllerEvent& e) {
    threads.insert(std::this_thread::get_id());
    order.push_back(std::get<BrokerModificationEvent>(e).broker);
  });
  em.start();
  std::vector<std::thread> producers;
  for (int t = 0; t < 4; ++t) {
    producers.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) em.put(BrokerModificationEvent{t * 1000 + i});
    });
  }
  for (auto& p : producers) p.join();
  ASSERT_TRUE(em.wait_idle(5s));
  ASSERT_EQ(order.size(), 400u);
  EXPECT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
  // Per producer, its events stay in order.
  for (int t = 0; t < 4; ++t) {
    int last = -1;
    for (int v : order) {
      if (v / 1000 != t) continue;
      EXPECT_GT(v, last);
      last = v;
    }
  }
  EXPECT_TRUE(em.shutdown(1s));
}

TEST(ControllerEventManager, ClearAndPutPreemptsQueuedCallbacksWithNotController) {
  std::vector<std::string> seen;
  ControllerEventManager em([&](ControllerEvent& e) { seen.push_back(event_name(e)); });
  std::vector<protocol::ErrorCode> answers;
  em.put(AlterPartitionEvent{{}, [&](const AlterPartitionResult& r) { answers.push_back(r.error); }});
  em.put(ControlledShutdownEvent{1, 5, [&](const ControlledShutdownResult& r) { answers.push_back(r.error); }});
  em.put(BrokerChangeEvent{});
  em.clear_and_put(SessionExpiredEvent{});
  EXPECT_EQ(answers, (std::vector<protocol::ErrorCode>{protocol::ErrorCode::kNotController,
                                                       protocol::ErrorCode::kNotController}));
  em.run_pending();
  EXPECT_EQ(seen, (std::vector<std::string>{"Expire"}));
}

TEST(ControllerEventManager, ShutdownLetsTheRunningEventFinishAndPreemptsTheRest) {
  std::atomic<bool> entered{false};
  std::atomic<bool> release{false};
  std::atomic<int> processed{0};
  ControllerEventManager em([&](ControllerEvent&) {
    entered = true;
    while (!release) std::this_thread::sleep_for(1ms);
    ++processed;
  });
  em.start();
  em.put(StartupEvent{});
  for (int i = 0; i < 200 && !entered; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(entered);
  int answered = 0;
  em.put(ControlledShutdownEvent{1, 1, [&](const ControlledShutdownResult& r) {
    EXPECT_EQ(r.error, protocol::ErrorCode::kNotController);
    ++answered;
  }});
  std::thread releaser([&] {
    std::this_thread::sleep_for(100ms);
    release = true;
  });
  auto t0 = std::chrono::steady_clock::now();
  bool in_time = em.shutdown(20ms);  // the running event needs ~100 ms
  auto took = std::chrono::steady_clock::now() - t0;
  releaser.join();
  EXPECT_FALSE(in_time);
  EXPECT_LT(took, 5s);
  EXPECT_EQ(processed.load(), 1);  // the queued event never ran
  EXPECT_EQ(answered, 1);
  // After shutdown a put preempts at once.
  em.put(AlterPartitionEvent{{}, [&](const AlterPartitionResult& r) {
    EXPECT_EQ(r.error, protocol::ErrorCode::kNotController);
    ++answered;
  }});
  EXPECT_EQ(answered, 2);
  EXPECT_TRUE(em.shutdown(10ms));  // second call is a no-op
}

TEST(ControllerEventManager, ShutdownOfAnIdleThreadIsPrompt) {
  ControllerEventManager em([](ControllerEvent&) {});
  em.start();
  EXPECT_TRUE(em.wait_idle(1s));
  EXPECT_TRUE(em.shutdown(2s));
}

TEST(ControllerEventManager, ExceptionInAnEventDoesNotStopTheThread) {
  std::atomic<int> after{0};
  ControllerEventManager em([&](ControllerEvent& e) {
    if (std::holds_alternative<StartupEvent>(e)) throw std::runtime_error("boom");
    ++after;
  });
  em.start();
  em.put(StartupEvent{});
  em.put(TopicChangeEvent{});
  ASSERT_TRUE(em.wait_idle(5s));
  EXPECT_EQ(after.load(), 1);
}

}  // namespace
}  // namespace spool::cluster::controller
