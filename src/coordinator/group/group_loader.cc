// Loading a __consumer_offsets partition: replay its records (the latest
// record per key wins, a tombstone deletes) and rebuild groups and offsets.
// Records of transactional batches (TxnOffsetCommit) are held per producer
// until that producer's marker: COMMIT applies them, ABORT drops them, none
// leaves them pending in the group (Kafka's loadGroupsAndOffsets).
#include <map>

#include "coordinator/group/coordinator_impl.h"
#include "coordinator/group/group_records.h"
#include "spdlog/spdlog.h"

namespace spool::coordinator {

Status GroupCoordinator::load_partition(int32_t partition) {
  Impl& im = *impl_;
  if (partition < 0 || partition >= im.log.partition_count()) {
    return Status::error("load_partition: no partition " + std::to_string(partition));
  }
  {
    std::unique_lock lk(im.mu);
    if (im.shutting_down.load()) return Status::error("coordinator is shut down");
    if (im.loading.count(partition)) return Status::error("partition is already loading");
    if (im.owned.count(partition)) return Status::ok();
    im.loading.insert(partition);
  }
  struct Loaded {
    OffsetRecordValue value;
    int64_t order = -1;  // replay position: the later of two commits wins
  };
  using GroupOffsets = std::map<TopicPartitionKey, Loaded>;
  std::map<std::string, GroupOffsets> offsets;
  // Producer id -> group -> offsets of its transaction not yet ended by a marker.
  std::map<int64_t, std::map<std::string, GroupOffsets>> pending;
  std::map<std::string, std::optional<GroupRecordValue>> metadata;  // nullopt = deleted
  Status decode_error;
  auto end_txn = [&](int64_t pid, bool commit) {
    auto it = pending.find(pid);
    if (it == pending.end()) return;
    if (commit) {
      for (auto& [gid, tps] : it->second) {
        auto& committed = offsets[gid];
        for (auto& [tp, l] : tps) {
          auto cur = committed.find(tp);
          if (cur == committed.end() || cur->second.order <= l.order) committed[tp] = std::move(l);
        }
      }
    }
    pending.erase(it);
  };
  Status s = im.log.replay(partition, [&](const ReplayEntry& entry) {
    if (!decode_error.is_ok()) return;
    if (entry.kind != ReplayEntry::Kind::kRecord) {
      end_txn(entry.producer_id, entry.kind == ReplayEntry::Kind::kCommitMarker);
      return;
    }
    const LogRecord& r = entry.record;
    const int64_t order = im.next_log_order.fetch_add(1);
    auto key = decode_key(ByteSpan(r.key));
    if (!key) {
      decode_error = key.status();
      return;
    }
    if (auto* ok = std::get_if<OffsetRecordKey>(&*key)) {
      TopicPartitionKey tp{ok->topic, ok->partition};
      GroupOffsets& target = entry.transactional ? pending[entry.producer_id][ok->group] : offsets[ok->group];
      if (!r.value) {
        target.erase(tp);
        return;
      }
      auto v = decode_offset_value(ByteSpan(*r.value));
      if (!v) {
        decode_error = v.status();
        return;
      }
      target[tp] = Loaded{std::move(*v), order};
    } else {
      const auto& gk = std::get<GroupRecordKey>(*key);
      if (!r.value) {
        metadata[gk.group] = std::nullopt;
        // A group tombstone also ends its offsets (deleted group), pending
        // transactional ones included.
        offsets.erase(gk.group);
        for (auto& [pid, groups] : pending) groups.erase(gk.group);
        return;
      }
      auto v = decode_group_value(ByteSpan(*r.value));
      if (!v) {
        decode_error = v.status();
        return;
      }
      metadata[gk.group] = std::move(*v);
    }
  });
  if (s.is_ok() && !decode_error.is_ok()) s = decode_error;
  if (!s.is_ok()) {
    std::unique_lock lk(im.mu);
    im.loading.erase(partition);
    im.markers_while_loading.erase(partition);
    spdlog::error("group coordinator: loading __consumer_offsets-{} failed: {}", partition, s.message());
    return s;
  }

  std::map<std::string, std::shared_ptr<Group>> loaded;
  auto group_for = [&](const std::string& id) -> std::shared_ptr<Group>& {
    auto& g = loaded[id];
    if (!g) g = std::make_shared<Group>(id, partition, im.wall_now());
    return g;
  };
  for (auto& [id, md] : metadata) {
    if (!md) continue;
    auto& g = group_for(id);
    g->generation = md->generation;
    if (!md->protocol_type.empty()) g->protocol_type = md->protocol_type;
    g->protocol_name = md->protocol;
    g->leader_id = md->leader;
    if (md->current_state_timestamp >= 0) g->state_timestamp_ms = md->current_state_timestamp;
    if (md->members.empty() || !md->protocol) {
      g->state = GroupState::kEmpty;
      g->protocol_name.reset();
      continue;
    }
    for (auto& mv : md->members) {
      auto m = std::make_shared<Member>();
      m->member_id = mv.member_id;
      m->group_instance_id = mv.group_instance_id;
      m->client_id = mv.client_id;
      m->client_host = mv.client_host;
      m->rebalance_timeout_ms = mv.rebalance_timeout_ms;
      m->session_timeout_ms = mv.session_timeout_ms;
      m->protocol_type = md->protocol_type;
      m->protocols.emplace_back(*md->protocol, mv.subscription);
      m->assignment = mv.assignment;
      if (m->group_instance_id) g->static_members[*m->group_instance_id] = m->member_id;
      g->members[m->member_id] = std::move(m);
    }
    if (!g->leader_id || !g->has(*g->leader_id)) g->leader_id = g->members.begin()->first;
    g->state = GroupState::kStable;
    g->recompute_subscribed_topics();
  }
  auto entry_of = [](const Loaded& l) {
    const auto& v = l.value;
    return OffsetEntry{v.offset, v.leader_epoch, v.metadata, v.commit_timestamp, v.expire_timestamp, l.order};
  };
  for (auto& [id, tps] : offsets) {
    if (tps.empty()) continue;
    auto& g = group_for(id);
    for (auto& [tp, l] : tps) g->offsets[tp] = entry_of(l);
  }
  // Transactions without a marker yet stay pending (their marker comes later
  // through complete_txn_offsets, e.g. resent by the transaction coordinator).
  size_t open_txns = 0;
  for (auto& [pid, groups] : pending) {
    for (auto& [id, tps] : groups) {
      if (tps.empty()) continue;
      auto& g = group_for(id);
      ++open_txns;
      for (auto& [tp, l] : tps) g->pending_txn_offsets[pid][tp] = PendingTxnOffset{entry_of(l), true};
    }
  }
  {
    std::unique_lock lk(im.mu);
    im.loading.erase(partition);
    if (im.shutting_down.load()) return Status::error("coordinator shut down while loading");
    // Markers that landed during the replay may be past what it read; the
    // loaded groups are not visible yet, so their locks are uncontended.
    auto late = im.markers_while_loading.extract(partition);
    if (!late.empty()) {
      for (const auto& [pid, commit] : late.mapped()) {
        for (auto& [id, g] : loaded) {
          GroupLock gl(*g);
          g->complete_txn(pid, commit);
        }
      }
    }
    for (auto& [id, g] : loaded) im.groups[id] = g;
    im.owned.insert(partition);
  }
  // Members get a fresh session to show they are still there.
  for (auto& [gid, g] : loaded) {
    GroupLock gl(*g);
    for (auto& [id, m] : g->members) im.schedule_heartbeat(g, *m, m->session_timeout_ms);
  }
  spdlog::info("group coordinator: loaded __consumer_offsets-{} ({} groups, {} open transactional commits)", partition,
               loaded.size(), open_txns);
  return Status::ok();
}

}  // namespace spool::coordinator
