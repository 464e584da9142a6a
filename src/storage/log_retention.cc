// Log: retention, log-start-offset moves and truncation (the paths that
// delete or cut data).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "storage/file_util.h"
#include "storage/log.h"
#include "storage/producer_snapshot.h"

namespace spool::storage {

void Log::drop_segments_locked(const std::vector<std::shared_ptr<Segment>>& victims) {
  {
    std::unique_lock lk(segs_mu_);
    for (const auto& v : victims) segments_.erase(v->base_offset());
  }
  // Deleted segments need no sync any more.
  std::erase_if(unsynced_sealed_, [&](const auto& s) {
    return std::find(victims.begin(), victims.end(), s) != victims.end();
  });
}

Result<int> Log::apply_retention(int64_t now_ms) {
  (void)remove_expired_producers(now_ms);
  auto cfg = config();
  std::vector<std::shared_ptr<Segment>> victims;
  {
    std::lock_guard lk(append_mu_);
    if (closed_ || offline_) return 0;
    std::vector<std::shared_ptr<Segment>> segs;
    for (const auto& [b, s] : segments_) segs.push_back(s);
    int64_t active_base = segs.back()->base_offset();
    segs.pop_back();  // never the active segment
    size_t i = 0;
    int64_t start = log_start_.load();
    // Wholly below the log start offset (DeleteRecords): Kafka's rule, the
    // *next* segment starts at or below it. A segment's own next_offset is
    // not enough: one the cleaner emptied has next_offset == base, and
    // deleting it would move the log start of a compacted log (and change
    // the segment set under a running cleaner pass).
    auto next_base = [&](size_t k) { return k + 1 < segs.size() ? segs[k + 1]->base_offset() : active_base; };
    while (i < segs.size() && next_base(i) <= start) ++i;
    // Time and size limits apply only with cleanup.policy delete.
    if (cfg.cleanup_policy_delete && cfg.retention_ms >= 0)
      while (i < segs.size() && now_ms - segs[i]->largest_timestamp() > cfg.retention_ms) ++i;
    if (cfg.cleanup_policy_delete && cfg.retention_bytes >= 0) {
      int64_t total = 0;
      for (const auto& [b, s] : segments_) total += s->size();
      for (size_t k = 0; k < i; ++k) total -= segs[k]->size();
      int64_t excess = total - cfg.retention_bytes;
      while (i < segs.size() && excess - segs[i]->size() >= 0) {
        excess -= segs[i]->size();
        ++i;
      }
    }
    if (i == 0) return 0;
    victims.assign(segs.begin(), segs.begin() + static_cast<long>(i));
    drop_segments_locked(victims);
    int64_t new_start = std::max(start, segments_.begin()->second->base_offset());
    log_start_.store(new_start, std::memory_order_release);
    epochs_.truncate_from_start(new_start);
    trim_producer_state_locked();
    spdlog::info("{}: retention deleted {} segment(s); log start offset now {}", dir_, victims.size(), new_start);
  }
  // Unlink outside the lock; readers holding a segment keep reading the open files.
  for (const auto& v : victims) {
    Status s = v->remove_files();
    if (!s) spdlog::warn("{}: {}", dir_, s.message());
  }
  return static_cast<int>(victims.size());
}

Status Log::advance_log_start_offset(int64_t offset) {
  if (offline_) return offline_error();
  {
    std::lock_guard lk(append_mu_);
    if (offset > log_end_.load())
      return Status::error("log start offset " + std::to_string(offset) + " beyond log end " +
                               std::to_string(log_end_.load()), kOffsetOutOfRange);
    if (offset <= log_start_.load()) return Status::ok();
    log_start_.store(offset, std::memory_order_release);
    epochs_.truncate_from_start(offset);
  }
  std::vector<std::shared_ptr<Segment>> victims;
  {
    std::lock_guard lk(append_mu_);
    std::vector<std::shared_ptr<Segment>> segs;
    for (const auto& [b, s] : segments_) segs.push_back(s);
    segs.pop_back();
    for (const auto& s : segs) {
      if (s->next_offset() > offset) break;
      victims.push_back(s);
    }
    drop_segments_locked(victims);
    trim_producer_state_locked();
  }
  for (const auto& v : victims) (void)v->remove_files();
  return Status::ok();
}

Status Log::reset_locked(int64_t offset) {
  auto cfg = config();
  // Files go first (a victim may sit at the same base); open readers keep their fds.
  for (const auto& [b, seg] : segments_) {
    Status rs = seg->remove_files();
    if (!rs) return rs;
  }
  auto seg = Segment::open(dir_, offset, cfg.segment_index_bytes, true);
  if (!seg) return seg.status();
  {
    std::unique_lock slk(segs_mu_);
    segments_.clear();
    segments_[offset] = *seg;
  }
  log_start_.store(offset);
  log_end_.store(offset);
  unsynced_sealed_.clear();  // all of them are gone
  delete_producer_snapshots_above(dir_, -1);
  producers_.clear(offset);
  return Status::ok();
}

Status Log::truncate_to(int64_t offset) {
  std::vector<std::shared_ptr<Segment>> victims;
  {
    std::lock_guard lk(append_mu_);
    if (closed_) return Status::error(dir_ + ": log is closed", kStorageError);
    if (offline_) return offline_error();
    if (offset >= log_end_.load()) {
      // Nothing to cut, but an epoch stamped at the log end while this
      // replica led (begin_leader_epoch) and never written goes (Kafka does
      // the same): the new leader never had it.
      epochs_.truncate_from_end(log_end_.load());
      return Status::ok();
    }
    if (offset <= segments_.begin()->first) {
      // Nothing survives: start fully over at `offset`.
      if (Status s = reset_locked(offset); !s) return s;
    } else {
      for (auto it = segments_.rbegin(); it != segments_.rend() && it->first >= offset; ++it)
        victims.push_back(it->second);
      drop_segments_locked(victims);
      auto active = active_locked();
      auto r = active->truncate_to(offset);
      if (!r) return r.status();
      Status s = active->make_active();
      if (!s) return s;
      log_end_.store(active->next_offset());
    }
    truncations_.fetch_add(1);
    dir_dirty_ = true;
    // Data past the cut is gone; whatever replaces it is dirty.
    if (first_dirty_.load() > offset) first_dirty_.store(offset);
    int64_t end = log_end_.load();
    if (flushed_.load() > end) flushed_.store(end);
    epochs_.truncate_from_end(end);
    if (Status ps = rebuild_producer_state_locked(end); !ps)
      spdlog::warn("{}: rebuilding producer state after truncation: {}", dir_, ps.message());
    spdlog::info("{}: truncated to offset {}", dir_, end);
  }
  for (const auto& v : victims) (void)v->remove_files();
  return Status::ok();
}

Status Log::truncate_fully_and_start_at(int64_t offset) {
  if (offset < 0) return Status::error("cannot start a log at offset " + std::to_string(offset), kOffsetOutOfRange);
  std::lock_guard lk(append_mu_);
  if (closed_) return Status::error(dir_ + ": log is closed", kStorageError);
  if (offline_) return offline_error();
  return truncate_fully_locked(offset);
}

Status Log::truncate_fully_locked(int64_t offset) {
  if (Status s = reset_locked(offset); !s) return s;
  truncations_.fetch_add(1);
  dir_dirty_ = true;
  first_dirty_.store(offset);
  flushed_.store(offset);
  epochs_.clear();
  spdlog::info("{}: truncated fully; the log now starts at offset {}", dir_, offset);
  return Status::ok();
}

int64_t Log::begin_leader_epoch(int32_t epoch) {
  std::lock_guard lk(append_mu_);
  int64_t start = log_end_.load();
  epochs_.assign(epoch, start);
  return start;
}

}  // namespace spool::storage
