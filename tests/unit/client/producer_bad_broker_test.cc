// The native Producer over real TCP against a FakeBroker that misbehaves on
// Produce: garbage bodies, truncated frames, wrong correlation ids, closed
// connections. Every record's callback runs exactly once, none reports an
// acknowledgement the broker never gave, and the producer neither crashes
// nor hangs; a broker that recovers gets every record acknowledged once.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "client/producer/producer.h"
#include "fake_broker.h"
#include "protocol/init_producer_id_response.h"
#include "protocol/metadata_response.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"

namespace spool::client::testing {
namespace {

const Ranges kRanges = {{0, {3, 9}}, {3, {0, 12}}, {18, {0, 3}}, {22, {0, 4}}};

Action metadata_or_pid(const ReceivedRequest& req, uint16_t port) {
  if (req.header.api_key == 3) {
    protocol::MetadataResponse m;
    protocol::MetadataResponse::MetadataResponseBroker b;
    b.node_id = 1;
    b.host = "127.0.0.1";
    b.port = port;
    m.brokers.push_back(b);
    protocol::MetadataResponse::MetadataResponseTopic t;
    t.name = "t";
    protocol::MetadataResponse::MetadataResponsePartition p;
    p.partition_index = 0;
    p.leader_id = 1;
    t.partitions.push_back(p);
    m.topics.push_back(t);
    return Action::write(answer(req, m));
  }
  protocol::InitProducerIdResponse r;
  r.producer_id = 9;
  r.producer_epoch = 0;
  return Action::write(answer(req, r));
}

struct Outcome {
  std::mutex mu;
  int ok = 0, failed = 0, calls = 0;
  std::vector<int64_t> offsets;
};

std::unique_ptr<Producer> make_producer(uint16_t port, bool idempotence) {
  config::PropertyList props = {{"bootstrap.servers", "127.0.0.1:" + std::to_string(port)},
                                {"linger.ms", "0"},
                                {"request.timeout.ms", "800"},
                                {"delivery.timeout.ms", "3000"},
                                {"retry.backoff.ms", "30"},
                                {"reconnect.backoff.ms", "20"},
                                {"enable.idempotence", idempotence ? "true" : "false"},
                                {"max.block.ms", "5000"}};
  auto p = Producer::create(props);
  EXPECT_TRUE(p.is_ok()) << p.status().message();
  return p ? std::move(*p) : nullptr;
}

void send_all(Producer& p, Outcome& out, int n) {
  for (int i = 0; i < n; ++i) {
    ProducerRecord r;
    r.topic = "t";
    r.value = Bytes{static_cast<uint8_t>('a' + i)};
    p.send(std::move(r), [&out](const RecordMetadata& md, const Status& s) {
      std::lock_guard<std::mutex> lock(out.mu);
      ++out.calls;
      if (s.is_ok()) {
        ++out.ok;
        out.offsets.push_back(md.offset);
      } else {
        ++out.failed;
      }
    });
  }
}

enum class Misbehaviour { kGarbageBody, kTruncatedFrame, kWrongCorrelationId, kCloseConnection };

class ProducerBadBroker : public ::testing::TestWithParam<Misbehaviour> {};

TEST_P(ProducerBadBroker, FailsEveryRecordAndNeverAcks) {
  FakeBroker broker(kRanges);
  const uint16_t port = broker.port();
  const Misbehaviour how = GetParam();
  broker.set_script([port, how](const ReceivedRequest& req) {
    if (req.header.api_key != 0) return metadata_or_pid(req, port);
    switch (how) {
      case Misbehaviour::kGarbageBody:
        return Action::write(response_frame(0, req.header.api_version, req.header.correlation_id,
                                            Bytes{0xde, 0xad, 0xbe, 0xef, 0xff}));
      case Misbehaviour::kTruncatedFrame: {
        Bytes b = {0, 0, 0, 100};  // promises 100 bytes, sends 8, then the connection ends
        Bytes rest = {0, 0, 0, 1, 0, 0, 0, 0};
        b.insert(b.end(), rest.begin(), rest.end());
        return Action::write(b);
      }
      case Misbehaviour::kWrongCorrelationId: {
        protocol::ProduceResponse r;
        ByteWriter body;
        r.encode(body, req.header.api_version);
        return Action::write(
            response_frame(0, req.header.api_version, req.header.correlation_id + 1000, body.buffer()));
      }
      case Misbehaviour::kCloseConnection:
        return Action::close();
    }
    return Action::close();
  });
  auto producer = make_producer(port, true);
  ASSERT_NE(producer, nullptr);
  Outcome out;
  send_all(*producer, out, 5);
  EXPECT_TRUE(producer->flush(15000)) << "every record completes within delivery.timeout.ms";
  producer->close(1000);
  std::lock_guard<std::mutex> lock(out.mu);
  EXPECT_EQ(out.calls, 5);
  EXPECT_EQ(out.ok, 0) << "an acknowledgement the broker never gave";
  EXPECT_EQ(out.failed, 5);
  EXPECT_GE(broker.requests().size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Answers, ProducerBadBroker,
                         ::testing::Values(Misbehaviour::kGarbageBody, Misbehaviour::kTruncatedFrame,
                                           Misbehaviour::kWrongCorrelationId, Misbehaviour::kCloseConnection));

TEST(ProducerBadBrokerRecovery, RetriesUntilTheBrokerAnswersThenAcksOnce) {
  FakeBroker broker(kRanges);
  const uint16_t port = broker.port();
  std::atomic<int> produce_requests{0};
  std::atomic<int64_t> next_offset{0};
  broker.set_script([&](const ReceivedRequest& req) {
    if (req.header.api_key != 0) return metadata_or_pid(req, port);
    if (produce_requests.fetch_add(1) < 3) return Action::close();
    protocol::ProduceRequest pr;
    ByteReader r(req.body);
    EXPECT_TRUE(pr.decode(r, req.header.api_version));
    protocol::ProduceResponse resp;
    for (auto& t : pr.topic_data) {
      protocol::ProduceResponse::TopicProduceResponse tr;
      tr.name = t.name;
      for (auto& p : t.partition_data) {
        protocol::ProduceResponse::PartitionProduceResponse pp;
        pp.index = p.index;
        auto h = record::read_header(p.records->bytes());
        pp.base_offset = next_offset.fetch_add(h ? h->records_count : 1);
        tr.partition_responses.push_back(pp);
      }
      resp.responses.push_back(tr);
    }
    return Action::write(answer(req, resp));
  });
  auto producer = make_producer(port, true);
  ASSERT_NE(producer, nullptr);
  Outcome out;
  send_all(*producer, out, 5);
  EXPECT_TRUE(producer->flush(15000));
  producer->close(1000);
  std::lock_guard<std::mutex> lock(out.mu);
  EXPECT_EQ(out.calls, 5);
  EXPECT_EQ(out.ok, 5);
  std::sort(out.offsets.begin(), out.offsets.end());
  EXPECT_EQ(out.offsets, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace spool::client::testing
