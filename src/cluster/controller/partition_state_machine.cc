#include "cluster/controller/partition_state_machine.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/controller/election.h"

namespace spool::cluster::controller {
namespace {

// Kafka loops until no BADVERSION is left; a bound keeps a broken store from
// spinning the event thread forever.
constexpr int kMaxElectionRounds = 50;

const char* strategy_name(ElectionStrategy s) {
  switch (s) {
    case ElectionStrategy::kOffline: return "OfflinePartitionLeaderElectionStrategy";
    case ElectionStrategy::kReassign: return "ReassignPartitionLeaderElectionStrategy";
    case ElectionStrategy::kPreferred: return "PreferredReplicaPartitionLeaderElectionStrategy";
    case ElectionStrategy::kControlledShutdown: return "ControlledShutdownPartitionLeaderElectionStrategy";
  }
  return "?";
}

}  // namespace

bool PartitionStateMachine::valid_transition(PartitionState from, PartitionState to) {
  switch (to) {
    case PartitionState::kNew: return from == PartitionState::kNonExistent;
    case PartitionState::kOnline:
    case PartitionState::kOffline:
      return from == PartitionState::kNew || from == PartitionState::kOnline || from == PartitionState::kOffline;
    case PartitionState::kNonExistent: return from == PartitionState::kOffline;
  }
  return false;
}

void PartitionStateMachine::startup() {
  initialize_states();
  trigger_online();
}

void PartitionStateMachine::initialize_states() {
  for (const auto& [tp, replicas] : ctx_.assignment) {
    auto it = ctx_.leadership.find(tp);
    if (it == ctx_.leadership.end()) {
      ctx_.partition_states[tp] = PartitionState::kNew;
    } else {
      int32_t leader = it->second.leader_and_isr.leader;
      ctx_.partition_states[tp] =
          (leader != kNoLeader && ctx_.is_replica_online(leader, tp)) ? PartitionState::kOnline
                                                                      : PartitionState::kOffline;
    }
  }
}

PartitionChanges PartitionStateMachine::trigger_online() {
  std::vector<TopicPartition> todo;
  for (const auto& [tp, st] : ctx_.partition_states) {
    if ((st == PartitionState::kNew || st == PartitionState::kOffline) && !ctx_.queued_for_deletion(tp.topic)) {
      todo.push_back(tp);
    }
  }
  return handle(todo, PartitionState::kOnline, Strategy{ElectionStrategy::kOffline, false});
}

PartitionChanges PartitionStateMachine::handle(const std::vector<TopicPartition>& partitions, PartitionState target,
                                               std::optional<Strategy> strategy) {
  PartitionChanges out;
  if (partitions.empty()) return out;
  batch_.clear();
  std::vector<TopicPartition> valid;
  for (const auto& tp : partitions) {
    PartitionState from = ctx_.partition_state(tp);
    if (!valid_transition(from, target)) {
      spdlog::error("controller {} epoch {}: partition {} should not move from {} to {}", config_.broker_id,
                    ctx_.epoch, tp.to_string(), partition_state_name(from), partition_state_name(target));
      out[tp] = PartitionChange{false, {}, "invalid transition"};
      continue;
    }
    valid.push_back(tp);
  }
  switch (target) {
    case PartitionState::kNew:
      for (const auto& tp : valid) ctx_.partition_states[tp] = PartitionState::kNew;
      break;
    case PartitionState::kOffline:
    case PartitionState::kNonExistent:
      for (const auto& tp : valid) ctx_.partition_states[tp] = target;
      break;
    case PartitionState::kOnline: {
      std::vector<TopicPartition> fresh;
      std::vector<TopicPartition> elect;
      for (const auto& tp : valid) {
        (ctx_.partition_state(tp) == PartitionState::kNew ? fresh : elect).push_back(tp);
      }
      initialize_leadership(fresh, out);
      if (!elect.empty() && !zk_.fenced()) {
        Strategy st = strategy.value_or(Strategy{});
        std::vector<TopicPartition> remaining = elect;
        for (int round = 0; !remaining.empty() && !zk_.fenced(); ++round) {
          if (round == kMaxElectionRounds) {
            for (const auto& tp : remaining) out[tp] = PartitionChange{false, {}, "too many BADVERSION retries"};
            break;
          }
          remaining = elect_round(remaining, st, /*from_cache=*/round == 0, out);
        }
      }
      break;
    }
  }
  if (zk_.fenced()) {
    batch_.clear();
    return out;
  }
  batch_.send(channel_, ctx_.epoch);
  return out;
}

void PartitionStateMachine::initialize_leadership(const std::vector<TopicPartition>& partitions,
                                                  PartitionChanges& out) {
  const std::set<int32_t> live_brokers = ctx_.live_broker_ids();
  for (const auto& tp : partitions) {
    if (zk_.fenced()) return;
    const auto& replicas = ctx_.replicas(tp);
    auto chosen = elect_initial(replicas, ctx_.with_online_replica(tp, live_brokers));
    if (!chosen) {
      spdlog::error("controller {} epoch {}: partition {} New -> Online failed: no assigned replica is alive",
                    config_.broker_id, ctx_.epoch, tp.to_string());
      out[tp] = PartitionChange{false, {}, "no assigned replica is alive"};
      continue;
    }
    LeaderAndIsr st;
    st.leader = chosen->leader;
    st.leader_epoch = 0;
    st.isr = chosen->isr;
    int32_t version = 0;
    ZkWrite w = zk_.create_partition_state(tp, st, ctx_.epoch, &version);
    if (w != ZkWrite::kOk) {
      spdlog::error("controller {} epoch {}: partition {} New -> Online: creating /state: {}", config_.broker_id,
                    ctx_.epoch, tp.to_string(), zk_write_name(w));
      out[tp] = PartitionChange{false, {}, zk_write_name(w)};
      continue;
    }
    st.partition_epoch = version;
    PartitionLeadership lead{st, ctx_.epoch};
    ctx_.leadership[tp] = lead;
    batch_.add_leader_and_isr(st.isr, tp, lead, replicas, /*is_new=*/true);
    ctx_.partition_states[tp] = PartitionState::kOnline;
    out[tp] = PartitionChange{true, st, {}};
  }
}

std::vector<TopicPartition> PartitionStateMachine::elect_round(const std::vector<TopicPartition>& partitions,
                                                               const Strategy& strategy, bool from_cache,
                                                               PartitionChanges& out) {
  std::vector<TopicPartition> retry;
  const std::set<int32_t> live_brokers = ctx_.live_broker_ids();
  const std::set<int32_t> live_or_sd_brokers = ctx_.live_or_shutting_down_ids();
  // Elected first, written together (one fenced multi), then applied.
  struct Planned {
    TopicPartition tp;
    LeaderAndIsr next;
    std::vector<int32_t> recipients;
  };
  std::vector<Planned> planned;
  for (const auto& tp : partitions) {
    if (zk_.fenced()) return {};
    // The first round elects from the controller's own copy of /state (it
    // wrote it, or read it at failover or on an AlterPartition): a stale
    // copy only costs a BADVERSION and a retry round, which reads ZooKeeper.
    std::optional<PartitionLeadership> known;
    if (auto it = ctx_.leadership.find(tp); from_cache && it != ctx_.leadership.end()) known = it->second;
    if (!known) {
      auto read = zk_.partition_state(tp);
      if (!read.is_ok()) {
        out[tp] = PartitionChange{false, {}, read.error().message};
        continue;
      }
      if (!read.value()) {
        out[tp] = PartitionChange{false, {}, "LeaderAndIsr information doesn't exist for partition"};
        continue;
      }
      known = *read.value();
    }
    const PartitionLeadership current = *known;
    if (current.controller_epoch > ctx_.epoch) {
      spdlog::error("controller {} epoch {}: aborted election for {}: /state written by controller epoch {}",
                    config_.broker_id, ctx_.epoch, tp.to_string(), current.controller_epoch);
      out[tp] = PartitionChange{false, {}, "state written by a newer controller"};
      continue;
    }
    // Kafka's isReplicaOnline: a replica on an offline log dir is no candidate.
    const std::set<int32_t> live = ctx_.with_online_replica(tp, live_brokers);
    const std::set<int32_t> live_or_sd = ctx_.with_online_replica(tp, live_or_sd_brokers);
    const auto& replicas = ctx_.replicas(tp);
    const auto& isr = current.leader_and_isr.isr;
    std::optional<ElectionOutcome> chosen;
    std::vector<int32_t> recipients;
    switch (strategy.kind) {
      case ElectionStrategy::kOffline: {
        bool live_isr = std::any_of(isr.begin(), isr.end(), [&](int32_t r) { return live.count(r) != 0; });
        bool unclean = !live_isr && (strategy.allow_unclean || config_.unclean_enabled_for(tp.topic));
        chosen = elect_offline(replicas, isr, live, unclean);
        for (int32_t r : replicas) {
          if (live.count(r) != 0) recipients.push_back(r);
        }
        if (chosen && chosen->unclean) {
          spdlog::warn("controller {}: unclean leader election for {}: broker {} was not in the ISR {}; data may be lost",
                       config_.broker_id, tp.to_string(), chosen->leader, fmt::join(isr, ","));
        }
        break;
      }
      case ElectionStrategy::kReassign:
        // No reassignment state is kept yet: the target is the assignment.
        chosen = elect_reassign(replicas, isr, live);
        recipients = replicas;
        break;
      case ElectionStrategy::kPreferred:
        chosen = elect_preferred(replicas, isr, live);
        recipients = replicas;
        break;
      case ElectionStrategy::kControlledShutdown:
        chosen = elect_controlled_shutdown(replicas, isr, live_or_sd, ctx_.shutting_down);
        for (int32_t r : replicas) {
          if (live_or_sd.count(r) != 0) recipients.push_back(r);
        }
        break;
    }
    if (!chosen) {
      spdlog::error("controller {} epoch {}: failed to elect leader for partition {} under strategy {}",
                    config_.broker_id, ctx_.epoch, tp.to_string(), strategy_name(strategy.kind));
      out[tp] = PartitionChange{false, {}, "no eligible leader"};
      continue;
    }
    LeaderAndIsr next = current.leader_and_isr;
    next.leader = chosen->leader;
    next.leader_epoch = current.leader_and_isr.leader_epoch + 1;
    next.isr = chosen->isr;
    if (chosen->unclean) next.recovery = LeaderRecoveryState::kRecovering;
    planned.push_back({tp, next, std::move(recipients)});
  }
  if (planned.empty() || zk_.fenced()) return retry;
  // One multi for the lot; on a BADVERSION (some /state moved), one write
  // each, so that only the moved ones go to the next round.
  std::vector<ZkWrite> results(planned.size(), ZkWrite::kOk);
  std::vector<int32_t> versions;
  std::vector<std::pair<TopicPartition, LeaderAndIsr>> states;
  for (const auto& p : planned) states.emplace_back(p.tp, p.next);
  ZkWrite all = planned.size() > 1 ? zk_.update_partition_states(states, ctx_.epoch, &versions) : ZkWrite::kBadVersion;
  if (all == ZkWrite::kControllerMoved) return {};
  if (all != ZkWrite::kOk) {
    versions.assign(planned.size(), 0);
    for (size_t i = 0; i < planned.size() && !zk_.fenced(); ++i)
      results[i] = zk_.update_partition_state(planned[i].tp, planned[i].next, ctx_.epoch, &versions[i]);
    if (zk_.fenced()) return {};
  }
  for (size_t i = 0; i < planned.size(); ++i) {
    Planned& p = planned[i];
    if (results[i] == ZkWrite::kBadVersion) {
      retry.push_back(p.tp);
      continue;
    }
    if (results[i] != ZkWrite::kOk) {
      out[p.tp] = PartitionChange{false, {}, zk_write_name(results[i])};
      continue;
    }
    p.next.partition_epoch = versions[i];
    PartitionLeadership lead{p.next, ctx_.epoch};
    ctx_.leadership[p.tp] = lead;
    batch_.add_leader_and_isr(p.recipients, p.tp, lead, ctx_.replicas(p.tp), /*is_new=*/false);
    ctx_.partition_states[p.tp] = PartitionState::kOnline;
    out[p.tp] = PartitionChange{true, p.next, {}};
  }
  return retry;
}

}  // namespace spool::cluster::controller
