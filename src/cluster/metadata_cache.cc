#include "cluster/metadata_cache.h"

#include <algorithm>

namespace spool::cluster {
namespace {

constexpr int16_t kLeaderNotAvailable = 5;

}  // namespace

std::shared_ptr<const MetadataCache::State> MetadataCache::snapshot() const {
  std::lock_guard lock(mu_);
  return state_;
}

bool MetadataCache::apply(const MetadataUpdate& update) {
  std::lock_guard lock(mu_);
  if (update.controller_epoch < state_->controller_epoch) return false;
  auto next = std::make_shared<State>(*state_);
  next->controller_id = update.controller_id;
  next->controller_epoch = update.controller_epoch;
  next->brokers.clear();
  for (const auto& b : update.live_brokers) next->brokers[b.id] = b;
  for (const auto& p : update.partitions) {
    if (p.leader == kLeaderDuringDelete) {
      auto it = next->topics.find(p.tp.topic);
      if (it == next->topics.end()) continue;
      it->second.erase(p.tp.partition);
      if (it->second.empty()) next->topics.erase(it);
      continue;
    }
    next->topics[p.tp.topic][p.tp.partition] = p;
  }
  state_ = std::move(next);
  return true;
}

std::vector<LiveBroker> MetadataCache::live_brokers() const {
  auto s = snapshot();
  std::vector<LiveBroker> out;
  out.reserve(s->brokers.size());
  for (const auto& [id, b] : s->brokers) out.push_back(b);
  return out;
}

std::optional<LiveBroker> MetadataCache::broker(int32_t id) const {
  auto s = snapshot();
  auto it = s->brokers.find(id);
  if (it == s->brokers.end()) return std::nullopt;
  return it->second;
}

bool MetadataCache::is_live(int32_t id) const { return snapshot()->brokers.count(id) > 0; }

std::optional<EndPoint> MetadataCache::endpoint(int32_t id, const std::string& listener) const {
  auto b = broker(id);
  if (!b) return std::nullopt;
  for (const auto& e : b->endpoints) {
    if (e.listener == listener) return e;
  }
  return std::nullopt;
}

std::optional<PartitionMetadata> MetadataCache::partition(const TopicPartition& tp) const {
  auto s = snapshot();
  auto t = s->topics.find(tp.topic);
  if (t == s->topics.end()) return std::nullopt;
  auto p = t->second.find(tp.partition);
  if (p == t->second.end()) return std::nullopt;
  return p->second;
}

std::vector<PartitionMetadata> MetadataCache::topic_partitions(const std::string& topic) const {
  auto s = snapshot();
  std::vector<PartitionMetadata> out;
  auto t = s->topics.find(topic);
  if (t == s->topics.end()) return out;
  for (const auto& [index, p] : t->second) out.push_back(p);
  return out;
}

std::vector<std::string> MetadataCache::topics() const {
  auto s = snapshot();
  std::vector<std::string> out;
  for (const auto& [name, parts] : s->topics) out.push_back(name);
  return out;
}

bool MetadataCache::contains_topic(const std::string& topic) const { return snapshot()->topics.count(topic) > 0; }

std::optional<std::string> MetadataCache::topic_name(const TopicId& id) const {
  if (id == TopicId{}) return std::nullopt;
  auto s = snapshot();
  for (const auto& [name, parts] : s->topics) {
    if (!parts.empty() && parts.begin()->second.topic_id == id) return name;
  }
  return std::nullopt;
}

std::optional<PartitionView> MetadataCache::describe_partition(const TopicPartition& tp) const {
  auto s = snapshot();
  auto t = s->topics.find(tp.topic);
  if (t == s->topics.end()) return std::nullopt;
  auto it = t->second.find(tp.partition);
  if (it == t->second.end()) return std::nullopt;
  const PartitionMetadata& p = it->second;
  PartitionView v;
  v.leader_epoch = p.leader_epoch;
  v.replicas = p.replicas;
  v.isr = p.isr;
  // The controller's list (replicas on dead brokers or offline dirs), plus
  // any replica whose broker this cache no longer sees live; in replica order.
  for (int32_t r : p.replicas) {
    const bool listed = std::find(p.offline_replicas.begin(), p.offline_replicas.end(), r) != p.offline_replicas.end();
    if (listed || !s->brokers.count(r)) v.offline_replicas.push_back(r);
  }
  if (p.leader == kNoLeader || !s->brokers.count(p.leader)) {
    v.error_code = kLeaderNotAvailable;
    v.leader = kNoLeader;
  } else {
    v.leader = p.leader;
  }
  return v;
}

}  // namespace spool::cluster
