#include "broker/internal_topic_log.h"

#include <spdlog/spdlog.h>

#include "protocol/error_code.h"
#include "record/batch_builder.h"
#include "record/batch_header.h"
#include "record/control_record.h"
#include "record/record.h"
#include "storage/producer_state.h"
#include "util/clock.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

// Kafka's offsets.commit.timeout.ms (also its transaction-log append bound).
constexpr int64_t kReplicatedAppendTimeoutMs = 5000;

Status kafka_error(ErrorCode code, std::string msg) { return Status::error(std::move(msg), static_cast<int16_t>(code)); }

// One replay read; a larger first batch still comes whole (min_one).
constexpr int32_t kReplayReadBytes = 1 << 20;

}  // namespace

InternalTopicLog::InternalTopicLog(const BrokerSettings& settings, ReplicaManager& replicas, std::string topic,
                                   int32_t configured_partitions, std::map<std::string, std::string> topic_configs)
    : settings_(settings), replicas_(replicas), topic_(std::move(topic)), configs_(std::move(topic_configs)) {
  auto info = replicas_.topic(topic_);
  partitions_ = info ? info->partitions : std::max(1, configured_partitions);
}

bool InternalTopicLog::exists() const { return replicas_.topic(topic_).has_value(); }

Result<bool> InternalTopicLog::ensure_created() {
  std::lock_guard lk(create_mu_);
  if (exists()) return false;
  auto created = replicas_.create_topic(topic_, partitions_, configs_, false);
  if (created) {
    spdlog::info("created internal topic {} ({} partitions, compacted)", topic_, partitions_);
    return true;
  }
  if (created.status().kafka_code() == static_cast<int16_t>(ErrorCode::kTopicAlreadyExists)) return false;
  return created.status();
}

void InternalTopicLog::append(int32_t partition, std::vector<coordinator::LogRecord> records,
                          std::function<void(Status)> done) {
  append_batch(partition, nullptr, std::move(records), std::move(done));
}

void InternalTopicLog::append_transactional(int32_t partition, const coordinator::TxnProducer& producer,
                                        std::vector<coordinator::LogRecord> records, std::function<void(Status)> done) {
  if (producer.producer_id < 0 || producer.producer_epoch < 0) {
    done(kafka_error(ErrorCode::kInvalidProducerIdMapping, "a transactional append needs a producer id and epoch"));
    return;
  }
  append_batch(partition, &producer, std::move(records), std::move(done));
}

void InternalTopicLog::append_batch(int32_t partition, const coordinator::TxnProducer* producer,
                                std::vector<coordinator::LogRecord> records, std::function<void(Status)> done) {
  if (records.empty()) {
    done(Status::ok());
    return;
  }
  auto part = replicas_.partition(topic_, partition);
  if (!part) {
    done(kafka_error(ErrorCode::kCoordinatorNotAvailable,
                     topic_ + "-" + std::to_string(partition) + " is not hosted here"));
    return;
  }
  // A coordinator writes only where it leads (cluster mode): a follower's log
  // takes only what its leader sends.
  if (part->role() == Partition::Role::kFollower) {
    done(kafka_error(ErrorCode::kNotCoordinator, topic_ + "-" + std::to_string(partition) + " is led elsewhere"));
    return;
  }
  // Coordinator writes are acks=all (Kafka: offsets.commit.required.acks, and
  // the transaction log), so they obey the topic's min.insync.replicas.
  if (Status enough = part->check_enough_replicas(); !enough) {
    done(std::move(enough));
    return;
  }
  const int64_t ts = wall_clock_ms();
  std::vector<record::BuildRecord> build;
  build.reserve(records.size());
  for (auto& r : records) {
    record::BuildRecord br;
    br.key = std::move(r.key);
    br.value = std::move(r.value);
    br.timestamp = ts;
    build.push_back(std::move(br));
  }
  const int32_t max_bytes = part->max_message_bytes() >= 0 ? part->max_message_bytes() : settings_.message_max_bytes;
  std::unique_lock<std::mutex> txn_lock;
  record::BatchOptions options;
  if (producer) {
    txn_lock = std::unique_lock(txn_append_mu_);
    options.producer_id = producer->producer_id;
    options.producer_epoch = producer->producer_epoch;
    options.transactional = true;
    options.base_sequence = 0;
    auto entry = part->log().producer_entry(producer->producer_id);
    if (entry && entry->epoch == producer->producer_epoch && entry->last_seq() >= 0) {
      options.base_sequence = storage::last_sequence_of(entry->last_seq(), 1);
    }
  }
  auto batch = record::build_batch(options, build);
  if (!batch) {
    done(batch.status());
    return;
  }
  if (batch->size() > static_cast<size_t>(max_bytes)) {
    done(kafka_error(ErrorCode::kRecordListTooLarge, "coordinator batch of " + std::to_string(batch->size()) +
                                                         " bytes exceeds max.message.bytes " +
                                                         std::to_string(max_bytes)));
    return;
  }
  if (replicas_.cluster_mode()) {
    append_replicated(part, *batch, std::move(txn_lock), std::move(done));
    return;
  }
  auto appended = part->append(std::span<uint8_t>(batch->data(), batch->size()), static_cast<int32_t>(build.size()));
  if (txn_lock.owns_lock()) txn_lock.unlock();  // `done` may run inline below
  if (!appended) {
    Status s = appended.status();
    spdlog::error("append to {}-{} failed: {}", topic_, partition, s.message());
    if (s.kafka_code() <= 0) s = kafka_error(ErrorCode::kKafkaStorageError, s.message());
    done(std::move(s));
    return;
  }
  part->await_durable(appended->last_offset, std::move(done));
}

void InternalTopicLog::append_replicated(const std::shared_ptr<Partition>& part, Bytes& batch,
                                         std::unique_lock<std::mutex> txn_lock, std::function<void(Status)> done) {
  // acks=all through the replica manager (Kafka's appendRecords for the
  // coordinator): answered once the high watermark passes the batch, so a
  // commit survives the leader's death. The answer may come inline, while
  // txn_lock is held: it is then delivered after the unlock.
  struct Answer {
    std::mutex mu;
    bool returned = false;
    std::optional<Status> early;
    std::function<void(Status)> done;
  };
  auto answer = std::make_shared<Answer>();
  answer->done = std::move(done);
  const std::string name = part->topic() + "-" + std::to_string(part->index());
  ProduceEntry entry;
  entry.tp = TopicPartition{part->topic(), part->index()};
  entry.batches = std::span<uint8_t>(batch.data(), batch.size());
  ReplicaManager* replicas = &replicas_;
  replicas_.append_records(-1, kReplicatedAppendTimeoutMs, {entry}, [answer, name, replicas](std::vector<ProduceResult> rs) {
    Status s = Status::ok();
    if (rs.empty() || rs[0].error != ErrorCode::kNone) {
      const ErrorCode e = rs.empty() ? ErrorCode::kUnknownServerError : rs[0].error;
      s = kafka_error(e, "append to " + name + ": " + std::string(protocol::error_name(e)));
    }
    std::unique_lock lk(answer->mu);
    if (!answer->returned) {
      answer->early = std::move(s);
      return;
    }
    lk.unlock();
    // Not inline: this may run under the DelayedProduce's lock, and `done`
    // takes the coordinator's lock (ReplicaManager::run_off_lock).
    replicas->run_off_lock([answer, s = std::move(s)]() mutable { answer->done(std::move(s)); });
  });
  if (txn_lock.owns_lock()) txn_lock.unlock();
  std::unique_lock lk(answer->mu);
  answer->returned = true;
  if (answer->early) {
    Status s = std::move(*answer->early);
    lk.unlock();
    answer->done(std::move(s));
  }
}

Status InternalTopicLog::read_all(int32_t partition, const std::function<void(const coordinator::LogRecord&)>& visit) {
  return replay(partition, [&visit](const coordinator::ReplayEntry& e) {
    if (e.kind == coordinator::ReplayEntry::Kind::kRecord) visit(e.record);
  });
}

Status InternalTopicLog::replay(int32_t partition, const std::function<void(const coordinator::ReplayEntry&)>& visit) {
  auto part = replicas_.partition(topic_, partition);
  if (!part)
    return kafka_error(ErrorCode::kCoordinatorNotAvailable,
                       topic_ + "-" + std::to_string(partition) + " is not hosted here");
  storage::Log& log = part->log();
  int64_t next = log.log_start_offset();
  const int64_t end = log.log_end_offset();
  Bytes scratch;
  while (next < end) {
    auto read = log.read(next, kReplayReadBytes, end, /*min_one=*/true);
    if (!read) {
      // Retention or DeleteRecords may move the start past us; continue from it.
      if (read.status().kafka_code() == static_cast<int16_t>(ErrorCode::kOffsetOutOfRange) &&
          log.log_start_offset() > next) {
        next = log.log_start_offset();
        continue;
      }
      return read.status();
    }
    ByteSpan bytes(read->records.data(), read->records.size());
    if (bytes.empty()) break;  // nothing below `end` any more (e.g. compacted away)
    const int64_t before = next;
    size_t pos = 0;
    while (pos + record::kHeaderSize <= bytes.size()) {
      auto header = record::validate_batch(bytes.subspan(pos));
      if (!header) {
        if (pos > 0) break;  // a torn tail of this read: the next read starts at it
        return Status::error(topic_ + "-" + std::to_string(partition) + " at offset " +
                                 std::to_string(next) + ": " + header.status().message(),
                             header.status().kafka_code());
      }
      ByteSpan batch = bytes.subspan(pos, header->total_size());
      pos += header->total_size();
      if (header->last_offset() < next) continue;
      auto recs = record::decode_records(*header, batch, scratch);
      if (!recs) return recs.status();
      for (const auto& r : *recs) {
        if (header->base_offset + r.offset_delta < next) continue;
        coordinator::ReplayEntry entry;
        entry.producer_id = header->producer_id;
        entry.transactional = header->is_transactional();
        if (header->is_control()) {
          // Only transaction markers matter here; other control types skip.
          auto marker = record::parse_control_record(r);
          if (!marker) continue;
          entry.kind = marker->type == record::ControlType::kCommit ? coordinator::ReplayEntry::Kind::kCommitMarker
                                                                     : coordinator::ReplayEntry::Kind::kAbortMarker;
          visit(entry);
          continue;
        }
        if (!r.key) {
          spdlog::warn("{}-{}: record at offset {} has no key; skipped", topic_, partition,
                       header->base_offset + r.offset_delta);
          continue;
        }
        entry.record.key.assign(r.key->begin(), r.key->end());
        if (r.value) entry.record.value = Bytes(r.value->begin(), r.value->end());
        visit(entry);
      }
      next = header->last_offset() + 1;
    }
    if (next == before) {
      return Status::error(topic_ + "-" + std::to_string(partition) +
                           ": replay made no progress at offset " + std::to_string(next));
    }
  }
  return Status::ok();
}

}  // namespace spool::broker
