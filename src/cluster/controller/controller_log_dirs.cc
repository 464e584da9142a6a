// Controller: log-dir failure (KIP-112; Kafka's processLogDirEventNotification,
// onBrokerLogDirFailure, processLeaderAndIsrResponseReceived).
//
// A broker that loses a log dir creates a sequential
// /log_dir_event_notification/log_dir_event_N naming itself. The controller
// deletes every such node and sends LeaderAndIsr for all replicas of each
// named live broker; the broker answers KAFKA_STORAGE_ERROR for each replica
// on an offline dir. Those answers (to any LeaderAndIsr) feed the context's
// replicas_on_offline_dirs; a replica new to it goes through
// on_replicas_offline (controller_brokers.cc), as a dead broker's do.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/controller/controller.h"

namespace spool::cluster::controller {

using protocol::ErrorCode;

void Controller::process_log_dir_event_notification() {
  if (!is_active()) return;
  auto names = zk_.log_dir_events(watch_event(LogDirEventNotificationEvent{}));
  if (!names.is_ok()) {
    spdlog::error("controller: reading /log_dir_event_notification: {}", names.error().message);
    return;
  }
  std::set<int32_t> named;
  std::vector<std::string> read;
  for (const auto& name : names.value()) {
    auto broker = zk_.log_dir_event_broker(name);
    if (!broker.is_ok()) {
      // Kept: read again on the next change of the children.
      spdlog::error("controller: reading log dir event {}: {}", name, broker.error().message);
      continue;
    }
    read.push_back(name);  // a malformed or vanished node is deleted too
    if (broker.value()) named.insert(*broker.value());
  }
  std::vector<int32_t> live;
  for (int32_t b : named) {
    if (ctx_.is_live(b)) {
      live.push_back(b);
    } else {
      spdlog::info("controller {}: ignoring the log dir event of broker {}: it is not live", config_.broker_id, b);
    }
  }
  on_broker_log_dir_failure(live);
  for (const auto& name : read) {
    if (zk_.fenced()) return;
    ZkWrite w = zk_.delete_log_dir_event(name);
    if (w != ZkWrite::kOk) spdlog::error("controller: deleting log dir event {}: {}", name, zk_write_name(w));
  }
}

void Controller::clear_log_dir_events() {
  auto names = zk_.log_dir_events(watch_event(LogDirEventNotificationEvent{}));
  if (!names.is_ok()) {
    spdlog::error("controller: reading /log_dir_event_notification: {}", names.error().message);
    return;
  }
  for (const auto& name : names.value()) {
    auto broker = zk_.log_dir_event_broker(name);
    if (broker.is_ok() && broker.value()) {
      spdlog::info("controller {}: broker {} reported a log dir failure ({}); the failover's LeaderAndIsr asks it",
                   config_.broker_id, *broker.value(), name);
    }
    if (zk_.fenced()) return;
    ZkWrite w = zk_.delete_log_dir_event(name);
    if (w != ZkWrite::kOk) spdlog::error("controller: deleting log dir event {}: {}", name, zk_write_name(w));
  }
}

void Controller::on_broker_log_dir_failure(const std::vector<int32_t>& brokers) {
  if (brokers.empty()) return;
  spdlog::info("controller {}: handling log dir failure for brokers [{}]", config_.broker_id,
               fmt::join(brokers, ","));
  // LeaderAndIsr for every replica on them (Online -> Online resends the
  // cached state); the answers say which replicas are on offline dirs.
  std::vector<PartitionReplica> replicas;
  for (const auto& r : ctx_.replicas_on_brokers(std::set<int32_t>(brokers.begin(), brokers.end()))) {
    // Replicas being deleted stay as they are (Kafka logs an invalid transition).
    if (ReplicaStateMachine::valid_transition(ctx_.replica_state(r), ReplicaState::kOnline)) replicas.push_back(r);
  }
  rsm_.handle(replicas, ReplicaState::kOnline);
}

void Controller::process_leader_and_isr_response(int32_t broker, const ControllerResponse& response) {
  if (response.error != ErrorCode::kNone) {
    spdlog::error("controller: broker {} answered LeaderAndIsr with error {}", broker,
                  static_cast<int>(response.error));
    return;
  }
  if (ctx_.brokers.count(broker) == 0) return;  // gone since: nothing of it is kept
  auto found = ctx_.replicas_on_offline_dirs.find(broker);
  const std::set<TopicPartition> before =
      found == ctx_.replicas_on_offline_dirs.end() ? std::set<TopicPartition>{} : found->second;
  std::set<TopicPartition> now = before;
  for (const auto& pe : response.partition_errors) {
    const auto& reps = ctx_.replicas(pe.partition);
    if (std::find(reps.begin(), reps.end(), broker) == reps.end()) continue;  // not (any more) a replica there
    if (pe.error == ErrorCode::kKafkaStorageError) {
      now.insert(pe.partition);
    } else if (pe.error == ErrorCode::kNone) {
      now.erase(pe.partition);
    }
  }
  if (now.empty()) {
    ctx_.replicas_on_offline_dirs.erase(broker);
  } else {
    ctx_.replicas_on_offline_dirs[broker] = now;
  }
  std::vector<PartitionReplica> fresh;
  std::vector<std::string> names;
  for (const auto& tp : now) {
    if (before.count(tp) != 0) continue;
    fresh.push_back(PartitionReplica{tp, broker});
    names.push_back(tp.to_string());
  }
  if (fresh.empty()) return;
  spdlog::info("controller {}: broker {} has replicas on offline log dirs: [{}]; marking them offline",
               config_.broker_id, broker, fmt::join(names, ","));
  on_replicas_offline(fresh);
}

}  // namespace spool::cluster::controller
