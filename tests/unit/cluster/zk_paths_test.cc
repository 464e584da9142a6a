// zk_paths: every path builder against the string Kafka's ZkData.scala
// builds, the persistent-path list, and the child-name parsers.
#include "cluster/zk_paths.h"

#include <gtest/gtest.h>

namespace spool::cluster::zk_paths {
namespace {

TEST(ZkPaths, BuildersMatchKafka) {
  EXPECT_EQ(broker_id(0), "/brokers/ids/0");
  EXPECT_EQ(broker_id(1001), "/brokers/ids/1001");
  EXPECT_EQ(topic("orders"), "/brokers/topics/orders");
  EXPECT_EQ(topic_partitions("orders"), "/brokers/topics/orders/partitions");
  EXPECT_EQ(topic_partition(TopicPartition("orders", 3)), "/brokers/topics/orders/partitions/3");
  EXPECT_EQ(partition_state(TopicPartition("orders", 3)), "/brokers/topics/orders/partitions/3/state");
  EXPECT_EQ(delete_topic("orders"), "/admin/delete_topics/orders");
  EXPECT_EQ(config_entity("topics", "orders"), "/config/topics/orders");
  EXPECT_EQ(config_topic("orders"), "/config/topics/orders");
  EXPECT_EQ(config_broker(2), "/config/brokers/2");
  EXPECT_EQ(config_broker_default(), "/config/brokers/<default>");
  EXPECT_EQ(config_change_prefix(), "/config/changes/config_change_");
  EXPECT_EQ(isr_change_prefix(), "/isr_change_notification/isr_change_");
  EXPECT_EQ(log_dir_event_prefix(), "/log_dir_event_notification/log_dir_event_");
  EXPECT_EQ(config_entity_path("topics", "orders"), "topics/orders");
  EXPECT_EQ(config_entity_path(kEntityBrokers, kDefaultBrokerEntity), "brokers/<default>");
}

TEST(ZkPaths, FixedNodes) {
  EXPECT_EQ(kController, "/controller");
  EXPECT_EQ(kControllerEpoch, "/controller_epoch");
  EXPECT_EQ(kReassignPartitions, "/admin/reassign_partitions");
  EXPECT_EQ(kPreferredReplicaElection, "/admin/preferred_replica_election");
  EXPECT_EQ(kIsrChangeNotification, "/isr_change_notification");
  EXPECT_EQ(kClusterId, "/cluster/id");
  EXPECT_EQ(kLatestProducerIdBlock, "/latest_producer_id_block");
  EXPECT_EQ(kFeature, "/feature");
}

TEST(ZkPaths, PersistentPathsAreKafkasWithoutOldConsumers) {
  EXPECT_EQ(persistent_paths(),
            (std::vector<std::string>{"/brokers/ids", "/brokers/topics", "/config/changes", "/admin/delete_topics",
                                      "/brokers/seqid", "/isr_change_notification", "/latest_producer_id_block",
                                      "/log_dir_event_notification", "/config/topics", "/config/clients",
                                      "/config/users", "/config/brokers", "/config/ips"}));
}

TEST(ZkPaths, ParseBrokerAndPartitionIds) {
  EXPECT_EQ(parse_broker_id("0"), 0);
  EXPECT_EQ(parse_broker_id("1001"), 1001);
  EXPECT_EQ(parse_broker_id("2147483647"), 2147483647);
  for (const char* bad : {"", "-1", "+1", "01", "1a", " 1", "2147483648", "99999999999999999999"}) {
    EXPECT_FALSE(parse_broker_id(bad)) << bad;
    EXPECT_FALSE(parse_partition_id(bad)) << bad;
  }
  EXPECT_EQ(parse_partition_id("12"), 12);
}

TEST(ZkPaths, SequenceNumbers) {
  EXPECT_EQ(sequence_number("config_change_0000000012", kConfigChangePrefix), 12);
  EXPECT_EQ(sequence_number("/config/changes/config_change_0000000000", kConfigChangePrefix), 0);
  EXPECT_EQ(sequence_number("/isr_change_notification/isr_change_2147483648", kIsrChangePrefix), 2147483648);
  EXPECT_FALSE(sequence_number("config_change_", kConfigChangePrefix));
  EXPECT_FALSE(sequence_number("config_change_12x", kConfigChangePrefix));
  EXPECT_FALSE(sequence_number("isr_change_0000000001", kConfigChangePrefix));
  EXPECT_FALSE(sequence_number("config_change_99999999999999999999", kConfigChangePrefix));
}

}  // namespace
}  // namespace spool::cluster::zk_paths
