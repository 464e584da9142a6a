// Topic administration of a cluster member (Kafka's ZooKeeper-mode
// AdminZkClient / ZkAdminManager): what CreateTopics, auto-creation,
// DeleteTopics, CreatePartitions and the AlterConfigs family write to the
// metadata store. The controller turns those writes into LeaderAndIsr /
// StopReplica / UpdateMetadata; handlers then wait (bounded) for the
// metadata cache to show the result, as Kafka's DelayedCreatePartitions.
//
// Contract
// - Blocking store round trips: call on the admin executor only, never on a
//   reactor. Failures are a Status with Kafka's error code: a store error is
//   UNKNOWN_SERVER_ERROR naming the path; TOPIC_ALREADY_EXISTS,
//   UNKNOWN_TOPIC_OR_PARTITION, TOPIC_DELETION_DISABLED, INVALID_* from the
//   assignment rules (cluster/replica_assignment.h).
// - create_topic writes /config/topics/T first, then /brokers/topics/T (v3,
//   fresh topic id), Kafka's order: a crash in between leaves a config with
//   no topic, which the next create of T overwrites.
// - set_topic_config writes /config/topics/T, then the change notification
//   /config/changes/config_change_<seq> {"version":2,"entity_path":"topics/T"}.
// - wait_for_cache() polls the metadata cache every 20 ms on the member's
//   timer (not on the admin executor, which must stay free to apply the
//   UpdateMetadata being waited for) and calls done(true) once `ready`
//   holds, done(false) at the deadline; exactly once, on the timer thread.
// Thread-safe (the store and the cache are).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/metadata_cache.h"
#include "cluster/replica_assignment.h"
#include "cluster/zk_data.h"
#include "util/status.h"

namespace spool::broker {

class ClusterMember;

// The live brokers of the cache, with their racks, in id order.
std::vector<cluster::BrokerMetadata> live_broker_metadata(const cluster::MetadataCache& cache);

// Kafka's assignReplicasToBrokers over the live brokers (random start, the
// seed logged at debug).
Result<cluster::ReplicaAssignment> assign_over_live_brokers(const cluster::MetadataCache& cache, int32_t partitions,
                                                            int32_t replication_factor);

// TOPIC_ALREADY_EXISTS when /brokers/topics/T exists (also while marked for
// deletion, as Kafka).
Result<cluster::TopicId> create_topic_in_store(ClusterMember& member, const std::string& topic,
                                      const cluster::ReplicaAssignment& assignment,
                                      const std::map<std::string, std::string>& configs);

// The topic's assignment as stored; UNKNOWN_TOPIC_OR_PARTITION when absent.
Result<cluster::TopicAssignment> read_topic_assignment(ClusterMember& member, const std::string& topic);

// Rewrites /brokers/topics/T with `assignment` (CreatePartitions), keeping its id.
Status write_topic_assignment(ClusterMember& member, const std::string& topic,
                              const cluster::TopicAssignment& assignment);

// /admin/delete_topics/T (already marked: fine).
Status mark_topic_for_deletion(ClusterMember& member, const std::string& topic);

// The topic's override set in the store (empty when none).
Result<std::map<std::string, std::string>> read_topic_config(ClusterMember& member, const std::string& topic);
Status set_topic_config(ClusterMember& member, const std::string& topic,
                        const std::map<std::string, std::string>& overrides);

void wait_for_cache(ClusterMember& member, std::function<bool(const cluster::MetadataCache&)> ready,
                    int64_t timeout_ms, std::function<void(bool)> done);

// Every partition of `topic` (partitions 0..count-1) has a leader in the cache.
bool topic_has_leaders(const cluster::MetadataCache& cache, const std::string& topic, int32_t count);

}  // namespace spool::broker
