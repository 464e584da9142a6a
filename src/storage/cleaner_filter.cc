#include "storage/cleaner_filter.h"

#include <vector>

#include "record/batch_builder.h"
#include "record/compression.h"
#include "record/error_codes.h"
#include "record/record.h"
#include "storage/file_util.h"

namespace spool::storage {
namespace {

void put_be(uint8_t* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

Bytes copy_of(ByteSpan b) { return Bytes(b.begin(), b.end()); }

// Rebuilds a batch around the kept records: same base offset, last offset
// delta, epoch, producer fields and codec; base timestamp = the delete
// horizon when one is set (KIP-534), record timestamps unchanged.
Result<Bytes> rebuild(const record::BatchHeader& h, const std::vector<record::Record>& kept, bool set_horizon,
                      int64_t horizon) {
  std::vector<record::BuildRecord> recs;
  recs.reserve(kept.size());
  for (const auto& r : kept) {
    record::BuildRecord b;
    if (r.key) b.key = copy_of(*r.key);
    if (r.value) b.value = copy_of(*r.value);
    for (const auto& hd : r.headers) {
      record::BuildHeader bh;
      bh.key = std::string(hd.key);
      if (hd.value) bh.value = Bytes(hd.value->begin(), hd.value->end());
      b.headers.push_back(std::move(bh));
    }
    // Wrapping add, as the encoder subtracts wrapping.
    b.timestamp = static_cast<int64_t>(static_cast<uint64_t>(h.base_timestamp) +
                                       static_cast<uint64_t>(r.timestamp_delta));
    b.offset_delta = r.offset_delta;
    recs.push_back(std::move(b));
  }
  int64_t base_ts = set_horizon ? horizon : h.base_timestamp;
  auto section = record::encode_records(recs, base_ts);
  if (!section) return section.status();
  Bytes payload;
  if (h.compression() == record::Compression::kNone) {
    payload = std::move(*section);
  } else {
    auto c = record::compress(h.compression(), ByteSpan(*section));
    if (!c) return c.status();
    payload = std::move(*c);
  }
  size_t total = record::kHeaderSize + payload.size();
  if (total - record::kLogOverhead > static_cast<size_t>(INT32_MAX))
    return Status::error("cleaned batch larger than 2 GiB", record::kInvalidRecord);
  Bytes out(total);
  uint8_t* p = out.data();
  int16_t attrs = h.attributes;
  if (set_horizon) attrs = static_cast<int16_t>(attrs | record::kDeleteHorizonBit);
  put_be(p + record::kBaseOffsetPos, static_cast<uint64_t>(h.base_offset), 8);
  put_be(p + record::kLengthPos, total - record::kLogOverhead, 4);
  put_be(p + record::kLeaderEpochPos, static_cast<uint32_t>(h.partition_leader_epoch), 4);
  p[record::kMagicPos] = 2;
  put_be(p + record::kAttributesPos, static_cast<uint16_t>(attrs), 2);
  put_be(p + record::kLastOffsetDeltaPos, static_cast<uint32_t>(h.last_offset_delta), 4);
  put_be(p + record::kBaseTimestampPos, static_cast<uint64_t>(base_ts), 8);
  put_be(p + record::kMaxTimestampPos, static_cast<uint64_t>(h.max_timestamp), 8);
  put_be(p + record::kProducerIdPos, static_cast<uint64_t>(h.producer_id), 8);
  put_be(p + record::kProducerEpochPos, static_cast<uint16_t>(h.producer_epoch), 2);
  put_be(p + record::kBaseSequencePos, static_cast<uint32_t>(h.base_sequence), 4);
  put_be(p + record::kRecordsCountPos, static_cast<uint32_t>(kept.size()), 4);
  std::copy(payload.begin(), payload.end(), p + record::kHeaderSize);
  record::update_crc(p, total);
  return out;
}

}  // namespace

bool batch_is_aborted(const record::BatchHeader& h, const std::vector<AbortedTxn>& aborted) {
  for (const auto& t : aborted)
    if (t.producer_id == h.producer_id && t.first_offset <= h.base_offset && h.base_offset < t.last_offset) return true;
  return false;
}

bool cleaner_skips_batch(const record::BatchHeader& h) { return h.is_control() || h.is_transactional(); }

Status add_batch_keys(const record::BatchHeader& h, ByteSpan batch, KeyOffsetMap& map, Bytes& scratch) {
  if (cleaner_skips_batch(h)) return Status::ok();
  auto section = record::records_section(h, batch, scratch);
  if (!section) return section.status();
  record::RecordReader rd(*section, h.records_count, h.last_offset_delta);
  record::Record rec;
  for (;;) {
    auto more = rd.next(rec);
    if (!more) return more.status();
    if (!*more) return Status::ok();
    // Records without a key cannot be compacted; they stay (Kafka refuses
    // them on produce to compacted topics, old data may still hold some).
    if (rec.key && !map.put(*rec.key, h.base_offset + rec.offset_delta))
      return Status::error("cleaner offset map full", kStorageError);
  }
}

Result<std::optional<BatchInfo>> filter_batch(const record::BatchHeader& h, ByteSpan batch, FilterContext& ctx,
                                              Bytes& out, CleanStats& stats) {
  using Out = std::optional<BatchInfo>;
  stats.bytes_read += static_cast<int64_t>(batch.size());
  stats.records_read += h.records_count;
  auto keep_raw = [&]() -> Out {
    out.insert(out.end(), batch.begin(), batch.end());
    stats.records_kept += h.records_count;
    return BatchInfo{h.last_offset(), h.max_timestamp, batch.size()};
  };
  if (ctx.aborted && h.is_transactional() && !h.is_control() && batch_is_aborted(h, *ctx.aborted)) return Out();
  if (cleaner_skips_batch(h)) return keep_raw();

  bool has_horizon = h.attributes & record::kDeleteHorizonBit;
  int64_t horizon = has_horizon ? h.base_timestamp : 0;
  auto recs = record::decode_records(h, batch, ctx.scratch);
  if (!recs) return recs.status();
  std::vector<record::Record> kept;
  kept.reserve(recs->size());
  bool kept_tombstone = false;
  for (auto& r : *recs) {
    int64_t offset = h.base_offset + r.offset_delta;
    if (r.key) {
      int64_t latest = ctx.map->get(*r.key);
      if (latest > offset) continue;  // a later record of this key exists
    }
    if (!r.value) {
      if (has_horizon && ctx.now_ms >= horizon) {
        ++stats.tombstones_removed;
        continue;
      }
      kept_tombstone = true;
    }
    kept.push_back(std::move(r));
  }
  if (kept.empty()) return Out();  // TODO(issue 6): keep an empty batch that holds a producer's last sequence
  bool set_horizon = has_horizon || kept_tombstone;
  if (!has_horizon && kept_tombstone) {
    horizon = ctx.now_ms > INT64_MAX - ctx.delete_retention_ms ? INT64_MAX : ctx.now_ms + ctx.delete_retention_ms;
  }
  if (kept_tombstone) ctx.min_delete_horizon = std::min(ctx.min_delete_horizon, horizon);
  if (kept.size() == recs->size() && (has_horizon || !kept_tombstone)) return keep_raw();
  auto rebuilt = rebuild(h, kept, set_horizon, horizon);
  if (!rebuilt) return rebuilt.status();
  out.insert(out.end(), rebuilt->begin(), rebuilt->end());
  stats.records_kept += static_cast<int64_t>(kept.size());
  return Out(BatchInfo{h.last_offset(), h.max_timestamp, rebuilt->size()});
}

}  // namespace spool::storage
