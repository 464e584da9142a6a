// Test doubles for the native producer's unit tests: FakeNetwork (a
// RequestSender that keeps every request, decoded, until the test answers
// it) and ProducerRig (accumulator, metadata, idempotence state and a Sender
// on a ManualClock, driven by run_once() with no threads). Test-only.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/client_metadata.h"
#include "client/producer/idempotence_state.h"
#include "client/producer/record_accumulator.h"
#include "client/producer/sender.h"
#include "client/request_sender.h"
#include "protocol/init_producer_id_request.h"
#include "protocol/init_producer_id_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"
#include "record/batch_header.h"
#include "record/record.h"
#include "util/clock.h"

namespace spool::client::testing {

// Every request is encoded at the highest version the caller allows, capped
// per API, as a broker would negotiate it.
class FakeNetwork final : public RequestSender {
 public:
  struct Call {
    Node node;
    int16_t api_key = 0;
    int16_t version = 0;
    Bytes body;
    RawCallback callback;
  };

  void send(const Node& node, RawRequest req, RawCallback cb) override {
    const int16_t version = std::min<int16_t>(req.max_version, req.api_key == 0 ? 9 : req.max_version);
    ByteWriter w;
    req.encode(w, version);
    if (!req.expect_response) {
      RawResponse none;
      none.api_key = req.api_key;
      none.version = version;
      produced_no_ack.push_back(w.take());
      cb(std::move(none));
      return;
    }
    std::lock_guard<std::mutex> lock(mu);
    calls.push_back(Call{node, req.api_key, version, w.take(), std::move(cb)});
  }
  void disconnect(const Node&) override { ++disconnects; }

  // Takes the oldest pending call of an API (fails the test when none).
  Call take(int16_t api_key) {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = calls.begin(); it != calls.end(); ++it) {
      if (it->api_key == api_key) {
        Call c = std::move(*it);
        calls.erase(it);
        return c;
      }
    }
    ADD_FAILURE() << "no pending request of api key " << api_key;
    return Call{};
  }
  size_t pending(int16_t api_key) {
    std::lock_guard<std::mutex> lock(mu);
    size_t n = 0;
    for (const Call& c : calls) n += c.api_key == api_key ? 1 : 0;
    return n;
  }

  template <class Resp>
  static void answer(Call& call, const Resp& resp) {
    ByteWriter w;
    resp.encode(w, call.version);
    respond_raw(call, w.buffer());
  }
  static void respond_raw(Call& call, const Bytes& body) {
    RawResponse r;
    r.api_key = call.api_key;
    r.version = call.version;
    r.frame = std::make_shared<FrameBytes>(body.begin(), body.end());
    r.body_offset = 0;
    call.callback(std::move(r));
  }
  static void fail(Call& call, int16_t code, const std::string& why) { call.callback(Status::error(why, code)); }

  std::mutex mu;
  std::deque<Call> calls;
  std::vector<Bytes> produced_no_ack;
  int disconnects = 0;
};

struct Delivery {
  RecordMetadata md;
  Status status;
};

// One produced batch as the broker saw it.
struct SeenBatch {
  std::string topic;
  int32_t partition = 0;
  record::BatchHeader header;
  std::vector<std::string> values;
};

inline std::vector<SeenBatch> decode_produce(const FakeNetwork::Call& call) {
  protocol::ProduceRequest req;
  ByteReader r(call.body);
  EXPECT_TRUE(req.decode(r, call.version));
  std::vector<SeenBatch> out;
  for (auto& t : req.topic_data) {
    for (auto& p : t.partition_data) {
      SeenBatch b;
      b.topic = t.name;
      b.partition = p.index;
      ByteSpan bytes = p.records->bytes();
      auto h = record::validate_batch(bytes);
      EXPECT_TRUE(h.is_ok());
      if (!h) continue;
      b.header = *h;
      Bytes scratch;
      auto recs = record::decode_records(*h, bytes, scratch);
      EXPECT_TRUE(recs.is_ok());
      if (recs) {
        for (auto& rec : *recs) b.values.emplace_back(rec.value->begin(), rec.value->end());
      }
      out.push_back(std::move(b));
    }
  }
  return out;
}

struct RigOptions {
  bool idempotence = true;
  int16_t acks = -1;
  int32_t batch_size = 16384;
  int64_t linger_ms = 5;
  int32_t max_in_flight = 5;
  int32_t retries = INT32_MAX;
  int64_t delivery_timeout_ms = 120000;
  int64_t buffer_memory = 32 * 1024 * 1024;
  record::Compression compression = record::Compression::kNone;
  int32_t partitions = 2;
};

class ProducerRig {
 public:
  explicit ProducerRig(RigOptions o = {})
      : opts(o),
        clock(std::make_shared<ManualClock>(1000000)),
        metadata(ClientMetadataOptions{{Node{-1, "bootstrap", 9092}}, 300000, 100, true, clock}),
        idem(o.idempotence, o.max_in_flight, false) {
    AccumulatorOptions ao;
    ao.batch_size = o.batch_size;
    ao.linger_ms = o.linger_ms;
    ao.buffer_memory = o.buffer_memory;
    ao.delivery_timeout_ms = o.delivery_timeout_ms;
    ao.compression = o.compression;
    ao.clock = clock;
    accumulator = std::make_unique<RecordAccumulator>(ao, nullptr);
    SenderOptions so;
    so.acks = o.acks;
    so.max_in_flight = o.max_in_flight;
    so.retries = o.retries;
    so.delivery_timeout_ms = o.delivery_timeout_ms;
    so.clock = clock;
    sender = std::make_unique<Sender>(so, *accumulator, metadata, idem, net);
  }
  ~ProducerRig() {
    sender->force_close(Status::error("test over"));
    sender->finish();
  }

  // Answers the metadata request: broker 1 leads every partition of "t".
  void answer_metadata(int32_t leader = 1) {
    sender->run_once();
    auto call = net.take(protocol::MetadataRequest::kApiKey);
    protocol::MetadataResponse resp;
    protocol::MetadataResponse::MetadataResponseBroker b;
    b.node_id = 1;
    b.host = "broker1";
    b.port = 9092;
    resp.brokers.push_back(b);
    protocol::MetadataResponse::MetadataResponseTopic t;
    t.name = "t";
    for (int32_t p = 0; p < opts.partitions; ++p) {
      protocol::MetadataResponse::MetadataResponsePartition mp;
      mp.partition_index = p;
      mp.leader_id = leader;
      t.partitions.push_back(mp);
    }
    resp.topics.push_back(t);
    FakeNetwork::answer(call, resp);
  }
  void answer_init_producer_id(int64_t id = 7000, int16_t epoch = 0) {
    sender->run_once();
    auto call = net.take(protocol::InitProducerIdRequest::kApiKey);
    protocol::InitProducerIdResponse resp;
    resp.producer_id = id;
    resp.producer_epoch = epoch;
    FakeNetwork::answer(call, resp);
    sender->run_once();
  }
  // Metadata, then the producer id when idempotent.
  void start() {
    answer_metadata();
    sender->run_once();
    if (opts.idempotence) answer_init_producer_id();
  }

  void append(int32_t partition, const std::string& value) {
    const size_t index = deliveries.size();
    deliveries.emplace_back();
    SendCallback cb = [this, index](const RecordMetadata& md, const Status& s) {
      deliveries[index] = Delivery{md, s};
      ++completed;
    };
    const std::optional<Bytes> bytes = Bytes(value.begin(), value.end());
    auto r = accumulator->append(TopicPartition("t", partition), clock->wall_ms(), std::nullopt, bytes, {},
                                 record_encoded_size(std::nullopt, bytes, {}), cb, 0);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
  }

  static protocol::ProduceResponse produce_answer(const std::vector<SeenBatch>& batches,
                                                  std::vector<int16_t> codes, int64_t base_offset) {
    protocol::ProduceResponse resp;
    for (size_t i = 0; i < batches.size(); ++i) {
      protocol::ProduceResponse::TopicProduceResponse t;
      t.name = batches[i].topic;
      protocol::ProduceResponse::PartitionProduceResponse p;
      p.index = batches[i].partition;
      p.error_code = static_cast<protocol::ErrorCode>(codes.size() > i ? codes[i] : 0);
      p.base_offset = p.error_code == protocol::ErrorCode::kNone ? base_offset : -1;
      t.partition_responses.push_back(p);
      resp.responses.push_back(t);
    }
    return resp;
  }

  RigOptions opts;
  std::shared_ptr<ManualClock> clock;
  FakeNetwork net;
  ClientMetadata metadata;
  IdempotenceState idem;
  std::unique_ptr<RecordAccumulator> accumulator;
  std::unique_ptr<Sender> sender;
  std::deque<Delivery> deliveries;
  int completed = 0;
};

}  // namespace spool::client::testing
