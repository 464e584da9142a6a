// Log: compaction passes (the contract is in storage/cleaner.h).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "record/record.h"
#include "storage/batch_scanner.h"
#include "util/sync_point.h"
#include "storage/cleaner_filter.h"
#include "storage/file_util.h"
#include "storage/log.h"

namespace spool::storage {
namespace {

constexpr size_t kScanChunk = 1 << 20;
constexpr size_t kWriteChunk = 1 << 20;

Status scan_error(const Segment& seg, BatchScanner& sc, BatchScanner::Step step) {
  if (step == BatchScanner::Step::kIoError) return sc.io_status();
  return Status::error(seg.log_path() + ": unreadable batch at " + std::to_string(sc.position()) + ": " +
                           sc.torn_reason(), kCorruptMessage);
}

// Kafka's measure of how old a segment's dirty data is: the max timestamp of
// its first batch (else its first append). -1 when unknown.
int64_t first_batch_timestamp(const Segment& seg) {
  uint8_t head[record::kHeaderSize];
  if (seg.size() >= static_cast<int64_t>(sizeof head)) {
    auto n = pread_full(seg.fd(), head, sizeof head, 0);
    if (n && *n == sizeof head) {
      auto h = record::read_header(ByteSpan(head, sizeof head));
      if (h && h->max_timestamp >= 0) return h->max_timestamp;
    }
  }
  return seg.first_append_ms();
}

}  // namespace

CleanableInfo Log::cleanable_info(int64_t now_ms) const {
  CleanableInfo info;
  auto cfg = config();
  info.compacted = cfg.cleanup_policy_compact && !offline();
  if (!info.compacted) return info;
  auto segs = all_segments();
  int64_t start = log_start_offset();
  int64_t first_dirty = first_dirty_offset();
  // A checkpoint outside the log (truncation, a new start) restarts from the beginning.
  if (first_dirty < start || first_dirty > log_end_offset()) first_dirty = start;
  int64_t limit = segs.back()->base_offset();
  segs.pop_back();
  for (const auto& s : segs) {
    if (s->next_offset() <= first_dirty) continue;
    if (cfg.min_compaction_lag_ms > 0 && now_ms - s->largest_timestamp() < cfg.min_compaction_lag_ms) {
      limit = s->base_offset();
      break;
    }
  }
  first_dirty = std::min(first_dirty, std::max(limit, start));
  info.first_dirty = first_dirty;
  info.first_uncleanable = limit;
  const Segment* first_dirty_seg = nullptr;
  for (const auto& s : segs) {
    if (s->base_offset() >= limit) break;
    if (s->next_offset() <= first_dirty) {
      info.clean_bytes += s->size();
    } else {
      info.dirty_bytes += s->size();
      if (!first_dirty_seg) first_dirty_seg = s.get();
    }
  }
  int64_t total = info.clean_bytes + info.dirty_bytes;
  info.dirty_ratio = total > 0 ? static_cast<double>(info.dirty_bytes) / static_cast<double>(total) : 0;
  if (first_dirty_seg && cfg.max_compaction_lag_ms < INT64_MAX) {
    int64_t first_ts = first_batch_timestamp(*first_dirty_seg);
    if (first_ts >= 0) info.max_lag_exceeded = now_ms - first_ts > cfg.max_compaction_lag_ms;
  }
  info.delete_horizon_passed = now_ms >= next_delete_horizon_.load() && total > 0;
  info.due = (info.dirty_bytes > 0 && (info.dirty_ratio >= cfg.min_cleanable_dirty_ratio || info.max_lag_exceeded)) ||
             info.delete_horizon_passed;
  return info;
}

Result<CleanStats> Log::clean(int64_t now_ms, const CleanOptions& options) {
  std::lock_guard ck(clean_mu_);
  auto t0 = std::chrono::steady_clock::now();
  CleanStats st;
  auto cfg = config();
  if (!cfg.cleanup_policy_compact || closed_ || offline_) return st;
  uint64_t truncations = truncations_.load();
  CleanableInfo info = cleanable_info(now_ms);
  st.first_dirty = st.end_offset = info.first_dirty;
  auto segs = all_segments();
  segs.pop_back();  // never the active segment
  std::erase_if(segs, [&](const auto& s) { return s->base_offset() >= info.first_uncleanable; });
  if (segs.empty()) return st;

  std::optional<KeyOffsetMap> own_map;
  KeyOffsetMap* map = options.map;
  if (!map) map = &own_map.emplace(options.dedupe_buffer_bytes);
  map->reset(std::max<int64_t>(info.first_uncleanable - info.first_dirty, 0));

  // 1. Key -> latest offset over the dirty section, batch by batch until the
  // map is full; the new checkpoint is just past the last batch taken in.
  int64_t end_dirty = info.first_dirty;
  bool full = false;
  Bytes scratch;
  for (const auto& seg : segs) {
    if (seg->next_offset() <= info.first_dirty) continue;
    BatchScanner sc(seg->fd(), 0, seg->size(), kScanChunk);
    for (;;) {
      auto step = sc.next(true);
      if (step == BatchScanner::Step::kEnd) break;
      if (step != BatchScanner::Step::kBatch) return scan_error(*seg, sc, step);
      const auto& h = sc.header();
      if (h.last_offset() < info.first_dirty) continue;
      if (options.abort && options.abort->load(std::memory_order_relaxed))
        return Status::error(dir_ + ": cleaning aborted", kStorageError);
      if (!map->has_room(static_cast<size_t>(std::max(h.records_count, 0)))) {
        full = true;
        break;
      }
      Status s = add_batch_keys(h, sc.bytes(), *map, scratch);
      if (!s) return Status::error(seg->log_path() + ": " + s.message(), s.kafka_code());
      end_dirty = h.last_offset() + 1;
    }
    if (full) break;
    end_dirty = std::max(end_dirty, std::min(seg->next_offset(), info.first_uncleanable));
  }
  if (full && end_dirty == info.first_dirty)
    return Status::error(dir_ + ": cleaner offset map (" + std::to_string(map->max_entries_at_budget()) +
                             " keys) too small for one batch", kStorageError);
  st.map_entries = map->size();
  bool dirty = end_dirty > info.first_dirty;
  if (!dirty && !info.delete_horizon_passed) return st;
  std::erase_if(segs, [&](const auto& s) { return s->base_offset() >= end_dirty; });

  // 2. Rewrite the segments below the new checkpoint in groups that fit one
  // segment each (cleaned segments shrink; merging keeps their count down).
  std::vector<std::vector<std::shared_ptr<Segment>>> groups;
  int64_t group_bytes = 0;
  for (const auto& seg : segs) {
    bool fits = !groups.empty() && group_bytes + seg->size() <= cfg.segment_bytes &&
                seg->next_offset() - 1 - groups.back().front()->base_offset() <= INT32_MAX;
    if (!fits) {
      groups.emplace_back();
      group_bytes = 0;
    }
    groups.back().push_back(seg);
    group_bytes += seg->size();
  }
  FilterContext ctx;
  ctx.map = map;
  ctx.now_ms = now_ms;
  ctx.delete_retention_ms = cfg.delete_retention_ms;
  // Every abort whose marker is at/after the cleaned range can cover its batches.
  const std::vector<AbortedTxn> aborted =
      groups.empty() ? std::vector<AbortedTxn>{} : collect_aborted_txns(groups.front().front()->base_offset(), INT64_MAX);
  ctx.aborted = &aborted;
  // A group whose segments changed under the pass keeps its old records, so
  // the checkpoint must not move past them: with tombstones at or above it,
  // a later pass could drop a tombstone while an older value of its key
  // survives in that group (the key would come back).
  bool all_swapped = true;
  for (const auto& group : groups) {
    int64_t base = group.front()->base_offset();
    std::vector<int64_t> sizes;
    for (const auto& s : group) sizes.push_back(s->size());
    for (const char* ext : {".log", ".index", ".timeindex", ".txnindex"})
      remove_file_quiet(dir_ + "/" + segment_file_name(base, ext) + ".cleaned");
    auto out = Segment::open(dir_, base, cfg.segment_index_bytes, /*active=*/true, ".cleaned");
    if (!out) return out.status();
    auto fail = [&](const Status& s) -> Status {
      (void)(*out)->remove_files();
      return s;
    };
    Bytes buf;
    std::vector<BatchInfo> infos;
    auto write_out = [&]() -> Status {
      if (buf.empty()) return Status::ok();
      Status s = (*out)->append(ByteSpan(buf), infos, cfg.index_interval_bytes, now_ms);
      st.bytes_written += static_cast<int64_t>(buf.size());
      buf.clear();
      infos.clear();
      return s;
    };
    for (size_t i = 0; i < group.size(); ++i) {
      const auto& seg = group[i];
      BatchScanner sc(seg->fd(), 0, sizes[i], kScanChunk);
      for (;;) {
        auto step = sc.next(true);
        if (step == BatchScanner::Step::kEnd) break;
        if (step != BatchScanner::Step::kBatch) return fail(scan_error(*seg, sc, step));
        if (options.abort && options.abort->load(std::memory_order_relaxed))
          return fail(Status::error(dir_ + ": cleaning aborted", kStorageError));
        auto v = record::validate_batch(sc.bytes());
        if (!v) return fail(Status::error(seg->log_path() + ": " + v.status().message(), v.status().kafka_code()));
        auto kept = filter_batch(*v, sc.bytes(), ctx, buf, st);
        if (!kept) return fail(Status::error(seg->log_path() + ": " + kept.status().message(), kept.status().kafka_code()));
        if (*kept) infos.push_back(**kept);
        if (buf.size() >= kWriteChunk) {
          Status s = write_out();
          if (!s) return fail(s);
        }
      }
    }
    Status s = write_out();
    // The markers stay, so do their .txnindex entries.
    for (const auto& seg : group)
      for (const auto& t : seg->txn_index().entries())
        if (s) s = (*out)->txn_index().append(t);
    if (s) s = (*out)->seal();
    if (s) s = (*out)->flush_data();
    if (s) s = (*out)->flush_indexes();
    if (!s) return fail(s);
    SPOOL_SYNC_POINT("Cleaner::CleanedCopyWritten");
    // Past its commit point a failed swap must leave the files to recovery.
    auto swapped = swap_in_cleaned(group, sizes, *out);
    if (!swapped) return swapped.status();
    if (*swapped) {
      st.segments_in += static_cast<int>(group.size());
      st.segments_out += 1;
    } else {
      // Stop here: a later group could drop a tombstone whose older values
      // are in the group just dropped.
      all_swapped = false;
      break;
    }
  }
  // A truncation during the pass moved the checkpoint back; keep that. A
  // dropped group leaves the checkpoint where it was: the next pass redoes
  // the whole dirty section.
  if (all_swapped && truncations_.load() == truncations)
    first_dirty_.store(std::max(end_dirty, info.first_dirty), std::memory_order_release);
  // Tombstones of a dropped group got no horizon on disk; an earlier hint
  // only costs an extra pass.
  next_delete_horizon_.store(all_swapped ? ctx.min_delete_horizon
                                         : std::min(ctx.min_delete_horizon, next_delete_horizon_.load()));
  st.cleaned = true;
  st.end_offset = all_swapped ? std::max(end_dirty, info.first_dirty) : info.first_dirty;
  st.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info("{}: cleaned offsets [{}, {}): {} segment(s) -> {}, {} -> {} bytes, {} -> {} records, {} tombstone(s) "
               "removed, {:.1f} ms",
               dir_, st.first_dirty, st.end_offset, st.segments_in, st.segments_out, st.bytes_read, st.bytes_written,
               st.records_read, st.records_kept, st.tombstones_removed, st.elapsed_ms);
  return st;
}

Result<bool> Log::swap_in_cleaned(const std::vector<std::shared_ptr<Segment>>& olds,
                                  const std::vector<int64_t>& old_sizes, const std::shared_ptr<Segment>& cleaned) {
  std::lock_guard lk(append_mu_);
  // Retention, DeleteRecords or truncation may have changed these segments
  // while the pass ran: then this output is stale, and dropped.
  bool intact = !closed_;
  for (size_t i = 0; intact && i < olds.size(); ++i) {
    auto it = segments_.find(olds[i]->base_offset());
    intact = it != segments_.end() && it->second == olds[i] && olds[i] != active_locked() &&
             olds[i]->size() == old_sizes[i];
  }
  if (!intact) {
    spdlog::info("{}: segments changed during cleaning; dropping the cleaned copy of {}", dir_,
                 olds.front()->base_offset());
    (void)cleaned->remove_files();
    return false;
  }
  // `.swap` is the commit point: from here recovery finishes the swap.
  Status s = cleaned->change_suffix(".swap");
  if (!s) {
    (void)cleaned->remove_files();
    return s;
  }
  s = sync_dir(dir_);
  auto committed_failure = [&](const Status& e) {
    // The old segments stay in memory (their open files still serve reads);
    // the next start completes the swap from the `.swap` file.
    spdlog::error("{}: swapping in cleaned segment {} failed after its commit point ({}); recovery finishes it",
                  dir_, cleaned->base_offset(), e.message());
    return e;
  };
  if (!s) return committed_failure(s);
  SPOOL_SYNC_POINT("Cleaner::AfterSwapRename");
  for (const auto& o : olds) {
    s = o->remove_files();  // readers holding `o` keep reading the open file
    if (!s) return committed_failure(s);
  }
  SPOOL_SYNC_POINT("Cleaner::AfterOldDeleted");
  s = cleaned->change_suffix("");
  if (!s) return committed_failure(s);
  drop_segments_locked(olds);
  {
    std::unique_lock slk(segs_mu_);
    segments_[cleaned->base_offset()] = cleaned;
  }
  s = sync_dir(dir_);
  if (!s) return s;
  return true;
}

}  // namespace spool::storage
