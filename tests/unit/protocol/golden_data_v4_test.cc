// Golden byte strings for Produce (v3, first flexible v9, v10 with the
// KIP-951 tags, highest v13 by topic id) and Fetch (first flexible v12 with
// LastFetchedEpoch and DivergingEpoch, v13 by topic id, v15 ReplicaState,
// v16 NodeEndpoints, highest v18 with the follower tags), written by hand
// from Kafka 4.4's message specs, field by field ('|' separates fields).
// Tagged fields: count, then per field tag, size, value, in tag order.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

// 0102...0f10: the topic id used throughout.
Uuid topic_id() {
  Uuid id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(i + 1);
  return id;
}
constexpr const char* kId = "0102030405060708090a0b0c0d0e0f10";

std::string with_id(std::string_view pattern) {
  std::string s(pattern);
  for (size_t pos; (pos = s.find("ID")) != std::string::npos;) s.replace(pos, 2, kId);
  return s;
}

// ---------------------------------------------------------------- Produce
ProduceRequest produce_request(int16_t v) {
  ProduceRequest m;
  m.transactional_id = "tx";
  m.acks = -1;
  m.timeout_ms = 1000;
  ProduceRequest::TopicProduceData t;
  if (v >= 13) {
    t.topic_id = topic_id();
  } else {
    t.name = "t";
  }
  t.partition_data.push_back({0, Records(Bytes{1, 2, 3})});
  t.partition_data.push_back({1, std::nullopt});
  m.topic_data.push_back(t);
  return m;
}

TEST(GoldenProduceV4, RequestV3) {
  check_golden(produce_request(3), 3,
               "0002 7478 | ffff | 000003e8 | 00000001 | 0001 74 | 00000002 |"
               "00000000 | 00000003 010203 | 00000001 | ffffffff");
}

TEST(GoldenProduceV4, RequestV9FirstFlexible) {
  check_golden(produce_request(9), 9,
               "03 7478 | ffff | 000003e8 | 02 | 02 74 | 03 |"
               "00000000 | 04 010203 | 00 | 00000001 | 00 | 00 | 00 | 00");
}

TEST(GoldenProduceV4, RequestV13ByTopicId) {
  check_golden(produce_request(13), 13,
               with_id("03 7478 | ffff | 000003e8 | 02 | ID | 03 |"
                       "00000000 | 04 010203 | 00 | 00000001 | 00 | 00 | 00 | 00"));
}

TEST(GoldenProduceV4, ResponseV9NoTags) {
  ProduceResponse m;
  auto& t = m.responses.emplace_back();
  t.name = "t";
  auto& p = t.partition_responses.emplace_back();
  p.base_offset = 5;
  p.log_append_time_ms = -1;
  p.log_start_offset = 0;
  check_golden(m, 9,
               "02 | 02 74 | 02 | 00000000 | 0000 | 0000000000000005 | ffffffffffffffff |"
               "0000000000000000 | 01 | 00 | 00 | 00 | 00000000 | 00");
}

TEST(GoldenProduceV4, ResponseV10CurrentLeaderAndNodeEndpoints) {
  ProduceResponse m;
  auto& t = m.responses.emplace_back();
  t.name = "t";
  auto& p = t.partition_responses.emplace_back();
  p.error_code = ErrorCode::kNotLeaderOrFollower;
  p.base_offset = -1;
  p.current_leader = {1, 5};
  m.node_endpoints.push_back({1, "h", 9092, std::nullopt});
  check_golden(m, 10,
               "02 | 02 74 | 02 | 00000000 | 0006 | ffffffffffffffff | ffffffffffffffff |"
               "ffffffffffffffff | 01 | 00 |"
               "01 | 00 09 | 00000001 00000005 00 |"  // CurrentLeader (tag 0): id, epoch, no tags
               "00 | 00000000 |"
               "01 | 00 0d | 02 00000001 0268 00002384 00 00");  // NodeEndpoints (tag 0)
  // Below v10 the tags do not exist: a v9 answer carries neither.
  ByteWriter w;
  m.encode(w, 9);
  EXPECT_EQ(testing::to_hex(w.buffer()), testing::to_hex(testing::hex(
                                             "02 | 02 74 | 02 | 00000000 | 0006 | ffffffffffffffff |"
                                             "ffffffffffffffff | ffffffffffffffff | 01 | 00 | 00 | 00 |"
                                             "00000000 | 00")));
}

TEST(GoldenProduceV4, ResponseV13ByTopicId) {
  ProduceResponse m;
  auto& t = m.responses.emplace_back();
  t.topic_id = topic_id();
  auto& p = t.partition_responses.emplace_back();
  p.error_code = ErrorCode::kUnknownTopicId;
  p.base_offset = -1;
  check_golden(m, 13,
               with_id("02 | ID | 02 | 00000000 | 0064 | ffffffffffffffff | ffffffffffffffff |"
                       "ffffffffffffffff | 01 | 00 | 00 | 00 | 00000000 | 00"));
}

// ---------------------------------------------------------------- Fetch
FetchRequest fetch_request(int16_t v) {
  FetchRequest m;
  m.max_wait_ms = 500;
  m.min_bytes = 1;
  m.session_epoch = -1;
  FetchRequest::FetchTopic t;
  FetchRequest::FetchPartition p;
  p.current_leader_epoch = 3;
  p.fetch_offset = 7;
  p.last_fetched_epoch = 2;
  p.partition_max_bytes = 1 << 20;
  FetchRequest::ForgottenTopic f;
  f.partitions = {1, 2};
  if (v >= 13) {
    t.topic_id = topic_id();
    f.topic_id = topic_id();
  } else {
    t.topic = "t";
    f.topic = "u";
  }
  if (v >= 17) p.replica_directory_id = topic_id();
  if (v >= 18) p.high_watermark = 100;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  m.forgotten_topics_data.push_back(f);
  m.rack_id = "r1";
  return m;
}

TEST(GoldenFetchV4, RequestV12FirstFlexible) {
  FetchRequest m = fetch_request(12);
  m.cluster_id = "c";
  check_golden(m, 12,
               "ffffffff | 000001f4 | 00000001 | 7fffffff | 00 | 00000000 | ffffffff |"
               "02 | 02 74 | 02 | 00000000 | 00000003 | 0000000000000007 | 00000002 |"
               "ffffffffffffffff | 00100000 | 00 | 00 |"
               "02 | 02 75 | 03 00000001 00000002 | 00 |"
               "03 7231 |"
               "01 | 00 02 | 02 63");  // ClusterId (tag 0)
}

TEST(GoldenFetchV4, RequestV13ByTopicId) {
  check_golden(fetch_request(13), 13,
               with_id("ffffffff | 000001f4 | 00000001 | 7fffffff | 00 | 00000000 | ffffffff |"
                       "02 | ID | 02 | 00000000 | 00000003 | 0000000000000007 | 00000002 |"
                       "ffffffffffffffff | 00100000 | 00 | 00 |"
                       "02 | ID | 03 00000001 00000002 | 00 |"
                       "03 7231 | 00"));
}

TEST(GoldenFetchV4, RequestV15ReplicaState) {
  FetchRequest m = fetch_request(15);
  m.replica_state.replica_id = 2;
  m.replica_state.replica_epoch = 9;
  // No ReplicaId field any more: it lives in ReplicaState (tag 1).
  check_golden(m, 15,
               with_id("000001f4 | 00000001 | 7fffffff | 00 | 00000000 | ffffffff |"
                       "02 | ID | 02 | 00000000 | 00000003 | 0000000000000007 | 00000002 |"
                       "ffffffffffffffff | 00100000 | 00 | 00 |"
                       "02 | ID | 03 00000001 00000002 | 00 |"
                       "03 7231 |"
                       "01 | 01 0d | 00000002 0000000000000009 00"));
  // A consumer's defaults (-1, -1) leave the tag out.
  check_golden(fetch_request(15), 15,
               with_id("000001f4 | 00000001 | 7fffffff | 00 | 00000000 | ffffffff |"
                       "02 | ID | 02 | 00000000 | 00000003 | 0000000000000007 | 00000002 |"
                       "ffffffffffffffff | 00100000 | 00 | 00 |"
                       "02 | ID | 03 00000001 00000002 | 00 |"
                       "03 7231 | 00"));
}

TEST(GoldenFetchV4, RequestV18FollowerTags) {
  check_golden(fetch_request(18), 18,
               with_id("000001f4 | 00000001 | 7fffffff | 00 | 00000000 | ffffffff |"
                       "02 | ID | 02 | 00000000 | 00000003 | 0000000000000007 | 00000002 |"
                       "ffffffffffffffff | 00100000 |"
                       "02 | 00 10 ID | 01 08 0000000000000064 |"  // ReplicaDirectoryId, HighWatermark
                       "00 |"
                       "02 | ID | 03 00000001 00000002 | 00 |"
                       "03 7231 | 00"));
  // HighWatermark's default is INT64_MAX ("not supported"), not -1: absent.
  FetchRequest d;
  const Bytes wire = testing::hex(with_id("000001f4 00000001 7fffffff 00 00000000 ffffffff 02 ID 02 00000000 00000003"
                                         "0000000000000007 00000002 ffffffffffffffff 00100000 00 00 01 03 7231 00"));
  ByteReader r(wire);  // a view: the bytes must outlive it
  ASSERT_TRUE(d.decode(r, 18));
  EXPECT_EQ(d.topics[0].partitions[0].high_watermark, INT64_MAX);
  EXPECT_EQ(d.replica_state.replica_id, -1);
}

FetchResponse fetch_response(int16_t v) {
  FetchResponse m;
  m.session_id = 5;
  auto& t = m.responses.emplace_back();
  if (v >= 13) {
    t.topic_id = topic_id();
  } else {
    t.topic = "t";
  }
  auto& p = t.partitions.emplace_back();
  p.high_watermark = 10;
  p.last_stable_offset = 10;
  p.log_start_offset = 0;
  p.records = Records(Bytes{0xaa, 0xbb});
  return m;
}

TEST(GoldenFetchV4, ResponseV12DivergingEpochAndCurrentLeader) {
  FetchResponse m = fetch_response(12);
  auto& p = m.responses[0].partitions[0];
  p.diverging_epoch = {1, 8};
  p.current_leader = {1, 2};
  check_golden(m, 12,
               "00000000 | 0000 | 00000005 | 02 | 02 74 | 02 | 00000000 | 0000 | 000000000000000a |"
               "000000000000000a | 0000000000000000 | 00 | ffffffff | 03 aabb |"
               "02 | 00 0d 00000001 0000000000000008 00 | 01 09 00000001 00000002 00 |"
               "00 | 00");
}

TEST(GoldenFetchV4, ResponseV13ByTopicId) {
  check_golden(fetch_response(13), 13,
               with_id("00000000 | 0000 | 00000005 | 02 | ID | 02 | 00000000 | 0000 | 000000000000000a |"
                       "000000000000000a | 0000000000000000 | 00 | ffffffff | 03 aabb | 00 | 00 | 00"));
}

TEST(GoldenFetchV4, ResponseV16And18NodeEndpoints) {
  for (int16_t v : {16, 18}) {
    FetchResponse m = fetch_response(v);
    auto& p = m.responses[0].partitions[0];
    p.error_code = ErrorCode::kFencedLeaderEpoch;
    p.records = Records(Bytes{});
    p.current_leader = {1, 4};
    m.node_endpoints.push_back({1, "h", 9092, std::string("r")});
    check_golden(m, v,
                 with_id("00000000 | 0000 | 00000005 | 02 | ID | 02 | 00000000 | 004a | 000000000000000a |"
                         "000000000000000a | 0000000000000000 | 00 | ffffffff | 01 |"
                         "01 | 01 09 00000001 00000004 00 | 00 |"
                         "01 | 00 0e | 02 00000001 0268 00002384 0272 00"));
  }
}

}  // namespace
}  // namespace spool::protocol
