// Controller: broker membership (Kafka's processBrokerChange,
// onBrokerStartup, onBrokerFailure, onReplicasBecomeOffline).
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/controller/controller.h"

namespace spool::cluster::controller {

void Controller::process_broker_change() {
  if (!is_active()) return;
  auto current = zk_.brokers(watch_event(BrokerChangeEvent{}));
  if (!current.is_ok()) {
    spdlog::error("controller: reading /brokers/ids: {}", current.error().message);
    return;
  }
  const auto& cur = current.value();
  std::vector<int32_t> added, dead, bounced;
  for (const auto& [id, info] : cur) {
    auto it = ctx_.brokers.find(id);
    if (it == ctx_.brokers.end()) {
      added.push_back(id);
    } else if (info.epoch > it->second.epoch) {
      bounced.push_back(id);  // same id, a newer registration (higher czxid)
    }
  }
  for (const auto& [id, info] : ctx_.brokers) {
    if (cur.count(id) == 0) dead.push_back(id);
  }
  spdlog::info("controller {}: newly added brokers: [{}], deleted brokers: [{}], bounced brokers: [{}]",
               config_.broker_id, fmt::join(added, ","), fmt::join(dead, ","), fmt::join(bounced, ","));

  for (int32_t id : added) channel_.add_broker(cur.at(id));
  for (int32_t id : bounced) {
    channel_.remove_broker(id);
    channel_.add_broker(cur.at(id));
  }
  for (int32_t id : dead) channel_.remove_broker(id);

  if (!added.empty()) {
    for (int32_t id : added) {
      ctx_.brokers[id] = cur.at(id);
      zk_.broker(id, watch_event(BrokerModificationEvent{id}));
    }
    on_broker_startup(added);
  }
  if (!bounced.empty() && !zk_.fenced()) {
    // A bounce is a failure followed by a startup.
    for (int32_t id : bounced) ctx_.brokers.erase(id);
    on_broker_failure(bounced);
    for (int32_t id : bounced) {
      ctx_.brokers[id] = cur.at(id);
      zk_.broker(id, watch_event(BrokerModificationEvent{id}));
    }
    if (!zk_.fenced()) on_broker_startup(bounced);
  }
  if (!dead.empty() && !zk_.fenced()) {
    for (int32_t id : dead) ctx_.brokers.erase(id);
    on_broker_failure(dead);
  }
}

void Controller::process_broker_modification(int32_t broker) {
  if (!is_active()) return;
  auto updated = zk_.broker(broker, watch_event(BrokerModificationEvent{broker}));
  auto it = ctx_.brokers.find(broker);
  if (!updated || it == ctx_.brokers.end()) return;
  if (updated->epoch != it->second.epoch) return;  // a bounce: BrokerChange handles it
  if (updated->endpoints != it->second.endpoints || updated->rack != it->second.rack) {
    spdlog::info("controller: broker {} changed its endpoints", broker);
    it->second = *updated;
    send_update_metadata(all_broker_ids(), {});
  }
}

void Controller::on_broker_startup(const std::vector<int32_t>& brokers) {
  // A (re)registered broker starts with its log dirs as it found them: it
  // reports any still offline when it answers the LeaderAndIsr below.
  for (int32_t id : brokers) ctx_.replicas_on_offline_dirs.erase(id);
  std::set<int32_t> fresh(brokers.begin(), brokers.end());
  std::vector<int32_t> existing;
  for (const auto& [id, info] : ctx_.brokers) {
    if (fresh.count(id) == 0) existing.push_back(id);
  }
  // Existing brokers learn about the new ones; the new ones get every
  // partition state.
  send_update_metadata(existing, {});
  std::vector<TopicPartition> with_leaders;
  for (const auto& [tp, lead] : ctx_.leadership) with_leaders.push_back(tp);
  send_update_metadata(brokers, with_leaders);
  // Every replica the new brokers host -> Online (LeaderAndIsr).
  auto replicas = ctx_.replicas_on_brokers(fresh);
  rsm_.handle(replicas, ReplicaState::kOnline);
  if (zk_.fenced()) return;
  // They may be able to lead New/Offline partitions.
  psm_.trigger_online();
  if (zk_.fenced()) return;
  // Deletion may resume for replicas on them.
  bool deletion = false;
  for (const auto& r : replicas) {
    if (!ctx_.queued_for_deletion(r.partition.topic)) continue;
    ctx_.topics_ineligible_for_deletion.erase(r.partition.topic);
    deletion = true;
  }
  if (deletion) try_topic_deletion();
}

void Controller::on_broker_failure(const std::vector<int32_t>& brokers) {
  for (int32_t id : brokers) {
    ctx_.shutting_down.erase(id);
    ctx_.replicas_on_offline_dirs.erase(id);
  }
  std::set<int32_t> gone(brokers.begin(), brokers.end());
  on_replicas_offline(ctx_.replicas_on_brokers(gone));
}

void Controller::on_replicas_offline(const std::vector<PartitionReplica>& replicas) {
  std::vector<PartitionReplica> for_deletion, others;
  for (const auto& r : replicas) (ctx_.queued_for_deletion(r.partition.topic) ? for_deletion : others).push_back(r);

  // Partitions whose leader is gone -> Offline, then elect what can be.
  psm_.handle(ctx_.partitions_with_offline_leader(), PartitionState::kOffline);
  auto results = psm_.trigger_online();
  if (zk_.fenced()) return;
  // The dead replicas -> Offline (leave the ISR; a last member stays).
  rsm_.handle(others, ReplicaState::kOffline);
  if (zk_.fenced()) return;
  if (!for_deletion.empty()) fail_replica_deletion(for_deletion);
  // Nothing changed leader or ISR: still tell everyone who is gone.
  bool any_elected = std::any_of(results.begin(), results.end(), [](const auto& kv) { return kv.second.ok; });
  if (others.empty() && !any_elected) send_update_metadata(all_broker_ids(), {});
}

}  // namespace spool::cluster::controller
