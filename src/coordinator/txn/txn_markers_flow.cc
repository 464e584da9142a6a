// Persisting transitions, sending markers, retrying them, and completing a
// transaction once every partition has its marker.
#include <spdlog/spdlog.h>

#include "coordinator/txn/txn_impl.h"

namespace spool::coordinator {
namespace {

// Partition answers after which that partition needs no further marker.
// UNKNOWN_TOPIC_OR_PARTITION: the topic was deleted (Kafka drops it too).
// INVALID_PRODUCER_EPOCH / TRANSACTION_COORDINATOR_FENCED: the partition has
// already seen a newer epoch of this producer, so this transaction was ended
// there; retrying could never succeed.
bool marker_settled(ErrorCode e) {
  switch (e) {
    case ErrorCode::kNone:
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kInvalidProducerEpoch:
    case ErrorCode::kTransactionCoordinatorFenced:
    case ErrorCode::kUnsupportedForMessageFormat:
    case ErrorCode::kUnsupportedVersion:
      return true;
    default:
      return false;
  }
}

}  // namespace

ErrorCode txn_append_error(const Status& s) {
  if (s.is_ok()) return ErrorCode::kNone;
  switch (static_cast<ErrorCode>(s.kafka_code())) {
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kNotEnoughReplicasAfterAppend:
    case ErrorCode::kRequestTimedOut:
    case ErrorCode::kCoordinatorNotAvailable:
      return ErrorCode::kCoordinatorNotAvailable;
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kKafkaStorageError:
    case ErrorCode::kNotCoordinator:
      return ErrorCode::kNotCoordinator;
    default:
      return ErrorCode::kUnknownServerError;
  }
}

TxnMetadata TxnCoordinator::Impl::fence_abort_target(const TxnMetadata& md) const {
  TxnMetadata t = md;
  // An epoch at INT16_MAX cannot be bumped; the abort still happens and the
  // next InitProducerId rotates the producer id (epoch exhausted).
  if (t.producer_epoch < INT16_MAX) ++t.producer_epoch;
  t.last_producer_epoch = kNoProducerEpoch;
  t.state = TxnState::kPrepareAbort;
  t.txn_last_update_timestamp = now();
  return t;
}

void TxnCoordinator::Impl::persist(const std::shared_ptr<TxnEntry>& e, TxnMetadata target,
                                   std::function<void(ErrorCode)> then) {
  std::vector<LogRecord> records(1);
  records[0].key = encode_txn_key(target.transactional_id);
  if (target.state != TxnState::kDead) records[0].value = encode_txn_value(target);
  const int32_t partition = e->partition;
  log.append(partition, std::move(records),
             [this, keep = shared_from_this(), e, target = std::move(target), then = std::move(then)](Status s) mutable {
               ErrorCode err = txn_append_error(s);
               if (!s) spdlog::warn("transaction {}: writing {} failed: {}", target.transactional_id,
                                    txn_state_name(target.state), s.message());
               {
                 std::lock_guard lk(mu);
                 e->pending = false;
                 if (err == ErrorCode::kNone) {
                   // The partition may have been unloaded meanwhile: the
                   // write happened, but this coordinator no longer owns it.
                   if (!is_current_locked(e)) {
                     err = ErrorCode::kNotCoordinator;
                   } else {
                     e->md = target;
                     if (target.state == TxnState::kDead) txns.erase(target.transactional_id);
                   }
                 }
               }
               then(err);
             });
}

void TxnCoordinator::Impl::prepare_end(const std::shared_ptr<TxnEntry>& e, TxnMetadata target,
                                       std::function<void(ErrorCode)> then) {
  persist(e, std::move(target), [this, keep = shared_from_this(), e, then = std::move(then)](ErrorCode err) {
    // Kafka answers once PrepareX is durable; the markers follow.
    then(err);
    if (err == ErrorCode::kNone) start_markers(e);
  });
}

void TxnCoordinator::Impl::start_markers(const std::shared_ptr<TxnEntry>& e) {
  TxnMarker marker;
  {
    std::lock_guard lk(mu);
    if (shutting_down || !is_current_locked(e)) return;
    const TxnMetadata& md = e->md;
    if (md.state != TxnState::kPrepareCommit && md.state != TxnState::kPrepareAbort) return;
    marker.producer_id = md.producer_id;
    marker.producer_epoch = md.producer_epoch;
    marker.coordinator_epoch = owned.at(e->partition);
    marker.commit = md.state == TxnState::kPrepareCommit;
    marker.partitions.assign(md.partitions.begin(), md.partitions.end());
  }
  send_markers(e, std::move(marker));
}

void TxnCoordinator::Impl::send_markers(const std::shared_ptr<TxnEntry>& e, TxnMarker marker) {
  if (marker.partitions.empty()) {
    write_complete(e);
    return;
  }
  TxnMarker copy = marker;
  marker_sender.send(std::move(copy), [this, keep = shared_from_this(), e, marker = std::move(marker)](TxnMarkerResult result) mutable {
    std::vector<TxnPartition> remaining;
    for (const auto& tp : marker.partitions) {
      ErrorCode err = ErrorCode::kRequestTimedOut;  // no answer for it: retry
      for (const auto& [rtp, rerr] : result) {
        if (rtp == tp) err = rerr;
      }
      if (marker_settled(err)) {
        if (err != ErrorCode::kNone)
          spdlog::warn("transaction {}: marker on {}-{} answered {}; treated as written", e->id,
                       tp.topic, tp.partition, static_cast<int>(err));
      } else {
        remaining.push_back(tp);
      }
    }
    if (remaining.empty()) {
      write_complete(e);
    } else {
      marker.partitions = std::move(remaining);
      schedule_retry(MarkerJob{e, std::move(marker), false, 0});
    }
  });
}

void TxnCoordinator::Impl::write_complete(const std::shared_ptr<TxnEntry>& e) {
  TxnMetadata target;
  {
    std::lock_guard lk(mu);
    if (shutting_down || !is_current_locked(e)) return;
    const TxnMetadata& md = e->md;
    if (md.state != TxnState::kPrepareCommit && md.state != TxnState::kPrepareAbort) return;
    if (e->pending) return;  // cannot happen while PrepareX; guard anyway
    target = md;
    target.state = md.state == TxnState::kPrepareCommit ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
    target.partitions.clear();
    target.txn_last_update_timestamp = now();
    e->pending = true;
  }
  persist(e, std::move(target), [this, keep = shared_from_this(), e](ErrorCode err) {
    if (err == ErrorCode::kNone || err == ErrorCode::kNotCoordinator) return;
    // The markers are written; only the CompleteX record is missing.
    schedule_retry(MarkerJob{e, {}, true, 0});
  });
}

void TxnCoordinator::Impl::schedule_retry(MarkerJob job) {
  std::lock_guard lk(mu);
  if (shutting_down || !is_current_locked(job.entry)) return;
  job.due_ms = now() + opts.marker_retry_backoff_ms;
  retries.push_back(std::move(job));
  cv.notify_all();
}

int TxnCoordinator::retry_due_markers() {
  Impl& im = *impl_;
  std::vector<MarkerJob> due;
  {
    std::lock_guard lk(im.mu);
    const int64_t now = im.now();
    for (auto it = im.retries.begin(); it != im.retries.end();) {
      if (it->due_ms <= now) {
        due.push_back(std::move(*it));
        it = im.retries.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& job : due) {
    {
      // The transaction may have moved on (unloaded, or completed by a
      // reload); a stale job is dropped.
      std::lock_guard lk(im.mu);
      const TxnMetadata& md = job.entry->md;
      const bool preparing = md.state == TxnState::kPrepareCommit || md.state == TxnState::kPrepareAbort;
      if (im.shutting_down || !im.is_current_locked(job.entry) || !preparing ||
          (!job.write_complete && md.producer_epoch != job.marker.producer_epoch))
        continue;
    }
    if (job.write_complete) {
      im.write_complete(job.entry);
    } else {
      im.send_markers(job.entry, std::move(job.marker));
    }
  }
  return static_cast<int>(due.size());
}

}  // namespace spool::coordinator
