// ReplicaManager's write path: append_records (Produce), append_txn_marker
// (WriteTxnMarkers) and delete_records (DeleteRecords). See replica_manager.h.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>

#include "broker/delayed_produce.h"
#include "broker/metrics/topic_metrics.h"
#include "broker/replica_manager.h"
#include "record/produce_validation.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

// BrokerTopicMetrics for one produce partition entry.
void count_produce(const ProduceEntry& entry, const ProduceResult& r, int64_t last_offset) {
  auto& t = TopicMetrics::instance().of(entry.tp.topic);
  t.produce_requests.add();
  if (r.error != ErrorCode::kNone) {
    t.failed_produce.add();
    return;
  }
  t.bytes_in.add(static_cast<int64_t>(entry.batches.size()));
  t.messages_in.add(r.base_offset >= 0 && last_offset >= r.base_offset ? last_offset - r.base_offset + 1 : 0);
}

int16_t code(ErrorCode c) { return static_cast<int16_t>(c); }

ErrorCode code_of(const Status& s, ErrorCode fallback) {
  const int16_t c = s.kafka_code();
  return c > 0 ? static_cast<ErrorCode>(c) : fallback;
}

// An out-of-order batch whose gap is an idempotent batch of the same
// producer refused before the append (refused_batches.h): the message for a
// retriable NOT_ENOUGH_REPLICAS instead of OUT_OF_ORDER_SEQUENCE_NUMBER.
std::optional<std::string> refused_gap(Partition& partition, const ProduceEntry& entry,
                                       const record::BatchHeader& header) {
  auto producer = partition.log().producer_entry(header.producer_id);
  const int32_t last_seq = producer && producer->epoch == header.producer_epoch ? producer->last_seq()
                                                                                : storage::kNoSequence;
  int32_t refused_seq = -1;
  if (!partition.refused_batches().explains_gap(entry.batches, last_seq, refused_seq)) return std::nullopt;
  return "batch with sequence " + std::to_string(header.base_sequence) + " of producer " +
         std::to_string(header.producer_id) + " follows its batch with sequence " + std::to_string(refused_seq) +
         ", which was refused with NOT_ENOUGH_REPLICAS and not written: retry both in order";
}

}  // namespace

ProduceResult ReplicaManager::append_one(int16_t acks, const ProduceEntry& entry,
                                         std::shared_ptr<Partition>& partition, int64_t& last_offset) {
  ProduceResult r;
  auto fail = [&r](ErrorCode c, std::string msg = {}) {
    r.error = c;
    r.error_message = std::move(msg);
    return r;
  };
  if (entry.error != ErrorCode::kNone) return fail(entry.error, entry.error_message);
  partition = this->partition(entry.tp);
  if (!partition) return fail(ErrorCode::kUnknownTopicOrPartition);
  // Deleted and re-created between the id lookup and here: never append to
  // the new topic under the old id.
  if (entry.topic_id && partition->topic_id() != *entry.topic_id) return fail(ErrorCode::kInconsistentTopicId);
  r.log_start_offset = partition->log_start_offset();
  if (partition->role() == Partition::Role::kFollower) return fail(ErrorCode::kNotLeaderOrFollower);
  if (acks == -1) {
    if (Status enough = partition->check_enough_replicas(); !enough) {
      partition->refused_batches().note(entry.batches);
      return fail(ErrorCode::kNotEnoughReplicas, enough.message());
    }
  }
  if (entry.batches.empty()) return fail(ErrorCode::kCorruptMessage, "no record batch");
  // The topic's max.message.bytes (dynamic), else the broker's message.max.bytes.
  const int32_t max_bytes =
      partition->max_message_bytes() >= 0 ? partition->max_message_bytes() : settings_.message_max_bytes;
  record::ProduceValidationOptions vo;
  vo.max_message_bytes = static_cast<size_t>(max_bytes);
  // Uncompressed batches get the allocation-free record walk (it accepts
  // exactly what full decoding accepts, see produce_validation.h);
  // compressed ones are decompressed and decoded.
  vo.records = record::RecordCheck::kWalk;
  // Kafka refuses a second batch of magic v2 in one partition's records
  // (LogValidator: INVALID_RECORD), and v2 is the only magic Spool stores.
  vo.single_batch = true;
  auto valid = record::validate_produce_records(entry.batches, vo);
  if (!valid) {
    spdlog::debug("produce to {} refused: {}", entry.tp.to_string(), valid.status().message());
    return fail(static_cast<ErrorCode>(valid.status().kafka_code()), valid.status().message());
  }
  // Idempotent batches are checked inside the append (atomic with offset
  // assignment): OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH and
  // INVALID_RECORD come back as the status code; a retried duplicate
  // succeeds with its original offsets (never DUPLICATE_SEQUENCE_NUMBER).
  auto appended = partition->append(entry.batches, valid->record_count);
  if (!appended) {
    int16_t c = appended.status().kafka_code();
    if (c == code(ErrorCode::kOutOfOrderSequenceNumber)) {
      if (auto gap = refused_gap(*partition, entry, valid->batches.front().header))
        return fail(ErrorCode::kNotEnoughReplicas, *gap);
    }
    if (c == code(ErrorCode::kOutOfOrderSequenceNumber) || c == code(ErrorCode::kInvalidProducerEpoch) ||
        c == code(ErrorCode::kInvalidRecord))
      spdlog::debug("produce to {} refused: {}", entry.tp.to_string(), appended.status().message());
    else
      spdlog::error("append to {} failed: {}", entry.tp.to_string(), appended.status().message());
    return fail(code_of(appended.status(), ErrorCode::kKafkaStorageError), appended.status().message());
  }
  r.base_offset = appended->first_offset;
  r.log_append_time_ms = appended->log_append_time_ms;
  r.error = ErrorCode::kNone;
  last_offset = appended->last_offset;
  return r;
}

void ReplicaManager::append_records(int16_t acks, int64_t timeout_ms, const std::vector<ProduceEntry>& entries,
                                    ProduceCallback done) {
  // acks=all partitions whose high watermark has not reached the offset
  // after their batches yet.
  struct ToWait {
    std::shared_ptr<Partition> partition;
    int64_t required_offset;
    size_t result;
  };
  std::vector<ToWait> waits;
  std::vector<ProduceResult> results;
  results.reserve(entries.size());
  for (const auto& entry : entries) {
    std::shared_ptr<Partition> partition;
    int64_t last_offset = -1;
    results.push_back(append_one(acks, entry, partition, last_offset));
    count_produce(entry, results.back(), last_offset);
    if (acks != -1 || results.back().error != ErrorCode::kNone) continue;
    auto c = partition->check_enough_replicas_reach_offset(last_offset + 1);
    if (!c.reached && c.error == ErrorCode::kNone)
      waits.push_back({std::move(partition), last_offset + 1, results.size() - 1});
    else if (!c.reached) {
      results.back().error = c.error;  // its fsync already failed
      if (c.error == ErrorCode::kKafkaStorageError) results.back().error_message = "fsync failed";
    }
  }
  if (waits.empty()) {
    done(std::move(results));
    return;
  }
  auto op = std::make_shared<DelayedProduce>(std::max<int64_t>(timeout_ms, 0), std::move(results), std::move(done));
  for (const auto& w : waits) op->add_wait(w.partition, w.required_offset, w.result);
  // The partitions' high-watermark listener re-checks it (see hw_listener).
  produce_purgatory_->try_complete_else_watch(op, op->keys());
}

void ReplicaManager::append_txn_marker(const TxnMarkerEntry& m, std::function<void(ErrorCode)> done) {
  auto partition = this->partition(m.tp);
  if (!partition) {
    done(ErrorCode::kUnknownTopicOrPartition);
    return;
  }
  // Kafka appends markers with acks=all on the leader only.
  if (partition->role() == Partition::Role::kFollower) {
    done(ErrorCode::kNotLeaderOrFollower);
    return;
  }
  if (cluster_mode()) {
    if (Status enough = partition->check_enough_replicas(); !enough) {
      spdlog::debug("WriteTxnMarkers {}: {}", m.tp.to_string(), enough.message());
      done(ErrorCode::kNotEnoughReplicas);
      return;
    }
  }
  // A transaction-version-2 marker (WriteTxnMarkers v2, KIP-1228) carries
  // the bumped epoch, so it must be above the producer's epoch here; the
  // same epoch is a retry only once the transaction is closed (Kafka's
  // ProducerAppendInfo.checkProducerEpoch). Older markers only must not be
  // below it (append_txn_marker checks).
  if (m.transaction_version >= 2) {
    auto entry = partition->log().producer_entry(m.producer_id);
    if (entry && m.producer_epoch <= entry->epoch &&
        !(m.producer_epoch == entry->epoch &&
          (entry->current_txn_first_offset < 0 || m.producer_epoch == INT16_MAX))) {
      done(ErrorCode::kInvalidProducerEpoch);
      return;
    }
  }
  auto r = partition->append_txn_marker(m.producer_id, m.producer_epoch, m.commit, m.coordinator_epoch);
  if (!r) {
    spdlog::warn("WriteTxnMarkers {} producer {}: {}", m.tp.to_string(), m.producer_id, r.status().message());
    done(code_of(r.status(), ErrorCode::kKafkaStorageError));
    return;
  }
  if (cluster_mode()) {
    await_high_watermark(std::move(partition), r->last_offset + 1, kTxnMarkerReplicationTimeoutMs,
                         [this, done = std::move(done)](ErrorCode e) { run_off_lock([done, e] { done(e); }); });
    return;
  }
  partition->await_durable(r->last_offset, [done = std::move(done)](Status s) {
    done(s ? ErrorCode::kNone : code_of(s, ErrorCode::kKafkaStorageError));
  });
}

void ReplicaManager::await_high_watermark(std::shared_ptr<Partition> partition, int64_t required_offset,
                                          int64_t timeout_ms, std::function<void(ErrorCode)> done) {
  auto c = partition->check_enough_replicas_reach_offset(required_offset);
  if (c.reached || c.error != ErrorCode::kNone) {
    done(c.reached ? ErrorCode::kNone : c.error);
    return;
  }
  std::vector<ProduceResult> results(1);
  results[0].error = ErrorCode::kNone;
  auto op = std::make_shared<DelayedProduce>(
      timeout_ms, std::move(results), [done = std::move(done)](std::vector<ProduceResult> r) { done(r.at(0).error); });
  op->add_wait(std::move(partition), required_offset, 0);
  produce_purgatory_->try_complete_else_watch(op, op->keys());
}

std::vector<DeleteRecordsResult> ReplicaManager::delete_records(const std::vector<DeleteRecordsEntry>& entries) {
  std::vector<DeleteRecordsResult> results(entries.size());
  std::vector<size_t> moved;  // answers that depend on the checkpoint
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    auto& r = results[i];
    auto partition = this->partition(e.tp);
    if (!partition) {
      r.error = ErrorCode::kUnknownTopicOrPartition;
      continue;
    }
    const int64_t before = partition->log_start_offset();
    auto low = partition->delete_records_on_leader(e.offset);
    if (!low) {
      r.error = code_of(low.status(), ErrorCode::kKafkaStorageError);
      if (r.error != ErrorCode::kOffsetOutOfRange)
        spdlog::warn("DeleteRecords {} to {}: {}", e.tp.to_string(), e.offset, low.status().message());
      continue;
    }
    r.low_watermark = *low;
    if (*low != before) moved.push_back(i);
  }
  if (!moved.empty()) {
    if (Status s = logs_.write_checkpoints(); !s) {
      spdlog::error("DeleteRecords: writing the log start checkpoint failed: {}", s.message());
      for (size_t i : moved) results[i].error = ErrorCode::kKafkaStorageError;
    }
  }
  return results;
}

}  // namespace spool::broker
