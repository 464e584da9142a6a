// AlterPartitionSender against FakeBroker controllers: one request in
// flight, batching of what is submitted meanwhile, one pending change per
// partition, NOT_CONTROLLER followed to the controller the MetadataCache
// names next, network errors retried, unanswered partitions re-sent, and
// ControlledShutdown. Every wait is bounded.
#include "cluster/alter_partition_sender.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "client/fake_broker.h"
#include "wire_round_trip.h"

namespace spool::cluster {
namespace {

using client::testing::Action;
using client::testing::FakeBroker;
using client::testing::ReceivedRequest;
using protocol::ErrorCode;
using testing::id_of;

constexpr int16_t kAlterPartition = 56;
constexpr int16_t kControlledShutdown = 7;

client::testing::Ranges ranges() { return {{18, {0, 3}}, {kAlterPartition, {0, 3}}, {kControlledShutdown, {0, 3}}}; }

protocol::AlterPartitionRequest decode_request(const ReceivedRequest& req) {
  protocol::AlterPartitionRequest r;
  ByteReader reader(req.body);
  EXPECT_TRUE(r.decode(reader, req.header.api_version));
  return r;
}

// Accepts every proposed ISR: leader 1, the same epochs, partition epoch + 1.
protocol::AlterPartitionResponse accept_all(const protocol::AlterPartitionRequest& r, int16_t version) {
  protocol::AlterPartitionResponse resp;
  for (const auto& t : r.topics) {
    protocol::AlterPartitionResponse::TopicData td;
    td.topic_name = t.topic_name;
    td.topic_id = t.topic_id;
    for (const auto& p : t.partitions) {
      protocol::AlterPartitionResponse::TopicData::PartitionData pd;
      pd.partition_index = p.partition_index;
      pd.leader_id = 1;
      pd.leader_epoch = p.leader_epoch;
      if (version >= 3) {
        for (const auto& b : p.new_isr_with_epochs) pd.isr.push_back(b.broker_id);
      } else {
        pd.isr = p.new_isr;
      }
      pd.partition_epoch = p.partition_epoch + 1;
      td.partitions.push_back(pd);
    }
    resp.topics.push_back(td);
  }
  return resp;
}

MetadataUpdate controller_is(int32_t controller, const std::vector<std::pair<int32_t, uint16_t>>& brokers,
                             int32_t epoch) {
  MetadataUpdate u;
  u.controller_id = controller;
  u.controller_epoch = epoch;
  for (auto [id, port] : brokers) u.live_brokers.push_back({id, {{"PLAINTEXT", "127.0.0.1", port, "PLAINTEXT"}}, {}});
  return u;
}

client::NetworkClientOptions fast_client() {
  client::NetworkClientOptions o;
  o.request_timeout_ms = 2000;
  o.connect_timeout_ms = 1000;
  o.reconnect_backoff_ms = 10;
  o.reconnect_backoff_max_ms = 20;
  o.reconnect_backoff_jitter = 0.0;
  o.seed = 1;
  return o;
}

class Outcomes {
 public:
  AlterPartitionSender::Callback callback() {
    return [this](const AlterPartitionOutcome& o) {
      std::lock_guard<std::mutex> l(mu_);
      got_.push_back(o);
      cv_.notify_all();
    };
  }
  bool wait(size_t n, int timeout_ms = 5000) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::milliseconds(timeout_ms), [&] { return got_.size() >= n; });
  }
  std::vector<AlterPartitionOutcome> all() {
    std::lock_guard<std::mutex> l(mu_);
    return got_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<AlterPartitionOutcome> got_;
};

AlterPartitionEntry entry(const std::string& topic, int32_t partition, std::vector<int32_t> isr, uint8_t id = 10) {
  return AlterPartitionEntry{TopicPartition(topic, partition), id_of(id), 3, std::move(isr), 4, 0};
}

struct Fixture {
  explicit Fixture(AlterPartitionSenderOptions o = {}) : client(fast_client()) {
    timer.start();
    o.broker_id = 7;
    o.retry_backoff_ms = 30;
    sender = std::make_unique<AlterPartitionSender>(o, client, cache, timer, [this] { return epoch.load(); });
  }
  ~Fixture() {
    sender.reset();
    client.shutdown();
    timer.stop();
  }
  client::NetworkClient client;
  MetadataCache cache;
  timer::SystemTimer timer;
  std::atomic<int64_t> epoch{500};
  std::unique_ptr<AlterPartitionSender> sender;
};

size_t alter_requests(const FakeBroker& b) {
  size_t n = 0;
  for (const auto& r : b.user_requests()) n += r.header.api_key == kAlterPartition;
  return n;
}

TEST(AlterPartitionSender, OneInFlightAndTheRestBatched) {
  FakeBroker controller(ranges());
  std::atomic<int> seen{0};
  controller.set_script([&](const ReceivedRequest& req) {
    auto r = decode_request(req);
    // The first answer is held back so that more is submitted meanwhile.
    int delay = seen.fetch_add(1) == 0 ? 300 : 0;
    return Action::write(client::testing::answer(req, accept_all(r, req.header.api_version)), delay);
  });
  Outcomes got;  // outlives the sender
  Fixture f;
  f.cache.apply(controller_is(1, {{1, controller.port()}}, 1));
  ASSERT_TRUE(f.sender->submit(entry("a", 0, {1, 7}), got.callback()));
  ASSERT_TRUE(controller.wait_for([&] { return alter_requests(controller) == 1; }));
  EXPECT_TRUE(f.sender->in_flight());
  EXPECT_FALSE(f.sender->submit(entry("a", 0, {7}), got.callback())) << "a-0 already pending";
  ASSERT_TRUE(f.sender->submit(entry("b", 1, {7, 2}, 20), got.callback()));
  ASSERT_TRUE(f.sender->submit(entry("a", 2, {7}), got.callback()));
  EXPECT_EQ(f.sender->pending(), 3u);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(alter_requests(controller), 1u) << "nothing more while one is in flight";

  ASSERT_TRUE(got.wait(3));
  auto reqs = controller.user_requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].header.api_version, 3);
  auto first = decode_request(reqs[0]);
  EXPECT_EQ(first.broker_id, 7);
  EXPECT_EQ(first.broker_epoch, 500);
  ASSERT_EQ(first.topics.size(), 1u);
  ASSERT_EQ(first.topics[0].partitions.size(), 1u);
  auto second = decode_request(reqs[1]);
  ASSERT_EQ(second.topics.size(), 2u) << "b-1 and a-2 go together";
  EXPECT_EQ(second.topics[0].topic_id, id_of(10));
  EXPECT_EQ(second.topics[0].partitions[0].partition_index, 2);
  EXPECT_EQ(second.topics[1].topic_id, id_of(20));
  EXPECT_EQ(second.topics[1].partitions[0].new_isr_with_epochs.size(), 2u);

  auto all = got.all();
  EXPECT_EQ(all[0], (AlterPartitionOutcome{TopicPartition("a", 0), ErrorCode::kNone, 1, 3, {1, 7}, 5, 0}));
  EXPECT_EQ(f.sender->pending(), 0u);
  EXPECT_FALSE(f.sender->in_flight());
  EXPECT_TRUE(f.sender->submit(entry("a", 0, {7}), got.callback())) << "answered: a-0 may be submitted again";
  ASSERT_TRUE(got.wait(4));
}

TEST(AlterPartitionSender, WithoutTopicIdsUsesV1Names) {
  FakeBroker controller(ranges());
  controller.set_script([&](const ReceivedRequest& req) {
    return Action::write(client::testing::answer(req, accept_all(decode_request(req), req.header.api_version)));
  });
  Outcomes got;  // outlives the sender
  Fixture f;
  f.cache.apply(controller_is(1, {{1, controller.port()}}, 1));
  AlterPartitionEntry e = entry("old", 0, {1});
  e.topic_id = TopicId{};
  ASSERT_TRUE(f.sender->submit(e, got.callback()));
  ASSERT_TRUE(got.wait(1));
  auto reqs = controller.user_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].header.api_version, 1);
  EXPECT_EQ(decode_request(reqs[0]).topics[0].topic_name, "old");
  EXPECT_EQ(got.all()[0].partition, TopicPartition("old", 0));
  EXPECT_EQ(got.all()[0].isr, std::vector<int32_t>{1});
}

TEST(AlterPartitionSender, NotControllerIsRetriedAtTheNewController) {
  FakeBroker old_controller(ranges());
  FakeBroker new_controller(ranges());
  old_controller.set_script([&](const ReceivedRequest& req) {
    protocol::AlterPartitionResponse resp;
    resp.error_code = ErrorCode::kNotController;
    return Action::write(client::testing::answer(req, resp));
  });
  new_controller.set_script([&](const ReceivedRequest& req) {
    return Action::write(client::testing::answer(req, accept_all(decode_request(req), req.header.api_version)));
  });
  Outcomes got;  // outlives the sender
  Fixture f;
  f.cache.apply(controller_is(1, {{1, old_controller.port()}, {2, new_controller.port()}}, 1));
  ASSERT_TRUE(f.sender->submit(entry("a", 0, {1, 7}), got.callback()));
  // Retried (after the backoff) at the same controller while the cache says so.
  ASSERT_TRUE(old_controller.wait_for([&] { return alter_requests(old_controller) >= 2; }));
  EXPECT_EQ(got.all().size(), 0u);
  EXPECT_EQ(f.sender->pending(), 1u);
  f.cache.apply(controller_is(2, {{1, old_controller.port()}, {2, new_controller.port()}}, 2));
  ASSERT_TRUE(got.wait(1));
  EXPECT_EQ(got.all()[0].error, ErrorCode::kNone);
  EXPECT_EQ(alter_requests(new_controller), 1u);
  auto r = decode_request(new_controller.user_requests()[0]);
  EXPECT_EQ(r.topics[0].partitions[0].partition_index, 0);
}

TEST(AlterPartitionSender, DroppedConnectionAndMissingPartitionAreResent) {
  FakeBroker controller(ranges());
  std::atomic<int> n{0};
  controller.set_script([&](const ReceivedRequest& req) {
    const int i = n.fetch_add(1);
    if (i == 0) return Action::close();  // network error
    auto r = decode_request(req);
    auto resp = accept_all(r, req.header.api_version);
    if (i == 1) {
      // Leave b-0 out of the answer: it must come again.
      for (auto& t : resp.topics) {
        if (t.topic_id == id_of(20)) t.partitions.clear();
      }
    }
    return Action::write(client::testing::answer(req, resp));
  });
  Outcomes got;  // outlives the sender
  Fixture f;
  f.cache.apply(controller_is(1, {{1, controller.port()}}, 1));
  // a-0 goes alone (the connection is cut), then a-0 and b-0 together (b-0
  // unanswered), then b-0 alone.
  ASSERT_TRUE(f.sender->submit(entry("a", 0, {1}), got.callback()));
  ASSERT_TRUE(f.sender->submit(entry("b", 0, {1}, 20), got.callback()));
  ASSERT_TRUE(got.wait(2));
  auto all = got.all();
  EXPECT_EQ(all[0].partition, TopicPartition("a", 0));
  EXPECT_EQ(all[1].partition, TopicPartition("b", 0));
  auto reqs = controller.user_requests();
  ASSERT_GE(reqs.size(), 3u);
  auto last = decode_request(reqs.back());
  ASSERT_EQ(last.topics.size(), 1u);
  EXPECT_EQ(last.topics[0].topic_id, id_of(20));
  EXPECT_EQ(f.sender->pending(), 0u);
}

TEST(AlterPartitionSender, NoControllerKnownWaitsForTheCache) {
  FakeBroker controller(ranges());
  controller.set_script([&](const ReceivedRequest& req) {
    return Action::write(client::testing::answer(req, accept_all(decode_request(req), req.header.api_version)));
  });
  Outcomes got;  // outlives the sender
  Fixture f;
  ASSERT_TRUE(f.sender->submit(entry("a", 0, {1}), got.callback()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(got.all().size(), 0u);
  f.cache.apply(controller_is(1, {{1, controller.port()}}, 1));
  ASSERT_TRUE(got.wait(1));
}

TEST(AlterPartitionSender, PerPartitionErrorsCompleteTheCallback) {
  FakeBroker controller(ranges());
  controller.set_script([&](const ReceivedRequest& req) {
    auto resp = accept_all(decode_request(req), req.header.api_version);
    resp.topics[0].partitions[0] = {};
    resp.topics[0].partitions[0].error_code = ErrorCode::kFencedLeaderEpoch;
    return Action::write(client::testing::answer(req, resp));
  });
  Outcomes got;  // outlives the sender
  Fixture f;
  f.cache.apply(controller_is(1, {{1, controller.port()}}, 1));
  ASSERT_TRUE(f.sender->submit(entry("a", 0, {1}), got.callback()));
  ASSERT_TRUE(got.wait(1));
  EXPECT_EQ(got.all()[0].error, ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(got.all()[0].partition, TopicPartition("a", 0));
  EXPECT_EQ(f.sender->pending(), 0u);
}

TEST(AlterPartitionSender, ShutdownRefusesAndDropsPending) {
  Outcomes got;  // outlives the sender
  Fixture f;
  ASSERT_TRUE(f.sender->submit(entry("a", 0, {1}), got.callback()));
  f.sender->shutdown();
  EXPECT_EQ(f.sender->pending(), 0u);
  EXPECT_FALSE(f.sender->submit(entry("b", 0, {1}), got.callback()));
}

TEST(AlterPartitionSender, ControlledShutdownGoesToTheControllerAtV3) {
  FakeBroker controller(ranges());
  controller.set_script([&](const ReceivedRequest& req) {
    protocol::ControlledShutdownRequest r;
    ByteReader reader(req.body);
    EXPECT_TRUE(r.decode(reader, req.header.api_version));
    protocol::ControlledShutdownResponse resp;
    resp.remaining_partitions = {{"a", static_cast<int32_t>(r.broker_epoch % 10)}};
    return Action::write(client::testing::answer(req, resp));
  });
  Fixture f;
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Result<ControlledShutdownReply>> got;
  auto cb = [&](Result<ControlledShutdownReply> r) {
    std::lock_guard<std::mutex> l(mu);
    got = std::move(r);
    cv.notify_all();
  };
  f.sender->controlled_shutdown(cb);  // no controller known yet
  ASSERT_TRUE(got.has_value());
  ASSERT_FALSE(got->is_ok());
  EXPECT_EQ(got->status().kafka_code(), protocol::to_int(ErrorCode::kNotController));
  got.reset();

  f.cache.apply(controller_is(1, {{1, controller.port()}}, 1));
  f.epoch = 503;
  f.sender->controlled_shutdown(cb);
  std::unique_lock<std::mutex> l(mu);
  ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(5), [&] { return got.has_value(); }));
  ASSERT_TRUE(got->is_ok()) << got->status().message();
  EXPECT_EQ(got->value(), (ControlledShutdownReply{ErrorCode::kNone, {{"a", 3}}}));
  auto reqs = controller.user_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].header.api_key, kControlledShutdown);
  EXPECT_EQ(reqs[0].header.api_version, 3);
}

}  // namespace
}  // namespace spool::cluster
