// TopicRegistry: the topics this broker owns (name, topic id, partition
// count, per-topic config overrides), kept in a cluster::MetadataStore in
// Kafka's ZooKeeper layout (docs/zookeeper-layout.md), so a restart restores
// topics exactly. The cluster id lives in meta.properties, owned by
// storage::LogManager.
//
// Nodes (zk_paths.h, codecs zk_data.h), one pair per topic:
// - /brokers/topics/T: the assignment (v3) with the topic id; every
//   partition 0..n-1 is assigned to [broker id]. An all-zero id (Kafka's
//   "no id", possible only in imported old files) is written without
//   topic_id and read back as zero.
// - /config/topics/T: the overrides ({"version":1,"config":{...}}), written
//   for every topic, empty too (as Kafka). A missing node reads as none.
// Each change is one multi() over both nodes. The registry is the only
// writer of these nodes in its store.
//
// Which store (src/broker/run.cc): always the broker's cluster::EmbeddedStore
// in log.dirs[0] (`spool-metadata-store`, docs/embedded-metadata-format.md).
// - Single-node mode (zookeeper.connect empty): that store is the broker's
//   metadata store, and these nodes are the topics.
// - Cluster mode: the same file is this broker's private cache of the
//   topics it hosts (added by LeaderAndIsr, removed by StopReplica with
//   delete), never ZooKeeper, which holds the cluster's assignment and
//   configs. It stays persisted because a restarted broker reopens its
//   partitions with the ids and configs it had (LeaderAndIsr carries no
//   configs), as the old spool-metadata.json did; cluster behaviour is
//   unchanged.
//
// Import: open() on a store without topics, with `legacy_dir`/
// spool-metadata.json present (the file this registry used to write, read
// by legacy_topic_file.h), imports it exactly (names, ids, partition
// counts, configs) in one multi(), then renames it to
// spool-metadata.json.migrated and logs it. If the store already has topics
// and the old file is still there (an import interrupted before the rename)
// the two must agree, or the start stops naming both; ids are never dropped.
//
// Failure: open() fails, naming the node's path (or the old file), when a
// node fails validation: never a crash, never an empty list instead. A
// failed write keeps the registry's old state and writes it back to the
// store (an EmbeddedStore applies a write whose save failed in memory; the
// put-back keeps its tree in step), and returns the error.
// Thread-safe (internal mutex); writes are rare (admin operations) and block
// for the store's round trip and save (fsyncs, as the old file's writes did).
// files: topic_registry.cc (lookups, writes), topic_registry_open.cc (load,
// import), legacy_topic_file.{h,cc} (the old file's reader).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/metadata_store.h"
#include "util/status.h"

namespace spool::broker {

using TopicId = std::array<uint8_t, 16>;

struct TopicInfo {
  std::string name;
  TopicId id{};
  int32_t partitions = 0;
  std::map<std::string, std::string> configs;  // overrides only
  bool operator==(const TopicInfo&) const = default;
};

// A fresh random topic id (UUID v4 shape, never all zero), as add() assigns.
TopicId random_topic_id();

class TopicRegistry {
 public:
  // Loads every topic of `store` (which must outlive the registry),
  // importing `legacy_dir`/spool-metadata.json first when the store has
  // none. New partitions are assigned to `broker_id`.
  static Result<std::unique_ptr<TopicRegistry>> open(cluster::MetadataStore& store, int32_t broker_id,
                                                     const std::filesystem::path& legacy_dir);

  std::vector<TopicInfo> list() const;
  std::optional<TopicInfo> get(const std::string& name) const;
  // The topic with this id (KIP-516), if it exists. A deleted and re-created
  // topic has a new id, so an old id never finds the new topic. The all-zero
  // id (Kafka's "no id") finds nothing.
  std::optional<TopicInfo> get_by_id(const TopicId& id) const;
  // Just the name of the topic with this id: the id-based Produce and Fetch
  // versions resolve with it per request (no copy of the topic's configs).
  std::optional<std::string> name_of(const TopicId& id) const;
  // Fails if the name exists. Assigns a random topic id.
  Result<TopicInfo> add(const std::string& name, int32_t partitions,
                        std::map<std::string, std::string> configs);
  // Cluster mode: a topic hosted here, under the id the controller gave it
  // (LeaderAndIsr); same failures as add().
  Result<TopicInfo> add_with_id(const std::string& name, const TopicId& id, int32_t partitions,
                                std::map<std::string, std::string> configs);
  Status remove(const std::string& name);
  // CreatePartitions: persists a larger partition count. Refuses unknown
  // topics (code 3) and counts that do not grow (INVALID_PARTITIONS, 37);
  // on a failed write the old count stays.
  Result<TopicInfo> set_partitions(const std::string& name, int32_t partitions);
  // AlterConfigs: replaces the topic's whole override set (callers validate
  // it first). Unknown topic -> code 3; on a failed write the old set stays.
  Result<TopicInfo> set_configs(const std::string& name, std::map<std::string, std::string> configs);

 private:
  TopicRegistry(cluster::MetadataStore& store, int32_t broker_id) : store_(store), broker_id_(broker_id) {}
  Status load_locked();
  Status import_legacy_locked(const std::filesystem::path& legacy_dir);
  void insert_locked(TopicInfo info);
  // Appends to `ops` what makes the store's nodes of `name` hold `info`
  // (nullptr: no topic `name`).
  Status node_ops(std::vector<cluster::Op>& ops, const std::string& name, const TopicInfo* info) const;
  // Writes `now` for `name`; on failure writes `before` back (best effort).
  Status persist_locked(const std::string& name, const TopicInfo* now, const TopicInfo* before);
  Status apply_ops(const std::vector<cluster::Op>& ops, const std::string& what);

  cluster::MetadataStore& store_;
  const int32_t broker_id_;
  mutable std::mutex mu_;
  std::map<std::string, TopicInfo> topics_;
  std::map<TopicId, std::string> names_by_id_;  // kept in step with topics_ (never holds the zero id)
};

}  // namespace spool::broker
