// Log: transactions — COMMIT/ABORT markers, the last stable offset, and the
// aborted transactions a read_committed fetch needs (storage/txn_index.h).
#include <spdlog/spdlog.h>

#include "record/control_record.h"
#include "record/record.h"
#include "storage/file_util.h"
#include "storage/log.h"

namespace spool::storage {

ProducerBatch producer_batch_of(const record::BatchHeader& h, ByteSpan bytes) {
  ProducerBatch b = ProducerBatch::from_header(h);
  if (!h.is_control()) return b;
  // A marker whose record does not parse is still a marker (it ends the
  // transaction, as an ABORT); the coordinator epoch stays unknown.
  Bytes scratch;
  auto recs = record::decode_records(h, bytes, scratch);
  if (recs && !recs->empty()) {
    auto m = record::parse_control_record(recs->front());
    if (m) {
      b.commit = m->type == record::ControlType::kCommit;
      b.coordinator_epoch = m->coordinator_epoch;
      return b;
    }
  }
  spdlog::warn("control batch at offset {} of producer {} has no readable marker", h.base_offset, h.producer_id);
  return b;
}

void Log::index_completed_txn_locked(const CompletedTxn& txn) {
  if (!txn.aborted) return;
  auto it = segments_.upper_bound(txn.last_offset);
  if (it == segments_.begin()) return;
  --it;
  AbortedTxn entry{txn.producer_id, txn.first_offset, txn.last_offset, producers_.last_stable_offset_after(txn)};
  Status s = it->second->txn_index().append(entry);
  if (!s) spdlog::error("{}: transaction index: {}", dir_, s.message());
}

Result<AppendResult> Log::append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                            int32_t coordinator_epoch, int32_t leader_epoch) {
  auto r = append_marker(producer_id, producer_epoch, commit, coordinator_epoch, leader_epoch);
  if (!r) note_failure(r.status());
  return r;
}

Result<AppendResult> Log::append_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                        int32_t coordinator_epoch, int32_t leader_epoch) {
  if (producer_id < 0)
    return Status::error("transaction marker without producer id", kInvalidRecord);
  std::lock_guard lk(append_mu_);
  if (closed_) return Status::error(dir_ + ": log is closed", kStorageError);
  if (offline_) return offline_error();
  const int64_t now_ms = now();
  const int64_t offset = log_end_.load();
  record::ControlBatchOptions opts;
  opts.producer_id = producer_id;
  opts.producer_epoch = producer_epoch;
  opts.timestamp = now_ms;
  opts.base_offset = offset;
  opts.partition_leader_epoch = leader_epoch;
  record::ControlMarker marker{commit ? record::ControlType::kCommit : record::ControlType::kAbort, coordinator_epoch};
  auto batch = record::build_control_batch(opts, marker);
  if (!batch) return batch.status();
  auto h = record::read_header(ByteSpan(batch->data(), batch->size()));
  if (!h) return h.status();
  ProducerBatch pb = ProducerBatch::from_header(*h);
  pb.commit = commit;
  pb.coordinator_epoch = coordinator_epoch;
  Status s = producers_.check_end_txn(pb);
  if (!s) return s;
  std::vector<BatchInfo> infos{{offset, now_ms, batch->size()}};
  auto r = append_locked(std::span<uint8_t>(batch->data(), batch->size()), infos, offset, now_ms, -1);
  if (!r) return r;
  if (auto done = producers_.apply_end_txn(pb)) index_completed_txn_locked(*done);
  if (leader_epoch >= 0) epochs_.assign(leader_epoch, offset);
  notify_flusher();
  return r;
}

int64_t Log::last_stable_offset(int64_t high_watermark) {
  std::lock_guard lk(append_mu_);
  producers_.on_high_watermark(high_watermark);
  auto first = producers_.first_unstable_offset();
  if (!first) return high_watermark;
  // An open transaction whose start retention already removed: the data
  // below the log start cannot be read anyway (Kafka clamps the same way).
  return std::min(std::max(*first, log_start_.load()), high_watermark);
}

size_t Log::ongoing_txn_count() {
  std::lock_guard lk(append_mu_);
  return producers_.ongoing_txn_count();
}

std::vector<ProducerEntry> Log::producer_entries() {
  std::lock_guard lk(append_mu_);
  return producers_.entries();
}

std::vector<AbortedTxn> Log::collect_aborted_txns(int64_t from, int64_t upper_bound) const {
  std::vector<AbortedTxn> out;
  // Markers follow their data, so an abort overlapping [from, upper) has its
  // entry in the segment holding `from` or a later one.
  for (const auto& seg : segments_from(from)) {
    if (seg->txn_index().collect(from, upper_bound, out)) break;
  }
  return out;
}

}  // namespace spool::storage
