// replica_assignment: golden assignments derived by hand from Kafka's
// AdminUtils.assignReplicasToBrokers (the derivations are in the comments),
// Kafka's own expected lists, seeded property checks, and every validation
// error with Kafka's code and message.
#include "cluster/replica_assignment.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "protocol/error_code.h"

namespace spool::cluster {
namespace {

using protocol::ErrorCode;

std::vector<BrokerMetadata> plain_brokers(std::vector<int32_t> ids) {
  std::vector<BrokerMetadata> out;
  for (int32_t id : ids) out.push_back({id, std::nullopt});
  return out;
}

std::vector<BrokerMetadata> racked(const std::map<int32_t, std::string>& racks) {
  std::vector<BrokerMetadata> out;
  for (const auto& [id, rack] : racks) out.push_back({id, rack});
  return out;
}

void expect_kafka_error(const Status& s, ErrorCode code, const std::string& message) {
  ASSERT_FALSE(s.is_ok()) << "expected: " << message;
  EXPECT_EQ(s.kafka_code(), static_cast<int16_t>(code)) << s.message();
  EXPECT_EQ(s.message(), message);
}

template <typename T>
void expect_kafka_error(const Result<T>& r, ErrorCode code, const std::string& message) {
  ASSERT_FALSE(r.is_ok()) << "expected: " << message;
  expect_kafka_error(r.status(), code, message);
}

// ------------------------------------------------------------ rack-unaware

TEST(AssignReplicas, RackUnawareKafkasTenPartitionExample) {
  // 5 brokers, start index 0 and shift 0. First replica of p is broker p % 5;
  // follower j sits 1 + (shift + j) % 4 further on. The shift becomes 1 at
  // p = 5, so p5 = [0, 0+2, 0+3] instead of repeating p0 = [0, 1, 2].
  auto a = assign_replicas_to_brokers(plain_brokers({0, 1, 2, 3, 4}), 10, 3, AssignmentStart::fixed(0));
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  EXPECT_EQ(a.value(), (ReplicaAssignment{{0, {0, 1, 2}},
                                          {1, {1, 2, 3}},
                                          {2, {2, 3, 4}},
                                          {3, {3, 4, 0}},
                                          {4, {4, 0, 1}},
                                          {5, {0, 2, 3}},
                                          {6, {1, 3, 4}},
                                          {7, {2, 4, 0}},
                                          {8, {3, 0, 1}},
                                          {9, {4, 1, 2}}}));
}

TEST(AssignReplicas, RackUnawareWithDistinctStartAndShift) {
  // Brokers [1,2,3,4] (n=4), start 2, shift 3, RF 2:
  //   p0: first (0+2)%4=2 -> 3; distance 1+(3+0)%3=1 -> idx 3 -> 4
  //   p1: first 3 -> 4; idx 0 -> 1          p2: first 0 -> 1; idx 1 -> 2
  //   p3: first 1 -> 2; idx 2 -> 3
  //   p4: 4%4==0 so shift 4; first 2 -> 3; distance 1+(4%3)=2 -> idx 0 -> 1
  // The broker list is given unsorted: assignment uses id order.
  auto a = assign_replicas_to_brokers(plain_brokers({4, 2, 1, 3}), 5, 2, AssignmentStart{2, 3});
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  EXPECT_EQ(a.value(), (ReplicaAssignment{{0, {3, 4}}, {1, {4, 1}}, {2, {1, 2}}, {3, {2, 3}}, {4, {3, 1}}}));
}

TEST(AssignReplicas, FirstPartitionIdNumbersAndShiftsLikeAFreshAssignment) {
  // Partitions 3..6 of a topic assigned from 0: identical to the tail of the
  // 7-partition assignment (the shift steps at p = 5 either way).
  auto whole = assign_replicas_to_brokers(plain_brokers({0, 1, 2, 3, 4}), 7, 2, AssignmentStart::fixed(0));
  auto tail = assign_replicas_to_brokers(plain_brokers({0, 1, 2, 3, 4}), 4, 2, AssignmentStart::fixed(0), 3);
  ASSERT_TRUE(whole.is_ok() && tail.is_ok());
  EXPECT_EQ(tail.value(), (ReplicaAssignment{{3, {3, 4}}, {4, {4, 0}}, {5, {0, 2}}, {6, {1, 3}}}));
  for (const auto& [p, replicas] : tail.value()) EXPECT_EQ(whole->at(p), replicas) << p;
}

TEST(AssignReplicas, SingleBrokerAndRfEqualToBrokerCount) {
  auto one = assign_replicas_to_brokers(plain_brokers({7}), 3, 1, AssignmentStart{5, 9});
  ASSERT_TRUE(one.is_ok());
  EXPECT_EQ(one.value(), (ReplicaAssignment{{0, {7}}, {1, {7}}, {2, {7}}}));
  // RF = n: every partition holds every broker; start 1, shift 1 on [0,1,2]:
  //   p0: first 1; distances 1+(1+0)%2=2 -> 0, 1+(1+1)%2=1 -> 2  => [1,0,2]
  //   p1: first 2; -> [2,1,0]      p2: first 0 -> [0,2,1]
  auto all = assign_replicas_to_brokers(plain_brokers({0, 1, 2}), 3, 3, AssignmentStart::fixed(1));
  ASSERT_TRUE(all.is_ok());
  EXPECT_EQ(all.value(), (ReplicaAssignment{{0, {1, 0, 2}}, {1, {2, 1, 0}}, {2, {0, 2, 1}}}));
}

TEST(AssignReplicas, LargeIndicesDoNotOverflow) {
  auto a = assign_replicas_to_brokers(plain_brokers({0, 1, 2}), 2, 2, AssignmentStart{2147483647, 2147483647},
                                      2147483646);
  ASSERT_TRUE(a.is_ok());
  // p = 2147483646 = 3 * 715827882, a multiple of n: shift becomes 2^31.
  //   first = (2147483646 + 2147483647) % 3 = 1; distance 1 + 2^31 % 2 = 1 -> idx 2
  //   p = 2147483647: first = 4294967294 % 3 = 2; distance 1 -> idx 0
  EXPECT_EQ(a.value(), (ReplicaAssignment{{2147483646, {1, 2}}, {2147483647, {2, 0}}}));
}

// -------------------------------------------------------------- rack-aware

TEST(RackAlternatedList, KafkasExamples) {
  const std::map<int32_t, std::string> racks{{0, "rack1"}, {1, "rack3"}, {2, "rack3"},
                                             {3, "rack2"}, {4, "rack2"}, {5, "rack1"}};
  EXPECT_EQ(rack_alternated_broker_list(racks), (std::vector<int32_t>{0, 3, 1, 5, 4, 2}));
  auto without5 = racks;
  without5.erase(5);
  EXPECT_EQ(rack_alternated_broker_list(without5), (std::vector<int32_t>{0, 3, 1, 4, 2}));
  // Uneven racks: rack1 [0,1,5], rack2 [2], rack3 [3,4].
  EXPECT_EQ(rack_alternated_broker_list({{0, "rack1"}, {1, "rack1"}, {2, "rack2"}, {3, "rack3"}, {4, "rack3"}, {5, "rack1"}}),
            (std::vector<int32_t>{0, 2, 3, 1, 4, 5}));
  EXPECT_TRUE(rack_alternated_broker_list({}).empty());
}

TEST(AssignReplicas, RackAwareKafkasSevenPartitionExample) {
  // AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers.
  const std::map<int32_t, std::string> racks{{0, "rack1"}, {1, "rack3"}, {2, "rack3"},
                                             {3, "rack2"}, {4, "rack2"}, {5, "rack1"}};
  auto a = assign_replicas_to_brokers(racked(racks), 7, 3, AssignmentStart::fixed(0));
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  EXPECT_EQ(a.value(), (ReplicaAssignment{{0, {0, 3, 1}},
                                          {1, {3, 1, 5}},
                                          {2, {1, 5, 4}},
                                          {3, {5, 4, 2}},
                                          {4, {4, 2, 0}},
                                          {5, {2, 0, 3}},
                                          {6, {0, 4, 2}}}));
}

TEST(AssignReplicas, RackAwareSixBrokersThreeRacksStartTwo) {
  // racks: 0,5 -> rack1; 1,2 -> rack2; 3,4 -> rack3. Alternated list
  // L = [0,1,3,5,2,4]; start 2, shift 2, so the walk uses shift*racks = 6:
  // distance(k) = 1 + (6 + k) % 5 = 2, 3, 4, ...
  //   p0: leader L[2]=3 (rack3); k0 L[4]=2 rack2 ok; k1 L[5]=4 rack3 skip; k2 L[0]=0 ok -> [3,2,0]
  //   p1: leader L[3]=5 (rack1); k0 L[5]=4 ok; k1 L[0]=0 rack1 skip; k2 L[1]=1 ok -> [5,4,1]
  //   p2: leader L[4]=2 (rack2); k0 L[0]=0 ok; k1 L[1]=1 skip; k2 L[2]=3 ok      -> [2,0,3]
  //   p3: leader L[5]=4 (rack3); k0 L[1]=1 ok; k1 L[2]=3 skip; k2 L[3]=5 ok      -> [4,1,5]
  //   p4: leader L[0]=0 (rack1); k0 L[2]=3 ok; k1 L[3]=5 skip; k2 L[4]=2 ok      -> [0,3,2]
  //   p5: leader L[1]=1 (rack2); k0 L[3]=5 ok; k1 L[4]=2 skip; k2 L[5]=4 ok      -> [1,5,4]
  const std::map<int32_t, std::string> racks{{0, "rack1"}, {1, "rack2"}, {2, "rack2"},
                                             {3, "rack3"}, {4, "rack3"}, {5, "rack1"}};
  auto a = assign_replicas_to_brokers(racked(racks), 6, 3, AssignmentStart::fixed(2));
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  EXPECT_EQ(a.value(), (ReplicaAssignment{{0, {3, 2, 0}},
                                          {1, {5, 4, 1}},
                                          {2, {2, 0, 3}},
                                          {3, {4, 1, 5}},
                                          {4, {0, 3, 2}},
                                          {5, {1, 5, 4}}}));
}

TEST(AssignReplicas, RackAwareSkipsAChosenBrokerUntilAllBrokersHaveOne) {
  // rack a: 0,1,2; b: 3; c: 4. L = [0,3,4,1,2]. Start 0, shift 3: walk shift
  // 3*3 = 9, distance(k) = 1 + (9 + k) % 4 = 2, 3, 4, 1, 2, 3, 4 ...
  //   leader L[0]=0 (a); k0 L[2]=4 (c) ok; k1 L[3]=1 (a) skip: racks not all used;
  //   k2 L[4]=2 (a) skip; k3 L[1]=3 (b) ok, all racks used; k4 L[2]=4 chosen
  //   already, skip; k5 L[3]=1 ok; k6 L[4]=2 ok.
  const std::map<int32_t, std::string> racks{{0, "a"}, {1, "a"}, {2, "a"}, {3, "b"}, {4, "c"}};
  auto rf4 = assign_replicas_to_brokers(racked(racks), 1, 4, AssignmentStart{0, 3});
  ASSERT_TRUE(rf4.is_ok()) << rf4.status().message();
  EXPECT_EQ(rf4->at(0), (std::vector<int32_t>{0, 4, 3, 1}));
  auto rf5 = assign_replicas_to_brokers(racked(racks), 1, 5, AssignmentStart{0, 3});
  ASSERT_TRUE(rf5.is_ok());
  EXPECT_EQ(rf5->at(0), (std::vector<int32_t>{0, 4, 3, 1, 2}));
}

// ------------------------------------------------------- seeded properties

TEST(AssignReplicas, RandomStartIsReproducibleAndCoversEveryIndex) {
  EXPECT_EQ(random_assignment_start(42, 5).start_index, random_assignment_start(42, 5).start_index);
  EXPECT_EQ(random_assignment_start(42, 5).replica_shift, random_assignment_start(42, 5).replica_shift);
  std::set<int32_t> starts;
  std::set<int32_t> shifts;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const AssignmentStart s = random_assignment_start(seed, 5);
    ASSERT_GE(s.start_index, 0);
    ASSERT_LT(s.start_index, 5);
    ASSERT_GE(s.replica_shift, 0);
    ASSERT_LT(s.replica_shift, 5);
    starts.insert(s.start_index);
    shifts.insert(s.replica_shift);
  }
  EXPECT_EQ(starts.size(), 5u);
  EXPECT_EQ(shifts.size(), 5u);
  EXPECT_EQ(random_assignment_start(1, 0).start_index, 0);
}

TEST(AssignReplicas, SeededPropertiesHoldForRackAwareAndUnaware) {
  const uint64_t base_seed = 20261202;
  std::printf("replica assignment property seed base: %llu\n", static_cast<unsigned long long>(base_seed));
  for (uint64_t i = 0; i < 300; ++i) {
    const uint64_t seed = base_seed + i;
    std::mt19937_64 rng(seed);
    const int n = 1 + static_cast<int>(rng() % 9);
    const int num_racks = static_cast<int>(rng() % 4);  // 0 = no racks
    std::vector<BrokerMetadata> brokers;
    std::map<int32_t, std::string> rack_of;
    for (int b = 0; b < n; ++b) {
      const auto id = static_cast<int32_t>(b * 3 + 1);
      std::optional<std::string> rack;
      if (num_racks > 0) rack = "r" + std::to_string(rng() % num_racks);
      brokers.push_back({id, rack});
      if (rack) rack_of[id] = *rack;
    }
    std::set<std::string> distinct_racks;
    for (const auto& [id, r] : rack_of) distinct_racks.insert(r);
    const int rf = 1 + static_cast<int>(rng() % n);
    const int partitions = 1 + static_cast<int>(rng() % 20);
    auto a = assign_replicas_to_brokers(brokers, partitions, rf, random_assignment_start(seed, n));
    ASSERT_TRUE(a.is_ok()) << "seed " << seed << ": " << a.status().message();
    ASSERT_EQ(a->size(), static_cast<size_t>(partitions)) << "seed " << seed;
    std::map<int32_t, int> leaders;
    for (const auto& [p, replicas] : a.value()) {
      ASSERT_EQ(replicas.size(), static_cast<size_t>(rf)) << "seed " << seed;
      ASSERT_EQ(std::set<int32_t>(replicas.begin(), replicas.end()).size(), replicas.size()) << "seed " << seed;
      ++leaders[replicas.front()];
      if (!rack_of.empty()) {
        std::set<std::string> used;
        for (int32_t b : replicas) used.insert(rack_of.at(b));
        // One replica per rack first: as many racks as the RF allows.
        EXPECT_EQ(used.size(), std::min<size_t>(rf, distinct_racks.size())) << "seed " << seed << " partition " << p;
      }
    }
    // Leaders round-robin: no broker leads more than ceil(partitions / n).
    for (const auto& [b, count] : leaders) EXPECT_LE(count, (partitions + n - 1) / n) << "seed " << seed;
  }
}

// ------------------------------------------------------------ input errors

TEST(AssignReplicas, KafkasErrors) {
  expect_kafka_error(assign_replicas_to_brokers(plain_brokers({0, 1}), 0, 1, {}), ErrorCode::kInvalidPartitions,
                     "Number of partitions must be larger than 0.");
  expect_kafka_error(assign_replicas_to_brokers(plain_brokers({0, 1}), 1, 0, {}), ErrorCode::kInvalidReplicationFactor,
                     "Replication factor must be larger than 0.");
  expect_kafka_error(assign_replicas_to_brokers(plain_brokers({0, 1}), 1, 3, {}), ErrorCode::kInvalidReplicationFactor,
                     "Replication factor: 3 larger than available brokers: 2.");
  expect_kafka_error(assign_replicas_to_brokers({}, 1, 1, {}), ErrorCode::kInvalidReplicationFactor,
                     "Replication factor: 1 larger than available brokers: 0.");
  expect_kafka_error(assign_replicas_to_brokers({{0, "a"}, {1, std::nullopt}}, 1, 1, {}), ErrorCode::kUnknownServerError,
                     "Not all brokers have rack information for replica rack aware assignment.");
  expect_kafka_error(assign_replicas_to_brokers(plain_brokers({1, 2, 1}), 1, 1, {}), ErrorCode::kUnknownServerError,
                     "Broker 1 is listed twice in the broker list.");
  expect_kafka_error(assign_replicas_to_brokers(plain_brokers({0}), 3, 1, {}, 2147483646), ErrorCode::kInvalidPartitions,
                     "Partition ids would exceed 2147483647.");
}

// ------------------------------------------------- explicit CreateTopics lists

TEST(ValidateAssignment, AcceptsAConsistentAssignment) {
  EXPECT_TRUE(validate_replica_assignment({{0, {1, 2}}, {1, {2, 3}}, {2, {3, 1}}}, {1, 2, 3}).is_ok());
  EXPECT_TRUE(validate_replica_assignment({{0, {5}}}, {5}).is_ok());
}

TEST(ValidateAssignment, KafkasMessagesInKafkasOrder) {
  const std::set<int32_t> known{1, 2, 3};
  expect_kafka_error(validate_replica_assignment({}, known), ErrorCode::kInvalidReplicaAssignment,
                     "All partitions should have the same number of replicas");
  expect_kafka_error(validate_replica_assignment({{0, {1, 2}}, {1, {2}}}, known), ErrorCode::kInvalidReplicaAssignment,
                     "All partitions should have the same number of replicas");
  // Inconsistent sizes are reported before a duplicate.
  expect_kafka_error(validate_replica_assignment({{0, {1, 1}}, {1, {2}}}, known), ErrorCode::kInvalidReplicaAssignment,
                     "All partitions should have the same number of replicas");
  expect_kafka_error(validate_replica_assignment({{0, {1, 1}}, {1, {2, 3}}}, known), ErrorCode::kInvalidReplicaAssignment,
                     "Duplicate replica assignment found: HashMap(0 -> ArrayBuffer(1, 1), 1 -> ArrayBuffer(2, 3))");
  expect_kafka_error(validate_replica_assignment({{0, {1}}, {2, {2}}}, known), ErrorCode::kInvalidReplicaAssignment,
                     "partitions should be a consecutive 0-based integer sequence");
  expect_kafka_error(validate_replica_assignment({{1, {1}}}, known), ErrorCode::kInvalidReplicaAssignment,
                     "partitions should be a consecutive 0-based integer sequence");
  expect_kafka_error(validate_replica_assignment({{-1, {1}}, {0, {2}}}, known), ErrorCode::kInvalidReplicaAssignment,
                     "partitions should be a consecutive 0-based integer sequence");
  expect_kafka_error(validate_replica_assignment({{0, {}}, {1, {}}}, known), ErrorCode::kInvalidReplicaAssignment,
                     "Cannot have replication factor of 0 for partition id 0.");
  expect_kafka_error(validate_replica_assignment({{0, {7, 1}}, {1, {-1, 5}}}, known), ErrorCode::kInvalidReplicaAssignment,
                     "Unknown broker(s) in replica assignment: -1, 5, 7.");
}

// ------------------------------------------------------- CreatePartitions

TopicAssignment topic_of(const ReplicaAssignment& a) {
  TopicAssignment t;
  for (const auto& [p, replicas] : a) t.partitions[p].replicas = replicas;
  return t;
}

TEST(NewPartitions, ContinueTheRoundRobinFromPartitionZerosLeader) {
  // Created with start 0: p0 [0,1], p1 [1,2], p2 [2,3]. Partition 0's leader
  // is broker 0 at index 0, so the added partitions 3..6 are those a fresh
  // 7-partition assignment with start 0 would have.
  const auto brokers = plain_brokers({0, 1, 2, 3, 4});
  auto created = assign_replicas_to_brokers(brokers, 3, 2, AssignmentStart::fixed(0));
  ASSERT_TRUE(created.is_ok());
  auto added = assign_new_partitions("t", topic_of(created.value()), 7, std::nullopt, brokers);
  ASSERT_TRUE(added.is_ok()) << added.status().message();
  EXPECT_EQ(added.value(), (ReplicaAssignment{{3, {3, 4}}, {4, {4, 0}}, {5, {0, 2}}, {6, {1, 3}}}));
}

TEST(NewPartitions, StartIndexIsTheFirstBrokerAtOrAboveTheLeaderAndAlsoTheShift) {
  // Brokers [1,3,5,7]; partition 0 led by 3 (index 1): start 1 and shift 1.
  //   p2: first (2+1)%4=3 -> 7; distance 1+(1+0)%3=2 -> idx 1 -> 3   => [7,3]
  //   p3: first 0 -> 1; idx 2 -> 5                                   => [1,5]
  const auto brokers = plain_brokers({7, 5, 3, 1});
  auto added = assign_new_partitions("t", topic_of({{0, {3, 5}}, {1, {5, 7}}}), 4, std::nullopt, brokers);
  ASSERT_TRUE(added.is_ok()) << added.status().message();
  EXPECT_EQ(added.value(), (ReplicaAssignment{{2, {7, 3}}, {3, {1, 5}}}));
  // Leader 4 is no longer a broker: the first id >= 4 is 5 (index 2).
  //   p1: first (1+2)%4=3 -> 7; distance 1+(2%3)=3 -> idx 2 -> 5      => [7,5]
  added = assign_new_partitions("t", topic_of({{0, {4, 1}}}), 2, std::nullopt, brokers);
  ASSERT_TRUE(added.is_ok());
  EXPECT_EQ(added.value(), (ReplicaAssignment{{1, {7, 5}}}));
  // Leader above every id: index 0.  p1: first 1 -> 3; distance 1 -> idx 2 -> 5.
  added = assign_new_partitions("t", topic_of({{0, {9, 1}}}), 2, std::nullopt, brokers);
  ASSERT_TRUE(added.is_ok());
  EXPECT_EQ(added.value(), (ReplicaAssignment{{1, {3, 5}}}));
}

TEST(NewPartitions, ExplicitAssignmentIsNumberedAfterTheExisting) {
  auto added = assign_new_partitions("t", topic_of({{0, {1, 2}}, {1, {2, 3}}}), 4,
                                     std::vector<std::vector<int32_t>>{{3, 1}, {1, 3}}, plain_brokers({1, 2, 3}));
  ASSERT_TRUE(added.is_ok()) << added.status().message();
  EXPECT_EQ(added.value(), (ReplicaAssignment{{2, {3, 1}}, {3, {1, 3}}}));
}

TEST(NewPartitions, KafkasErrorsInKafkasOrder) {
  const auto brokers = plain_brokers({1, 2, 3});
  const TopicAssignment two = topic_of({{0, {1, 2}}, {1, {2, 3}}});
  using Lists = std::vector<std::vector<int32_t>>;
  expect_kafka_error(assign_new_partitions("t", {}, 3, std::nullopt, brokers), ErrorCode::kUnknownTopicOrPartition,
                     "The topic 't' does not exist.");
  TopicAssignment moving = two;
  moving.partitions[1].adding = {3};
  expect_kafka_error(assign_new_partitions("t", moving, 3, std::nullopt, brokers), ErrorCode::kReassignmentInProgress,
                     "A partition reassignment is in progress for the topic 't'.");
  expect_kafka_error(assign_new_partitions("t", two, 1, std::nullopt, brokers), ErrorCode::kInvalidPartitions,
                     "Topic currently has 2 partitions, which is higher than the requested 1.");
  expect_kafka_error(assign_new_partitions("t", two, 2, std::nullopt, brokers), ErrorCode::kInvalidPartitions,
                     "Topic already has 2 partitions.");
  // Unknown brokers are reported before a count mismatch.
  expect_kafka_error(assign_new_partitions("t", two, 4, Lists{{9, 1}}, brokers), ErrorCode::kInvalidReplicaAssignment,
                     "Unknown broker(s) in replica assignment: 9.");
  expect_kafka_error(assign_new_partitions("t", two, 4, Lists{{3, 1}}, brokers), ErrorCode::kInvalidReplicaAssignment,
                     "Increasing the number of partitions by 2 but 1 assignments provided.");
  expect_kafka_error(assign_new_partitions("t", two, 4, Lists{{3, 1}, {}}, brokers), ErrorCode::kInvalidReplicaAssignment,
                     "Cannot have replication factor of 0 for partition id 3.");
  expect_kafka_error(assign_new_partitions("t", two, 3, Lists{{1, 1}}, brokers), ErrorCode::kInvalidReplicaAssignment,
                     "Duplicate brokers not allowed in replica assignment: 1, 1 for partition id 2.");
  expect_kafka_error(assign_new_partitions("t", two, 5, Lists{{3}, {1, 2}, {1, 2, 3}}, brokers),
                     ErrorCode::kInvalidReplicaAssignment,
                     "Inconsistent replication factor between partitions, partition 0 has 2 while partitions [2, 4] "
                     "have replication factors [1, 3], respectively.");
  expect_kafka_error(assign_new_partitions("t", topic_of({{1, {1}}}), 3, std::nullopt, brokers),
                     ErrorCode::kUnknownServerError,
                     "Unexpected existing replica assignment for topic 't': partition ids are not 0..0.");
  expect_kafka_error(assign_new_partitions("t", topic_of({{0, {}}}), 3, std::nullopt, brokers),
                     ErrorCode::kUnknownServerError,
                     "Unexpected existing replica assignment for topic 't': partition 0 has no replicas.");
  // RF (partition 0's) above the brokers now registered.
  expect_kafka_error(assign_new_partitions("t", topic_of({{0, {1, 2, 3}}}), 2, std::nullopt, plain_brokers({1, 2})),
                     ErrorCode::kInvalidReplicationFactor, "Replication factor: 3 larger than available brokers: 2.");
}

TEST(NewPartitions, RackAwareExtension) {
  // Kafka's quirk: the start index is a position in the id-sorted list but
  // is applied to the rack-alternated list. Racks 0,5 -> rack1; 1,2 -> rack2;
  // 3,4 -> rack3; L = [0,1,3,5,2,4]. Partition 0 led by 3 -> index 3 in
  // [0..5]: start 3, shift 3, walk shift 9, distance(k) = 1 + (9 + k) % 5.
  //   p2: first (2+3)%6=5 -> L[5]=4 (rack3); k0 dist 5 -> L[4]=2 (rack2) ok;
  //       k1 dist 1 -> L[0]=0 (rack1) ok                             => [4,2,0]
  const std::map<int32_t, std::string> racks{{0, "rack1"}, {1, "rack2"}, {2, "rack2"},
                                             {3, "rack3"}, {4, "rack3"}, {5, "rack1"}};
  auto added = assign_new_partitions("t", topic_of({{0, {3, 1, 5}}, {1, {5, 2, 3}}}), 3, std::nullopt, racked(racks));
  ASSERT_TRUE(added.is_ok()) << added.status().message();
  EXPECT_EQ(added.value(), (ReplicaAssignment{{2, {4, 2, 0}}}));
}

}  // namespace
}  // namespace spool::cluster
