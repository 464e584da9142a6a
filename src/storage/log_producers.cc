// Log: idempotent-producer state (storage/producer_state.h) kept beside the
// segments — snapshots, rebuild after recovery or truncation, expiry.
#include <spdlog/spdlog.h>

#include <atomic>

#include "storage/batch_scanner.h"
#include "storage/log.h"
#include "storage/producer_snapshot.h"

namespace spool::storage {
namespace {

std::atomic<int64_t> g_default_expiration_ms{86400000};

}  // namespace

void set_default_producer_expiration_ms(int64_t ms) { g_default_expiration_ms.store(ms); }
int64_t default_producer_expiration_ms() { return g_default_expiration_ms.load(); }

std::optional<ProducerEntry> Log::producer_entry(int64_t producer_id) {
  std::lock_guard lk(append_mu_);
  const ProducerEntry* e = producers_.entry(producer_id);
  if (!e) return std::nullopt;
  return *e;
}

size_t Log::producer_count() {
  std::lock_guard lk(append_mu_);
  return producers_.size();
}

Status Log::take_producer_snapshot() {
  std::lock_guard lk(append_mu_);
  return write_producer_snapshot(dir_, log_end_.load(), producers_.entries());
}

int Log::remove_expired_producers(int64_t now_ms) {
  int64_t exp = producer_expiration_ms_.load();
  if (exp < 0) exp = default_producer_expiration_ms();
  std::lock_guard lk(append_mu_);
  int n = producers_.remove_expired(now_ms, exp);
  if (n > 0) spdlog::info("{}: expired {} idle producer(s)", dir_, n);
  return n;
}

void Log::snapshot_producers_locked(int64_t offset) {
  Status s = write_producer_snapshot(dir_, offset, producers_.entries());
  if (!s) spdlog::warn("{}: producer snapshot at {}: {}", dir_, offset, s.message());
}

void Log::trim_producer_state_locked() {
  delete_producer_snapshots_below(dir_, segments_.begin()->first);
  producers_.evict_unretained(log_start_.load());
}

Status Log::rebuild_producer_state_locked(int64_t bound) {
  const int64_t end = log_end_.load();
  const int64_t first_base = segments_.begin()->first;
  // Snapshots past the end describe data that is gone; those below the first
  // segment describe data retention already removed.
  delete_producer_snapshots_above(dir_, end);
  delete_producer_snapshots_below(dir_, first_base);
  producers_.clear(first_base);
  int64_t from = first_base;
  auto snaps = list_producer_snapshots(dir_);
  for (auto it = snaps.rbegin(); it != snaps.rend(); ++it) {
    if (*it > bound) continue;
    auto entries = read_producer_snapshot(dir_, *it);
    if (!entries) {
      spdlog::warn("{}: ignoring producer snapshot {}: {}", dir_, *it, entries.status().message());
      delete_producer_snapshot(dir_, *it);
      continue;
    }
    producers_.load(std::move(*entries), *it);
    from = *it;
    break;
  }
  size_t replayed = 0;
  for (const auto& seg : segments_from(from)) {
    if (seg->next_offset() <= from || seg->empty()) continue;
    int64_t pos = 0;
    if (seg->base_offset() < from) {
      auto p = seg->position_of(from);
      if (!p) return p.status();
      if (!*p) continue;
      pos = **p;
    }
    BatchScanner sc(seg->fd(), pos, seg->size());
    for (;;) {
      auto step = sc.next(true);
      if (step == BatchScanner::Step::kIoError) return sc.io_status();
      if (step != BatchScanner::Step::kBatch) break;  // recovery already cut torn tails
      const auto& h = sc.header();
      if (h.producer_id >= 0 && h.last_offset() >= from) {
        // An abort replayed here may be missing from the .txnindex (crash
        // before the entry was written): append re-adds it, skipping duplicates.
        if (auto done = producers_.replay(producer_batch_of(h, sc.bytes()))) index_completed_txn_locked(*done);
        ++replayed;
      }
    }
  }
  producers_.set_map_end_offset(end);
  producers_.evict_unretained(log_start_.load());
  if (replayed > 0 || producers_.size() > 0)
    spdlog::info("{}: producer state: {} producer(s), snapshot at {}, {} batch(es) replayed", dir_,
                 producers_.size(), from, replayed);
  return Status::ok();
}

}  // namespace spool::storage
