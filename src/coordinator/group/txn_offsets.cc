// Transactional offset commits (KIP-98, KIP-447): TxnOffsetCommit and the
// completion of a producer's pending offsets by its transaction marker
// (Kafka's doTxnCommitOffsets, prepareTxnOffsetCommit,
// onTxnOffsetCommitAppend, completePendingTxnOffsetCommit).
#include <vector>

#include "coordinator/group/coordinator_impl.h"
#include "coordinator/group/group_records.h"
#include "spdlog/spdlog.h"

namespace spool::coordinator {

bool Group::has_pending_commit(const TopicPartitionKey& tp) const {
  if (pending_offset_commits.count(tp)) return true;
  for (const auto& [pid, offsets] : pending_txn_offsets) {
    if (offsets.count(tp)) return true;
  }
  return false;
}

void Group::put_offset_if_newer(const TopicPartitionKey& tp, const OffsetEntry& e) {
  auto it = offsets.find(tp);
  if (it == offsets.end() || it->second.log_order <= e.log_order) offsets[tp] = e;
}

int Group::complete_txn(int64_t producer_id, bool commit) {
  auto it = pending_txn_offsets.find(producer_id);
  if (it == pending_txn_offsets.end()) return 0;
  int visible = 0;
  if (commit) {
    for (const auto& [tp, pending] : it->second) {
      // The client sends EndTxn only after TxnOffsetCommit answered, so an
      // unappended entry here means its append failed or is still in flight:
      // it is not part of what the marker commits.
      if (!pending.appended) {
        spdlog::warn("group {}: commit marker of producer {} before its offset for {}-{} was durable; dropped", id,
                     producer_id, tp.topic, tp.partition);
        continue;
      }
      put_offset_if_newer(tp, pending.entry);
      ++visible;
    }
  }
  pending_txn_offsets.erase(it);
  return visible;
}

void Group::drop_pending_txn_offsets(const TopicPartitionKey& tp) {
  for (auto it = pending_txn_offsets.begin(); it != pending_txn_offsets.end();) {
    it->second.erase(tp);
    it = it->second.empty() ? pending_txn_offsets.erase(it) : std::next(it);
  }
}

void GroupCoordinator::Impl::commit_txn(TxnOffsetCommitParams p, std::function<void(PartitionErrors)> done) {
  auto all = [&](ErrorCode e) {
    PartitionErrors out;
    for (const auto& o : p.offsets) out.emplace_back(o.tp, e);
    return out;
  };
  // Unlike OffsetCommit, TxnOffsetCommit needs a real group id (Kafka's isValidGroupId).
  if (p.group_id.empty()) return done(all(ErrorCode::kInvalidGroupId));
  if (ErrorCode e = status_for(p.group_id); e != ErrorCode::kNone) return done(all(e));
  if (p.producer_id < 0 || p.producer_epoch < 0) return done(all(ErrorCode::kInvalidProducerIdMapping));
  // Kafka's validateTransactionalOffsetCommit: a generation for an unknown
  // group is refused; without one the group is created.
  std::shared_ptr<Group> g = get_group(p.group_id);
  if (!g && p.generation_id >= 0)
    return done(all(p.group_id_not_found_error ? ErrorCode::kGroupIdNotFound : ErrorCode::kIllegalGeneration));
  if (!g) g = get_or_create_group(p.group_id, true);
  GroupLock gl(*g);
  auto answer = [&](ErrorCode e) { g->defer([done = std::move(done), r = all(e)]() mutable { done(std::move(r)); }); };
  if (g->is(GroupState::kDead)) return answer(ErrorCode::kCoordinatorNotAvailable);
  if (g->is_static_member_fenced(p.member_id, p.group_instance_id)) return answer(ErrorCode::kFencedInstanceId);
  if (!p.member_id.empty() && !g->has(p.member_id)) return answer(ErrorCode::kUnknownMemberId);
  if (p.generation_id >= 0 && p.generation_id != g->generation) return answer(ErrorCode::kIllegalGeneration);

  const int64_t now = wall_now();
  const int64_t order = next_log_order.fetch_add(1);
  const int64_t pid = p.producer_id;
  auto accepted = std::make_shared<std::vector<TopicPartitionKey>>();
  std::vector<LogRecord> records;
  for (const auto& o : p.offsets) {
    const std::string meta = o.metadata.value_or("");
    if (static_cast<int64_t>(meta.size()) > opts.offset_metadata_max_bytes) continue;
    OffsetEntry e;
    e.offset = o.offset;
    e.leader_epoch = o.leader_epoch;
    e.metadata = meta;
    e.commit_timestamp = now;
    e.log_order = order;
    OffsetRecordValue v{e.offset, e.leader_epoch, e.metadata, e.commit_timestamp, -1};
    records.push_back(LogRecord{encode_key(OffsetRecordKey{g->id, o.tp.topic, o.tp.partition}), encode_value(v)});
    // A later commit of the same partition in the same transaction replaces
    // the earlier one (both would be committed by the marker; the later wins).
    g->pending_txn_offsets[pid][o.tp] = PendingTxnOffset{std::move(e), false};
    accepted->push_back(o.tp);
  }
  auto per_partition = [limit = opts.offset_metadata_max_bytes, offsets = p.offsets](ErrorCode e) {
    PartitionErrors out;
    for (const auto& o : offsets) {
      const bool too_large = static_cast<int64_t>(o.metadata.value_or("").size()) > limit;
      out.emplace_back(o.tp, too_large ? ErrorCode::kOffsetMetadataTooLarge : e);
    }
    return out;
  };
  if (records.empty()) {
    g->defer([done = std::move(done), r = per_partition(ErrorCode::kNone)]() mutable { done(std::move(r)); });
    return;
  }
  log.append_transactional(
      g->partition, TxnProducer{pid, p.producer_epoch}, std::move(records),
      [g, pid, order, accepted, per_partition, done = std::move(done)](Status s) mutable {
        const ErrorCode e = offset_store_error(s);
        GroupLock inner(*g);
        auto pit = g->pending_txn_offsets.find(pid);
        if (pit != g->pending_txn_offsets.end()) {
          for (const auto& tp : *accepted) {
            auto it = pit->second.find(tp);
            // Only this append's entries: a later commit may have replaced them.
            if (it == pit->second.end() || it->second.entry.log_order != order) continue;
            if (e == ErrorCode::kNone) {
              it->second.appended = true;
            } else {
              pit->second.erase(it);
            }
          }
          if (pit->second.empty()) g->pending_txn_offsets.erase(pit);
        }
        g->defer([done = std::move(done), r = per_partition(e)]() mutable { done(std::move(r)); });
      });
}

void GroupCoordinator::Impl::complete_txn(int32_t partition, int64_t producer_id, bool commit) {
  std::vector<std::shared_ptr<Group>> targets;
  {
    std::unique_lock lk(mu);
    if (loading.count(partition)) {
      markers_while_loading[partition].emplace_back(producer_id, commit);
      return;
    }
    for (const auto& [id, g] : groups) {
      if (g->partition == partition) targets.push_back(g);
    }
  }
  for (const auto& g : targets) {
    GroupLock gl(*g);
    if (g->is(GroupState::kDead)) continue;
    g->complete_txn(producer_id, commit);
  }
}

void GroupCoordinator::commit_txn_offsets(TxnOffsetCommitParams p, std::function<void(PartitionErrors)> done) {
  impl_->commit_txn(std::move(p), std::move(done));
}

void GroupCoordinator::complete_txn_offsets(int32_t offsets_partition, int64_t producer_id, bool commit) {
  impl_->complete_txn(offsets_partition, producer_id, commit);
}

}  // namespace spool::coordinator
