// QueuedBrokerChannel over WireTransport over a real NetworkClient, against
// FakeBroker servers that answer LeaderAndIsr / UpdateMetadata /
// StopReplica: order per broker, one request in flight, independence of
// brokers, retry (after retry.backoff.ms) of a request whose connection was
// cut, listener choice, version negotiation and a bounced broker's new
// endpoint. Every wait is bounded.
#include "cluster/controller/wire_transport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "client/fake_broker.h"
#include "cluster/controller/queued_broker_channel.h"
#include "cluster/wire_round_trip.h"

namespace spool::cluster::controller {
namespace {

using client::testing::Action;
using client::testing::FakeBroker;
using client::testing::Ranges;
using client::testing::ReceivedRequest;
using protocol::ErrorCode;
using testing::id_of;

constexpr int16_t kLeaderAndIsr = 4;
constexpr int16_t kStopReplica = 5;
constexpr int16_t kUpdateMetadata = 6;
constexpr int64_t kBackoffMs = 60;

Ranges full_ranges() {
  return {{18, {0, 3}}, {kLeaderAndIsr, {0, 7}}, {kStopReplica, {0, 4}}, {kUpdateMetadata, {0, 8}}};
}

// Answers like a broker: every partition NONE except those of topic "bad"
// (STALE_CONTROLLER_EPOCH); LeaderAndIsr grouped by topic id from v5.
Bytes answer_request(const ReceivedRequest& req) {
  ByteReader r(req.body);
  const int16_t v = req.header.api_version;
  if (req.header.api_key == kLeaderAndIsr) {
    protocol::LeaderAndIsrRequest in;
    EXPECT_TRUE(in.decode(r, v));
    protocol::LeaderAndIsrResponse out;
    for (const auto& t : in.topic_states) {
      protocol::LeaderAndIsrResponse::LeaderAndIsrTopicError te;
      te.topic_id = t.topic_id;
      for (const auto& p : t.partition_states) {
        ErrorCode e = t.topic_name == "bad" ? ErrorCode::kStaleControllerEpoch : ErrorCode::kNone;
        if (v >= 5) {
          te.partition_errors.push_back({"", p.partition_index, e});
        } else {
          out.partition_errors.push_back({t.topic_name, p.partition_index, e});
        }
      }
      if (v >= 5) out.topics.push_back(te);
    }
    return client::testing::answer(req, out);
  }
  if (req.header.api_key == kUpdateMetadata) {
    protocol::UpdateMetadataResponse out;
    return client::testing::answer(req, out);
  }
  protocol::StopReplicaRequest in;
  EXPECT_TRUE(in.decode(r, v));
  protocol::StopReplicaResponse out;
  for (const auto& t : in.topic_states) {
    for (const auto& p : t.partition_states) {
      out.partition_errors.push_back({t.topic_name, p.partition_index, ErrorCode::kNone});
    }
  }
  return client::testing::answer(req, out);
}

BrokerInfo broker_at(int32_t id, uint16_t port, const std::string& listener = "PLAINTEXT") {
  BrokerInfo b;
  b.id = id;
  b.epoch = 100 + id;
  b.endpoints.push_back(BrokerEndpoint{listener, "127.0.0.1", port, "PLAINTEXT"});
  return b;
}

LeaderAndIsrRequest lai(int32_t controller_epoch) {
  LeaderAndIsrRequest r;
  r.controller_id = 0;
  r.controller_epoch = controller_epoch;
  r.broker_epoch = 101;
  LeaderAndIsrPartition p;
  p.partition = TopicPartition("good", 0);
  p.leader = 1;
  p.replicas = {1};
  p.isr = {1};
  LeaderAndIsrPartition q = p;
  q.partition = TopicPartition("bad", 2);
  r.partition_states = {p, q};
  r.topic_ids = {{"good", id_of(1)}, {"bad", id_of(2)}};
  return r;
}

UpdateMetadataRequest um(int32_t controller_epoch) {
  UpdateMetadataRequest r;
  r.controller_epoch = controller_epoch;
  return r;
}

StopReplicaRequest sr(int32_t controller_epoch) {
  StopReplicaRequest r;
  r.controller_epoch = controller_epoch;
  r.partitions = {{{"good", 0}, 3, false}};
  return r;
}

struct Answer {
  int32_t broker;
  std::string kind;
  ControllerResponse response;
};

client::NetworkClientOptions fast_client() {
  client::NetworkClientOptions o;
  o.request_timeout_ms = 3000;
  o.connect_timeout_ms = 1000;
  o.reconnect_backoff_ms = 10;
  o.reconnect_backoff_max_ms = 20;
  o.reconnect_backoff_jitter = 0.0;
  o.seed = 1;
  return o;
}

class WireTransportTest : public ::testing::Test {
 protected:
  explicit WireTransportTest(WireTransportOptions o = options()) : client(fast_client()) {
    timer.start();
    transport = std::make_unique<WireTransport>(o, client, timer);
    channel = std::make_unique<QueuedBrokerChannel>(*transport);
    channel->set_response_handler([this](int32_t b, const ControllerRequest& req, const ControllerResponse& resp) {
      std::lock_guard<std::mutex> l(mu);
      answers.push_back({b, request_name(req), resp});
      cv.notify_all();
    });
  }
  // Completions may still be on their way from the client's and the timer's
  // threads: the channel goes last, after both have stopped.
  ~WireTransportTest() override {
    channel->remove_all();
    transport.reset();
    client.shutdown();
    timer.stop();
    channel.reset();
  }
  static WireTransportOptions options() {
    WireTransportOptions o;
    o.retry_backoff_ms = kBackoffMs;
    return o;
  }
  bool wait_answers(size_t n, int timeout_ms = 5000) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, std::chrono::milliseconds(timeout_ms), [&] { return answers.size() >= n; });
  }
  std::vector<Answer> got() {
    std::lock_guard<std::mutex> l(mu);
    return answers;
  }

  client::NetworkClient client;
  timer::SystemTimer timer;
  std::unique_ptr<WireTransport> transport;
  std::unique_ptr<QueuedBrokerChannel> channel;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Answer> answers;
};

TEST_F(WireTransportTest, InOrderOneInFlightNewestVersionsDecoded) {
  FakeBroker b(full_ranges());
  std::atomic<int> n{0};
  b.set_script([&](const ReceivedRequest& req) {
    return Action::write(answer_request(req), n.fetch_add(1) == 0 ? 250 : 0);
  });
  channel->add_broker(broker_at(1, b.port()));
  channel->send(1, lai(5));
  channel->send(1, um(5));
  channel->send(1, sr(5));
  ASSERT_TRUE(b.wait_for([&] { return b.user_requests().size() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  EXPECT_EQ(b.user_requests().size(), 1u) << "one request in flight per broker";
  EXPECT_EQ(channel->queued(1), 3u);

  ASSERT_TRUE(wait_answers(3));
  auto reqs = b.user_requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].header.api_key, kLeaderAndIsr);
  EXPECT_EQ(reqs[0].header.api_version, 7);
  EXPECT_EQ(reqs[1].header.api_key, kUpdateMetadata);
  EXPECT_EQ(reqs[1].header.api_version, 8);
  EXPECT_EQ(reqs[2].header.api_key, kStopReplica);
  EXPECT_EQ(reqs[2].header.api_version, 4);

  // What the broker got is exactly the converted request.
  protocol::LeaderAndIsrRequest sent;
  ByteReader r(reqs[0].body);
  ASSERT_TRUE(sent.decode(r, 7));
  EXPECT_EQ(sent, leader_and_isr_to_wire(lai(5), 7));

  auto a = got();
  EXPECT_EQ(a[0].kind, "LeaderAndIsr");
  EXPECT_EQ(a[0].response.error, ErrorCode::kNone);
  EXPECT_EQ(a[0].response.partition_errors,
            (std::vector<PartitionError>{{{"good", 0}, ErrorCode::kNone},
                                         {{"bad", 2}, ErrorCode::kStaleControllerEpoch}}));
  EXPECT_EQ(a[1].kind, "UpdateMetadata");
  EXPECT_EQ(a[2].kind, "StopReplica");
  EXPECT_EQ(a[2].response.partition_errors, (std::vector<PartitionError>{{{"good", 0}, ErrorCode::kNone}}));
  EXPECT_EQ(channel->queued(1), 0u);
}

TEST_F(WireTransportTest, BrokersDoNotWaitForEachOther) {
  FakeBroker slow(full_ranges());
  FakeBroker fast(full_ranges());
  slow.set_script([&](const ReceivedRequest& req) { return Action::write(answer_request(req), 400); });
  fast.set_script([&](const ReceivedRequest& req) { return Action::write(answer_request(req)); });
  channel->add_broker(broker_at(1, slow.port()));
  channel->add_broker(broker_at(2, fast.port()));
  channel->send(1, um(3));
  channel->send(2, um(3));
  channel->send(2, sr(3));
  ASSERT_TRUE(wait_answers(3));
  auto a = got();
  EXPECT_EQ(a[0].broker, 2);
  EXPECT_EQ(a[1].broker, 2);
  EXPECT_EQ(a[2].broker, 1);
}

TEST_F(WireTransportTest, CutConnectionIsRetriedAfterTheBackoff) {
  FakeBroker b(full_ranges());
  std::atomic<int> n{0};
  b.set_script([&](const ReceivedRequest& req) {
    if (n.fetch_add(1) == 0) return Action::close();
    return Action::write(answer_request(req));
  });
  channel->add_broker(broker_at(1, b.port()));
  channel->send(1, um(4));
  channel->send(1, sr(4));
  ASSERT_TRUE(wait_answers(2));
  auto reqs = b.user_requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].header.api_key, kUpdateMetadata);
  EXPECT_EQ(reqs[1].header.api_key, kUpdateMetadata) << "the same request again, before the next";
  EXPECT_EQ(reqs[2].header.api_key, kStopReplica);
  EXPECT_NE(reqs[0].connection, reqs[1].connection);
  auto gap = std::chrono::duration_cast<std::chrono::milliseconds>(reqs[1].at - reqs[0].at).count();
  EXPECT_GE(gap, kBackoffMs - 5) << "retry.backoff.ms between attempts";
  auto a = got();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].kind, "UpdateMetadata");
  EXPECT_EQ(a[1].kind, "StopReplica");
}

TEST_F(WireTransportTest, OlderBrokerGetsItsNewestVersionWithinTheRange) {
  FakeBroker b({{18, {0, 3}}, {kLeaderAndIsr, {0, 5}}, {kStopReplica, {0, 3}}, {kUpdateMetadata, {0, 7}}});
  b.set_script([&](const ReceivedRequest& req) { return Action::write(answer_request(req)); });
  channel->add_broker(broker_at(1, b.port()));
  channel->send(1, lai(2));
  channel->send(1, um(2));
  channel->send(1, sr(2));
  ASSERT_TRUE(wait_answers(3));
  auto reqs = b.user_requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].header.api_version, 5);
  EXPECT_EQ(reqs[1].header.api_version, 7);
  EXPECT_EQ(reqs[2].header.api_version, 3);
  EXPECT_EQ(got()[0].response.partition_errors.size(), 2u) << "v5 topic-id grouping mapped back";
}

TEST_F(WireTransportTest, BrokerBelowTheMinimumVersionsGetsNothingAndItIsRetried) {
  FakeBroker b({{18, {0, 3}}, {kLeaderAndIsr, {0, 4}}, {kUpdateMetadata, {0, 8}}});
  b.set_script([&](const ReceivedRequest& req) { return Action::write(answer_request(req)); });
  channel->add_broker(broker_at(1, b.port()));
  channel->send(1, lai(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(4 * kBackoffMs));
  EXPECT_TRUE(b.user_requests().empty());
  EXPECT_TRUE(got().empty());
  EXPECT_EQ(channel->queued(1), 1u);
  channel->remove_broker(1);
  EXPECT_EQ(channel->queued(1), 0u);
}

class ReplicationListenerTest : public WireTransportTest {
 protected:
  ReplicationListenerTest() : WireTransportTest(with_listener()) {}
  static WireTransportOptions with_listener() {
    WireTransportOptions o = options();
    o.listener = "REPLICATION";
    return o;
  }
};

TEST_F(ReplicationListenerTest, EndpointOfTheConfiguredListenerIsUsed) {
  FakeBroker b(full_ranges());
  b.set_script([&](const ReceivedRequest& req) { return Action::write(answer_request(req)); });
  BrokerInfo info = broker_at(1, 1);  // PLAINTEXT on port 1: nothing there
  info.endpoints.push_back(BrokerEndpoint{"REPLICATION", "127.0.0.1", b.port(), "PLAINTEXT"});
  channel->add_broker(info);
  ASSERT_TRUE(transport->node(1).has_value());
  EXPECT_EQ(transport->node(1)->port, b.port());
  channel->send(1, um(1));
  ASSERT_TRUE(wait_answers(1));

  // A broker without that listener: its requests fail (and are retried).
  channel->add_broker(broker_at(2, b.port()));
  EXPECT_FALSE(transport->node(2).has_value());
  channel->send(2, um(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * kBackoffMs));
  EXPECT_EQ(got().size(), 1u);
  EXPECT_EQ(channel->queued(2), 1u);
}

TEST_F(WireTransportTest, BouncedBrokerIsReachedAtItsNewEndpoint) {
  FakeBroker before(full_ranges());
  FakeBroker after(full_ranges());
  before.set_script([&](const ReceivedRequest& req) { return Action::write(answer_request(req)); });
  after.set_script([&](const ReceivedRequest& req) { return Action::write(answer_request(req)); });
  channel->add_broker(broker_at(1, before.port()));
  channel->send(1, um(1));
  ASSERT_TRUE(wait_answers(1));
  channel->remove_broker(1);
  EXPECT_FALSE(transport->node(1).has_value());
  channel->add_broker(broker_at(1, after.port()));
  channel->send(1, um(2));
  ASSERT_TRUE(wait_answers(2));
  EXPECT_EQ(before.user_requests().size(), 1u);
  EXPECT_EQ(after.user_requests().size(), 1u);
  // The transport alone: a new endpoint on re-connect replaces the old one.
  transport->connect(broker_at(1, before.port()));
  EXPECT_EQ(transport->node(1)->port, before.port());
}

}  // namespace
}  // namespace spool::cluster::controller
