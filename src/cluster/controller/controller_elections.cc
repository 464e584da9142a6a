// ElectLeaders and the preferred-leader balance (Kafka's
// KafkaController.processReplicaLeaderElection and
// checkAndTriggerAutoLeaderRebalance).
//
// ElectLeaders, per requested partition, in request order:
//   unknown                         UNKNOWN_TOPIC_OR_PARTITION
//   topic queued for deletion       INVALID_TOPIC_EXCEPTION
//   PREFERRED, leader is already the first replica of the assignment;
//   UNCLEAN, the leader is live     ELECTION_NOT_NEEDED
//   otherwise an Online election with the preferred strategy (the first
//   replica, if live and in the ISR) or the offline strategy with unclean
//   election allowed (the first live ISR replica, else the first live
//   replica); no eligible leader: PREFERRED_LEADER_NOT_AVAILABLE /
//   ELIGIBLE_LEADERS_NOT_AVAILABLE; elected: NONE with the new leader.
// The balance check, every leader.imbalance.check.interval while active:
// for each broker B, of the partitions whose preferred replica is B, the
// share led by another broker; above leader.imbalance.per.broker.percentage
// the ones whose preferred replica is live and in the ISR get a preferred
// election.
#include <spdlog/spdlog.h>

#include <map>
#include <set>

#include "cluster/controller/controller.h"

namespace spool::cluster::controller {

using protocol::ErrorCode;

void Controller::elect_leaders(ElectionType type, std::vector<TopicPartition> partitions,
                               std::function<void(const std::vector<ElectionResult>&)> callback) {
  events_.put(ElectLeadersEvent{type, std::move(partitions), std::move(callback)});
}

void Controller::trigger_leader_rebalance() { events_.put(AutoLeaderRebalanceEvent{}); }

void Controller::process_elect_leaders(ElectLeadersEvent& ev) {
  auto results = do_elect_leaders(ev.type, ev.partitions);
  if (ev.callback) ev.callback(results);
  ev.callback = nullptr;
}

std::vector<ElectionResult> Controller::do_elect_leaders(ElectionType type,
                                                         const std::vector<TopicPartition>& partitions) {
  std::vector<ElectionResult> results;
  results.reserve(partitions.size());
  for (const auto& tp : partitions) results.push_back(ElectionResult{tp, ErrorCode::kNone, {}, -1});
  if (!is_active()) {
    for (auto& r : results) r.error = ErrorCode::kNotController;
    return results;
  }
  const bool preferred = type == ElectionType::kPreferred;
  std::vector<TopicPartition> electable;
  std::set<TopicPartition> seen;
  for (auto& r : results) {
    const TopicPartition& tp = r.partition;
    const auto& replicas = ctx_.replicas(tp);
    auto lead = ctx_.leadership.find(tp);
    if (replicas.empty() || lead == ctx_.leadership.end()) {
      r.error = ErrorCode::kUnknownTopicOrPartition;
      r.message = "The partition does not exist.";
      continue;
    }
    if (ctx_.queued_for_deletion(tp.topic)) {
      r.error = ErrorCode::kInvalidTopicException;
      r.message = "The topic is being deleted.";
      continue;
    }
    const int32_t leader = lead->second.leader_and_isr.leader;
    const bool valid = preferred ? leader == replicas.front() : leader >= 0 && ctx_.is_live(leader);
    if (valid) {
      r.error = ErrorCode::kElectionNotNeeded;
      r.leader = leader;
      continue;
    }
    if (seen.insert(tp).second) electable.push_back(tp);
  }
  if (electable.empty()) return results;
  spdlog::info("controller {}: {} leader election for {} partition(s)", config_.broker_id,
               preferred ? "preferred" : "unclean", electable.size());
  PartitionChanges changes =
      psm_.handle(electable, PartitionState::kOnline,
                  preferred ? Strategy{ElectionStrategy::kPreferred, false} : Strategy{ElectionStrategy::kOffline, true});
  for (auto& r : results) {
    if (r.error != ErrorCode::kNone) continue;
    auto c = changes.find(r.partition);
    if (c != changes.end() && c->second.ok) {
      r.leader = c->second.state.leader;
      continue;
    }
    if (zk_.fenced()) {
      r.error = ErrorCode::kNotController;
      continue;
    }
    r.error = preferred ? ErrorCode::kPreferredLeaderNotAvailable : ErrorCode::kEligibleLeadersNotAvailable;
    r.message = "Failed to elect leader for partition " + r.partition.to_string() + " under strategy " +
                (preferred ? "PreferredReplicaPartitionLeaderElectionStrategy"
                           : "OfflinePartitionLeaderElectionStrategy") +
                (c != changes.end() && !c->second.error.empty() ? ": " + c->second.error : "");
  }
  return results;
}

void Controller::process_auto_leader_rebalance() {
  if (!is_active() || !config_.auto_leader_rebalance_enable) return;
  // Preferred replica -> its partitions (topics being deleted left out).
  std::map<int32_t, std::vector<TopicPartition>> by_preferred;
  for (const auto& [tp, replicas] : ctx_.assignment) {
    if (replicas.empty() || ctx_.queued_for_deletion(tp.topic)) continue;
    by_preferred[replicas.front()].push_back(tp);
  }
  std::vector<TopicPartition> candidates;
  for (const auto& [broker, tps] : by_preferred) {
    std::vector<TopicPartition> elsewhere;
    for (const auto& tp : tps) {
      auto lead = ctx_.leadership.find(tp);
      if (lead != ctx_.leadership.end() && lead->second.leader_and_isr.leader != broker) elsewhere.push_back(tp);
    }
    const double ratio = static_cast<double>(elsewhere.size()) / static_cast<double>(tps.size());
    if (ratio <= config_.leader_imbalance_per_broker_percentage / 100.0) continue;
    if (!ctx_.is_live(broker)) continue;
    for (const auto& tp : elsewhere) {
      // Kafka's canPreferredReplicaBeLeader: online (not on an offline log dir) and in the ISR.
      if (ctx_.being_reassigned(tp) || !ctx_.is_replica_online(broker, tp)) continue;
      const auto& isr = ctx_.leadership[tp].leader_and_isr.isr;
      if (std::find(isr.begin(), isr.end(), broker) != isr.end()) candidates.push_back(tp);
    }
  }
  if (candidates.empty()) return;
  spdlog::info("controller {}: leader imbalance above {}%: preferred election for {} partition(s)",
               config_.broker_id, config_.leader_imbalance_per_broker_percentage, candidates.size());
  psm_.handle(candidates, PartitionState::kOnline, Strategy{ElectionStrategy::kPreferred, false});
}

void Controller::rebalance_timer_loop() {
  std::unique_lock lk(timer_mu_);
  while (!timer_stop_) {
    if (timer_cv_.wait_for(lk, std::chrono::milliseconds(config_.leader_imbalance_check_interval_ms),
                           [this] { return timer_stop_; }))
      return;
    if (is_active()) events_.put(AutoLeaderRebalanceEvent{});
  }
}

}  // namespace spool::cluster::controller
