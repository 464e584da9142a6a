// MetadataCache: UpdateMetadata semantics (replace brokers, upsert partitions,
// delete marker, stale controller epoch) and the client-facing partition view.
#include "cluster/metadata_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace spool::cluster {
namespace {

LiveBroker broker(int32_t id, int32_t port, std::optional<std::string> rack = std::nullopt) {
  return LiveBroker{id, {EndPoint{"PLAINTEXT", "127.0.0.1", port, "PLAINTEXT"}}, std::move(rack)};
}

PartitionMetadata part(const std::string& topic, int32_t index, int32_t leader, int32_t epoch,
                       std::vector<int32_t> replicas, std::vector<int32_t> isr) {
  PartitionMetadata p;
  p.tp = {topic, index};
  p.leader = leader;
  p.leader_epoch = epoch;
  p.replicas = std::move(replicas);
  p.isr = std::move(isr);
  p.controller_epoch = 1;
  return p;
}

MetadataUpdate update(int32_t controller, int32_t cepoch, std::vector<LiveBroker> brokers,
                      std::vector<PartitionMetadata> parts) {
  return MetadataUpdate{controller, cepoch, std::move(parts), std::move(brokers)};
}

TEST(MetadataCache, EmptyUntilFirstUpdate) {
  MetadataCache c;
  EXPECT_EQ(c.controller_id(), -1);
  EXPECT_TRUE(c.live_brokers().empty());
  EXPECT_FALSE(c.partition({"t", 0}).has_value());
  EXPECT_FALSE(c.describe_partition({"t", 0}).has_value());
  EXPECT_TRUE(c.topics().empty());
}

TEST(MetadataCache, ApplyReplacesBrokersAndUpsertsPartitions) {
  MetadataCache c;
  ASSERT_TRUE(c.apply(update(1, 3, {broker(1, 9092), broker(2, 9093), broker(3, 9094)},
                             {part("t", 0, 1, 0, {1, 2, 3}, {1, 2, 3}), part("t", 1, 2, 0, {2, 3, 1}, {2, 3, 1})})));
  EXPECT_EQ(c.controller_id(), 1);
  EXPECT_EQ(c.controller_epoch(), 3);
  ASSERT_EQ(c.live_brokers().size(), 3u);
  EXPECT_EQ(c.topic_partitions("t").size(), 2u);

  // A second update names only broker 1 and 3 and only partition 1: broker 2
  // is gone, partition 0 is kept as it was.
  ASSERT_TRUE(c.apply(update(3, 4, {broker(1, 9092), broker(3, 9094)}, {part("t", 1, 3, 1, {2, 3, 1}, {3, 1})})));
  EXPECT_EQ(c.controller_id(), 3);
  EXPECT_FALSE(c.is_live(2));
  EXPECT_TRUE(c.is_live(3));
  EXPECT_EQ(c.partition({"t", 0})->leader, 1);
  EXPECT_EQ(c.partition({"t", 1})->leader, 3);
  EXPECT_EQ(c.partition({"t", 1})->leader_epoch, 1);
  EXPECT_EQ(c.partition({"t", 1})->isr, (std::vector<int32_t>{3, 1}));
}

TEST(MetadataCache, TopicNameById) {
  MetadataCache c;
  PartitionMetadata a = part("a", 0, 1, 0, {1}, {1});
  a.topic_id[15] = 1;
  PartitionMetadata b = part("b", 0, 1, 0, {1}, {1});
  b.topic_id[15] = 2;
  PartitionMetadata no_id = part("c", 0, 1, 0, {1}, {1});
  ASSERT_TRUE(c.apply(update(1, 1, {broker(1, 9092)}, {a, b, no_id})));
  EXPECT_EQ(c.topic_name(a.topic_id), "a");
  EXPECT_EQ(c.topic_name(b.topic_id), "b");
  TopicId unknown{};
  unknown[0] = 9;
  EXPECT_EQ(c.topic_name(unknown), std::nullopt);
  EXPECT_EQ(c.topic_name(TopicId{}), std::nullopt);  // the all-zero id names no topic, not "c"
}

TEST(MetadataCache, StaleControllerEpochChangesNothing) {
  MetadataCache c;
  ASSERT_TRUE(c.apply(update(1, 5, {broker(1, 9092)}, {part("t", 0, 1, 2, {1}, {1})})));
  EXPECT_FALSE(c.apply(update(2, 4, {broker(2, 9093)}, {part("t", 0, 2, 3, {1}, {1})})));
  EXPECT_EQ(c.controller_id(), 1);
  EXPECT_EQ(c.controller_epoch(), 5);
  EXPECT_TRUE(c.is_live(1));
  EXPECT_FALSE(c.is_live(2));
  EXPECT_EQ(c.partition({"t", 0})->leader_epoch, 2);
  // The same epoch is not stale (the controller sends many per epoch).
  EXPECT_TRUE(c.apply(update(1, 5, {broker(1, 9092), broker(2, 9093)}, {})));
  EXPECT_TRUE(c.is_live(2));
}

TEST(MetadataCache, DeleteMarkerRemovesPartitionsAndEmptyTopics) {
  MetadataCache c;
  ASSERT_TRUE(c.apply(update(1, 1, {broker(1, 9092)},
                             {part("t", 0, 1, 0, {1}, {1}), part("t", 1, 1, 0, {1}, {1}), part("u", 0, 1, 0, {1}, {1})})));
  ASSERT_TRUE(c.apply(update(1, 1, {broker(1, 9092)}, {part("t", 0, kLeaderDuringDelete, 0, {1}, {1})})));
  EXPECT_FALSE(c.partition({"t", 0}).has_value());
  EXPECT_TRUE(c.contains_topic("t"));
  ASSERT_TRUE(c.apply(update(1, 1, {broker(1, 9092)}, {part("t", 1, kLeaderDuringDelete, 0, {1}, {1})})));
  EXPECT_FALSE(c.contains_topic("t"));
  EXPECT_EQ(c.topics(), (std::vector<std::string>{"u"}));
  // A delete marker for an unknown topic is harmless.
  EXPECT_TRUE(c.apply(update(1, 1, {broker(1, 9092)}, {part("nope", 0, kLeaderDuringDelete, 0, {}, {})})));
  EXPECT_EQ(c.topics(), (std::vector<std::string>{"u"}));
}

TEST(MetadataCache, DescribePartitionRules) {
  MetadataCache c;
  auto dead_leader = part("t", 0, 2, 7, {1, 2, 3}, {2, 3});
  auto no_leader = part("t", 1, kNoLeader, 8, {2}, {2});
  auto healthy = part("t", 2, 3, 1, {3, 1, 2}, {3, 1});
  healthy.offline_replicas = {1};  // the controller reports a dir offline on broker 1
  ASSERT_TRUE(c.apply(update(1, 1, {broker(1, 9092), broker(3, 9094)}, {dead_leader, no_leader, healthy})));

  auto v0 = *c.describe_partition({"t", 0});
  EXPECT_EQ(v0.error_code, 5);  // LEADER_NOT_AVAILABLE: broker 2 is not live
  EXPECT_EQ(v0.leader, kNoLeader);
  EXPECT_EQ(v0.leader_epoch, 7);
  EXPECT_EQ(v0.replicas, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(v0.isr, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(v0.offline_replicas, (std::vector<int32_t>{2}));

  auto v1 = *c.describe_partition({"t", 1});
  EXPECT_EQ(v1.error_code, 5);
  EXPECT_EQ(v1.leader, kNoLeader);

  auto v2 = *c.describe_partition({"t", 2});
  EXPECT_EQ(v2.error_code, 0);
  EXPECT_EQ(v2.leader, 3);
  EXPECT_EQ(v2.offline_replicas, (std::vector<int32_t>{1, 2}));
}

TEST(MetadataCache, EndpointByListener) {
  MetadataCache c;
  LiveBroker b{1, {{"PLAINTEXT", "h1", 9092, "PLAINTEXT"}, {"REPLICATION", "h1", 9192, "PLAINTEXT"}}, "r1"};
  ASSERT_TRUE(c.apply(update(1, 1, {b}, {})));
  EXPECT_EQ(c.endpoint(1, "REPLICATION")->port, 9192);
  EXPECT_EQ(c.endpoint(1, "PLAINTEXT")->port, 9092);
  EXPECT_FALSE(c.endpoint(1, "SSL").has_value());
  EXPECT_FALSE(c.endpoint(2, "PLAINTEXT").has_value());
  EXPECT_EQ(c.broker(1)->rack, std::optional<std::string>("r1"));
}

// Readers on other threads see either the old or the new snapshot, whole.
TEST(MetadataCache, ConcurrentReadersSeeWholeSnapshots) {
  MetadataCache c;
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0};
  std::thread reader([&] {
    while (!stop.load()) {
      auto parts = c.topic_partitions("t");
      // Every update writes both partitions with the same leader epoch.
      if (parts.size() == 2 && parts[0].leader_epoch != parts[1].leader_epoch) torn.fetch_add(1);
    }
  });
  for (int e = 0; e < 2000; ++e) {
    c.apply(update(1, 1, {broker(1, 9092)}, {part("t", 0, 1, e, {1}, {1}), part("t", 1, 1, e, {1}, {1})}));
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(c.partition({"t", 1})->leader_epoch, 1999);
}

}  // namespace
}  // namespace spool::cluster
