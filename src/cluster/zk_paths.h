// zk_paths: the znode paths of Kafka's ZooKeeper layout (ZkData.scala), as
// constants and builders, so no module spells "/brokers/ids/" itself.
// docs/zookeeper-layout.md describes every path: its mode, its JSON, who
// writes it and who watches it. The JSON codecs are in zk_data.h.
//
// Contract: pure functions of their arguments; no validation of the names
// they are given (a topic name is checked where it enters, a broker id is
// whatever the caller has). Paths are relative to the store's chroot.
// Stateless, thread-safe, never throw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/topic_partition.h"

namespace spool::cluster::zk_paths {

// --- fixed nodes ---
inline constexpr std::string_view kBrokers = "/brokers";
inline constexpr std::string_view kBrokerIds = "/brokers/ids";
inline constexpr std::string_view kBrokerTopics = "/brokers/topics";
inline constexpr std::string_view kBrokerSeqId = "/brokers/seqid";
inline constexpr std::string_view kController = "/controller";
inline constexpr std::string_view kControllerEpoch = "/controller_epoch";
inline constexpr std::string_view kAdmin = "/admin";
inline constexpr std::string_view kDeleteTopics = "/admin/delete_topics";
inline constexpr std::string_view kReassignPartitions = "/admin/reassign_partitions";
inline constexpr std::string_view kPreferredReplicaElection = "/admin/preferred_replica_election";
inline constexpr std::string_view kIsrChangeNotification = "/isr_change_notification";
inline constexpr std::string_view kLogDirEventNotification = "/log_dir_event_notification";
inline constexpr std::string_view kConfig = "/config";
inline constexpr std::string_view kConfigTopics = "/config/topics";
inline constexpr std::string_view kConfigBrokers = "/config/brokers";
inline constexpr std::string_view kConfigChanges = "/config/changes";
inline constexpr std::string_view kCluster = "/cluster";
inline constexpr std::string_view kClusterId = "/cluster/id";
inline constexpr std::string_view kLatestProducerIdBlock = "/latest_producer_id_block";
inline constexpr std::string_view kFeature = "/feature";
// ACLs (Kafka's ZkAclStore): LITERAL patterns under /kafka-acl/<Type>/<name>,
// PREFIXED ones under /kafka-acl-extended/prefixed/<Type>/<name>; a writer
// announces each changed resource under the matching changes node.
inline constexpr std::string_view kAclLiteral = "/kafka-acl";
inline constexpr std::string_view kAclLiteralChanges = "/kafka-acl-changes";
inline constexpr std::string_view kAclExtended = "/kafka-acl-extended";
inline constexpr std::string_view kAclPrefixed = "/kafka-acl-extended/prefixed";
inline constexpr std::string_view kAclExtendedChanges = "/kafka-acl-extended-changes";

// Sequential-node name prefixes (ZooKeeper appends a 10-digit counter).
inline constexpr std::string_view kIsrChangePrefix = "isr_change_";
inline constexpr std::string_view kLogDirEventPrefix = "log_dir_event_";
inline constexpr std::string_view kConfigChangePrefix = "config_change_";
inline constexpr std::string_view kAclChangePrefix = "acl_changes_";

// Config entity types under /config (Kafka's ConfigType).
inline constexpr std::string_view kEntityTopics = "topics";
inline constexpr std::string_view kEntityBrokers = "brokers";
inline constexpr std::string_view kEntityClients = "clients";
inline constexpr std::string_view kEntityUsers = "users";
inline constexpr std::string_view kEntityIps = "ips";
// The entity name of the cluster-wide broker config (/config/brokers/<default>).
inline constexpr std::string_view kDefaultBrokerEntity = "<default>";

// --- builders ---
std::string broker_id(int32_t id);                         // /brokers/ids/N
std::string topic(std::string_view topic);                 // /brokers/topics/T
std::string topic_partitions(std::string_view topic);      // /brokers/topics/T/partitions
std::string topic_partition(const TopicPartition& tp);     // .../partitions/P
std::string partition_state(const TopicPartition& tp);     // .../partitions/P/state
std::string delete_topic(std::string_view topic);          // /admin/delete_topics/T
std::string config_entity(std::string_view type, std::string_view name);  // /config/<type>/<name>
std::string config_topic(std::string_view topic);          // /config/topics/T
std::string config_broker(int32_t id);                     // /config/brokers/N
std::string config_broker_default();                       // /config/brokers/<default>
// The path handed to create(kPersistentSequential); the store appends the counter.
std::string config_change_prefix();                        // /config/changes/config_change_
std::string isr_change_prefix();                           // /isr_change_notification/isr_change_
std::string log_dir_event_prefix();                        // /log_dir_event_notification/log_dir_event_
// `changes`: kAclLiteralChanges or kAclExtendedChanges.
std::string acl_change_prefix(std::string_view changes);   // <changes>/acl_changes_
// "topics/T", the entity_path a config change notification names.
std::string config_entity_path(std::string_view type, std::string_view name);

// The persistent nodes every broker ensures at start, parents first (Kafka's
// ZkData.PersistentZkPaths without the old consumer path).
std::vector<std::string> persistent_paths();

// --- parsing child names ---
// A child of /brokers/ids as a broker id: a canonical non-negative int32
// ("7", not "07", "+7" or "-1"); nullopt otherwise.
std::optional<int32_t> parse_broker_id(std::string_view child);
// A child of /brokers/topics/T/partitions as a partition id, same rules.
std::optional<int32_t> parse_partition_id(std::string_view child);
// The counter of a sequential node's name or path ("config_change_0000000012"
// with prefix "config_change_" -> 12); nullopt if the prefix or digits are wrong.
std::optional<int64_t> sequence_number(std::string_view name_or_path, std::string_view prefix);

}  // namespace spool::cluster::zk_paths
