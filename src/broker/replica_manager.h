// ReplicaManager: the partitions this broker hosts, and topic lifecycle.
//
// Owns the map topic -> partitions and keeps it in step with the topic
// registry (persisted metadata) and the log manager (files). Creation writes
// the registry first, then the logs; deletion removes the registry entry
// first, then the files, so a crash in between never resurrects a deleted
// topic or loses a created one (missing logs are recreated at start).
// Each partition dir holds Kafka's partition.metadata naming the topic id its
// data belongs to (KIP-516). Files left behind by a deleted topic (a crash
// between registry and file removal) are removed when a topic of that name is
// created or grown again, so a new topic never serves an old one's records; at
// start a partition dir whose id is not the registry's stops the load with
// KAFKA_STORAGE_ERROR naming both ids (the files are kept for the operator).
// Thread-safe: lookups take a shared lock; create/delete an exclusive one.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "broker/broker_settings.h"
#include "broker/partition.h"
#include "broker/topic_registry.h"
#include "storage/log_manager.h"

namespace spool::broker {

class ReplicaManager {
 public:
  // on_hw_advance is handed to every Partition (see Partition::HwListener).
  ReplicaManager(const BrokerSettings& settings, TopicRegistry& registry, storage::LogManager& logs,
                 Partition::HwListener on_hw_advance = {});

  // Opens (or recreates) the logs of every registered topic. Logs on disk
  // that belong to no registered topic are left untouched and reported.
  Status load();

  std::shared_ptr<Partition> partition(const std::string& topic, int32_t index) const;
  std::optional<TopicInfo> topic(const std::string& name) const;
  std::vector<TopicInfo> topics() const;

  // Validates name, partition count and configs; Status carries the Kafka
  // error code (TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS,
  // INVALID_CONFIG, ...). validate_only checks without creating.
  Result<TopicInfo> create_topic(const std::string& name, int32_t partitions,
                                 const std::map<std::string, std::string>& configs, bool validate_only);
  Status delete_topic(const std::string& name);
  // CreatePartitions: grows `name` to `partitions` (registry first, then the
  // new logs; existing partitions keep their Partition objects). Errors:
  // UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS (not larger than now, or
  // above the limit). validate_only checks without changing anything.
  Result<TopicInfo> create_partitions(const std::string& name, int32_t partitions, bool validate_only);
  // AlterConfigs: `overrides` becomes the topic's whole override set. All
  // keys and cross-key rules are validated first (INVALID_CONFIG with the
  // reason); then the registry persists the set atomically, and only then is
  // it applied live to every open partition (log config, durable.writes,
  // max.message.bytes), so a restart always sees what was acknowledged.
  // Errors: UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG. validate_only checks
  // without changing anything.
  Result<TopicInfo> alter_topic_config(const std::string& name,
                                       const std::map<std::string, std::string>& overrides, bool validate_only);
  // The same, with the new set computed from the current one by `edit` under
  // the manager's lock (IncrementalAlterConfigs: read-modify-write without
  // losing a concurrent change). `edit` must not call back into this object;
  // a failed Status from it is returned unchanged (its kafka_code kept).
  using ConfigEdit = std::function<Status(std::map<std::string, std::string>&)>;
  Result<TopicInfo> edit_topic_config(const std::string& name, const ConfigEdit& edit, bool validate_only);

 private:
  // Opens partitions [0, info.partitions) that are not open yet; open ones are kept.
  // kNew: partitions created now (a topic, or added ones): leftover files of
  // an older topic of that name are removed first. kLoad: partitions the
  // registry already had: their files must belong to this topic id.
  enum class Opening { kLoad, kNew };
  Status open_partitions_locked(const TopicInfo& info, Opening opening);
  // The topic's max.message.bytes from its overrides, else the broker default.
  // A topic's effective int config (its override, else the broker's), or fallback.
  int32_t int_config_for(const std::map<std::string, std::string>& overrides, const char* key,
                         int32_t fallback) const;
  int32_t max_message_bytes_for(const std::map<std::string, std::string>& overrides) const;
  int32_t min_insync_replicas_for(const std::map<std::string, std::string>& overrides) const;

  const BrokerSettings& settings_;
  TopicRegistry& registry_;
  storage::LogManager& logs_;
  Partition::HwListener on_hw_advance_;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::vector<std::shared_ptr<Partition>>> partitions_;
};

}  // namespace spool::broker
