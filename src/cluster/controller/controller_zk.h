// ControllerZk: the controller's reads and writes of Kafka's ZooKeeper layout
// (the controller half of Kafka's KafkaZkClient), on a MetadataStore.
//
// Contract
// - Election: register_controller() is Kafka's
//   registerControllerAndIncrementControllerEpoch: read /controller_epoch
//   (create "0" when absent), then multi {create /controller ephemeral;
//   set /controller_epoch = e+1 at the read version}. On NODEEXISTS or
//   BADVERSION it re-reads: if /controller names us and the epoch is e+1 the
//   election still succeeded; otherwise kControllerMoved.
// - Every write made after winning is fenced: multi {check /controller_epoch
//   at the epoch zkVersion we won with; op}. When such a multi fails with
//   BADVERSION, /controller_epoch is re-read: a different version means we
//   were fenced (kControllerMoved, and fenced() stays true until reset());
//   the same version means the op's own expected version was stale
//   (kBadVersion: the caller re-reads and retries).
// - Reads decode with zk_data.h; a malformed znode is logged and reported as
//   an error for that node only (a bad broker or topic znode never stops the
//   others from loading).
// Threading: called only on the controller's event thread; blocking store
// round trips. Watchers passed in must only enqueue an event.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/controller/controller_context.h"
#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"

namespace spool::cluster::controller {

enum class ZkWrite { kOk, kBadVersion, kNodeExists, kNoNode, kControllerMoved, kError };
const char* zk_write_name(ZkWrite w);

struct TopicAssignmentRead {
  TopicId topic_id{};
  bool has_topic_id = false;
  std::map<int32_t, std::vector<int32_t>> partitions;
  // KIP-455: the partitions being reassigned, with their adding and
  // removing replicas (subsets of `partitions`).
  std::map<int32_t, Reassignment> reassigning;
};

class ControllerZk {
 public:
  explicit ControllerZk(MetadataStore& store) : store_(store) {}

  MetadataStore& store() { return store_; }

  // --- election ---
  struct Won {
    int32_t epoch = 0;
    int32_t epoch_zk_version = 0;
  };
  // kOk with `won` filled, kControllerMoved when someone else won, kError.
  ZkWrite register_controller(int32_t broker_id, int64_t now_ms, Won* won);
  // The broker id in /controller (-1 when absent or unreadable); watch arms
  // an exists() watch either way.
  int32_t controller_id(Watcher watch = {});
  // Deletes /controller if it still names broker_id (resignation after a
  // fatal error: triggers a re-election).
  void remove_controller_if(int32_t broker_id);

  // Sets the fence for the writes below. fenced() turns true once a fenced
  // write saw another controller's epoch.
  void set_epoch_zk_version(int32_t v) {
    epoch_zk_version_ = v;
    fenced_ = false;
  }
  bool fenced() const { return fenced_; }

  // --- reads ---
  // All of /brokers/ids (children watch optional), epoch = czxid.
  StoreResult<std::map<int32_t, BrokerInfo>> brokers(Watcher children_watch = {});
  // One broker's registration; watch (optional) on its data.
  std::optional<BrokerInfo> broker(int32_t id, Watcher data_watch = {});
  StoreResult<std::vector<std::string>> topics(Watcher children_watch = {});
  StoreResult<TopicAssignmentRead> topic_assignment(const std::string& topic, Watcher data_watch = {});
  // nullopt when /state is absent or malformed (logged). code() != kOk only
  // for store failures.
  StoreResult<std::optional<PartitionLeadership>> partition_state(const TopicPartition& tp);
  StoreResult<std::vector<std::string>> topic_deletions(Watcher children_watch = {});

  // --- fenced writes ---
  // Creates /brokers/topics/T/partitions[/P]/state (parents as needed).
  // On kOk, *zk_version is the new node's version (0).
  ZkWrite create_partition_state(const TopicPartition& tp, const LeaderAndIsr& state, int32_t controller_epoch,
                                 int32_t* zk_version);
  // setData of /state at state.partition_epoch; on kOk *zk_version is the new
  // version (the new partition epoch).
  ZkWrite update_partition_state(const TopicPartition& tp, const LeaderAndIsr& state, int32_t controller_epoch,
                                 int32_t* zk_version);
  // The same for many partitions in one fenced multi (one round trip, one
  // ZooKeeper log write): all or nothing. kBadVersion: some partition's
  // /state moved (the caller writes them one by one to find out which).
  // On kOk, (*zk_versions)[i] is the new version of states[i].
  ZkWrite update_partition_states(const std::vector<std::pair<TopicPartition, LeaderAndIsr>>& states,
                                  int32_t controller_epoch, std::vector<int32_t>* zk_versions);
  // Removes /brokers/topics/T (recursively), /config/topics/T and
  // /admin/delete_topics/T. Absent nodes are fine.
  ZkWrite delete_topic_znodes(const std::string& topic);
  ZkWrite delete_topic_deletion(const std::string& topic);
  // Adds `id` to /brokers/topics/T when it has none (Kafka's setTopicIds),
  // conditional on the version read; the rest of the document is kept.
  ZkWrite set_topic_id(const std::string& topic, const TopicId& id);
  // Rewrites these partitions' replicas (and adding/removing replicas) in
  // /brokers/topics/T, conditional on the version read; the rest of the
  // document is kept (Kafka's setTopicAssignment during a reassignment).
  ZkWrite set_partition_replicas(const std::string& topic, const std::map<int32_t, PartitionReplicas>& partitions);

  // --- /log_dir_event_notification (KIP-112; brokers create the nodes) ---
  // The children's names, in sequence order (children watch optional); an
  // absent parent reads as no events.
  StoreResult<std::vector<std::string>> log_dir_events(Watcher children_watch = {});
  // The broker id an event node names; nullopt when the node is gone, or is
  // malformed (its name or its JSON; logged): the caller deletes it anyway.
  StoreResult<std::optional<int32_t>> log_dir_event_broker(const std::string& name);
  // Removes one event node (fenced; an absent node is fine).
  ZkWrite delete_log_dir_event(const std::string& name);

  // --- /admin/reassign_partitions (legacy tools) ---
  // The requested reassignments, nullopt when the znode is absent (then the
  // watch fires on its creation) or unreadable (logged; the caller removes it,
  // as Kafka does with a malformed one).
  std::optional<LegacyReassignment> legacy_reassignments(Watcher watch = {});
  // Removes the znode (no-op when absent).
  ZkWrite delete_legacy_reassignments();
  // Keeps only `left` in it (removes it when `left` is empty).
  ZkWrite set_legacy_reassignments(const LegacyReassignment& left);

 private:
  ZkWrite fenced_multi(std::vector<Op> ops, std::vector<OpResult>* results = nullptr);
  ZkWrite fenced_remove_recursive(const std::string& path);

  MetadataStore& store_;
  int32_t epoch_zk_version_ = -1;
  bool fenced_ = false;
};

}  // namespace spool::cluster::controller
