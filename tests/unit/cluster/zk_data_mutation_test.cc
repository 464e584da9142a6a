// zk_data decoders on seeded random mutations of valid documents: every
// decoder sees every mutant and must return (never crash or throw), and any
// mutant a decoder accepts must survive encode -> decode unchanged, so an
// accepted document always holds a value Spool can write back.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cluster/zk_data.h"

namespace spool::cluster {
namespace {

std::vector<std::string> samples() {
  BrokerRegistration b;
  b.id = 1;
  b.endpoints = {{"PLAINTEXT", "h", 9092, "PLAINTEXT"}, {"V6", "::1", 9093, "SSL"}};
  b.rack = "r";
  b.features["f"] = {1, 2};
  TopicAssignment t;
  t.topic_id = TopicId{1, 2, 3};
  t.partitions[0] = {{1, 2, 3}, {3}, {1}};
  t.partitions[1] = {{2, 3}, {}, {}};
  return {encode_broker(b),
          encode_topic_assignment(t),
          encode_partition_state({1, 2, 3, {1, 2}, LeaderRecoveryState::kRecovering}),
          encode_controller({1, 2, -1}),
          encode_controller_epoch(12),
          encode_cluster_id("abc"),
          encode_reassign_partitions({{TopicPartition("t", 0), {1, 2}}}),
          encode_preferred_replica_election({{"t", 0}, {"u", 1}}),
          encode_log_dir_event(3),
          encode_entity_config({{"a", "b"}}),
          encode_config_change("topics/t"),
          encode_producer_id_block({1, 0, 999}),
          encode_feature({1, true, {{"f", 2}}})};
}

const std::vector<std::string>& tokens() {
  static const std::vector<std::string> kTokens = {
      "{", "}", "[", "]", "\"", ",", ":", "0", "-1", "99999999999999999999", "1.5", "null", "true",
      "\\u0000", "\xff", "\"version\"", "\"partitions\"", "\\", "1e400", "\"0\":[1]", " "};
  return kTokens;
}

std::string mutate(std::string s, std::mt19937_64& rng) {
  const int steps = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < steps; ++i) {
    const size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 4) {
      case 0:  // flip a byte
        if (!s.empty()) s[pos % s.size()] = static_cast<char>(rng());
        break;
      case 1:  // delete a range
        if (!s.empty()) s.erase(pos % s.size(), 1 + rng() % 8);
        break;
      case 2:  // insert a token
        s.insert(pos, tokens()[rng() % tokens().size()]);
        break;
      default:  // truncate
        s.resize(pos);
        break;
    }
  }
  return s;
}

template <typename T, typename Decode, typename Encode>
void check(const std::string& doc, Decode decode, Encode encode, uint64_t seed, int& accepted) {
  Result<T> r = decode(doc);
  if (!r.is_ok()) {
    EXPECT_FALSE(r.status().message().empty()) << "seed " << seed;
    return;
  }
  ++accepted;
  Result<T> again = decode(encode(r.value()));
  ASSERT_TRUE(again.is_ok()) << "seed " << seed << " doc " << doc << ": " << again.status().message();
  EXPECT_TRUE(again.value() == r.value()) << "seed " << seed << " doc " << doc;
}

TEST(ZkDataMutations, DecodersNeverCrashAndAcceptedValuesRoundTrip) {
  const uint64_t base_seed = 1202;
  std::printf("zk_data mutation seed base: %llu\n", static_cast<unsigned long long>(base_seed));
  const std::vector<std::string> docs = samples();
  int accepted = 0;
  for (uint64_t i = 0; i < 3000; ++i) {
    const uint64_t seed = base_seed + i;
    std::mt19937_64 rng(seed);
    const std::string doc = mutate(docs[rng() % docs.size()], rng);
    check<BrokerRegistration>(doc, [](const std::string& d) { return decode_broker(1, d); }, encode_broker, seed,
                              accepted);
    check<TopicAssignment>(doc, [](const std::string& d) { return decode_topic_assignment("t", d); },
                           encode_topic_assignment, seed, accepted);
    check<PartitionState>(doc, [](const std::string& d) { return decode_partition_state({"t", 0}, d); },
                          encode_partition_state, seed, accepted);
    check<ControllerRegistration>(doc, [](const std::string& d) { return decode_controller(d); }, encode_controller,
                                  seed, accepted);
    check<int32_t>(doc, [](const std::string& d) { return decode_controller_epoch(d); }, encode_controller_epoch, seed,
                   accepted);
    check<std::string>(doc, [](const std::string& d) { return decode_cluster_id(d); },
                       [](const std::string& id) { return encode_cluster_id(id); }, seed, accepted);
    check<LegacyReassignment>(doc, [](const std::string& d) { return decode_reassign_partitions(d); },
                              encode_reassign_partitions, seed, accepted);
    check<std::set<TopicPartition>>(doc, [](const std::string& d) { return decode_preferred_replica_election(d); },
                                    encode_preferred_replica_election, seed, accepted);
    check<int32_t>(doc, [](const std::string& d) { return decode_log_dir_event("/p", d); }, encode_log_dir_event, seed,
                   accepted);
    check<EntityConfig>(doc, [](const std::string& d) { return decode_entity_config("/p", d); }, encode_entity_config,
                        seed, accepted);
    check<std::string>(doc, [](const std::string& d) { return decode_config_change("/p", d); },
                       [](const std::string& p) { return encode_config_change(p); }, seed, accepted);
    check<ProducerIdBlock>(doc, [](const std::string& d) { return decode_producer_id_block(d); },
                           encode_producer_id_block, seed, accepted);
    check<FeatureZNode>(doc, [](const std::string& d) { return decode_feature(d); }, encode_feature, seed, accepted);
  }
  // Mutation keeps some documents valid; the round-trip half must have run.
  EXPECT_GT(accepted, 40);  // 72 with this seed base
  std::printf("mutants accepted by some decoder: %d\n", accepted);
}

}  // namespace
}  // namespace spool::cluster
