#include "broker/cluster_admin.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <random>

#include "broker/cluster_member.h"
#include "broker/entity_config_store.h"
#include "cluster/zk_paths.h"
#include "protocol/error_code.h"
#include "timer/timer_task.h"

namespace spool::broker {

namespace zk_paths = cluster::zk_paths;
using protocol::ErrorCode;

namespace {

Status error(ErrorCode code, std::string message) { return Status::error(std::move(message), protocol::to_int(code)); }

Status store_error(const std::string& what, const std::string& path, const cluster::StoreError& e) {
  return error(ErrorCode::kUnknownServerError, what + " " + path + ": " + cluster::store_code_name(e.code) + " " +
                                                   e.message);
}

// Re-schedules itself every kPollMs until ready() or the deadline.
class CacheWait final : public timer::TimerTask, public std::enable_shared_from_this<CacheWait> {
 public:
  static constexpr int64_t kPollMs = 20;
  CacheWait(ClusterMember& m, std::function<bool(const cluster::MetadataCache&)> ready,
            std::chrono::steady_clock::time_point deadline, std::function<void(bool)> done)
      : TimerTask(kPollMs), member_(m), ready_(std::move(ready)), deadline_(deadline), done_(std::move(done)) {}
  void run() override {
    if (ready_(member_.metadata())) return done_(true);
    if (std::chrono::steady_clock::now() >= deadline_) return done_(false);
    auto next = std::make_shared<CacheWait>(member_, ready_, deadline_, done_);
    member_.timer().add(next);
  }

 private:
  ClusterMember& member_;
  std::function<bool(const cluster::MetadataCache&)> ready_;
  std::chrono::steady_clock::time_point deadline_;
  std::function<void(bool)> done_;
};

}  // namespace

std::vector<cluster::BrokerMetadata> live_broker_metadata(const cluster::MetadataCache& cache) {
  std::vector<cluster::BrokerMetadata> out;
  for (const auto& b : cache.live_brokers()) out.push_back({b.id, b.rack});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

Result<cluster::ReplicaAssignment> assign_over_live_brokers(const cluster::MetadataCache& cache, int32_t partitions,
                                                            int32_t replication_factor) {
  auto brokers = live_broker_metadata(cache);
  if (brokers.empty())
    return error(ErrorCode::kInvalidReplicationFactor,
                 "Replication factor: " + std::to_string(replication_factor) + " larger than available brokers: 0.");
  const uint64_t seed = std::random_device{}();
  spdlog::debug("replica assignment seed {}", seed);
  return cluster::assign_replicas_to_brokers(brokers, partitions, replication_factor,
                                             cluster::random_assignment_start(seed, brokers.size()));
}

Result<cluster::TopicId> create_topic_in_store(ClusterMember& member, const std::string& topic,
                                      const cluster::ReplicaAssignment& assignment,
                                      const std::map<std::string, std::string>& configs) {
  auto& store = member.store();
  const std::string topic_path = zk_paths::topic(topic);
  auto exists = store.exists(topic_path);
  if (exists) return error(ErrorCode::kTopicAlreadyExists, "Topic '" + topic + "' already exists.");
  if (exists.code() != cluster::StoreCode::kNoNode) return store_error("reading", topic_path, exists.error());
  if (auto s = set_topic_config(member, topic, configs); !s) return s;
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  cluster::TopicAssignment a;
  a.topic_id = cluster::make_topic_id([&rng] { return rng(); });
  for (const auto& [p, replicas] : assignment) a.partitions[p].replicas = replicas;
  auto created = store.create(topic_path, cluster::encode_topic_assignment(a));
  if (!created) {
    if (created.code() == cluster::StoreCode::kNodeExists)
      return error(ErrorCode::kTopicAlreadyExists, "Topic '" + topic + "' already exists.");
    return store_error("creating", topic_path, created.error());
  }
  spdlog::info("created topic '{}' in ZooKeeper: {} partition(s), id {}", topic, assignment.size(),
               cluster::topic_id_to_text(*a.topic_id));
  return *a.topic_id;
}

Result<cluster::TopicAssignment> read_topic_assignment(ClusterMember& member, const std::string& topic) {
  const std::string path = zk_paths::topic(topic);
  auto node = member.store().get(path);
  if (!node) {
    if (node.code() == cluster::StoreCode::kNoNode)
      return error(ErrorCode::kUnknownTopicOrPartition, "The topic '" + topic + "' does not exist.");
    return store_error("reading", path, node.error());
  }
  auto a = cluster::decode_topic_assignment(topic, node->data);
  if (!a) return error(ErrorCode::kUnknownServerError, a.status().message());
  return *a;
}

Status write_topic_assignment(ClusterMember& member, const std::string& topic,
                              const cluster::TopicAssignment& assignment) {
  const std::string path = zk_paths::topic(topic);
  auto r = member.store().set(path, cluster::encode_topic_assignment(assignment));
  if (!r) return store_error("writing", path, r.error());
  return Status::ok();
}

Status mark_topic_for_deletion(ClusterMember& member, const std::string& topic) {
  const std::string path = zk_paths::delete_topic(topic);
  auto r = member.store().create(path, "");
  if (!r && r.code() != cluster::StoreCode::kNodeExists) return store_error("creating", path, r.error());
  spdlog::info("topic '{}' marked for deletion ({})", topic, path);
  return Status::ok();
}

Result<std::map<std::string, std::string>> read_topic_config(ClusterMember& member, const std::string& topic) {
  auto stored = read_entity_config(member.store(), zk_paths::config_topic(topic));
  if (!stored) return stored.status();
  return std::map<std::string, std::string>(stored->config.begin(), stored->config.end());
}

Status set_topic_config(ClusterMember& member, const std::string& topic,
                        const std::map<std::string, std::string>& overrides) {
  auto written = write_entity_config(member.store(), zk_paths::config_topic(topic),
                                     cluster::EntityConfig(overrides.begin(), overrides.end()),
                                     StoredEntityConfig::kAnyVersion,
                                     zk_paths::config_entity_path(zk_paths::kEntityTopics, topic));
  if (!written) return written.status();
  return Status::ok();
}

void wait_for_cache(ClusterMember& member, std::function<bool(const cluster::MetadataCache&)> ready,
                    int64_t timeout_ms, std::function<void(bool)> done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<int64_t>(0, timeout_ms));
  if (ready(member.metadata())) return done(true);
  member.timer().add(std::make_shared<CacheWait>(member, std::move(ready), deadline, std::move(done)));
}

bool topic_has_leaders(const cluster::MetadataCache& cache, const std::string& topic, int32_t count) {
  auto parts = cache.topic_partitions(topic);
  if (static_cast<int32_t>(parts.size()) < count) return false;
  for (const auto& p : parts) {
    if (p.leader < 0 || !cache.is_live(p.leader)) return false;
  }
  return true;
}

}  // namespace spool::broker
