// Test support for the native consumer's unit tests: FakeSender, a
// RequestSender that keeps every request until the test answers it (typed,
// at the highest version the request allows), and builders for metadata
// answers and record batches. Answers run the consumer's callbacks on the
// test's thread; the callbacks post to the loop, so the next run_once()
// handles them. Test-only; not thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/consumer/consumer_config.h"
#include "client/request_sender.h"
#include "protocol/metadata_response.h"
#include "record/batch_builder.h"
#include "util/frame_bytes.h"

namespace spool::client::testing {

class FakeSender : public RequestSender {
 public:
  struct Sent {
    Node node;
    RawRequest request;
    RawCallback callback;
    int16_t version = 0;
  };

  void send(const Node& node, RawRequest request, RawCallback callback) override {
    const int16_t v = request.max_version;
    sent.push_back(Sent{node, std::move(request), std::move(callback), v});
  }
  void disconnect(const Node&) override {}

  // The oldest request of an API, removed from the queue.
  std::optional<Sent> take(int16_t api_key) {
    for (auto it = sent.begin(); it != sent.end(); ++it) {
      if (it->request.api_key == api_key) {
        Sent s = std::move(*it);
        sent.erase(it);
        return s;
      }
    }
    return std::nullopt;
  }
  size_t count(int16_t api_key) const {
    size_t n = 0;
    for (const Sent& s : sent) n += s.request.api_key == api_key ? 1 : 0;
    return n;
  }

  template <class Req>
  static Req decode(const Sent& s) {
    ByteWriter w;
    s.request.encode(w, s.version);
    ByteReader r(w.buffer());
    Req q;
    EXPECT_TRUE(q.decode(r, s.version));
    return q;
  }

  template <class Resp>
  static void answer(Sent& s, const Resp& resp) {
    ByteWriter w;
    resp.encode(w, s.version);
    RawResponse raw;
    raw.api_key = s.request.api_key;
    raw.version = s.version;
    raw.frame = std::make_shared<FrameBytes>(w.buffer().begin(), w.buffer().end());
    raw.body_offset = 0;
    s.callback(std::move(raw));
  }

  static void fail(Sent& s, int16_t code) { s.callback(Status::error("injected failure", code)); }

  std::deque<Sent> sent;
};

inline ConsumerConfig test_config(std::optional<std::string> group = std::nullopt) {
  config::PropertyList props = {{"bootstrap.servers", "b0:9092"}};
  if (group) props.emplace_back("group.id", *group);
  auto c = ConsumerConfig::from_properties(props);
  EXPECT_TRUE(c.is_ok()) << c.status().message();
  return *c;
}

// Metadata naming broker 1 (b1:9092) as the leader of every partition.
inline protocol::MetadataResponse metadata_answer(const std::vector<std::pair<std::string, int32_t>>& topics,
                                                  int32_t leader_epoch = 0) {
  protocol::MetadataResponse m;
  protocol::MetadataResponse::MetadataResponseBroker b;
  b.node_id = 1;
  b.host = "b1";
  b.port = 9092;
  m.brokers.push_back(b);
  for (const auto& [name, count] : topics) {
    protocol::MetadataResponse::MetadataResponseTopic t;
    t.name = name;
    for (int32_t p = 0; p < count; ++p) {
      protocol::MetadataResponse::MetadataResponseTopic::MetadataResponsePartition mp;
      mp.partition_index = p;
      mp.leader_id = 1;
      mp.leader_epoch = leader_epoch;
      mp.replica_nodes = {1};
      mp.isr_nodes = {1};
      t.partitions.push_back(mp);
    }
    m.topics.push_back(t);
  }
  return m;
}

// A batch of values v<first>.. at base_offset.
inline Bytes batch(int64_t base_offset, int count, record::BatchOptions o = {}, int32_t epoch = 0) {
  o.base_offset = base_offset;
  o.partition_leader_epoch = epoch;
  std::vector<record::BuildRecord> rs;
  for (int i = 0; i < count; ++i) {
    rs.push_back(record::BuildRecord::of("k", "v" + std::to_string(base_offset + i), 1000 + i));
  }
  auto b = record::build_batch(o, rs);
  EXPECT_TRUE(b.is_ok());
  return *b;
}

}  // namespace spool::client::testing
