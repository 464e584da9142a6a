#include "storage/leader_epoch_cache.h"

#include <spdlog/spdlog.h>

#include "storage/file_util.h"

namespace spool::storage {

void LeaderEpochCache::load() {
  std::lock_guard lk(mu_);
  entries_.clear();
  if (!path_exists(path_)) return;
  auto text = read_small_file(path_);
  if (!text) {
    spdlog::warn("{}: {}; ignoring it", path_, text.status().message());
    return;
  }
  auto parsed = parse_epoch_checkpoint(*text);
  if (!parsed) {
    spdlog::warn("{}: {}; ignoring it", path_, parsed.status().message());
    dirty_ = true;
    return;
  }
  entries_ = std::move(*parsed);
}

void LeaderEpochCache::assign(int32_t epoch, int64_t start_offset) {
  if (epoch < 0) return;
  std::lock_guard lk(mu_);
  if (!entries_.empty() && entries_.back().epoch >= epoch) return;
  // A newer epoch starting below an older one's start means the older entries
  // were never really written there; drop them (Kafka does the same).
  while (!entries_.empty() && entries_.back().start_offset >= start_offset) entries_.pop_back();
  entries_.push_back({epoch, start_offset});
  dirty_ = true;
}

std::pair<int32_t, int64_t> end_offset_for_epoch(const std::vector<EpochEntry>& entries, int32_t requested,
                                                 int64_t leo) {
  if (requested < 0 || entries.empty()) return {-1, -1};
  if (entries.back().epoch == requested) return {requested, leo};
  const EpochEntry* floor = nullptr;
  const EpochEntry* higher = nullptr;
  for (const auto& e : entries) {
    if (e.epoch <= requested) floor = &e;
    else if (!higher) higher = &e;
  }
  if (!higher) return {-1, -1};
  if (!floor) return {requested, higher->start_offset};
  return {floor->epoch, higher->start_offset};
}

std::pair<int32_t, int64_t> LeaderEpochCache::end_offset_for(int32_t requested, int64_t leo) const {
  std::lock_guard lk(mu_);
  return end_offset_for_epoch(entries_, requested, leo);
}

void LeaderEpochCache::truncate_from_end(int64_t end_offset) {
  std::lock_guard lk(mu_);
  while (!entries_.empty() && entries_.back().start_offset >= end_offset) {
    entries_.pop_back();
    dirty_ = true;
  }
}

void LeaderEpochCache::truncate_from_start(int64_t start_offset) {
  std::lock_guard lk(mu_);
  size_t drop = 0;
  while (drop + 1 < entries_.size() && entries_[drop + 1].start_offset <= start_offset) ++drop;
  if (drop > 0) {
    entries_.erase(entries_.begin(), entries_.begin() + static_cast<long>(drop));
    dirty_ = true;
  }
  if (!entries_.empty() && entries_[0].start_offset < start_offset) {
    entries_[0].start_offset = start_offset;
    dirty_ = true;
  }
}

void LeaderEpochCache::clear() {
  std::lock_guard lk(mu_);
  if (entries_.empty()) return;
  entries_.clear();
  dirty_ = true;
}

std::optional<int32_t> LeaderEpochCache::latest_epoch() const {
  std::lock_guard lk(mu_);
  if (entries_.empty()) return std::nullopt;
  return entries_.back().epoch;
}

std::vector<EpochEntry> LeaderEpochCache::entries() const {
  std::lock_guard lk(mu_);
  return entries_;
}

Status LeaderEpochCache::persist() {
  std::lock_guard plk(persist_mu_);
  std::string text;
  {
    std::lock_guard lk(mu_);
    if (!dirty_) return Status::ok();
    text = format_epoch_checkpoint(entries_);
    dirty_ = false;
  }
  Status s = write_file_atomic(path_, text);
  if (!s) {
    std::lock_guard lk(mu_);
    dirty_ = true;
  }
  return s;
}

}  // namespace spool::storage
