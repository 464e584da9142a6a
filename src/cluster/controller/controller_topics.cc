// Controller: topics (Kafka's processTopicChange, processPartitionModifications,
// onNewPartitionCreation and the TopicDeletionManager).
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/controller/controller.h"
#include "cluster/zk_data.h"

namespace spool::cluster::controller {

bool Controller::load_topic(const std::string& topic, std::vector<TopicPartition>* added) {
  auto read = zk_.topic_assignment(topic, watch_event(PartitionModificationsEvent{topic}));
  if (!read.is_ok()) {
    if (read.code() != StoreCode::kNoNode) {
      spdlog::error("controller: topic {} not loaded: {}", topic, read.error().message);
    }
    return false;
  }
  if (!read->has_topic_id) {
    // Kafka (IBP >= 2.8, processTopicIds): give an id-less topic (written by
    // an old tool) a fresh id, conditional on the version read.
    TopicId id = make_topic_id(random_);
    ZkWrite w = zk_.set_topic_id(topic, id);
    if (w == ZkWrite::kOk) {
      read->topic_id = id;
      read->has_topic_id = true;
      spdlog::info("controller: topic {} had no topic_id; added {}", topic, topic_id_to_text(id));
    } else {
      // Someone else wrote it meanwhile (the data watch brings it back), or
      // we are fenced: keep the zero id for now.
      spdlog::warn("controller: adding a topic_id to {}: {}", topic, zk_write_name(w));
      auto again = zk_.topic_assignment(topic);
      if (again.is_ok() && again->has_topic_id) read->topic_id = again->topic_id;
    }
  }
  ctx_.topic_ids[topic] = read->topic_id;
  for (const auto& [p, replicas] : read->partitions) {
    TopicPartition tp(topic, p);
    if (ctx_.assignment.count(tp) != 0) continue;
    ctx_.assignment[tp] = replicas;
    if (auto r = read->reassigning.find(p); r != read->reassigning.end()) ctx_.reassigning[tp] = r->second;
    if (added) added->push_back(tp);
  }
  return true;
}

void Controller::process_topic_change() {
  if (!is_active()) return;
  auto topics = zk_.topics(watch_event(TopicChangeEvent{}));
  if (!topics.is_ok()) {
    spdlog::error("controller: reading /brokers/topics: {}", topics.error().message);
    return;
  }
  std::set<std::string> now(topics.value().begin(), topics.value().end());
  std::vector<std::string> gone;
  for (const auto& [t, id] : ctx_.topic_ids) {
    if (now.count(t) == 0) gone.push_back(t);
  }
  for (const auto& t : gone) ctx_.remove_topic(t);
  std::vector<TopicPartition> added;
  std::vector<std::string> fresh;
  for (const auto& t : now) {
    if (ctx_.has_topic(t)) continue;
    if (load_topic(t, &added)) fresh.push_back(t);
  }
  spdlog::info("controller {}: new topics [{}], deleted topics [{}]", config_.broker_id, fmt::join(fresh, ","),
               fmt::join(gone, ","));
  if (!added.empty()) on_new_partitions(added);
}

void Controller::process_partition_modifications(const std::string& topic) {
  if (!is_active() || !ctx_.has_topic(topic)) return;
  std::vector<TopicPartition> added;
  if (ctx_.queued_for_deletion(topic)) {
    // Kafka restores the old assignment in ZooKeeper; Spool only refuses to
    // act on it (the topic is going away).
    zk_.topic_assignment(topic, watch_event(PartitionModificationsEvent{topic}));  // re-arm the watch
    spdlog::warn("controller: ignoring partition changes of topic {}: it is being deleted", topic);
    return;
  }
  if (!load_topic(topic, &added) || added.empty()) return;
  spdlog::info("controller {}: new partitions of {}: {}", config_.broker_id, topic, added.size());
  on_new_partitions(added);
}

void Controller::on_new_partitions(const std::vector<TopicPartition>& partitions) {
  psm_.handle(partitions, PartitionState::kNew);
  rsm_.handle(ctx_.replicas_of(partitions), ReplicaState::kNew);
  if (zk_.fenced()) return;
  psm_.handle(partitions, PartitionState::kOnline, Strategy{ElectionStrategy::kOffline, false});
  if (zk_.fenced()) return;
  rsm_.handle(ctx_.replicas_of(partitions), ReplicaState::kOnline);
}

void Controller::process_topic_deletion() {
  if (!is_active()) return;
  auto listed = zk_.topic_deletions(watch_event(TopicDeletionEvent{}));
  if (!listed.is_ok()) {
    spdlog::error("controller: reading /admin/delete_topics: {}", listed.error().message);
    return;
  }
  std::vector<std::string> queue;
  for (const auto& t : listed.value()) {
    if (!ctx_.has_topic(t)) {
      spdlog::warn("controller: ignoring request to delete non-existing topic {}", t);
      zk_.delete_topic_deletion(t);
    } else if (!config_.delete_topic_enable) {
      spdlog::info("controller: removing /admin/delete_topics/{}: delete.topic.enable is false", t);
      zk_.delete_topic_deletion(t);
    } else if (!ctx_.queued_for_deletion(t)) {
      queue.push_back(t);
    }
  }
  if (queue.empty()) return;
  spdlog::info("controller {}: starting deletion of topics [{}]", config_.broker_id, fmt::join(queue, ","));
  for (const auto& t : queue) ctx_.topics_to_delete.insert(t);
  try_topic_deletion();
}

void Controller::try_topic_deletion() {
  const std::vector<std::string> topics(ctx_.topics_to_delete.begin(), ctx_.topics_to_delete.end());
  for (const auto& topic : topics) {
    if (zk_.fenced()) return;
    auto replicas = ctx_.replicas_of(ctx_.partitions_of(topic));
    bool all_done = std::all_of(replicas.begin(), replicas.end(), [&](const PartitionReplica& r) {
      return ctx_.replica_state(r) == ReplicaState::kDeletionSuccessful;
    });
    if (all_done) {
      complete_topic_deletion(topic);
      continue;
    }
    bool in_progress = std::any_of(replicas.begin(), replicas.end(), [&](const PartitionReplica& r) {
      return ctx_.replica_state(r) == ReplicaState::kDeletionStarted;
    });
    if (in_progress || ctx_.topics_ineligible_for_deletion.count(topic) != 0) continue;
    // A topic being reassigned is deleted once its reassignments are done.
    const auto parts = ctx_.partitions_of(topic);
    if (std::any_of(parts.begin(), parts.end(), [&](const TopicPartition& tp) { return ctx_.being_reassigned(tp); }))
      continue;
    start_topic_deletion(topic);
  }
}

void Controller::start_topic_deletion(const std::string& topic) {
  const auto partitions = ctx_.partitions_of(topic);
  // Every broker learns the topic is going (leader -2) first.
  send_update_metadata(all_broker_ids(), partitions);
  std::vector<PartitionReplica> alive, dead;
  for (const auto& r : ctx_.replicas_of(partitions)) {
    if (ctx_.replica_state(r) == ReplicaState::kDeletionSuccessful) continue;
    (ctx_.is_replica_online(r.replica, r.partition, /*include_shutting_down=*/true) ? alive : dead).push_back(r);
  }
  if (!dead.empty()) {
    rsm_.handle(dead, ReplicaState::kDeletionIneligible);
    ctx_.topics_ineligible_for_deletion.insert(topic);
  }
  rsm_.handle(alive, ReplicaState::kOffline);
  if (zk_.fenced()) return;
  rsm_.handle(alive, ReplicaState::kDeletionStarted);
}

void Controller::fail_replica_deletion(const std::vector<PartitionReplica>& replicas) {
  std::vector<PartitionReplica> started;
  for (const auto& r : replicas) {
    if (!ctx_.queued_for_deletion(r.partition.topic)) continue;
    ctx_.topics_ineligible_for_deletion.insert(r.partition.topic);
    started.push_back(r);
  }
  rsm_.handle(started, ReplicaState::kDeletionIneligible);
}

void Controller::complete_topic_deletion(const std::string& topic) {
  const auto partitions = ctx_.partitions_of(topic);
  rsm_.handle(ctx_.replicas_of(partitions), ReplicaState::kNonExistent);
  psm_.handle(partitions, PartitionState::kOffline);
  psm_.handle(partitions, PartitionState::kNonExistent);
  ZkWrite w = zk_.delete_topic_znodes(topic);
  if (w != ZkWrite::kOk) {
    spdlog::error("controller: deleting the znodes of topic {}: {}", topic, zk_write_name(w));
    return;
  }
  ctx_.remove_topic(topic);
  spdlog::info("controller {}: deletion of topic {} complete", config_.broker_id, topic);
}

}  // namespace spool::cluster::controller
