#include "broker/replica_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include "broker/topic_name.h"
#include "config/throttled_replicas.h"
#include "config/topic_config.h"
#include "protocol/error_code.h"
#include "storage/checkpoint.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {
Status kafka_error(ErrorCode code, std::string msg) {
  return Status::error(std::move(msg), static_cast<int16_t>(code));
}
constexpr int32_t kMaxPartitions = 100000;
}  // namespace

namespace {
timer::PurgatoryOptions named(timer::PurgatoryOptions o, const char* name) {
  o.name = name;
  return o;
}
}  // namespace

ReplicaManager::ReplicaManager(const BrokerSettings& settings, TopicRegistry& registry,
                               storage::LogManager& logs, PurgatoryConfig purgatories)
    : settings_(settings),
      registry_(registry),
      logs_(logs),
      fetch_purgatory_(std::make_shared<PartitionPurgatory>(named(std::move(purgatories.fetch), "Fetch"))),
      produce_purgatory_(std::make_shared<PartitionPurgatory>(named(std::move(purgatories.produce), "Produce"))) {}

ReplicaManager::~ReplicaManager() { shutdown(); }

void ReplicaManager::shutdown() {
  fetch_purgatory_->shutdown(true);
  produce_purgatory_->shutdown(true);
  completions_.stop();  // after the purgatories: their last answers run first
}

Partition::HwListener ReplicaManager::hw_listener() const {
  std::weak_ptr<PartitionPurgatory> fetches = fetch_purgatory_;
  std::weak_ptr<PartitionPurgatory> produces = produce_purgatory_;
  return [fetches, produces](const TopicPartition& key) {
    if (auto p = produces.lock()) p->check_and_complete(key);
    if (auto p = fetches.lock()) p->check_and_complete(key);
  };
}

Status ReplicaManager::load() {
  if (cluster_mode()) return load_cluster();
  std::unique_lock lk(mu_);
  std::set<TopicPartition> known;
  for (const auto& info : registry_.list()) {
    Status s = open_partitions_locked(info, Opening::kLoad);
    if (!s) return s;
    for (int32_t p = 0; p < info.partitions; ++p) known.emplace(info.name, p);
  }
  for (const auto& log : logs_.logs()) {
    if (!known.count(TopicPartition(log->topic(), log->partition())))
      spdlog::warn("log {}-{} belongs to no known topic; left on disk, not served", log->topic(),
                   log->partition());
  }
  spdlog::info("loaded {} topics", partitions_.size());
  return Status::ok();
}

Status ReplicaManager::open_partitions_locked(const TopicInfo& info, Opening opening) {
  storage::LogConfig lc = log_config_for(settings_, info.configs);
  std::vector<std::shared_ptr<Partition>> parts;
  if (auto it = partitions_.find(info.name); it != partitions_.end()) parts = it->second;
  parts.reserve(static_cast<size_t>(info.partitions));
  const int32_t max_bytes = max_message_bytes_for(info.configs);
  const int32_t min_isr = min_insync_replicas_for(info.configs);
  for (auto p = static_cast<int32_t>(parts.size()); p < info.partitions; ++p) {
    auto log = logs_.get(info.name, p);
    bool ours = false;  // the dir's partition.metadata already names this topic id
    if (log) {
      auto owner = storage::read_partition_metadata(log->dir());
      ours = owner.is_ok() && owner->has_value() && **owner == info.id;
      if (opening == Opening::kNew && !ours) {
        // Left by a deleted topic of the same name: never serve its records.
        spdlog::warn("removing leftover files of a deleted topic in {} before creating {}-{}", log->dir(), info.name,
                     p);
        log.reset();
        if (Status r = logs_.remove(info.name, p); !r) return r;
      } else if (!owner) {
        return kafka_error(ErrorCode::kKafkaStorageError, owner.status().message());
      } else if (owner->has_value() && !ours) {
        return kafka_error(ErrorCode::kKafkaStorageError,
                           log->dir() + " holds topic id " + storage::uuid_to_text(**owner) + ", but topic " +
                               info.name + " has id " + storage::uuid_to_text(info.id) +
                               "; the files were left as they are");
      }
    }
    if (log) {
      log->update_config(lc);
    } else {
      auto created = logs_.create(info.name, p, lc);
      if (!created) return created.status();
      log = created.value();
    }
    // Written once per partition (missing too in dirs of Spool before KIP-516).
    if (!ours) {
      if (Status w = storage::write_partition_metadata(log->dir(), info.id); !w)
        return kafka_error(ErrorCode::kKafkaStorageError, w.message());
    }
    parts.push_back(
        std::make_shared<Partition>(info.name, p, log, logs_.flusher(), lc.durable_writes, hw_listener()));
    // The single node leads its one epoch from the log end, stamped now as a
    // cluster leader stamps its epoch on becoming leader: a log that never
    // took a batch then answers Fetch's divergence check and
    // OffsetForLeaderEpoch for that epoch like any other.
    if (!log->latest_epoch()) log->begin_leader_epoch(parts.back()->leader_epoch());
    parts.back()->set_topic_id(info.id);
    parts.back()->set_max_message_bytes(max_bytes);
    parts.back()->set_min_insync_replicas(min_isr);
    apply_throttles(*parts.back(), info.configs);
  }
  partitions_[info.name] = std::move(parts);
  return Status::ok();
}

std::shared_ptr<Partition> ReplicaManager::partition(const std::string& topic, int32_t index) const {
  std::shared_lock lk(mu_);
  auto it = partitions_.find(topic);
  if (it == partitions_.end() || index < 0 || static_cast<size_t>(index) >= it->second.size()) return nullptr;
  return it->second[static_cast<size_t>(index)];
}

std::vector<std::shared_ptr<Partition>> ReplicaManager::all_partitions() const {
  std::shared_lock lk(mu_);
  std::vector<std::shared_ptr<Partition>> out;
  for (const auto& [topic, parts] : partitions_)
    for (const auto& p : parts)
      if (p) out.push_back(p);
  return out;
}

std::optional<TopicInfo> ReplicaManager::topic(const std::string& name) const { return registry_.get(name); }

std::vector<TopicInfo> ReplicaManager::topics() const { return registry_.list(); }

Result<TopicInfo> ReplicaManager::create_topic(const std::string& name, int32_t partitions,
                                               const std::map<std::string, std::string>& configs,
                                               bool validate_only) {
  if (auto problem = topic_name_problem(name); !problem.empty())
    return kafka_error(ErrorCode::kInvalidTopicException, problem);
  if (partitions <= 0 || partitions > kMaxPartitions)
    return kafka_error(ErrorCode::kInvalidPartitions,
                       "number of partitions must be in [1, " + std::to_string(kMaxPartitions) + "]");
  for (const auto& [k, v] : configs) {
    Status s = config::validate_topic_config(k, v);
    if (!s) return kafka_error(ErrorCode::kInvalidConfig, s.message());
  }
  std::unique_lock lk(mu_);
  if (partitions_.count(name) || registry_.get(name))
    return kafka_error(ErrorCode::kTopicAlreadyExists, "topic '" + name + "' already exists");
  for (const auto& [other, _] : partitions_) {
    if (topic_names_collide(name, other))
      return kafka_error(ErrorCode::kInvalidTopicException,
                         "topic '" + name + "' collides with existing topic '" + other + "'");
  }
  if (validate_only) return TopicInfo{name, {}, partitions, configs};
  // The logs first, then the registration: a failure of either (a full disk)
  // leaves nothing behind, so a retry (the client's, or the coordinator's
  // next FindCoordinator for an internal topic) starts afresh. A crash in
  // between leaves logs of no known topic, which the next creation of the
  // name replaces (their partition.metadata holds another id).
  const TopicInfo info{name, random_topic_id(), partitions, configs};
  auto undo_logs = [&] {
    partitions_.erase(name);
    if (Status r = logs_.remove_topic(name, partitions); !r)
      spdlog::warn("removing the files of topic {} failed: {}", name, r.message());
  };
  if (Status s = open_partitions_locked(info, Opening::kNew); !s) {
    spdlog::error("creating logs of topic {} failed: {}", name, s.message());
    undo_logs();
    return kafka_error(ErrorCode::kKafkaStorageError, s.message());
  }
  auto added = registry_.add_with_id(name, info.id, partitions, configs);
  if (!added) {
    spdlog::error("registering topic {} failed: {}", name, added.status().message());
    undo_logs();
    return kafka_error(ErrorCode::kKafkaStorageError, added.status().message());
  }
  spdlog::info("created topic {} with {} partitions", name, partitions);
  return added.value();
}

Result<TopicInfo> ReplicaManager::create_partitions(const std::string& name, int32_t partitions,
                                                    bool validate_only) {
  // A group's offsets partition is hash % count: growing the topic would
  // move groups away from their committed offsets.
  if (name == kConsumerOffsetsTopic)
    return kafka_error(ErrorCode::kInvalidRequest, "Cannot add partitions to internal topic " + name);
  std::unique_lock lk(mu_);
  auto info = registry_.get(name);
  if (!info || !partitions_.count(name))
    return kafka_error(ErrorCode::kUnknownTopicOrPartition, "unknown topic '" + name + "'");
  // Kafka's wording, so admin tools show familiar messages.
  if (partitions == info->partitions)
    return kafka_error(ErrorCode::kInvalidPartitions,
                       "Topic already has " + std::to_string(info->partitions) + " partitions.");
  if (partitions < info->partitions)
    return kafka_error(ErrorCode::kInvalidPartitions,
                       "Topic currently has " + std::to_string(info->partitions) +
                           " partitions, which is higher than the requested " + std::to_string(partitions) + ".");
  if (partitions > kMaxPartitions)
    return kafka_error(ErrorCode::kInvalidPartitions,
                       "number of partitions must be at most " + std::to_string(kMaxPartitions));
  if (validate_only) {
    info->partitions = partitions;
    return *info;
  }
  auto updated = registry_.set_partitions(name, partitions);
  if (!updated) return kafka_error(ErrorCode::kUnknownServerError, updated.status().message());
  Status s = open_partitions_locked(updated.value(), Opening::kNew);
  if (!s) {
    spdlog::error("creating new logs of topic {} failed: {}", name, s.message());
    return kafka_error(ErrorCode::kKafkaStorageError, s.message());
  }
  spdlog::info("topic {} grown from {} to {} partitions", name, info->partitions, partitions);
  return updated.value();
}

int32_t ReplicaManager::int_config_for(const std::map<std::string, std::string>& overrides, const char* key,
                                       int32_t fallback) const {
  auto eff = effective_topic_config(settings_, overrides);
  auto it = eff.find(key);
  if (it == eff.end()) return fallback;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  // Validation already refused anything else; fall back rather than trust it blindly.
  if (ec != std::errc() || end != it->second.data() + it->second.size() || v < 0) return fallback;
  return static_cast<int32_t>(std::min<int64_t>(v, std::numeric_limits<int32_t>::max()));
}

int32_t ReplicaManager::max_message_bytes_for(const std::map<std::string, std::string>& overrides) const {
  return int_config_for(overrides, "max.message.bytes", settings_.message_max_bytes);
}

void ReplicaManager::apply_throttles(Partition& part, const std::map<std::string, std::string>& overrides) const {
  auto listed = [&](const char* key) {
    auto it = overrides.find(key);
    if (it == overrides.end()) return false;
    return config::throttled_partitions(it->second, settings_.broker_id).contains(part.index());
  };
  part.set_replication_throttles(listed("leader.replication.throttled.replicas"),
                                 listed("follower.replication.throttled.replicas"));
}

int32_t ReplicaManager::min_insync_replicas_for(const std::map<std::string, std::string>& overrides) const {
  return std::max(1, int_config_for(overrides, "min.insync.replicas", 1));
}

Result<TopicInfo> ReplicaManager::alter_topic_config(const std::string& name,
                                                     const std::map<std::string, std::string>& overrides,
                                                     bool validate_only) {
  return edit_topic_config(
      name,
      [&overrides](std::map<std::string, std::string>& current) {
        current = overrides;
        return Status::ok();
      },
      validate_only);
}

Result<TopicInfo> ReplicaManager::edit_topic_config(const std::string& name, const ConfigEdit& edit,
                                                    bool validate_only) {
  // One exclusive section from read to apply, so concurrent incremental
  // edits of the same topic never lose each other's changes.
  std::unique_lock lk(mu_);
  auto it = partitions_.find(name);
  auto info = registry_.get(name);
  if (!info || it == partitions_.end())
    return kafka_error(ErrorCode::kUnknownTopicOrPartition, "Topic '" + name + "' does not exist.");
  std::map<std::string, std::string> overrides = info->configs;
  if (Status s = edit(overrides); !s) return s;
  for (const auto& [k, v] : overrides) {
    Status s = config::validate_topic_config(k, v);
    if (!s) return kafka_error(ErrorCode::kInvalidConfig, s.message());
  }
  if (Status s = config::validate_topic_configs(overrides); !s)
    return kafka_error(ErrorCode::kInvalidConfig, s.message());
  if (validate_only) {
    info->configs = std::move(overrides);
    return *info;
  }
  auto updated = registry_.set_configs(name, overrides);
  if (!updated) return kafka_error(ErrorCode::kUnknownServerError, updated.status().message());
  apply_topic_config_locked(it->second, overrides);
  spdlog::info("topic {} configs altered ({} overrides)", name, overrides.size());
  return updated.value();
}

void ReplicaManager::apply_topic_config_locked(const std::vector<std::shared_ptr<Partition>>& parts,
                                               const std::map<std::string, std::string>& overrides) {
  storage::LogConfig lc = log_config_for(settings_, overrides);
  int32_t max_bytes = max_message_bytes_for(overrides);
  int32_t min_isr = min_insync_replicas_for(overrides);
  for (const auto& part : parts) {
    if (!part) continue;  // cluster mode: a partition not hosted here
    part->log().update_config(lc);
    part->set_durable_writes(lc.durable_writes);
    part->set_max_message_bytes(max_bytes);
    part->set_min_insync_replicas(min_isr);
    apply_throttles(*part, overrides);
  }
}

void ReplicaManager::reapply_topic_defaults() {
  std::unique_lock lk(mu_);
  for (const auto& [name, parts] : partitions_) {
    auto info = registry_.get(name);
    apply_topic_config_locked(parts, info ? info->configs : std::map<std::string, std::string>{});
  }
  spdlog::info("topic defaults changed: the configs of {} topic(s) rebuilt", partitions_.size());
}

Status ReplicaManager::delete_topic(const std::string& name) {
  // The group coordinator lives on it (see README, differences from Kafka).
  if (name == kConsumerOffsetsTopic)
    return kafka_error(ErrorCode::kInvalidTopicException, "Cannot delete internal topic " + name);
  std::unique_lock lk(mu_);
  auto it = partitions_.find(name);
  if (it == partitions_.end()) return kafka_error(ErrorCode::kUnknownTopicOrPartition, "unknown topic '" + name + "'");
  Status s = registry_.remove(name);
  if (!s) return kafka_error(ErrorCode::kUnknownServerError, s.message());
  int32_t count = static_cast<int32_t>(it->second.size());
  partitions_.erase(it);
  lk.unlock();
  if (Status r = logs_.remove_topic(name, count); !r)
    spdlog::warn("removing the files of topic {} failed: {}", name, r.message());
  spdlog::info("deleted topic {}", name);
  return Status::ok();
}

}  // namespace spool::broker
