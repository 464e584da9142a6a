#include "broker/internal_topic_log.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "protocol/error_code.h"
#include "record/batch_builder.h"
#include "record/batch_header.h"
#include "record/record.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

Status kafka_error(ErrorCode code, std::string msg) { return Status::error(std::move(msg), static_cast<int16_t>(code)); }

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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
  const int64_t ts = wall_ms();
  std::vector<record::BuildRecord> build;
  build.reserve(records.size());
  for (auto& r : records) {
    record::BuildRecord br;
    br.key = std::move(r.key);
    br.value = std::move(r.value);
    br.timestamp = ts;
    build.push_back(std::move(br));
  }
  auto batch = record::build_batch(record::BatchOptions{}, build);
  if (!batch) {
    done(batch.status());
    return;
  }
  const int32_t max_bytes = part->max_message_bytes() >= 0 ? part->max_message_bytes() : settings_.message_max_bytes;
  if (batch->size() > static_cast<size_t>(max_bytes)) {
    done(kafka_error(ErrorCode::kRecordListTooLarge, "coordinator batch of " + std::to_string(batch->size()) +
                                                         " bytes exceeds max.message.bytes " +
                                                         std::to_string(max_bytes)));
    return;
  }
  auto appended = part->append(std::span<uint8_t>(batch->data(), batch->size()), static_cast<int32_t>(build.size()));
  if (!appended) {
    Status s = appended.status();
    spdlog::error("append to {}-{} failed: {}", topic_, partition, s.message());
    if (s.kafka_code() <= 0) s = kafka_error(ErrorCode::kKafkaStorageError, s.message());
    done(std::move(s));
    return;
  }
  part->await_durable(appended->last_offset, std::move(done));
}

Status InternalTopicLog::read_all(int32_t partition, const std::function<void(const coordinator::LogRecord&)>& visit) {
  auto part = replicas_.partition(topic_, partition);
  const std::string where = topic_ + "-" + std::to_string(partition);
  if (!part) return kafka_error(ErrorCode::kCoordinatorNotAvailable, where + " is not hosted here");
  storage::Log& log = part->log();
  int64_t next = log.log_start_offset();
  const int64_t end = log.log_end_offset();
  Bytes scratch;
  while (next < end) {
    auto read = log.read(next, kReplayReadBytes, end, /*min_one=*/true);
    if (!read) {
      // Retention or DeleteRecords may move the start past us; go on from it.
      if (read.status().kafka_code() == static_cast<int16_t>(ErrorCode::kOffsetOutOfRange) &&
          log.log_start_offset() > next) {
        next = log.log_start_offset();
        continue;
      }
      return read.status();
    }
    ByteSpan bytes(read->records.data(), read->records.size());
    if (bytes.empty()) break;  // nothing left below `end` (compacted away)
    const int64_t before = next;
    size_t pos = 0;
    while (pos + record::kHeaderSize <= bytes.size()) {
      auto header = record::validate_batch(bytes.subspan(pos));
      if (!header) {
        if (pos > 0) break;  // a torn tail of this read: the next read starts there
        return Status::error(where + " at offset " + std::to_string(next) + ": " + header.status().message(),
                             header.status().kafka_code());
      }
      ByteSpan batch = bytes.subspan(pos, header->total_size());
      pos += header->total_size();
      if (header->last_offset() < next) continue;
      if (!header->is_control()) {
        auto recs = record::decode_records(*header, batch, scratch);
        if (!recs) return recs.status();
        for (const auto& r : *recs) {
          if (header->base_offset + r.offset_delta < next) continue;
          if (!r.key) {
            spdlog::warn("{}: record at offset {} has no key; skipped", where, header->base_offset + r.offset_delta);
            continue;
          }
          coordinator::LogRecord lr;
          lr.key.assign(r.key->begin(), r.key->end());
          if (r.value) lr.value = Bytes(r.value->begin(), r.value->end());
          visit(lr);
        }
      }
      next = header->last_offset() + 1;
    }
    if (next == before) return Status::error(where + ": replay made no progress at offset " + std::to_string(next));
  }
  return Status::ok();
}

}  // namespace spool::broker
