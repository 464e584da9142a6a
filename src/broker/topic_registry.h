// TopicRegistry: the persisted list of topics this broker owns (name, topic
// id, partition count, per-topic config overrides). The cluster id lives in
// meta.properties, owned by storage::LogManager. This is the
// embedded metadata store of single-node mode (DESIGN.md section 4): one JSON
// file, `spool-metadata.json`, in the first log dir, rewritten atomically (tmp file,
// fsync, rename, fsync dir) on every change, so a restart restores topics
// exactly. A file that fails validation stops the start with a clear error
// rather than silently forgetting topics.
// Thread-safe (internal mutex); writes are rare (admin operations).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace spool::broker {

using TopicId = std::array<uint8_t, 16>;

struct TopicInfo {
  std::string name;
  TopicId id{};
  int32_t partitions = 0;
  std::map<std::string, std::string> configs;  // overrides only
};

// A fresh random topic id (UUID v4 shape, never all zero), as add() assigns.
TopicId random_topic_id();

class TopicRegistry {
 public:
  static Result<std::unique_ptr<TopicRegistry>> open(const std::filesystem::path& dir);

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
  explicit TopicRegistry(std::filesystem::path file) : file_(std::move(file)) {}
  Status save_locked() const;

  std::filesystem::path file_;
  mutable std::mutex mu_;
  std::map<std::string, TopicInfo> topics_;
  std::map<TopicId, std::string> names_by_id_;  // kept in step with topics_ (never holds the zero id)
};

}  // namespace spool::broker
