// PartitionStateMachine: Kafka's partition states and their transitions,
// with the leader elections and the conditional /state writes they need.
//
//   NonExistent -> New             the assignment is known; nothing written
//   New -> Online                  leader = first live replica, ISR = live
//                                  replicas, leader epoch 0: CREATE /state;
//                                  LeaderAndIsr (is_new) to the ISR
//   Online|Offline -> Online       re-read /state (abort if a newer
//                                  controller wrote it), elect with the given
//                                  strategy, leader epoch + 1, setData at the
//                                  read zkVersion (BADVERSION: re-read and
//                                  retry); LeaderAndIsr to the strategy's
//                                  recipients, UpdateMetadata to all
//   New|Online|Offline -> Offline  only the state is marked
//   Offline -> NonExistent         only the state is marked
//
// Contract: an invalid transition is logged and skipped. Each handle() call
// is one request batch, sent at its end. A fenced write (another controller)
// stops the call, drops the batch and leaves ControllerZk::fenced() set for
// the Controller to resign.
// Threading: event thread only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/controller/broker_channel.h"
#include "cluster/controller/controller_config.h"
#include "cluster/controller/controller_context.h"
#include "cluster/controller/controller_zk.h"
#include "cluster/controller/request_batch.h"

namespace spool::cluster::controller {

enum class ElectionStrategy { kOffline, kReassign, kPreferred, kControlledShutdown };

struct Strategy {
  ElectionStrategy kind = ElectionStrategy::kOffline;
  // kOffline: unclean election allowed regardless of the topic config
  // (ElectLeaders UNCLEAN); otherwise the config decides.
  bool allow_unclean = false;
};

struct PartitionChange {
  bool ok = false;
  LeaderAndIsr state;  // when ok
  std::string error;   // when !ok
};
using PartitionChanges = std::map<TopicPartition, PartitionChange>;

class PartitionStateMachine {
 public:
  PartitionStateMachine(ControllerContext& ctx, ControllerZk& zk, RequestBatch& batch, BrokerChannel& channel,
                        const ControllerConfig& config)
      : ctx_(ctx), zk_(zk), batch_(batch), channel_(channel), config_(config) {}

  // Failover: derive every partition's state from the context, then
  // trigger_online().
  void startup();
  void initialize_states();
  PartitionChanges handle(const std::vector<TopicPartition>& partitions, PartitionState target,
                          std::optional<Strategy> strategy = std::nullopt);
  // Every New or Offline partition whose topic is not queued for deletion
  // -> Online with the offline strategy.
  PartitionChanges trigger_online();

  static bool valid_transition(PartitionState from, PartitionState to);

 private:
  void initialize_leadership(const std::vector<TopicPartition>& partitions, PartitionChanges& out);
  // One round: elects from the context's copy of /state (from_cache, the
  // first round) or from ZooKeeper (retries), writes every new /state in one
  // fenced multi (one write each if that fails on a BADVERSION), and returns
  // the partitions to retry after BADVERSION.
  std::vector<TopicPartition> elect_round(const std::vector<TopicPartition>& partitions, const Strategy& strategy,
                                          bool from_cache, PartitionChanges& out);

  ControllerContext& ctx_;
  ControllerZk& zk_;
  RequestBatch& batch_;
  BrokerChannel& channel_;
  const ControllerConfig& config_;
};

}  // namespace spool::cluster::controller
