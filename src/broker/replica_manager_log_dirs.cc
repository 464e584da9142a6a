// ReplicaManager's side of a log-dir failure (KIP-112): see
// take_offline_partitions in replica_manager.h.
#include <spdlog/spdlog.h>

#include "broker/replica_manager.h"

namespace spool::broker {

std::vector<TopicPartition> ReplicaManager::take_offline_partitions() {
  std::vector<std::shared_ptr<Partition>> found;
  {
    std::unique_lock lk(mu_);
    for (const auto& [topic, parts] : partitions_) {
      for (const auto& part : parts) {
        if (!part || !part->offline()) continue;
        if (offline_partitions_.insert(part->key()).second) found.push_back(part);
      }
    }
  }
  std::vector<TopicPartition> out;
  for (const auto& part : found) {
    const TopicPartition& tp = part->key();
    if (cluster_ && cluster_->stop_following) cluster_->stop_following(tp);
    part->wake_after_offline();
    if (leadership_listener_) leadership_listener_(tp, false, part->leader_epoch());
    out.push_back(tp);
  }
  if (!out.empty()) spdlog::error("{} partition(s) are offline with their log dir", out.size());
  return out;
}

}  // namespace spool::broker
