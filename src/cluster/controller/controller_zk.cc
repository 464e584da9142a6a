#include "cluster/controller/controller_zk.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"

namespace spool::cluster::controller {
namespace {

std::string s(std::string_view v) { return std::string(v); }

LeaderRecoveryState from_zk(cluster::LeaderRecoveryState r) {
  return r == cluster::LeaderRecoveryState::kRecovering ? LeaderRecoveryState::kRecovering
                                                        : LeaderRecoveryState::kRecovered;
}
cluster::LeaderRecoveryState to_zk(LeaderRecoveryState r) {
  return r == LeaderRecoveryState::kRecovering ? cluster::LeaderRecoveryState::kRecovering
                                               : cluster::LeaderRecoveryState::kRecovered;
}

std::string encode_state(const LeaderAndIsr& st, int32_t controller_epoch) {
  cluster::PartitionState ps;
  ps.leader = st.leader;
  ps.leader_epoch = st.leader_epoch;
  ps.controller_epoch = controller_epoch;
  ps.isr = st.isr;
  ps.leader_recovery_state = to_zk(st.recovery);
  return encode_partition_state(ps);
}

ZkWrite from_code(StoreCode c) {
  switch (c) {
    case StoreCode::kOk: return ZkWrite::kOk;
    case StoreCode::kBadVersion: return ZkWrite::kBadVersion;
    case StoreCode::kNodeExists: return ZkWrite::kNodeExists;
    case StoreCode::kNoNode: return ZkWrite::kNoNode;
    default: return ZkWrite::kError;
  }
}

}  // namespace

const char* zk_write_name(ZkWrite w) {
  switch (w) {
    case ZkWrite::kOk: return "OK";
    case ZkWrite::kBadVersion: return "BADVERSION";
    case ZkWrite::kNodeExists: return "NODEEXISTS";
    case ZkWrite::kNoNode: return "NONODE";
    case ZkWrite::kControllerMoved: return "CONTROLLER_MOVED";
    case ZkWrite::kError: return "ERROR";
  }
  return "?";
}

ZkWrite ControllerZk::register_controller(int32_t broker_id, int64_t now_ms, Won* won) {
  const std::string epoch_path = s(zk_paths::kControllerEpoch);
  int32_t cur_epoch = 0;
  int32_t cur_version = 0;
  auto got = store_.get(epoch_path);
  if (got.code() == StoreCode::kNoNode) {
    // Kafka's maybeCreateControllerEpochZNode: "0" at version 0; a racing
    // creator is fine, we read what it wrote.
    auto created = store_.create(epoch_path, encode_controller_epoch(kInitialControllerEpoch - 1));
    if (!created.is_ok() && created.code() != StoreCode::kNodeExists) {
      spdlog::error("controller election: cannot create {}: {}", epoch_path, created.error().message);
      return ZkWrite::kError;
    }
    got = store_.get(epoch_path);
  }
  if (!got.is_ok()) {
    spdlog::error("controller election: cannot read {}: {}", epoch_path, got.error().message);
    return ZkWrite::kError;
  }
  auto parsed = decode_controller_epoch(got->data);
  if (!parsed.is_ok()) {
    spdlog::error("controller election: {}: {}", epoch_path, parsed.status().message());
    return ZkWrite::kError;
  }
  cur_epoch = parsed.value();
  cur_version = got->stat.version;
  const int32_t new_epoch = cur_epoch + 1;

  cluster::ControllerRegistration reg;
  reg.broker_id = broker_id;
  reg.timestamp_ms = now_ms;
  auto res = store_.multi({Op::create(s(zk_paths::kController), encode_controller(reg), CreateMode::kEphemeral),
                           Op::set_data(epoch_path, encode_controller_epoch(new_epoch), cur_version)});
  if (res.is_ok()) {
    won->epoch = new_epoch;
    won->epoch_zk_version = res.value().at(1).stat.version;
    return ZkWrite::kOk;
  }
  if (res.code() != StoreCode::kNodeExists && res.code() != StoreCode::kBadVersion) {
    spdlog::error("controller election: multi failed: {}", res.error().message);
    return ZkWrite::kError;
  }
  // Kafka's checkControllerAndEpoch: the multi may have succeeded on a
  // connection we lost; confirm from what is there now.
  if (controller_id() != broker_id) return ZkWrite::kControllerMoved;
  auto again = store_.get(epoch_path);
  if (!again.is_ok()) return ZkWrite::kError;
  auto e = decode_controller_epoch(again->data);
  if (e.is_ok() && e.value() == new_epoch) {
    won->epoch = new_epoch;
    won->epoch_zk_version = again->stat.version;
    return ZkWrite::kOk;
  }
  return ZkWrite::kControllerMoved;
}

int32_t ControllerZk::controller_id(Watcher watch) {
  const std::string path = s(zk_paths::kController);
  if (watch) {
    auto st = store_.exists(path, watch);
    if (!st.is_ok()) return -1;
  }
  auto got = store_.get(path);
  if (!got.is_ok()) return -1;
  auto reg = decode_controller(got->data);
  if (!reg.is_ok()) {
    spdlog::warn("{}: {}", path, reg.status().message());
    return -1;
  }
  return reg->broker_id;
}

void ControllerZk::remove_controller_if(int32_t broker_id) {
  const std::string path = s(zk_paths::kController);
  auto got = store_.get(path);
  if (!got.is_ok()) return;
  auto reg = decode_controller(got->data);
  if (reg.is_ok() && reg->broker_id == broker_id) store_.remove(path, got->stat.version);
}

std::optional<BrokerInfo> ControllerZk::broker(int32_t id, Watcher data_watch) {
  const std::string path = zk_paths::broker_id(id);
  auto got = store_.get(path, data_watch);
  if (!got.is_ok()) return std::nullopt;
  auto reg = decode_broker(id, got->data);
  if (!reg.is_ok()) {
    spdlog::error("controller: ignoring broker {}: {}", id, reg.status().message());
    return std::nullopt;
  }
  BrokerInfo info;
  info.id = id;
  info.epoch = got->stat.czxid;
  info.rack = reg->rack;
  for (const auto& ep : reg->endpoints) {
    info.endpoints.push_back(BrokerEndpoint{ep.listener, ep.host, ep.port, ep.security_protocol});
  }
  return info;
}

StoreResult<std::map<int32_t, BrokerInfo>> ControllerZk::brokers(Watcher children_watch) {
  auto kids = store_.children(s(zk_paths::kBrokerIds), children_watch);
  if (!kids.is_ok()) return kids.error();
  std::map<int32_t, BrokerInfo> out;
  for (const auto& name : kids.value()) {
    auto id = zk_paths::parse_broker_id(name);
    if (!id) {
      spdlog::warn("controller: ignoring /brokers/ids/{}: not a broker id", name);
      continue;
    }
    if (auto info = broker(*id)) out.emplace(*id, std::move(*info));
  }
  return out;
}

StoreResult<std::vector<std::string>> ControllerZk::topics(Watcher children_watch) {
  return store_.children(s(zk_paths::kBrokerTopics), children_watch);
}

StoreResult<TopicAssignmentRead> ControllerZk::topic_assignment(const std::string& topic, Watcher data_watch) {
  auto got = store_.get(zk_paths::topic(topic), data_watch);
  if (!got.is_ok()) return got.error();
  auto dec = decode_topic_assignment(topic, got->data);
  if (!dec.is_ok()) {
    spdlog::error("controller: ignoring topic {}: {}", topic, dec.status().message());
    return StoreError{StoreCode::kOther, dec.status().message()};
  }
  TopicAssignmentRead out;
  if (dec->topic_id) {
    out.topic_id = *dec->topic_id;
    out.has_topic_id = true;
  }
  for (const auto& [p, reps] : dec->partitions) {
    out.partitions[p] = reps.replicas;
    if (!reps.adding.empty() || !reps.removing.empty()) out.reassigning[p] = Reassignment{reps.adding, reps.removing};
  }
  return out;
}

StoreResult<std::optional<PartitionLeadership>> ControllerZk::partition_state(const TopicPartition& tp) {
  auto got = store_.get(zk_paths::partition_state(tp));
  if (got.code() == StoreCode::kNoNode) return std::optional<PartitionLeadership>();
  if (!got.is_ok()) return got.error();
  auto dec = decode_partition_state(tp, got->data);
  if (!dec.is_ok()) {
    spdlog::error("controller: {}", dec.status().message());
    return std::optional<PartitionLeadership>();
  }
  PartitionLeadership out;
  out.controller_epoch = dec->controller_epoch;
  out.leader_and_isr.leader = dec->leader;
  out.leader_and_isr.leader_epoch = dec->leader_epoch;
  out.leader_and_isr.isr = dec->isr;
  out.leader_and_isr.recovery = from_zk(dec->leader_recovery_state);
  out.leader_and_isr.partition_epoch = got->stat.version;
  return std::optional<PartitionLeadership>(std::move(out));
}

StoreResult<std::vector<std::string>> ControllerZk::topic_deletions(Watcher children_watch) {
  auto kids = store_.children(s(zk_paths::kDeleteTopics), children_watch);
  if (!kids.is_ok()) return kids;
  return topics_marked_for_deletion(kids.value());
}

StoreResult<std::vector<std::string>> ControllerZk::log_dir_events(Watcher children_watch) {
  auto kids = store_.children(s(zk_paths::kLogDirEventNotification), children_watch);
  if (kids.code() == StoreCode::kNoNode) return std::vector<std::string>{};
  if (!kids.is_ok()) return kids;
  std::vector<std::string> names = std::move(kids.value());
  std::sort(names.begin(), names.end());  // fixed-width counters: name order is sequence order
  return names;
}

StoreResult<std::optional<int32_t>> ControllerZk::log_dir_event_broker(const std::string& name) {
  const std::string path = s(zk_paths::kLogDirEventNotification) + "/" + name;
  if (!zk_paths::sequence_number(name, zk_paths::kLogDirEventPrefix)) {
    spdlog::error("controller: ignoring {}: not a log dir event node", path);
    return std::optional<int32_t>();
  }
  auto got = store_.get(path);
  if (got.code() == StoreCode::kNoNode) return std::optional<int32_t>();
  if (!got.is_ok()) return got.error();
  auto dec = decode_log_dir_event(path, got->data);
  if (!dec.is_ok()) {
    spdlog::error("controller: ignoring a malformed log dir event: {}", dec.status().message());
    return std::optional<int32_t>();
  }
  return std::optional<int32_t>(dec.value());
}

ZkWrite ControllerZk::delete_log_dir_event(const std::string& name) {
  ZkWrite w = fenced_multi({Op::remove(s(zk_paths::kLogDirEventNotification) + "/" + name)});
  return w == ZkWrite::kNoNode ? ZkWrite::kOk : w;
}

ZkWrite ControllerZk::fenced_multi(std::vector<Op> ops, std::vector<OpResult>* results) {
  if (fenced_) return ZkWrite::kControllerMoved;
  ops.insert(ops.begin(), Op::check(s(zk_paths::kControllerEpoch), epoch_zk_version_));
  auto res = store_.multi(ops);
  if (res.is_ok()) {
    if (results) {
      results->assign(res.value().begin() + 1, res.value().end());
    }
    return ZkWrite::kOk;
  }
  if (res.code() == StoreCode::kBadVersion || res.code() == StoreCode::kNoNode) {
    // Was it the epoch check (fenced) or the op's own version?
    auto st = store_.exists(s(zk_paths::kControllerEpoch));
    if (!st.is_ok() || st->version != epoch_zk_version_) {
      spdlog::warn("controller: write refused: /controller_epoch moved past zkVersion {}; another controller was elected",
                   epoch_zk_version_);
      fenced_ = true;
      return ZkWrite::kControllerMoved;
    }
  }
  if (res.code() != StoreCode::kBadVersion && res.code() != StoreCode::kNodeExists &&
      res.code() != StoreCode::kNoNode) {
    spdlog::error("controller: write failed: {}", res.error().message);
  }
  return from_code(res.code());
}

ZkWrite ControllerZk::create_partition_state(const TopicPartition& tp, const LeaderAndIsr& state,
                                             int32_t controller_epoch, int32_t* zk_version) {
  // Parents: /brokers/topics/T/partitions and .../P (no data), created in
  // the same fenced multi when absent.
  std::vector<Op> ops;
  const std::string parts = zk_paths::topic_partitions(tp.topic);
  const std::string part = zk_paths::topic_partition(tp);
  if (store_.exists(parts).code() == StoreCode::kNoNode) ops.push_back(Op::create(parts, ""));
  if (store_.exists(part).code() == StoreCode::kNoNode) ops.push_back(Op::create(part, ""));
  ops.push_back(Op::create(zk_paths::partition_state(tp), encode_state(state, controller_epoch)));
  ZkWrite w = fenced_multi(std::move(ops));
  if (w == ZkWrite::kOk && zk_version) *zk_version = 0;
  return w;
}

ZkWrite ControllerZk::update_partition_state(const TopicPartition& tp, const LeaderAndIsr& state,
                                             int32_t controller_epoch, int32_t* zk_version) {
  std::vector<OpResult> results;
  ZkWrite w = fenced_multi(
      {Op::set_data(zk_paths::partition_state(tp), encode_state(state, controller_epoch), state.partition_epoch)},
      &results);
  if (w == ZkWrite::kOk && zk_version && !results.empty()) *zk_version = results[0].stat.version;
  return w;
}

ZkWrite ControllerZk::update_partition_states(const std::vector<std::pair<TopicPartition, LeaderAndIsr>>& states,
                                              int32_t controller_epoch, std::vector<int32_t>* zk_versions) {
  std::vector<Op> ops;
  ops.reserve(states.size());
  for (const auto& [tp, state] : states)
    ops.push_back(Op::set_data(zk_paths::partition_state(tp), encode_state(state, controller_epoch),
                               state.partition_epoch));
  std::vector<OpResult> results;
  ZkWrite w = fenced_multi(std::move(ops), &results);
  if (w == ZkWrite::kOk && zk_versions) {
    zk_versions->clear();
    for (const auto& r : results) zk_versions->push_back(r.stat.version);
  }
  return w;
}

ZkWrite ControllerZk::fenced_remove_recursive(const std::string& path) {
  auto kids = store_.children(path);
  if (kids.code() == StoreCode::kNoNode) return ZkWrite::kOk;
  if (!kids.is_ok()) return ZkWrite::kError;
  for (const auto& k : kids.value()) {
    ZkWrite w = fenced_remove_recursive(path + "/" + k);
    if (w != ZkWrite::kOk) return w;
  }
  ZkWrite w = fenced_multi({Op::remove(path)});
  return w == ZkWrite::kNoNode ? ZkWrite::kOk : w;
}

ZkWrite ControllerZk::delete_topic_znodes(const std::string& topic) {
  ZkWrite w = fenced_remove_recursive(zk_paths::topic(topic));
  if (w != ZkWrite::kOk) return w;
  w = fenced_remove_recursive(zk_paths::config_topic(topic));
  if (w != ZkWrite::kOk) return w;
  return delete_topic_deletion(topic);
}

ZkWrite ControllerZk::delete_topic_deletion(const std::string& topic) {
  ZkWrite w = fenced_multi({Op::remove(zk_paths::delete_topic(topic))});
  return w == ZkWrite::kNoNode ? ZkWrite::kOk : w;
}

ZkWrite ControllerZk::set_topic_id(const std::string& topic, const TopicId& id) {
  auto got = store_.get(zk_paths::topic(topic));
  if (!got.is_ok()) return from_code(got.code());
  auto dec = decode_topic_assignment(topic, got->data);
  if (!dec.is_ok()) return ZkWrite::kError;
  if (dec->topic_id) return ZkWrite::kNodeExists;  // someone gave it one meanwhile
  dec->topic_id = id;
  return fenced_multi({Op::set_data(zk_paths::topic(topic), encode_topic_assignment(*dec), got->stat.version)});
}

ZkWrite ControllerZk::set_partition_replicas(const std::string& topic,
                                             const std::map<int32_t, PartitionReplicas>& partitions) {
  auto got = store_.get(zk_paths::topic(topic));
  if (!got.is_ok()) return from_code(got.code());
  auto dec = decode_topic_assignment(topic, got->data);
  if (!dec.is_ok()) return ZkWrite::kError;
  for (const auto& [p, reps] : partitions) dec->partitions[p] = reps;
  return fenced_multi({Op::set_data(zk_paths::topic(topic), encode_topic_assignment(*dec), got->stat.version)});
}

std::optional<LegacyReassignment> ControllerZk::legacy_reassignments(Watcher watch) {
  const std::string path(zk_paths::kReassignPartitions);
  auto st = store_.exists(path, watch);
  if (!st.is_ok()) return std::nullopt;
  auto got = store_.get(path);
  if (!got.is_ok()) return std::nullopt;
  auto dec = decode_reassign_partitions(got->data);
  if (!dec.is_ok()) {
    spdlog::error("controller: ignoring {}: {}", path, dec.status().message());
    return LegacyReassignment{};
  }
  return std::move(dec.value());
}

ZkWrite ControllerZk::delete_legacy_reassignments() {
  const std::string path(zk_paths::kReassignPartitions);
  auto st = store_.exists(path);
  if (st.code() == StoreCode::kNoNode) return ZkWrite::kOk;
  if (!st.is_ok()) return from_code(st.code());
  return fenced_multi({Op::remove(path, st->version)});
}

ZkWrite ControllerZk::set_legacy_reassignments(const LegacyReassignment& left) {
  if (left.empty()) return delete_legacy_reassignments();
  const std::string path(zk_paths::kReassignPartitions);
  auto st = store_.exists(path);
  if (!st.is_ok()) return from_code(st.code());
  return fenced_multi({Op::set_data(path, encode_reassign_partitions(left), st->version)});
}

}  // namespace spool::cluster::controller
