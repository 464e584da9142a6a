// zk_data codecs of the admin, notification, config, producer-id-block and
// feature znodes: exact bytes, round trips and malformed input.
#include <gtest/gtest.h>

#include <string>

#include "cluster/zk_data.h"

namespace spool::cluster {
namespace {

template <typename T>
void expect_error(const Result<T>& r, const std::string& part) {
  ASSERT_FALSE(r.is_ok()) << "expected an error containing: " << part;
  EXPECT_NE(r.status().message().find(part), std::string::npos) << r.status().message();
}

TEST(DeleteTopics, ChildNamesAreTheTopicsSortedAndUnique) {
  EXPECT_EQ(topics_marked_for_deletion({"b", "a", "", "b"}), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(topics_marked_for_deletion({}).empty());
}

TEST(ReassignPartitions, EncodesV1) {
  LegacyReassignment r;
  r[TopicPartition("t", 1)] = {3, 1};
  r[TopicPartition("a", 0)] = {2};
  EXPECT_EQ(encode_reassign_partitions(r),
            R"({"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[2]},)"
            R"({"topic":"t","partition":1,"replicas":[3,1]}]})");
  auto back = decode_reassign_partitions(encode_reassign_partitions(r));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value(), r);
  EXPECT_EQ(encode_reassign_partitions({}), R"({"version":1,"partitions":[]})");
}

TEST(ReassignPartitions, RejectsMalformedDocuments) {
  const std::string p = "/admin/reassign_partitions: ";
  expect_error(decode_reassign_partitions(R"({"version":2,"partitions":[]})"), p + "field 'version' is 2, supported: 1");
  expect_error(decode_reassign_partitions(R"({"version":1})"), p + "field 'partitions' is missing");
  expect_error(decode_reassign_partitions(R"({"version":1,"partitions":[1]})"),
               p + "field 'partitions[0]' must be an object, got number");
  expect_error(decode_reassign_partitions(R"({"version":1,"partitions":[{"partition":0,"replicas":[1]}]})"),
               p + "field 'partitions[0].topic' is missing");
  expect_error(decode_reassign_partitions(R"({"version":1,"partitions":[{"topic":"","partition":0,"replicas":[1]}]})"),
               p + "field 'partitions[0].topic' must not be empty");
  expect_error(decode_reassign_partitions(R"({"version":1,"partitions":[{"topic":"t","partition":-1,"replicas":[1]}]})"),
               p + "field 'partitions[0].partition' is -1");
  expect_error(decode_reassign_partitions(R"({"version":1,"partitions":[{"topic":"t","partition":0}]})"),
               p + "field 'partitions[0].replicas' is missing");
  expect_error(decode_reassign_partitions(R"({"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[]}]})"),
               p + "field 'partitions[0].replicas' must not be empty");
  expect_error(decode_reassign_partitions(R"({"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,1]}]})"),
               p + "field 'partitions[0].replicas' lists broker 1 twice");
  expect_error(decode_reassign_partitions(R"({"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1]},)"
                                          R"({"topic":"t","partition":0,"replicas":[2]}]})"),
               p + "field 'partitions[1]' repeats t-0");
}

TEST(PreferredReplicaElection, EncodesV1SortedAndDecodes) {
  std::set<TopicPartition> s{{"b", 0}, {"a", 2}, {"a", 1}};
  const std::string json = encode_preferred_replica_election(s);
  EXPECT_EQ(json, R"({"version":1,"partitions":[{"topic":"a","partition":1},{"topic":"a","partition":2},)"
                  R"({"topic":"b","partition":0}]})");
  auto back = decode_preferred_replica_election(json);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value(), s);
  expect_error(decode_preferred_replica_election(R"({"version":1,"partitions":[{"topic":"a","partition":1},)"
                                                 R"({"topic":"a","partition":1}]})"),
               "/admin/preferred_replica_election: field 'partitions[1]' repeats a-1");
  expect_error(decode_preferred_replica_election(R"({"version":1,"partitions":[{"topic":"a","partition":"1"}]})"),
               "/admin/preferred_replica_election: field 'partitions[0].partition' must be an integer, got string");
  expect_error(decode_preferred_replica_election(R"({"version":1,"partitions":[{"topic":3,"partition":1}]})"),
               "field 'partitions[0].topic' must be a string, got number");
  expect_error(decode_preferred_replica_election(R"({"partitions":[]})"), "field 'version' is missing");
}

TEST(IsrChangeNotification, EncodesV1AndNamesTheSequentialNodeInErrors) {
  EXPECT_EQ(encode_isr_change({{"t", 0}}), R"({"version":1,"partitions":[{"topic":"t","partition":0}]})");
  auto back = decode_isr_change("/isr_change_notification/isr_change_0000000003",
                                R"({"version":1,"partitions":[{"topic":"t","partition":0}]})");
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(back.value(), (std::set<TopicPartition>{{"t", 0}}));
  expect_error(decode_isr_change("/isr_change_notification/isr_change_0000000003", "x"),
               "/isr_change_notification/isr_change_0000000003: not valid JSON");
}

TEST(LogDirEvent, EncodesV1) {
  EXPECT_EQ(encode_log_dir_event(4), R"({"version":1,"broker":4,"event":1})");
  EXPECT_EQ(decode_log_dir_event("/p", encode_log_dir_event(4)).value(), 4);
  expect_error(decode_log_dir_event("/p", R"({"version":1,"broker":4,"event":2})"), "/p: field 'event' is 2, outside [1, 1]");
  expect_error(decode_log_dir_event("/p", R"({"version":1,"event":1})"), "/p: field 'broker' is missing");
}

TEST(EntityConfig, EncodesV1WithStringValuesSorted) {
  EntityConfig c{{"retention.ms", "1000"}, {"cleanup.policy", "compact"}};
  EXPECT_EQ(encode_entity_config(c), R"({"version":1,"config":{"cleanup.policy":"compact","retention.ms":"1000"}})");
  EXPECT_EQ(encode_entity_config({}), R"({"version":1,"config":{}})");
  auto back = decode_entity_config("/config/topics/t", encode_entity_config(c));
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(back.value(), c);
}

TEST(EntityConfig, RejectsMalformedDocuments) {
  const std::string p = "/config/topics/t: ";
  expect_error(decode_entity_config("/config/topics/t", R"({"version":1,"config":{"retention.ms":1000}})"),
               p + "field 'config.retention.ms' must be a string, got number");
  expect_error(decode_entity_config("/config/topics/t", R"({"version":1,"config":{"a":null}})"),
               p + "field 'config.a' must be a string, got null");
  expect_error(decode_entity_config("/config/topics/t", R"({"version":1})"), p + "field 'config' is missing");
  expect_error(decode_entity_config("/config/topics/t", R"({"version":1,"config":[]})"),
               p + "field 'config' must be an object, got array");
  expect_error(decode_entity_config("/config/topics/t", R"({"version":2,"config":{}})"), p + "field 'version' is 2");
}

TEST(ConfigChange, EncodesV2AndDecodesV1) {
  EXPECT_EQ(encode_config_change("topics/orders"), R"({"version":2,"entity_path":"topics/orders"})");
  const std::string path = "/config/changes/config_change_0000000001";
  EXPECT_EQ(decode_config_change(path, R"({"version":2,"entity_path":"brokers/<default>"})").value(), "brokers/<default>");
  EXPECT_EQ(decode_config_change(path, R"({"version":2,"entity_path":"users/alice/clients/app"})").value(),
            "users/alice/clients/app");
  EXPECT_EQ(decode_config_change(path, R"({"version":1,"entity_type":"topics","entity_name":"orders"})").value(),
            "topics/orders");
  expect_error(decode_config_change(path, R"({"version":1,"entity_type":"brokers","entity_name":"1"})"),
               path + ": field 'entity_type' is \"brokers\", expected topics or clients");
  expect_error(decode_config_change(path, R"({"version":1,"entity_type":"topics","entity_name":""})"),
               "field 'entity_name' must not be empty");
  expect_error(decode_config_change(path, R"({"version":1,"entity_type":"topics"})"), "field 'entity_name' is missing");
  for (const char* bad : {"orders", "topics/", "/orders", "tables/orders"}) {
    expect_error(decode_config_change(path, std::string(R"({"version":2,"entity_path":")") + bad + "\"}"),
                 path + ": field 'entity_path' \"" + bad + "\" is not <topics|clients|users|brokers|ips>/<name>");
  }
  expect_error(decode_config_change(path, R"({"version":3,"entity_path":"topics/t"})"),
               "field 'version' is 3, supported: 1, 2");
  expect_error(decode_config_change(path, R"({"version":2})"), "field 'entity_path' is missing");
}

TEST(ProducerIdBlock, BoundsAreStrings) {
  EXPECT_EQ(encode_producer_id_block({2, 1000, 1999}),
            R"({"version":1,"broker":2,"block_start":"1000","block_end":"1999"})");
  auto back = decode_producer_id_block(R"({"version":1,"broker":2,"block_start":"1000","block_end":"1999"})");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value(), (ProducerIdBlock{2, 1000, 1999}));
  // A one-id block and the largest block an int32 size allows.
  EXPECT_TRUE(decode_producer_id_block(R"({"version":1,"broker":0,"block_start":"5","block_end":"5"})").is_ok());
  EXPECT_TRUE(
      decode_producer_id_block(R"({"version":1,"broker":0,"block_start":"0","block_end":"2147483646"})").is_ok());
}

TEST(ProducerIdBlock, RejectsMalformedDocuments) {
  const std::string p = "/latest_producer_id_block: ";
  expect_error(decode_producer_id_block(R"({"version":1,"broker":2,"block_start":1000,"block_end":"1999"})"),
               p + "field 'block_start' must be a string, got number");
  expect_error(decode_producer_id_block(R"({"version":1,"broker":2,"block_start":"-1","block_end":"1999"})"),
               p + "field 'block_start' must be a decimal string, got \"-1\"");
  expect_error(decode_producer_id_block(R"({"version":1,"broker":2,"block_start":"1","block_end":"99999999999999999999"})"),
               p + "field 'block_end' must be a decimal string");
  expect_error(decode_producer_id_block(R"({"version":1,"broker":2,"block_start":"10","block_end":"9"})"),
               p + "field 'block_end' is below block_start");
  expect_error(decode_producer_id_block(R"({"version":1,"broker":0,"block_start":"0","block_end":"2147483647"})"),
               p + "field 'block_end' makes a block larger than an int32");
  expect_error(decode_producer_id_block(R"({"version":1,"block_start":"0","block_end":"1"})"),
               p + "field 'broker' is missing");
  expect_error(decode_producer_id_block(R"({"version":2,"broker":0,"block_start":"0","block_end":"1"})"),
               p + "field 'version' is 2, supported: 1");
}

TEST(Feature, EncodesV1AndV2) {
  FeatureZNode v2{2, true, {{"metadata.version", 14}}};
  EXPECT_EQ(encode_feature(v2), R"({"version":2,"status":1,"features":{"metadata.version":{"max_version_level":14}}})");
  FeatureZNode v1{1, false, {{"f", 3}}};
  EXPECT_EQ(encode_feature(v1),
            R"({"version":1,"status":0,"features":{"f":{"max_version_level":3,"min_version_level":3}}})");
  for (const FeatureZNode& n : {v1, v2, FeatureZNode{2, true, {}}}) {
    auto back = decode_feature(encode_feature(n));
    ASSERT_TRUE(back.is_ok()) << back.status().message();
    EXPECT_EQ(back.value(), n);
  }
}

TEST(Feature, RejectsMalformedDocuments) {
  const std::string p = "/feature: ";
  expect_error(decode_feature(R"({"version":3,"status":1,"features":{}})"), p + "field 'version' is 3, supported: 1, 2");
  expect_error(decode_feature(R"({"version":2,"features":{}})"), p + "field 'status' is missing");
  expect_error(decode_feature(R"({"version":2,"status":2,"features":{}})"), p + "field 'status' is 2, outside [0, 1]");
  expect_error(decode_feature(R"({"version":2,"status":1})"), p + "field 'features' is missing");
  expect_error(decode_feature(R"({"version":2,"status":1,"features":{"f":1}})"),
               p + "field 'features.f' must be an object, got number");
  expect_error(decode_feature(R"({"version":2,"status":1,"features":{"f":{}}})"),
               p + "field 'features.f.max_version_level' is missing");
  expect_error(decode_feature(R"({"version":2,"status":1,"features":{"f":{"max_version_level":0}}})"),
               p + "field 'features.f.max_version_level' is 0, outside [1, 32767]");
  expect_error(decode_feature(R"({"version":1,"status":1,"features":{"f":{"max_version_level":2}}})"),
               p + "field 'features.f.min_version_level' is missing");
  expect_error(decode_feature(R"({"version":1,"status":1,"features":{"f":{"max_version_level":2,"min_version_level":3}}})"),
               p + "field 'features.f' has max_version_level below min_version_level");
}

}  // namespace
}  // namespace spool::cluster
