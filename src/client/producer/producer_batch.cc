#include "client/producer/producer_batch.h"

#include <spdlog/spdlog.h>

#include <exception>

namespace spool::client {

std::vector<record::AppendHeader> append_headers(const std::vector<RecordHeader>& headers) {
  std::vector<record::AppendHeader> out;
  out.reserve(headers.size());
  for (const RecordHeader& h : headers) {
    record::AppendHeader a{h.key, std::nullopt};
    if (h.value) a.value = ByteSpan(*h.value);
    out.push_back(a);
  }
  return out;
}

size_t record_encoded_size(const std::optional<Bytes>& key, const std::optional<Bytes>& value,
                           const std::vector<RecordHeader>& headers) {
  std::optional<ByteSpan> k, v;
  if (key) k = ByteSpan(*key);
  if (value) v = ByteSpan(*value);
  return record::BatchAppender::record_size(k, v, append_headers(headers));
}

ProducerBatch::ProducerBatch(TopicPartition tp, record::Compression compression, int level, size_t reserve,
                             int64_t now_ms)
    : created_ms(now_ms), last_attempt_ms(now_ms), tp_(std::move(tp)), records_(compression, level, reserve) {}

void ProducerBatch::append(int64_t timestamp, const std::optional<Bytes>& key, const std::optional<Bytes>& value,
                           const std::vector<RecordHeader>& headers, SendCallback callback) {
  std::optional<ByteSpan> k, v;
  if (key) k = ByteSpan(*key);
  if (value) v = ByteSpan(*value);
  const std::vector<record::AppendHeader> hs = append_headers(headers);
  const int32_t index = records_.record_count();
  records_.append(timestamp, k, v, hs);
  if (callback) {
    thunks_.push_back(Thunk{std::move(callback), index, timestamp, key ? static_cast<int32_t>(key->size()) : -1,
                            value ? static_cast<int32_t>(value->size()) : -1});
  }
}

bool ProducerBatch::has_room_for(size_t record_size, int32_t batch_size) const {
  return records_.empty() || records_.estimated_size() + record_size <= static_cast<size_t>(batch_size);
}

void ProducerBatch::set_producer_state(int64_t pid, int16_t epoch, int32_t seq, bool transactional) {
  producer_id = pid;
  producer_epoch = epoch;
  base_sequence = seq;
  records_.set_producer_state(pid, epoch, seq, transactional);
}

void ProducerBatch::complete(int64_t base_offset, int64_t log_append_time, const Status& error) {
  if (done_) return;
  done_ = true;
  for (Thunk& t : thunks_) {
    RecordMetadata md;
    md.topic = tp_.topic;
    md.partition = tp_.partition;
    md.offset = base_offset >= 0 && error.is_ok() ? base_offset + t.index : -1;
    md.timestamp = log_append_time >= 0 ? log_append_time : t.timestamp;
    md.serialized_key_size = t.key_size;
    md.serialized_value_size = t.value_size;
    try {
      t.callback(md, error);
    } catch (const std::exception& e) {
      spdlog::error("producer: a send callback threw: {}", e.what());
    } catch (...) {
      spdlog::error("producer: a send callback threw");
    }
  }
  thunks_.clear();
}

}  // namespace spool::client
