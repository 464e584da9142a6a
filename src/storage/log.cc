#include "storage/log.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "storage/file_util.h"
#include "storage/flusher.h"
#include "record/batch_builder.h"

namespace spool::storage {
namespace {

Status bad_batch(const std::string& why) { return Status::error("invalid record batch: " + why, kCorruptMessage); }

// Splits the produce payload into batch headers; framing checks only (the
// caller validated CRCs).
Status frame_batches(std::span<const uint8_t> data, std::vector<record::BatchHeader>& out) {
  size_t pos = 0;
  while (pos < data.size()) {
    if (data.size() - pos < record::kHeaderSize) return bad_batch("truncated header");
    auto h = record::read_header(data.subspan(pos));
    if (!h) return bad_batch(h.status().message());
    if (h->magic != 2) return bad_batch("magic " + std::to_string(h->magic));
    if (h->batch_length < static_cast<int32_t>(record::kHeaderSize - record::kLogOverhead) ||
        h->total_size() > data.size() - pos)
      return bad_batch("length " + std::to_string(h->batch_length));
    if (h->last_offset_delta < 0) return bad_batch("negative last offset delta");
    out.push_back(*h);
    pos += h->total_size();
  }
  if (out.empty()) return bad_batch("no batches");
  return Status::ok();
}

}  // namespace

Log::Log(const OpenOptions& o)
    : dir_(o.dir), topic_(o.topic), partition_(o.partition), config_(normalize_config(o.config)),
      epochs_(o.dir + "/" + kLeaderEpochCheckpoint) {}

Log::~Log() = default;

void Log::set_clock(std::function<int64_t()> clock) { clock_ = std::move(clock); }
int64_t Log::now() const { return clock_ ? clock_() : now_ms(); }

LogConfig normalize_config(LogConfig c) {
  // Positions in a segment are int32 (index entries); keep segments below that.
  c.segment_bytes = std::clamp<int64_t>(c.segment_bytes, 100, INT32_MAX);
  c.segment_ms = std::max<int64_t>(c.segment_ms, 1);
  c.index_interval_bytes = std::max(c.index_interval_bytes, 0);
  c.segment_index_bytes = std::max(c.segment_index_bytes, 64);
  c.flush_messages = std::max<int64_t>(c.flush_messages, 1);
  c.flush_ms = std::max<int64_t>(c.flush_ms, 0);
  c.delete_retention_ms = std::max<int64_t>(c.delete_retention_ms, 0);
  if (!(c.min_cleanable_dirty_ratio >= 0)) c.min_cleanable_dirty_ratio = 0;  // NaN too
  c.min_cleanable_dirty_ratio = std::min(c.min_cleanable_dirty_ratio, 1.0);
  c.min_compaction_lag_ms = std::max<int64_t>(c.min_compaction_lag_ms, 0);
  c.max_compaction_lag_ms = std::max<int64_t>(c.max_compaction_lag_ms, 1);
  return c;
}

void Log::update_config(const LogConfig& config) {
  std::lock_guard lk(config_mu_);
  config_ = normalize_config(config);
}

LogConfig Log::config() const {
  std::lock_guard lk(config_mu_);
  return config_;
}

std::vector<std::shared_ptr<Segment>> Log::all_segments() const {
  std::shared_lock lk(segs_mu_);
  std::vector<std::shared_ptr<Segment>> out;
  out.reserve(segments_.size());
  for (const auto& [b, s] : segments_) out.push_back(s);
  return out;
}

std::vector<std::shared_ptr<Segment>> Log::segments_from(int64_t offset) const {
  std::shared_lock lk(segs_mu_);
  std::vector<std::shared_ptr<Segment>> out;
  auto it = segments_.upper_bound(offset);
  if (it != segments_.begin()) --it;
  for (; it != segments_.end(); ++it) out.push_back(it->second);
  return out;
}

int64_t Log::size_bytes() const {
  int64_t n = 0;
  for (const auto& s : all_segments()) n += s->size();
  return n;
}

size_t Log::segment_count() const {
  std::shared_lock lk(segs_mu_);
  return segments_.size();
}

std::vector<int64_t> Log::segment_base_offsets() const {
  std::vector<int64_t> out;
  for (const auto& s : all_segments()) out.push_back(s->base_offset());
  return out;
}

Result<std::shared_ptr<Segment>> Log::roll_locked(int64_t base) {
  auto old = active_locked();
  auto cfg = config();
  auto seg = Segment::open(dir_, base, cfg.segment_index_bytes, /*active=*/true);
  if (!seg) return seg.status();
  // State as of the new segment's base: recovery replays from here at most.
  snapshot_producers_locked(base);
  Status s = old->seal();
  if (!s) spdlog::warn("{}: sealing segment: {}", dir_, s.message());
  {
    std::unique_lock lk(segs_mu_);
    segments_[base] = *seg;
  }
  unsynced_sealed_.push_back(old);
  dir_dirty_ = true;
  spdlog::debug("{}: rolled new segment at offset {}", dir_, base);
  return *seg;
}

Result<AppendResult> Log::append_locked(std::span<uint8_t> batches, std::vector<BatchInfo>& infos,
                                        int64_t first, int64_t now_ms, int64_t append_time) {
  auto cfg = config();
  auto active = active_locked();
  int64_t last = infos.back().last_offset;
  bool need_roll = !active->empty() &&
                   (active->size() + static_cast<int64_t>(batches.size()) > cfg.segment_bytes ||
                    (active->first_append_ms() >= 0 && now_ms - active->first_append_ms() >= cfg.segment_ms) ||
                    active->index_full() || last - active->base_offset() > INT32_MAX);
  if (need_roll) {
    auto r = roll_locked(first);
    if (!r) return r.status();
    active = *r;
  }
  Status s = active->append(ByteSpan(batches.data(), batches.size()), infos, cfg.index_interval_bytes, now_ms);
  if (!s) return s;
  log_end_.store(last + 1, std::memory_order_release);
  return AppendResult{first, last, append_time};
}

Status Log::offline_error() const {
  return Status::error(dir_ + ": its log dir is offline after an I/O error", kStorageError);
}

void Log::note_failure(const Status& s) {
  if (s || s.sys_errno() == 0 || is_disk_full(s)) return;
  if (!failure_reported_.exchange(true) && failure_handler_) failure_handler_(s.message());
}

Result<AppendResult> Log::append(std::span<uint8_t> batches, int32_t /*record_count_hint*/, int32_t leader_epoch) {
  auto r = append_leader(batches, leader_epoch);
  if (!r) note_failure(r.status());
  return r;
}

Result<AppendResult> Log::append_as_follower(std::span<const uint8_t> batches) {
  auto r = append_follower(batches);
  if (!r) note_failure(r.status());
  return r;
}

Result<AppendResult> Log::append_leader(std::span<uint8_t> batches, int32_t leader_epoch) {
  std::vector<record::BatchHeader> headers;
  Status s = frame_batches(batches, headers);
  if (!s) return s;
  auto cfg = config();
  if (static_cast<int64_t>(batches.size()) > cfg.segment_bytes)
    return Status::error("record set of " + std::to_string(batches.size()) + " bytes exceeds segment.bytes",
                         kRecordListTooLarge);
  std::lock_guard lk(append_mu_);
  if (closed_) return Status::error(dir_ + ": log is closed", kStorageError);
  if (offline_) return offline_error();
  int64_t now_ms = now();
  int64_t append_time = cfg.timestamp_log_append_time ? now_ms : -1;
  int64_t next = log_end_.load();
  std::vector<BatchInfo> infos;
  infos.reserve(headers.size());
  ProducerStateManager::Staged staged;
  size_t pos = 0;
  for (auto h : headers) {
    int64_t max_ts = cfg.timestamp_log_append_time ? now_ms : h.max_timestamp;
    int64_t last = next + h.last_offset_delta;
    if (h.producer_id >= 0) {
      h.base_offset = next;
      auto pb = ProducerBatch::from_header(h, max_ts);
      // A retry of a batch already in the log: the original offsets, nothing written.
      if (auto dup = producers_.find_duplicate(pb)) {
        spdlog::debug("{}: duplicate batch of producer {} (sequence {}) at offset {}", dir_, pb.producer_id,
                      pb.base_sequence, dup->first_offset);
        return AppendResult{dup->first_offset, dup->last_offset, append_time >= 0 ? dup->timestamp : -1};
      }
      Status ps = producers_.validate_and_stage(pb, staged);
      if (!ps) return ps;
    }
    uint8_t* p = batches.data() + pos;
    record::set_base_offset(p, next);
    record::set_partition_leader_epoch(p, leader_epoch);
    if (cfg.timestamp_log_append_time) {
      // The attribute bit and max_timestamp are inside the CRC: it is recomputed.
      record::set_log_append_time(p, h.total_size(), now_ms);
    }
    infos.push_back({last, max_ts, h.total_size()});
    next = last + 1;
    pos += h.total_size();
  }
  auto r = append_locked(batches, infos, log_end_.load(), now_ms, append_time);
  if (r && !staged.updated.empty()) producers_.commit(std::move(staged), r->last_offset + 1);
  if (r && leader_epoch >= 0) epochs_.assign(leader_epoch, r->first_offset);
  if (r) notify_flusher();
  return r;
}

Result<AppendResult> Log::append_follower(std::span<const uint8_t> batches) {
  std::vector<record::BatchHeader> headers;
  Status s = frame_batches(batches, headers);
  if (!s) return s;
  std::lock_guard lk(append_mu_);
  if (closed_) return Status::error(dir_ + ": log is closed", kStorageError);
  if (offline_) return offline_error();
  int64_t expected = log_end_.load();
  if (log_start_.load() == expected && headers.front().base_offset < expected &&
      headers.front().last_offset() >= expected) {
    spdlog::info("{}: first follower batch [{}, {}] straddles the empty log's start {}; restarting at {}", dir_,
                 headers.front().base_offset, headers.front().last_offset(), expected, headers.front().base_offset);
    if (Status rs = truncate_fully_locked(headers.front().base_offset); !rs) return rs;
    expected = log_end_.load();
  }
  std::vector<BatchInfo> infos;
  for (const auto& h : headers) {
    if (h.base_offset < expected)
      return Status::error("follower batch at offset " + std::to_string(h.base_offset) + " below " +
                               std::to_string(expected), kInvalidRecord);
    infos.push_back({h.last_offset(), h.max_timestamp, h.total_size()});
    expected = h.last_offset() + 1;
  }
  // Offsets may jump (compacted leader); the segment holds them as long as
  // they fit its relative range, which append_locked checks via rolling.
  std::span<uint8_t> mut(const_cast<uint8_t*>(batches.data()), batches.size());  // written, never modified
  auto r = append_locked(mut, infos, headers.front().base_offset, now(), -1);
  if (!r) return r;
  size_t pos = 0;
  for (const auto& h : headers) {
    if (h.producer_id >= 0) {
      auto pb = producer_batch_of(h, ByteSpan(batches.data() + pos, h.total_size()));
      if (auto done = producers_.replay(pb)) index_completed_txn_locked(*done);
    }
    pos += h.total_size();
  }
  for (const auto& h : headers) epochs_.assign(h.partition_leader_epoch, h.base_offset);
  notify_flusher();
  return r;
}

void Log::notify_flusher() {
  Flusher* f = flusher_.load();
  if (!f) return;
  auto cfg = config();
  if (cfg.flush_messages == INT64_MAX && cfg.flush_ms == INT64_MAX) return;
  f->mark_dirty(shared_from_this());
}

Result<RegionRead> Log::read_regions(int64_t offset, int32_t max_bytes, int64_t max_offset, bool min_one) const {
  if (offline_) return offline_error();
  RegionRead out;
  out.log_start_offset = log_start_offset();
  out.log_end_offset = log_end_offset();
  if (offset < out.log_start_offset || offset > out.log_end_offset)
    return Status::error("offset " + std::to_string(offset) + " out of range [" +
                             std::to_string(out.log_start_offset) + ", " + std::to_string(out.log_end_offset) + "]",
                         kOffsetOutOfRange);
  if (offset == out.log_end_offset) return out;
  int64_t bound = std::min(max_offset, out.log_end_offset);
  size_t budget = max_bytes > 0 ? static_cast<size_t>(max_bytes) : 0;
  for (const auto& seg : segments_from(offset)) {
    const bool first = out.bytes == 0;
    if (budget == 0 && !(min_one && first)) break;
    auto r = seg->locate(offset, budget, bound, min_one && first);
    if (!r) return r.status();
    if (r->bytes > 0) {
      // Aliasing: the region owns the segment, and with it the descriptor.
      out.regions.push_back(FileRegion{std::shared_ptr<const void>(seg), seg->fd(), r->position,
                                       static_cast<int64_t>(r->bytes)});
      out.bytes += r->bytes;
      out.next_offset = r->next_offset;
    }
    budget -= std::min(budget, r->bytes);
    if (r->stopped) break;
  }
  return out;
}

Result<ReadResult> Log::read(int64_t offset, int32_t max_bytes, int64_t max_offset, bool min_one) const {
  auto regions = read_regions(offset, max_bytes, max_offset, min_one);
  if (!regions) return regions.status();
  ReadResult out;
  out.log_start_offset = regions->log_start_offset;
  out.log_end_offset = regions->log_end_offset;
  out.records.resize(regions->bytes);
  size_t pos = 0;
  for (const auto& r : regions->regions) {
    auto got = pread_full(r.fd, out.records.data() + pos, static_cast<size_t>(r.length), r.offset);
    if (!got) return got.status();
    if (*got != static_cast<size_t>(r.length))
      return Status::error(dir_ + ": segment shorter than its batches (truncated meanwhile)", kStorageError);
    pos += *got;
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>> Log::offset_for_timestamp(int64_t ts) const {
  int64_t start = log_start_offset();
  for (const auto& seg : all_segments()) {
    if (seg->max_timestamp() < ts) continue;
    auto r = seg->find_timestamp(ts);
    if (!r) {
      spdlog::warn("{}: timestamp lookup: {}", dir_, r.status().message());
      return std::nullopt;
    }
    if (*r) {
      auto v = **r;
      if (v.first < start) v.first = start;
      return v;
    }
  }
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>> Log::max_timestamp_offset() const {
  // The first segment holding the largest timestamp, then (as Kafka 3.8+,
  // KAFKA-16310) the first record inside it carrying that timestamp rather
  // than the last offset of its batch, which is all the segment tracks.
  std::shared_ptr<Segment> best;
  for (const auto& seg : all_segments()) {
    int64_t ts = seg->max_timestamp();
    if (ts >= 0 && (!best || ts > best->max_timestamp())) best = seg;
  }
  if (!best) return std::nullopt;
  const int64_t ts = best->max_timestamp();
  auto exact = best->find_timestamp(ts);
  if (exact && *exact && (*exact)->second == ts) return **exact;
  if (!exact) spdlog::warn("{}: max timestamp lookup: {}", dir_, exact.status().message());
  return std::make_pair(best->offset_of_max_timestamp(), ts);
}

std::pair<int32_t, int64_t> Log::end_offset_for_epoch(int32_t epoch) const {
  return epochs_.end_offset_for(epoch, log_end_offset());
}

Status Log::flush() {
  if (offline_) return offline_error();
  std::lock_guard flk(flush_mu_);
  int64_t end;
  std::vector<std::shared_ptr<Segment>> sealed;
  std::shared_ptr<Segment> active;
  bool dir_dirty;
  uint64_t gen;
  {
    std::lock_guard lk(append_mu_);
    gen = truncations_.load();
    end = log_end_.load();
    if (end <= flushed_.load() && unsynced_sealed_.empty() && !dir_dirty_) return Status::ok();
    sealed.swap(unsynced_sealed_);
    active = active_locked();
    dir_dirty = dir_dirty_;
    dir_dirty_ = false;
  }
  Status s = Status::ok();
  for (const auto& seg : sealed) {
    if (s) s = seg->flush_data();
    if (s) s = seg->flush_indexes();
  }
  if (s) s = active->flush_data();
  if (s && dir_dirty) s = sync_dir(dir_);
  if (s) s = epochs_.persist();
  if (!s) {
    std::lock_guard lk(append_mu_);
    unsynced_sealed_.insert(unsynced_sealed_.begin(), sealed.begin(), sealed.end());
    dir_dirty_ = dir_dirty_ || dir_dirty;
    spdlog::error("{}: flush failed: {}", dir_, s.message());
    // Never retried as if it could work: the dir goes offline.
    if (!failure_reported_.exchange(true) && failure_handler_) failure_handler_("fsync failed: " + s.message());
    return s;
  }
  {
    std::lock_guard lk(append_mu_);
    if (truncations_.load() == gen && flushed_.load() < end) flushed_.store(end, std::memory_order_release);
  }
  last_flush_ms_.store(now());
  return s;
}

Status Log::close() {
  std::lock_guard lk(append_mu_);
  if (closed_.exchange(true)) return Status::ok();
  // Trimmed lengths must be durable before a clean-shutdown marker vouches
  // for these files.
  Status s = active_locked()->seal();
  if (s) s = active_locked()->flush_indexes();
  snapshot_producers_locked(log_end_.load());  // the next clean start replays nothing
  Status e = epochs_.persist();
  return s ? e : s;
}

}  // namespace spool::storage
