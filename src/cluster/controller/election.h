// Leader election strategies of the controller (Kafka's Election and
// PartitionLeaderElectionAlgorithms), as pure functions.
//
// Contract
// - Each function looks only at its arguments: the partition's assignment
//   (ordered; the first replica is the preferred leader), its current ISR and
//   which brokers are live. It returns the new leader and ISR, or nullopt
//   ("none": the partition keeps its state and stays offline).
// - Nothing is bumped here: the caller (PartitionStateMachine) adds 1 to the
//   leader epoch, writes /state conditionally and sends the requests.
// - "live" excludes brokers in controlled shutdown (Kafka's liveBrokerIds);
//   only the controlled-shutdown strategy also sees the shutting-down ones.
//   The caller also leaves out, per partition, the brokers whose replica is
//   on an offline log dir (Kafka's isReplicaOnline).
// Threading: stateless, any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace spool::cluster::controller {

struct ElectionOutcome {
  int32_t leader = -1;
  std::vector<int32_t> isr;
  // The leader was not in the old ISR (an unclean election): the partition
  // becomes RECOVERING with ISR = [leader]. Otherwise the caller keeps the
  // partition's previous leader recovery state.
  bool unclean = false;

  bool operator==(const ElectionOutcome&) const = default;
};

// New -> Online: leader = the first live replica, ISR = every live replica in
// assignment order. nullopt when no replica is live.
std::optional<ElectionOutcome> elect_initial(const std::vector<int32_t>& assignment, const std::set<int32_t>& live);

// Offline/Online -> Online after the leader died: the first replica in
// assignment order that is live and in the ISR; the new ISR is the old one
// filtered to live replicas (in ISR order). With none and unclean election
// enabled: the first live replica, ISR = [it], unclean = true.
std::optional<ElectionOutcome> elect_offline(const std::vector<int32_t>& assignment, const std::vector<int32_t>& isr,
                                             const std::set<int32_t>& live, bool unclean_enabled);

// Reassignment: the first replica of the target set that is live and in the
// ISR. The ISR is unchanged.
std::optional<ElectionOutcome> elect_reassign(const std::vector<int32_t>& target_replicas,
                                              const std::vector<int32_t>& isr, const std::set<int32_t>& live);

// Preferred replica: the first replica of the assignment, only if it is live
// and in the ISR. The ISR is unchanged.
std::optional<ElectionOutcome> elect_preferred(const std::vector<int32_t>& assignment, const std::vector<int32_t>& isr,
                                               const std::set<int32_t>& live);

// Controlled shutdown: the first replica in assignment order that is live
// (shutting-down brokers count as live here), in the ISR and not shutting
// down. The new ISR is the old one without the shutting-down brokers.
std::optional<ElectionOutcome> elect_controlled_shutdown(const std::vector<int32_t>& assignment,
                                                         const std::vector<int32_t>& isr,
                                                         const std::set<int32_t>& live_or_shutting_down,
                                                         const std::set<int32_t>& shutting_down);

}  // namespace spool::cluster::controller
