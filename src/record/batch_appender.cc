#include "record/batch_appender.h"

#include <algorithm>
#include <limits>

#include "record/batch_builder.h"
#include "record/compression.h"
#include "record/error_codes.h"

namespace spool::record {
namespace {

size_t varint_size(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  size_t n = 1;
  while (z >= 0x80) {
    z >>= 7;
    ++n;
  }
  return n;
}

size_t nullable_size(std::optional<ByteSpan> b) {
  return b ? varint_size(static_cast<int64_t>(b->size())) + b->size() : 1;
}

void write_nullable(ByteWriter& w, std::optional<ByteSpan> b) {
  if (!b) {
    w.varint32(-1);
    return;
  }
  w.varint32(static_cast<int32_t>(b->size()));
  w.bytes(*b);
}

void put_be(uint8_t* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

}  // namespace

BatchAppender::BatchAppender(Compression compression, int compression_level, size_t reserve)
    : compression_(compression), level_(compression_level) {
  buf_.reserve(std::max(reserve, kHeaderSize));
  buf_.resize(kHeaderSize);
}

size_t BatchAppender::record_size(std::optional<ByteSpan> key, std::optional<ByteSpan> value,
                                  std::span<const AppendHeader> headers) {
  size_t body = 1 + 10 + 5 + nullable_size(key) + nullable_size(value) + varint_size(static_cast<int64_t>(headers.size()));
  for (const AppendHeader& h : headers) {
    body += varint_size(static_cast<int64_t>(h.key.size())) + h.key.size() + nullable_size(h.value);
  }
  return varint_size(static_cast<int64_t>(body)) + body;
}

void BatchAppender::append(int64_t timestamp, std::optional<ByteSpan> key, std::optional<ByteSpan> value,
                           std::span<const AppendHeader> headers) {
  if (count_ == 0) {
    base_ts_ = timestamp;
    max_ts_ = timestamp;
  }
  max_ts_ = std::max(max_ts_, timestamp);
  const int64_t ts_delta =
      static_cast<int64_t>(static_cast<uint64_t>(timestamp) - static_cast<uint64_t>(base_ts_));
  size_t body = 1 + varint_size(ts_delta) + varint_size(count_) + nullable_size(key) + nullable_size(value) +
                varint_size(static_cast<int64_t>(headers.size()));
  for (const AppendHeader& h : headers) {
    body += varint_size(static_cast<int64_t>(h.key.size())) + h.key.size() + nullable_size(h.value);
  }
  ByteWriter w;
  w.buffer().swap(buf_);
  w.varint32(static_cast<int32_t>(body));
  w.i8(0);  // record attributes
  w.varint64(ts_delta);
  w.varint32(count_);
  write_nullable(w, key);
  write_nullable(w, value);
  w.varint32(static_cast<int32_t>(headers.size()));
  for (const AppendHeader& h : headers) {
    w.varint32(static_cast<int32_t>(h.key.size()));
    w.bytes(h.key);
    write_nullable(w, h.value);
  }
  w.buffer().swap(buf_);
  ++count_;
}

Status BatchAppender::close() {
  if (closed_) return Status::ok();
  if (count_ == 0) return Status::error("a batch needs at least one record", kInvalidRecord);
  if (compression_ != Compression::kNone) {
    auto c = compress(compression_, ByteSpan(buf_.data() + kHeaderSize, buf_.size() - kHeaderSize), level_);
    if (!c) return c.status();
    buf_.resize(kHeaderSize);
    buf_.insert(buf_.end(), c->begin(), c->end());
  }
  if (buf_.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::error("batch larger than 2 GiB", kInvalidRecord);
  }
  uint8_t* p = buf_.data();
  put_be(p + kBaseOffsetPos, 0, 8);
  put_be(p + kLengthPos, buf_.size() - kLogOverhead, 4);
  put_be(p + kLeaderEpochPos, static_cast<uint32_t>(-1), 4);
  p[kMagicPos] = 2;
  put_be(p + kAttributesPos, static_cast<uint16_t>(compression_), 2);
  put_be(p + kLastOffsetDeltaPos, static_cast<uint32_t>(count_ - 1), 4);
  put_be(p + kBaseTimestampPos, static_cast<uint64_t>(base_ts_), 8);
  put_be(p + kMaxTimestampPos, static_cast<uint64_t>(max_ts_), 8);
  put_be(p + kProducerIdPos, static_cast<uint64_t>(-1), 8);
  put_be(p + kProducerEpochPos, static_cast<uint16_t>(-1), 2);
  put_be(p + kBaseSequencePos, static_cast<uint32_t>(-1), 4);
  put_be(p + kRecordsCountPos, static_cast<uint32_t>(count_), 4);
  update_crc(p, buf_.size());
  closed_ = true;
  return Status::ok();
}

void BatchAppender::set_producer_state(int64_t producer_id, int16_t epoch, int32_t base_sequence,
                                       bool transactional) {
  if (!closed_) return;
  uint8_t* p = buf_.data();
  uint16_t attrs = static_cast<uint16_t>((p[kAttributesPos] << 8) | p[kAttributesPos + 1]);
  if (transactional) {
    attrs |= static_cast<uint16_t>(kTransactionalBit);
  } else {
    attrs &= static_cast<uint16_t>(~kTransactionalBit);
  }
  put_be(p + kAttributesPos, attrs, 2);
  put_be(p + kProducerIdPos, static_cast<uint64_t>(producer_id), 8);
  put_be(p + kProducerEpochPos, static_cast<uint16_t>(epoch), 2);
  put_be(p + kBaseSequencePos, static_cast<uint32_t>(base_sequence), 4);
  update_crc(p, buf_.size());
}

}  // namespace spool::record
