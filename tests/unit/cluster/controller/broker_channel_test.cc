// QueuedBrokerChannel over the fake transport: per-broker order, one request
// in flight, retry until removal, stale completions ignored.
#include "cluster/controller/queued_broker_channel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cluster/controller/fake_broker_transport.h"

namespace spool::cluster::controller {
namespace {

using testing::FakeBrokerTransport;

BrokerInfo broker(int32_t id, int64_t epoch = 10) {
  BrokerInfo b;
  b.id = id;
  b.epoch = epoch;
  b.endpoints.push_back(BrokerEndpoint{"PLAINTEXT", "h" + std::to_string(id), 9090 + id, "PLAINTEXT"});
  return b;
}

UpdateMetadataRequest um(int32_t epoch) {
  UpdateMetadataRequest r;
  r.controller_epoch = epoch;
  return r;
}

struct Received {
  int32_t broker;
  std::string kind;
  int32_t controller_epoch;
};

class BrokerChannelTest : public ::testing::Test {
 protected:
  BrokerChannelTest() : channel(transport) {
    channel.set_response_handler([this](int32_t b, const ControllerRequest& req, const ControllerResponse&) {
      int32_t e = std::visit([](const auto& r) { return r.controller_epoch; }, req);
      got.push_back(Received{b, request_name(req), e});
    });
  }
  FakeBrokerTransport transport;
  QueuedBrokerChannel channel;
  std::vector<Received> got;
};

TEST_F(BrokerChannelTest, OneInFlightPerBrokerAndFifo) {
  channel.add_broker(broker(1));
  channel.add_broker(broker(2));
  EXPECT_TRUE(transport.connected(1));
  channel.send(1, LeaderAndIsrRequest{});
  channel.send(1, um(1));
  channel.send(1, StopReplicaRequest{});
  channel.send(2, um(7));
  // Only the first of broker 1 is handed over; broker 2 is independent.
  EXPECT_EQ(transport.kinds(1), (std::vector<std::string>{"LeaderAndIsr"}));
  EXPECT_EQ(transport.kinds(2), (std::vector<std::string>{"UpdateMetadata"}));
  EXPECT_EQ(channel.queued(1), 3u);
  ASSERT_TRUE(transport.answer(1));
  EXPECT_EQ(transport.kinds(1), (std::vector<std::string>{"LeaderAndIsr", "UpdateMetadata"}));
  ASSERT_TRUE(transport.answer(1));
  ASSERT_TRUE(transport.answer(1));
  EXPECT_FALSE(transport.answer(1));  // nothing left
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].kind, "LeaderAndIsr");
  EXPECT_EQ(got[1].kind, "UpdateMetadata");
  EXPECT_EQ(got[2].kind, "StopReplica");
  EXPECT_EQ(channel.queued(1), 0u);
}

TEST_F(BrokerChannelTest, FailureRetriesTheSameRequestBeforeTheNext) {
  channel.add_broker(broker(1));
  channel.send(1, um(3));
  channel.send(1, um(4));
  ASSERT_TRUE(transport.fail(1));
  ASSERT_TRUE(transport.fail(1));
  ASSERT_TRUE(transport.answer(1));
  auto sent = transport.sent(1);
  ASSERT_EQ(sent.size(), 4u);  // 3, 3, 3 (answered), then 4
  EXPECT_EQ(std::get<UpdateMetadataRequest>(sent[0]).controller_epoch, 3);
  EXPECT_EQ(std::get<UpdateMetadataRequest>(sent[1]).controller_epoch, 3);
  EXPECT_EQ(std::get<UpdateMetadataRequest>(sent[2]).controller_epoch, 3);
  EXPECT_EQ(std::get<UpdateMetadataRequest>(sent[3]).controller_epoch, 4);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].controller_epoch, 3);
}

TEST_F(BrokerChannelTest, RemovedBrokerStopsRetryingAndLateAnswersAreDropped) {
  channel.add_broker(broker(1));
  channel.send(1, um(1));
  channel.send(1, um(2));
  channel.remove_broker(1);
  EXPECT_FALSE(transport.connected(1));
  EXPECT_FALSE(channel.has_broker(1));
  channel.send(1, um(3));  // unknown broker: dropped
  EXPECT_EQ(transport.sent(1).size(), 1u);
  EXPECT_TRUE(got.empty());
}

TEST_F(BrokerChannelTest, ReAddedBrokerIgnoresTheOldQueuesCompletion) {
  // The old in-flight completion arrives after a bounce (remove + add).
  BrokerTransport::Done stale;
  struct Capture final : BrokerTransport {
    BrokerTransport::Done* slot;
    int sends = 0;
    void connect(const BrokerInfo&) override {}
    void disconnect(int32_t) override {}
    void send(int32_t, const ControllerRequest&, Done done) override {
      ++sends;
      if (!*slot) *slot = std::move(done);
    }
  } capture;
  capture.slot = &stale;
  QueuedBrokerChannel ch(capture);
  int answered = 0;
  ch.set_response_handler([&](int32_t, const ControllerRequest&, const ControllerResponse&) { ++answered; });
  ch.add_broker(broker(1, 10));
  ch.send(1, um(1));
  ch.remove_broker(1);
  ch.add_broker(broker(1, 20));
  ch.send(1, um(2));
  EXPECT_EQ(capture.sends, 2);
  stale(ControllerResponse{});  // belongs to generation 1
  EXPECT_EQ(answered, 0);
  EXPECT_EQ(ch.queued(1), 1u);
}

TEST_F(BrokerChannelTest, AutoAnswerDrainsTheQueueInOrder) {
  transport.set_auto_answer(true);
  channel.add_broker(broker(1));
  for (int i = 0; i < 5; ++i) channel.send(1, um(i));
  ASSERT_EQ(got.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(got[i].controller_epoch, i);
}

TEST_F(BrokerChannelTest, RemoveAllDropsEveryQueue) {
  channel.add_broker(broker(1));
  channel.add_broker(broker(2));
  channel.remove_all();
  EXPECT_FALSE(channel.has_broker(1));
  EXPECT_FALSE(channel.has_broker(2));
  EXPECT_FALSE(transport.connected(2));
}

// A transport whose completions come from its own thread, as the network
// client's do: destroying the channel while one is running or still to come
// must neither crash nor call into the destroyed channel.
class ThreadedTransport final : public BrokerTransport {
 public:
  ~ThreadedTransport() override {
    for (auto& t : threads_) t.join();
  }
  void connect(const BrokerInfo&) override {}
  void disconnect(int32_t) override {}
  void send(int32_t, const ControllerRequest&, Done done) override {
    threads_.emplace_back([done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      done(ControllerResponse{});
    });
  }

 private:
  std::vector<std::thread> threads_;
};

TEST(QueuedBrokerChannelLifetime, DestroyedWhileCompletionsArePending) {
  ThreadedTransport transport;  // outlives the channel, joins its threads last
  std::atomic<int> handled{0};
  for (int round = 0; round < 20; ++round) {
    auto channel = std::make_unique<QueuedBrokerChannel>(transport);
    channel->set_response_handler([&](int32_t, const ControllerRequest&, const ControllerResponse&) { ++handled; });
    channel->add_broker(broker(1));
    channel->send(1, um(1));
    channel->send(1, um(2));
    if (round % 2 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    channel.reset();  // a completion may be running or still to come
  }
  EXPECT_LE(handled.load(), 40);
}

}  // namespace
}  // namespace spool::cluster::controller
