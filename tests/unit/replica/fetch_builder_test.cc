// The replica Fetch: which partitions go out (the fsync-before-fetch rule),
// every field per version (checked after an encode/decode round trip), and
// the follower's high-watermark rule.
#include <gtest/gtest.h>

#include "replica/fetch_builder.h"
#include "util/bytes.h"

namespace spool::replica {
namespace {

FollowerPartition partition(const std::string& topic, int32_t p, int64_t fetch_offset, int64_t synced) {
  FollowerPartition f;
  f.tp = TopicPartition(topic, p);
  f.topic_id[0] = static_cast<uint8_t>(topic.empty() ? 0 : topic[0]);
  f.topic_id[15] = 1;
  f.current_leader_epoch = 7;
  f.fetch_offset = fetch_offset;
  f.synced_offset = synced;
  f.last_fetched_epoch = 6;
  f.log_start_offset = 3;
  return f;
}

protocol::FetchRequest round_trip(const protocol::FetchRequest& req, int16_t version) {
  ByteWriter w;
  req.encode(w, version);
  protocol::FetchRequest out;
  ByteReader r(w.buffer());
  EXPECT_TRUE(out.decode(r, version));
  return out;
}

TEST(FetchBuilder, DurableFollowerFetchesOnlyWhatItHasFsynced) {
  auto p = partition("a", 0, 100, 90);
  EXPECT_FALSE(fsynced_to_log_end(p));
  EXPECT_FALSE(ready_to_fetch(p, 0));
  p.synced_offset = 100;
  EXPECT_TRUE(fsynced_to_log_end(p));
  EXPECT_TRUE(ready_to_fetch(p, 0));
  // Without durable writes the fsync is not waited for.
  p.synced_offset = 0;
  p.durable_writes = false;
  EXPECT_TRUE(ready_to_fetch(p, 0));
}

TEST(FetchBuilder, OnlyFetchingPartitionsPastTheirBackoff) {
  auto p = partition("a", 0, 100, 100);
  p.phase = FetchPhase::kTruncating;
  EXPECT_FALSE(ready_to_fetch(p, 0));
  p.phase = FetchPhase::kParked;
  EXPECT_FALSE(ready_to_fetch(p, 0));
  p.phase = FetchPhase::kFetching;
  p.backoff_until_ms = 1000;
  EXPECT_FALSE(ready_to_fetch(p, 999));
  EXPECT_TRUE(ready_to_fetch(p, 1000));
}

TEST(FetchBuilder, Version12CarriesTheTopLevelReplicaIdAndTopicNames) {
  ReplicaFetchSettings s;
  s.replica_id = 2;
  s.broker_epoch = 55;
  auto a0 = partition("a", 0, 100, 100);
  auto b0 = partition("b", 0, 40, 40);
  auto a1 = partition("a", 1, 7, 7);
  a1.last_fetched_epoch.reset();  // an empty log
  auto unsynced = partition("a", 2, 9, 8);
  auto req = round_trip(build_replica_fetch(s, 12, {a0, b0, unsynced, a1}, 0), 12);
  EXPECT_EQ(req.replica_id, 2);
  EXPECT_EQ(replica_id_of(req, 12), 2);
  EXPECT_EQ(req.max_wait_ms, 500);
  EXPECT_EQ(req.min_bytes, 1);
  EXPECT_EQ(req.max_bytes, 10485760);
  EXPECT_EQ(req.isolation_level, 0);
  EXPECT_EQ(req.session_id, 0);
  EXPECT_EQ(req.session_epoch, -1);
  ASSERT_EQ(req.topics.size(), 2u);
  EXPECT_EQ(req.topics[0].topic, "a");
  EXPECT_EQ(req.topics[1].topic, "b");
  ASSERT_EQ(req.topics[0].partitions.size(), 2u);  // a-2 waits for its fsync
  const auto& p0 = req.topics[0].partitions[0];
  EXPECT_EQ(p0.partition, 0);
  EXPECT_EQ(p0.current_leader_epoch, 7);
  EXPECT_EQ(p0.fetch_offset, 100);
  EXPECT_EQ(p0.last_fetched_epoch, 6);
  EXPECT_EQ(p0.log_start_offset, 3);
  EXPECT_EQ(p0.partition_max_bytes, 1048576);
  EXPECT_EQ(req.topics[0].partitions[1].partition, 1);
  EXPECT_EQ(req.topics[0].partitions[1].last_fetched_epoch, -1);
  EXPECT_EQ(req.topics[1].partitions.at(0).fetch_offset, 40);
}

TEST(FetchBuilder, Version13GroupsByTopicId) {
  ReplicaFetchSettings s;
  s.replica_id = 3;
  auto a0 = partition("a", 0, 1, 1);
  auto a1 = partition("a", 1, 1, 1);
  a1.tp.topic = "renamed";  // the id decides from v13
  auto req = round_trip(build_replica_fetch(s, 13, {a0, a1}, 0), 13);
  ASSERT_EQ(req.topics.size(), 1u);
  EXPECT_EQ(req.topics[0].topic_id, a0.topic_id);
  EXPECT_EQ(req.topics[0].partitions.size(), 2u);
  EXPECT_EQ(req.replica_id, 3);
}

TEST(FetchBuilder, Version15CarriesReplicaState) {
  ReplicaFetchSettings s;
  s.replica_id = 4;
  s.broker_epoch = 1234;
  s.max_wait_ms = 250;
  s.min_bytes = 10;
  s.max_bytes = 5000;
  s.partition_max_bytes = 700;
  auto built = build_replica_fetch(s, 15, {partition("a", 0, 5, 5)}, 0);
  EXPECT_EQ(built.replica_id, -1);  // not on the wire from v15
  auto req = round_trip(built, 15);
  EXPECT_EQ(req.replica_state.replica_id, 4);
  EXPECT_EQ(req.replica_state.replica_epoch, 1234);
  EXPECT_EQ(replica_id_of(req, 15), 4);
  EXPECT_EQ(req.max_wait_ms, 250);
  EXPECT_EQ(req.min_bytes, 10);
  EXPECT_EQ(req.max_bytes, 5000);
  EXPECT_EQ(req.topics.at(0).partitions.at(0).partition_max_bytes, 700);
  // A consumer's fetch: -1 either way.
  protocol::FetchRequest consumer;
  EXPECT_EQ(replica_id_of(round_trip(consumer, 15), 15), -1);
  EXPECT_EQ(replica_id_of(round_trip(consumer, 12), 12), -1);
}

TEST(FetchBuilder, NothingReadyMeansNoTopics) {
  ReplicaFetchSettings s;
  auto p = partition("a", 0, 10, 0);
  EXPECT_TRUE(build_replica_fetch(s, 12, {p}, 0).topics.empty());
  EXPECT_TRUE(build_replica_fetch(s, 12, {}, 0).topics.empty());
}

TEST(FollowerHighWatermark, MinOfLeaderAndOwnLogEnd) {
  auto p = partition("a", 0, 100, 100);
  EXPECT_EQ(follower_high_watermark(p, 100, 80, false), 80);
  EXPECT_EQ(follower_high_watermark(p, 100, 150, false), 100);  // never beyond what it has
  EXPECT_EQ(follower_high_watermark(p, 100, 0, false), 3);      // at least its log start
  EXPECT_EQ(follower_high_watermark(p, 60, 80, false), 60);     // may go down
}

TEST(FollowerHighWatermark, NotBeforeTruncation) {
  auto p = partition("a", 0, 100, 100);
  EXPECT_EQ(follower_high_watermark(p, 100, 80, true), std::nullopt);  // DivergingEpoch
  p.phase = FetchPhase::kTruncating;
  EXPECT_EQ(follower_high_watermark(p, 100, 80, false), std::nullopt);
  p.phase = FetchPhase::kParked;
  EXPECT_EQ(follower_high_watermark(p, 100, 80, false), std::nullopt);
}

}  // namespace
}  // namespace spool::replica
