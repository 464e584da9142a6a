// Controller: requests from brokers (Kafka's tryProcessAlterPartition,
// doControlledShutdown) and the answers to the controller's own requests
// (LeaderAndIsr answers are read in controller_log_dirs.cc).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/controller/controller.h"

namespace spool::cluster::controller {

using protocol::ErrorCode;

void Controller::process_alter_partition(AlterPartitionEvent& ev) {
  AlterPartitionResult result = do_alter_partition(ev.request);
  if (ev.callback) ev.callback(result);
  ev.callback = nullptr;
}

AlterPartitionResult Controller::do_alter_partition(const AlterPartitionRequest& req) {
  AlterPartitionResult result;
  if (!is_active()) {
    result.error = ErrorCode::kNotController;
    return result;
  }
  auto epoch = ctx_.broker_epoch(req.broker_id);
  if (!epoch || *epoch != req.broker_epoch) {
    spdlog::info("controller: ignoring AlterPartition from broker {}: broker epoch {} (ours: {})", req.broker_id,
                 req.broker_epoch, epoch ? std::to_string(*epoch) : std::string("unknown broker"));
    result.error = ErrorCode::kStaleBrokerEpoch;
    return result;
  }
  const std::set<int32_t> live = ctx_.live_broker_ids();
  std::vector<TopicPartition> touched;
  for (const auto& item : req.partitions) {
    AlterPartitionItemResult r;
    r.partition = item.partition;
    touched.push_back(item.partition);
    auto it = ctx_.leadership.find(item.partition);
    if (it == ctx_.leadership.end()) {
      r.error = ErrorCode::kUnknownTopicOrPartition;
      result.partitions.push_back(std::move(r));
      continue;
    }
    const LeaderAndIsr& cur = it->second.leader_and_isr;
    LeaderAndIsr wanted;
    wanted.leader = req.broker_id;
    wanted.leader_epoch = item.leader_epoch;
    wanted.isr = item.new_isr;
    wanted.recovery = item.leader_recovery_state;
    wanted.partition_epoch = item.partition_epoch;
    if (wanted.partition_epoch > cur.partition_epoch || wanted.leader_epoch > cur.leader_epoch) {
      // The leader knows a newer state than ours: we are probably not the
      // controller any more; let it find the new one.
      r.error = ErrorCode::kNotController;
    } else if (wanted.leader_epoch < cur.leader_epoch) {
      r.error = ErrorCode::kFencedLeaderEpoch;
    } else if (wanted.same_state_as(cur)) {
      r.state = cur;  // already there: idempotent success
    } else if (wanted.partition_epoch < cur.partition_epoch) {
      r.error = ErrorCode::kInvalidUpdateVersion;
    } else if (wanted.recovery == LeaderRecoveryState::kRecovering && wanted.isr.size() > 1) {
      r.error = ErrorCode::kInvalidRequest;
    } else if (cur.recovery == LeaderRecoveryState::kRecovered &&
               wanted.recovery == LeaderRecoveryState::kRecovering) {
      r.error = ErrorCode::kInvalidRequest;
    } else if (std::any_of(wanted.isr.begin(), wanted.isr.end(), [&](int32_t b) { return live.count(b) == 0; })) {
      // KIP-841: every ISR member must be live and not shutting down.
      spdlog::info("controller: rejecting AlterPartition of {} from broker {}: ineligible replicas in the ISR",
                   item.partition.to_string(), req.broker_id);
      r.error = ErrorCode::kIneligibleReplica;
    } else {
      int32_t version = 0;
      ZkWrite w = zk_.update_partition_state(item.partition, wanted, ctx_.epoch, &version);
      if (w == ZkWrite::kOk) {
        wanted.partition_epoch = version;
        it->second = PartitionLeadership{wanted, ctx_.epoch};
        r.state = wanted;
      } else if (w == ZkWrite::kBadVersion) {
        r.error = ErrorCode::kInvalidUpdateVersion;
      } else if (w == ZkWrite::kControllerMoved) {
        r.error = ErrorCode::kNotController;
      } else {
        r.error = ErrorCode::kUnknownServerError;
      }
    }
    result.partitions.push_back(std::move(r));
    if (zk_.fenced()) break;
  }
  if (zk_.fenced()) {
    result.partitions.clear();
    result.error = ErrorCode::kNotController;
    return result;
  }
  // Every broker learns the new ISRs; no LeaderAndIsr: the leader takes the
  // new state from this response.
  send_update_metadata(all_broker_ids(), touched);
  // A reassignment completes once its target replicas are all in sync
  // (Kafka's processPartitionReassignmentIsrChange).
  for (const auto& r : result.partitions) {
    if (r.error == ErrorCode::kNone && ctx_.being_reassigned(r.partition)) maybe_complete_reassignment(r.partition);
  }
  return result;
}

void Controller::process_controlled_shutdown(ControlledShutdownEvent& ev) {
  ControlledShutdownResult result = do_controlled_shutdown(ev.broker, ev.broker_epoch);
  if (ev.callback) ev.callback(result);
  ev.callback = nullptr;
}

ControlledShutdownResult Controller::do_controlled_shutdown(int32_t broker, int64_t broker_epoch) {
  ControlledShutdownResult result;
  if (!is_active()) {
    result.error = ErrorCode::kNotController;
    return result;
  }
  auto cached = ctx_.broker_epoch(broker);
  if (broker_epoch != -1 && cached && broker_epoch < *cached) {
    spdlog::info("controller: controlled shutdown from an old epoch {} of broker {} (current {})", broker_epoch,
                 broker, *cached);
    result.error = ErrorCode::kStaleBrokerEpoch;
    return result;
  }
  if (!cached) {
    result.error = ErrorCode::kBrokerNotAvailable;
    return result;
  }
  spdlog::info("controller {}: shutting down broker {}", config_.broker_id, broker);
  ctx_.shutting_down.insert(broker);
  std::vector<TopicPartition> led, followed;
  for (const auto& tp : ctx_.partitions_on_broker(broker)) {
    if (ctx_.replicas(tp).size() <= 1 || ctx_.leadership.count(tp) == 0 || ctx_.queued_for_deletion(tp.topic)) {
      continue;
    }
    (ctx_.leadership[tp].leader_and_isr.leader == broker ? led : followed).push_back(tp);
  }
  psm_.handle(led, PartitionState::kOnline, Strategy{ElectionStrategy::kControlledShutdown, false});
  if (!zk_.fenced()) {
    // Followers: StopReplica(delete=false) and out of the ISR.
    std::vector<PartitionReplica> replicas;
    for (const auto& tp : followed) replicas.push_back(PartitionReplica{tp, broker});
    rsm_.handle(replicas, ReplicaState::kOffline);
  }
  if (zk_.fenced()) {
    result.error = ErrorCode::kNotController;
    return result;
  }
  result.remaining = ctx_.partitions_led_by(broker);
  return result;
}

void Controller::process_broker_response(const BrokerResponseEvent& ev) {
  if (!is_active()) return;
  if (std::holds_alternative<StopReplicaRequest>(ev.request)) {
    const auto& req = std::get<StopReplicaRequest>(ev.request);
    std::vector<PartitionReplica> failed, deleted;
    for (const auto& p : req.partitions) {
      if (!p.delete_partition) continue;
      PartitionReplica r{p.partition, ev.broker};
      if (ctx_.replica_state(r) != ReplicaState::kDeletionStarted) continue;
      ErrorCode err = ev.response.error;
      if (err == ErrorCode::kNone) {
        for (const auto& pe : ev.response.partition_errors) {
          if (pe.partition == p.partition) err = pe.error;
        }
      }
      (err == ErrorCode::kNone ? deleted : failed).push_back(r);
    }
    if (failed.empty() && deleted.empty()) return;
    if (!failed.empty()) {
      spdlog::warn("controller: broker {} failed to delete {} replicas", ev.broker, failed.size());
      fail_replica_deletion(failed);
    }
    rsm_.handle(deleted, ReplicaState::kDeletionSuccessful);
    try_topic_deletion();
    return;
  }
  if (std::holds_alternative<LeaderAndIsrRequest>(ev.request)) {
    process_leader_and_isr_response(ev.broker, ev.response);
    return;
  }
  if (ev.response.error != ErrorCode::kNone) {
    spdlog::error("controller: broker {} answered {} with error {}", ev.broker, request_name(ev.request),
                  static_cast<int>(ev.response.error));
  }
}

void Controller::process_unclean_enable(const UncleanLeaderElectionEnableEvent& ev) {
  if (!is_active()) return;
  if (!ev.topic) {
    psm_.trigger_online();
    return;
  }
  std::vector<TopicPartition> offline;
  for (const auto& tp : ctx_.partitions_of(*ev.topic)) {
    if (ctx_.partition_state(tp) == PartitionState::kOffline) offline.push_back(tp);
  }
  // Kafka: the topic now allows unclean election, whatever its config says.
  psm_.handle(offline, PartitionState::kOnline, Strategy{ElectionStrategy::kOffline, true});
}

}  // namespace spool::cluster::controller
