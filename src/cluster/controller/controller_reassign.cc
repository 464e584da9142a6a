// Partition reassignment (KIP-455; Kafka's KafkaController
// onPartitionReassignment and friends, ZooKeeper mode).
//
// With ORS the replicas before and TRS the target, the partition's replica
// set while it moves is RS = TRS ++ ORS (deduplicated), AR = RS - ORS are
// being added and RR = RS - TRS removed. Steps:
//   U  RS/AR/RR are written to /brokers/topics/T first, then to the context;
//      replicas of an earlier reassignment that RS no longer has are stopped
//      and deleted.
//   A  TRS not all in the ISR: the leader epoch is bumped (same leader and
//      ISR) and LeaderAndIsr goes to ORS and (is_new) to AR, which start
//      fetching; AR replicas -> New.
//   B  TRS all in the ISR (seen on an AlterPartition, or at once): AR ->
//      Online; the assignment becomes TRS; the leader moves if it is not in
//      TRS (reassign strategy: the first live TRS replica in the ISR), else
//      the epoch is bumped so the replicas learn RS = TRS; RR -> Offline (out
//      of the ISR) -> deleted (StopReplica with delete); TRS is written to
//      the topic znode; the partition leaves /admin/reassign_partitions;
//      UpdateMetadata to every broker.
// A cancel (target null) reassigns to ORS. The latest request for a
// partition wins, over an earlier API or ZooKeeper one. A controller that
// takes over resumes every reassignment the topic znodes list, and the ones
// /admin/reassign_partitions asks for. A topic being reassigned is deleted
// only once its reassignments are done; the preferred-leader balance skips
// partitions being reassigned.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "cluster/controller/controller.h"

namespace spool::cluster::controller {

using protocol::ErrorCode;

namespace {

bool contains(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<int32_t> minus(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> out;
  for (int32_t x : a)
    if (!contains(b, x)) out.push_back(x);
  return out;
}

// RS = target ++ origin, deduplicated.
std::vector<int32_t> full_set(const std::vector<int32_t>& target, const std::vector<int32_t>& origin) {
  std::vector<int32_t> out;
  for (const auto* v : {&target, &origin})
    for (int32_t x : *v)
      if (!contains(out, x)) out.push_back(x);
  return out;
}

}  // namespace

void Controller::alter_partition_reassignments(
    std::vector<ReassignmentItem> items, bool allow_replication_factor_change,
    std::function<void(ErrorCode, const std::vector<ReassignmentResult>&)> callback) {
  events_.put(AlterReassignmentsEvent{std::move(items), allow_replication_factor_change, std::move(callback)});
}

void Controller::list_partition_reassignments(
    std::optional<std::vector<TopicPartition>> partitions,
    std::function<void(ErrorCode, const std::vector<OngoingReassignment>&)> callback) {
  events_.put(ListReassignmentsEvent{std::move(partitions), std::move(callback)});
}

std::optional<std::string> Controller::invalid_target(const TopicPartition& tp,
                                                      const std::vector<int32_t>& replicas) const {
  if (replicas.empty()) return "Empty replica list specified in partition reassignment.";
  std::set<int32_t> unique(replicas.begin(), replicas.end());
  if (unique.size() != replicas.size())
    return "Duplicate replica ids in partition reassignment replica list: " + fmt::format("{}", fmt::join(replicas, ","));
  if (std::any_of(replicas.begin(), replicas.end(), [](int32_t r) { return r < 0; }))
    return "Invalid broker id in replica list: " + fmt::format("{}", fmt::join(replicas, ","));
  // New replicas must be on live brokers.
  std::vector<int32_t> adding = minus(full_set(replicas, ctx_.origin_replicas(tp)), ctx_.origin_replicas(tp));
  auto live = ctx_.live_broker_ids();
  for (int32_t r : adding) {
    if (live.count(r) == 0)
      return fmt::format("Replica assignment has brokers that are not alive. Replica list: {}, live broker list: {}",
                         fmt::join(adding, ","), fmt::join(live, ","));
  }
  return std::nullopt;
}

void Controller::process_alter_reassignments(AlterReassignmentsEvent& ev) {
  std::vector<ReassignmentResult> results;
  if (!is_active()) {
    if (ev.callback) ev.callback(ErrorCode::kNotController, results);
    ev.callback = nullptr;
    return;
  }
  for (const auto& item : ev.items) {
    const TopicPartition& tp = item.partition;
    ReassignmentResult r{tp, ErrorCode::kNone, {}};
    if (ctx_.replicas(tp).empty() || ctx_.queued_for_deletion(tp.topic)) {
      r.error = ErrorCode::kUnknownTopicOrPartition;
      r.message = "The partition does not exist.";
    } else if (!item.replicas && !ctx_.being_reassigned(tp)) {
      r.error = ErrorCode::kNoReassignmentInProgress;
    } else if (auto bad = item.replicas ? invalid_target(tp, *item.replicas) : std::nullopt) {
      r.error = ErrorCode::kInvalidReplicaAssignment;
      r.message = *bad;
    } else if (item.replicas && !ev.allow_replication_factor_change &&
               item.replicas->size() != ctx_.origin_replicas(tp).size()) {
      r.error = ErrorCode::kInvalidReplicationFactor;
      r.message = fmt::format("The replication factor is changed from {} to {}", ctx_.origin_replicas(tp).size(),
                              item.replicas->size());
    } else {
      // The latest request wins over a ZooKeeper one for the same partition.
      if (ctx_.zk_reassigning.count(tp) != 0) forget_zk_reassignment(tp);
      const std::vector<int32_t> target = item.replicas ? *item.replicas : ctx_.origin_replicas(tp);
      if (!reassign(tp, target)) r.error = zk_.fenced() ? ErrorCode::kNotController : ErrorCode::kUnknownServerError;
    }
    results.push_back(std::move(r));
    if (zk_.fenced()) break;
  }
  if (ev.callback) ev.callback(zk_.fenced() ? ErrorCode::kNotController : ErrorCode::kNone, results);
  ev.callback = nullptr;
}

void Controller::process_list_reassignments(ListReassignmentsEvent& ev) {
  std::vector<OngoingReassignment> out;
  if (!is_active()) {
    if (ev.callback) ev.callback(ErrorCode::kNotController, out);
    ev.callback = nullptr;
    return;
  }
  for (const auto& [tp, r] : ctx_.reassigning) {
    if (ev.partitions && std::find(ev.partitions->begin(), ev.partitions->end(), tp) == ev.partitions->end()) continue;
    out.push_back(OngoingReassignment{tp, ctx_.replicas(tp), r.adding, r.removing});
  }
  if (ev.callback) ev.callback(ErrorCode::kNone, out);
  ev.callback = nullptr;
}

bool Controller::write_replicas(const TopicPartition& tp, const std::vector<int32_t>& replicas, const Reassignment& r) {
  PartitionReplicas pr{replicas, r.adding, r.removing};
  ZkWrite w = zk_.set_partition_replicas(tp.topic, {{tp.partition, pr}});
  if (w != ZkWrite::kOk) {
    spdlog::error("controller: writing the replicas of {} for its reassignment: {}", tp.to_string(), zk_write_name(w));
    return false;
  }
  ctx_.assignment[tp] = replicas;
  if (r.adding.empty() && r.removing.empty()) {
    ctx_.reassigning.erase(tp);
  } else {
    ctx_.reassigning[tp] = r;
  }
  return true;
}

bool Controller::reassign(const TopicPartition& tp, const std::vector<int32_t>& target) {
  const std::vector<int32_t> before = ctx_.replicas(tp);
  const std::vector<int32_t> origin = ctx_.origin_replicas(tp);
  const std::vector<int32_t> rs = full_set(target, origin);
  const Reassignment next{minus(rs, origin), minus(rs, target)};
  spdlog::info("controller {}: reassigning {} from [{}] to [{}] (adding [{}], removing [{}])", config_.broker_id,
               tp.to_string(), fmt::join(origin, ","), fmt::join(target, ","), fmt::join(next.adding, ","),
               fmt::join(next.removing, ","));
  // U: ZooKeeper first, then the context (write_replicas); replicas an
  // earlier reassignment was adding and this one drops go away.
  if (before != rs || !ctx_.being_reassigned(tp) || ctx_.reassigning[tp] != next) {
    if (!write_replicas(tp, rs, next)) return false;
    const std::vector<int32_t> unneeded = minus(before, rs);
    if (!unneeded.empty()) stop_removed_replicas(tp, unneeded);
    if (zk_.fenced()) return false;
  }
  if (next.adding.empty() && next.removing.empty()) {
    // Nothing to add or remove (a cancel, or the replicas it has): done now.
    ctx_.reassigning[tp] = next;
    complete_reassignment(tp);
    return !zk_.fenced();
  }
  maybe_complete_reassignment(tp);
  if (!ctx_.being_reassigned(tp)) return true;  // completed at once
  // A: the replicas learn RS/AR/RR; the new ones start fetching.
  if (!bump_leader_epoch(tp, /*new_replicas_too=*/true)) return zk_.fenced() ? false : true;
  std::vector<PartitionReplica> added;
  for (int32_t r : ctx_.reassigning[tp].adding) {
    if (ctx_.replica_state(PartitionReplica{tp, r}) != ReplicaState::kOnline) added.push_back(PartitionReplica{tp, r});
  }
  rsm_.handle(added, ReplicaState::kNew);
  return !zk_.fenced();
}

bool Controller::bump_leader_epoch(const TopicPartition& tp, bool new_replicas_too) {
  auto read = zk_.partition_state(tp);
  if (!read.is_ok() || !read.value()) {
    spdlog::error("controller: no state for {} during its reassignment", tp.to_string());
    return false;
  }
  LeaderAndIsr next = read.value()->leader_and_isr;
  next.leader_epoch += 1;
  int32_t version = 0;
  ZkWrite w = zk_.update_partition_state(tp, next, ctx_.epoch, &version);
  if (w != ZkWrite::kOk) {
    spdlog::error("controller: bumping the leader epoch of {}: {}", tp.to_string(), zk_write_name(w));
    return false;
  }
  next.partition_epoch = version;
  ctx_.leadership[tp] = PartitionLeadership{next, ctx_.epoch};
  const std::vector<int32_t> origin = ctx_.origin_replicas(tp);
  batch_.add_leader_and_isr(origin, tp, ctx_.leadership[tp], ctx_.replicas(tp), /*is_new=*/false);
  if (new_replicas_too && ctx_.being_reassigned(tp))
    batch_.add_leader_and_isr(ctx_.reassigning[tp].adding, tp, ctx_.leadership[tp], ctx_.replicas(tp), true);
  batch_.send(channel_, ctx_.epoch);
  return true;
}

void Controller::maybe_complete_reassignment(const TopicPartition& tp) {
  auto it = ctx_.reassigning.find(tp);
  if (it == ctx_.reassigning.end()) return;
  auto read = zk_.partition_state(tp);
  if (!read.is_ok() || !read.value()) return;
  const auto& isr = read.value()->leader_and_isr.isr;
  for (int32_t r : ctx_.target_replicas(tp)) {
    if (!contains(isr, r)) return;
  }
  complete_reassignment(tp);
}

void Controller::complete_reassignment(const TopicPartition& tp) {
  const Reassignment r = ctx_.reassigning[tp];
  const std::vector<int32_t> target = ctx_.target_replicas(tp);
  // B1: the new replicas are Online.
  std::vector<PartitionReplica> added;
  for (int32_t a : r.adding) added.push_back(PartitionReplica{tp, a});
  rsm_.handle(added, ReplicaState::kOnline);
  if (zk_.fenced()) return;
  // B2: RS = TRS in memory (the znode follows in B6).
  ctx_.assignment[tp] = target;
  ctx_.reassigning.erase(tp);
  // B3: the leader moves if it is not in TRS (or is not online), else the
  // epoch is bumped so every replica learns RS = TRS.
  const int32_t leader = ctx_.leadership.count(tp) ? ctx_.leadership[tp].leader_and_isr.leader : kNoLeader;
  if (!contains(target, leader) || !ctx_.is_replica_online(leader, tp)) {
    psm_.handle({tp}, PartitionState::kOnline, Strategy{ElectionStrategy::kReassign, false});
  } else {
    bump_leader_epoch(tp, /*new_replicas_too=*/false);
  }
  if (zk_.fenced()) return;
  // B4, B5: the removed replicas leave the ISR and are deleted.
  if (!r.removing.empty()) stop_removed_replicas(tp, r.removing);
  if (zk_.fenced()) return;
  // B6: TRS in the topic znode; B7: out of /admin/reassign_partitions.
  if (!write_replicas(tp, target, Reassignment{})) return;
  forget_zk_reassignment(tp);
  spdlog::info("controller {}: reassignment of {} to [{}] completed", config_.broker_id, tp.to_string(),
               fmt::join(target, ","));
  // B8: every broker learns the new replicas and ISR.
  send_update_metadata(all_broker_ids(), {tp});
  try_topic_deletion();
}

void Controller::stop_removed_replicas(const TopicPartition& tp, const std::vector<int32_t>& replicas) {
  std::vector<PartitionReplica> gone;
  for (int32_t r : replicas) gone.push_back(PartitionReplica{tp, r});
  rsm_.handle(gone, ReplicaState::kOffline);
  if (zk_.fenced()) return;
  rsm_.handle(gone, ReplicaState::kDeletionStarted);
  rsm_.handle(gone, ReplicaState::kDeletionSuccessful);
  rsm_.handle(gone, ReplicaState::kNonExistent);
}

void Controller::forget_zk_reassignment(const TopicPartition& tp) {
  if (ctx_.zk_reassigning.erase(tp) == 0) return;
  auto current = zk_.legacy_reassignments();
  if (!current) return;
  current->erase(tp);
  ZkWrite w = zk_.set_legacy_reassignments(*current);
  if (w != ZkWrite::kOk) spdlog::warn("controller: updating /admin/reassign_partitions: {}", zk_write_name(w));
}

void Controller::process_zk_reassignment() {
  if (!is_active()) return;
  auto wanted = zk_.legacy_reassignments(watch_event(ZkReassignmentEvent{}));
  if (!wanted) return;
  LegacyReassignment failed;
  for (const auto& [tp, target] : *wanted) {
    if (ctx_.zk_reassigning.count(tp) != 0 && ctx_.target_replicas(tp) == target) continue;  // already running
    if (ctx_.replicas(tp).empty() || ctx_.queued_for_deletion(tp.topic)) {
      spdlog::warn("controller: /admin/reassign_partitions names {}, which does not exist", tp.to_string());
      failed[tp] = target;
      continue;
    }
    ctx_.zk_reassigning.insert(tp);
    if (!reassign(tp, target)) {
      ctx_.zk_reassigning.erase(tp);
      if (zk_.fenced()) return;
      failed[tp] = target;
    }
  }
  if (!failed.empty() || ctx_.zk_reassigning.empty()) {
    // Refused entries leave the znode; an empty znode goes (Kafka's
    // maybeRemoveFromZkReassignment).
    LegacyReassignment left;
    for (const auto& [tp, target] : *wanted)
      if (failed.count(tp) == 0 && ctx_.zk_reassigning.count(tp) != 0) left[tp] = target;
    ZkWrite w = zk_.set_legacy_reassignments(left);
    if (w != ZkWrite::kOk) spdlog::warn("controller: updating /admin/reassign_partitions: {}", zk_write_name(w));
  }
}

void Controller::resume_reassignments() {
  // New requests through ZooKeeper first (they win), then the ones the topic
  // znodes list (Kafka's initializePartitionReassignments).
  process_zk_reassignment();
  if (zk_.fenced()) return;
  std::vector<TopicPartition> ongoing;
  for (const auto& [tp, r] : ctx_.reassigning) {
    if (ctx_.zk_reassigning.count(tp) == 0) ongoing.push_back(tp);
  }
  for (const auto& tp : ongoing) {
    if (!ctx_.being_reassigned(tp)) continue;
    spdlog::info("controller {}: resuming the reassignment of {}", config_.broker_id, tp.to_string());
    reassign(tp, ctx_.target_replicas(tp));
    if (zk_.fenced()) return;
  }
}

}  // namespace spool::cluster::controller
