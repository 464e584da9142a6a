// Log: one partition's ordered set of segments in `<log.dir>/<topic>-<p>/`.
//
// Threading: appends, rolls, truncation and retention are serialized by an
// internal append mutex; reads run concurrently with them (they copy segment
// pointers under a shared lock and do their I/O without any lock). The end,
// start and flushed offsets are atomics readable from any thread. flush()
// fsyncs without holding the append mutex, so appends continue during a sync
// (group commit builds on that). No method blocks on another broker.
// Failure: every error is a Status; I/O errors carry KAFKA_STORAGE_ERROR.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "storage/cleaner.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log_config.h"
#include "storage/producer_state.h"
#include "storage/segment.h"
#include "util/file_region.h"
#include "util/status.h"

namespace spool::storage {

class Flusher;

struct RegionRead {
  std::vector<FileRegion> regions;
  size_t bytes = 0;          // sum of the region lengths
  int64_t next_offset = -1;  // after the last batch read (-1: nothing read)
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
};

// The producer fields of a stored batch, with the marker of a control batch
// read from its record (`bytes` = the whole batch).
ProducerBatch producer_batch_of(const record::BatchHeader& h, ByteSpan bytes);

// producer.id.expiration.ms for logs that were not given their own value
// (the broker sets it once at start; default Kafka's 86400000).
void set_default_producer_expiration_ms(int64_t ms);
int64_t default_producer_expiration_ms();

// Clamps values the storage engine cannot honour (segment.bytes above 2 GiB, ...).
LogConfig normalize_config(LogConfig c);

class Log : public std::enable_shared_from_this<Log> {
 public:
  struct OpenOptions {
    std::string dir;            // the partition directory
    std::string topic;
    int32_t partition = 0;
    LogConfig config;
    int64_t recovery_point = 0;     // from recovery-point-offset-checkpoint
    int64_t log_start_offset = 0;   // from log-start-offset-checkpoint
    bool clean_shutdown = false;    // skip the recovery scan
    // The caller makes everything a recovery wrote durable itself before
    // the log is used (LogManager: one syncfs per log dir instead of a
    // few fsyncs per recovered partition).
    bool defer_recovery_sync = false;
  };
  // Creates the directory if needed, clears stray files, loads or recovers
  // every segment (see DESIGN/brief: scan after the recovery point, truncate
  // torn tails, rebuild indexes).
  static Result<std::shared_ptr<Log>> open(OpenOptions opts);
  ~Log();

  // `batches`: validated v2 batches back to back. Assigns offsets from the
  // log end offset by rewriting base_offset (and leader epoch, and
  // LogAppendTime + CRC when configured) in place, rolls if needed, writes,
  // updates indexes. No fsync. record_count_hint is unused (offsets come
  // from the batch headers).
  // Idempotent producers (producer_id >= 0) are checked in the same critical
  // section (see storage/producer_state.h): a sequence/epoch error fails the
  // whole append with its Kafka code and writes nothing; a retried batch that
  // duplicates a cached one returns that batch's original offsets and writes
  // nothing either (Kafka answers a duplicate with success).
  Result<AppendResult> append(std::span<uint8_t> batches, int32_t record_count_hint, int32_t leader_epoch);
  // Replica path: batches keep their offsets and epochs; the first must start
  // at or after the log end offset — except on an empty log whose end lies
  // inside the first batch (the leader's log start, moved by DeleteRecords,
  // falls mid-batch): the log then restarts at that batch's base and takes it
  // whole, and the caller raises the log start back to the leader's (Kafka's
  // Partition.appendRecordsToFollowerOrFutureReplica does the same).
  Result<AppendResult> append_as_follower(std::span<const uint8_t> batches);

  // Whole batches from `offset` up to max_bytes (the first taken whole with
  // min_one) and below max_offset (the high watermark or LSO). Errors:
  // OFFSET_OUT_OF_RANGE outside [log start, log end], storage errors.
  Result<ReadResult> read(int64_t offset, int32_t max_bytes, int64_t max_offset, bool min_one) const;
  // The same batches as read() — the same bounds, decided the same way —
  // as byte ranges of the segment files (one per segment touched) instead
  // of bytes: the zero-copy Fetch path. Each region keeps its segment (and
  // so its open file) alive, so it stays sendable after retention, a
  // cleaner swap or topic deletion unlinked the file. Only batch headers
  // are read.
  Result<RegionRead> read_regions(int64_t offset, int32_t max_bytes, int64_t max_offset, bool min_one) const;

  int64_t log_start_offset() const { return log_start_.load(std::memory_order_acquire); }
  int64_t log_end_offset() const { return log_end_.load(std::memory_order_acquire); }
  int64_t flushed_offset() const { return flushed_.load(std::memory_order_acquire); }
  int64_t size_bytes() const;
  size_t segment_count() const;
  std::vector<int64_t> segment_base_offsets() const;

  // (offset, timestamp) of the first record with timestamp >= ts.
  std::optional<std::pair<int64_t, int64_t>> offset_for_timestamp(int64_t ts) const;
  // (offset, timestamp) of the first record carrying the largest timestamp
  // (ListOffsets MAX_TIMESTAMP, -3): a record inside its batch, not the
  // batch's last offset. Not clamped to the log start offset (as Kafka).
  std::optional<std::pair<int64_t, int64_t>> max_timestamp_offset() const;

  // OffsetForLeaderEpoch: (epoch, end offset), (-1, -1) when unknown.
  std::pair<int32_t, int64_t> end_offset_for_epoch(int32_t epoch) const;
  std::optional<int32_t> latest_epoch() const { return epochs_.latest_epoch(); }

  Status flush();
  // Deletes whole non-active segments past retention.ms / retention.bytes or
  // below the log start offset; moves the log start offset. Returns the
  // number of segments deleted.
  Result<int> apply_retention(int64_t now_ms);
  // DeleteRecords: moves the log start offset up (<= log end) and drops
  // segments entirely below it.
  Status advance_log_start_offset(int64_t offset);
  // Follower truncation: drops every batch at/after `offset` (whole batches,
  // so the log end may land below `offset`: fetch from log_end_offset()
  // afterwards). At or past the log end nothing is cut, but epochs starting
  // at the log end (a stamp of begin_leader_epoch never written) are dropped.
  Status truncate_to(int64_t offset);

  // --- replica support (log_retention.cc) ---
  // Follower whose log ends below the leader's log start (Kafka's
  // truncateFullyAndStartAt): every segment, producer snapshot and epoch
  // goes; the log restarts empty with start = end = flushed = `offset`.
  Status truncate_fully_and_start_at(int64_t offset);
  // Becoming leader of `epoch`: stamps (epoch, log end) into the epoch cache
  // now, before any batch of the epoch exists, so a follower holding a later
  // epoch than any batch here still gets a useful OffsetForLeaderEpoch answer
  // (KIP-279). Ignored unless newer than the latest epoch. Returns the log
  // end (the epoch's start offset). In memory until the next flush/close.
  int64_t begin_leader_epoch(int32_t epoch);
  // A copy of the leader-epoch cache, oldest first (replica/local_log_view.h).
  std::vector<EpochEntry> epoch_entries() const { return epochs_.entries(); }

  // --- idempotent producers (producer state; log_producers.cc) ---
  // Copy of one producer's state here, if any.
  std::optional<ProducerEntry> producer_entry(int64_t producer_id);
  size_t producer_count();
  // Writes `<log end>.snapshot` now (normally done on roll and close).
  Status take_producer_snapshot();
  // Drops idle producers (producer.id.expiration.ms); also part of
  // apply_retention. Returns how many were removed.
  int remove_expired_producers(int64_t now_ms);
  void set_producer_expiration_ms(int64_t ms) { producer_expiration_ms_.store(ms); }

  // --- transactions (log_txn.cc; see storage/producer_state.h, txn_index.h) ---
  // Appends a COMMIT/ABORT control batch for the producer at the log end:
  // closes its open transaction (an abort is recorded in the segment's
  // .txnindex). Fenced markers fail with INVALID_PRODUCER_EPOCH or
  // TRANSACTION_COORDINATOR_FENCED and write nothing. No fsync.
  Result<AppendResult> append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                         int32_t coordinator_epoch, int32_t leader_epoch);
  // min(first offset of an open or not-yet-replicated transaction, hw);
  // `hw` also settles completed transactions whose marker is below it.
  int64_t last_stable_offset(int64_t high_watermark);
  size_t ongoing_txn_count();
  std::vector<ProducerEntry> producer_entries();
  // Aborted transactions overlapping [from, upper_bound) (read_committed fetch).
  std::vector<AbortedTxn> collect_aborted_txns(int64_t from, int64_t upper_bound) const;

  // --- compaction (cleaner.cc; see storage/cleaner.h) ---
  // The cleaner checkpoint: offsets below it are clean. LogManager loads and
  // persists it (cleaner-offset-checkpoint).
  int64_t first_dirty_offset() const { return first_dirty_.load(std::memory_order_acquire); }
  void set_first_dirty_offset(int64_t offset) { first_dirty_.store(offset, std::memory_order_release); }
  CleanableInfo cleanable_info(int64_t now_ms) const;
  // One cleaner pass, regardless of the dirty ratio (the scheduler checks
  // cleanable_info().due). No-op unless cleanup.policy has compact.
  Result<CleanStats> clean(int64_t now_ms, const CleanOptions& options = {});

  void update_config(const LogConfig& config);
  LogConfig config() const;
  const std::string& topic() const { return topic_; }
  int32_t partition() const { return partition_; }
  const std::string& dir() const { return dir_; }

  // Flush policy bookkeeping, read by the Flusher.
  int64_t last_flush_ms() const { return last_flush_ms_.load(std::memory_order_acquire); }
  int64_t unflushed_messages() const { return log_end_offset() - flushed_offset(); }

  // Seals the active segment (trims indexes), persists the epoch cache;
  // later appends fail. Does not fsync data: call flush() first.
  Status close();
  bool closed() const { return closed_.load(); }

  // Log-dir failure (KIP-112). A failed fsync, or a write that failed for
  // any other reason than a full disk (is_disk_full: nothing of it was
  // done, so the log stays usable), is reported once to the failure
  // handler (LogManager: it takes the whole log dir offline). The handler
  // runs on the failing thread, with none of this log's locks held.
  // take_offline() makes every later append, read, flush, truncation and
  // log-start move fail with KAFKA_STORAGE_ERROR; nothing undoes it while
  // the process runs (after a failed fsync the page cache and the disk may
  // disagree, and a retried fsync would report success: PostgreSQL's
  // "fsyncgate"). Set the handler before the log is shared.
  void set_failure_handler(std::function<void(const std::string& why)> handler) {
    failure_handler_ = std::move(handler);
  }
  void take_offline() { offline_.store(true, std::memory_order_release); }
  bool offline() const { return offline_.load(std::memory_order_acquire); }

  // Wiring and test hooks.
  void set_flusher(Flusher* f) { flusher_.store(f); }
  void set_clock(std::function<int64_t()> clock);

 private:
  Log() : epochs_("") {}
  explicit Log(const OpenOptions& o);
  Status load(const OpenOptions& o);
  Status clean_stray_files();
  // Replaces every segment with one empty segment at `offset` (start = end =
  // offset) and forgets producer state. Caller holds append_mu_.
  Status reset_locked(int64_t offset);
  // reset_locked plus what a full truncation forgets (epochs, flushed, dirty).
  Status truncate_fully_locked(int64_t offset);
  Result<std::shared_ptr<Segment>> roll_locked(int64_t base_offset);
  std::vector<std::shared_ptr<Segment>> segments_from(int64_t offset) const;
  std::vector<std::shared_ptr<Segment>> all_segments() const;
  std::shared_ptr<Segment> active_locked() const { return segments_.rbegin()->second; }
  // Removes the given (non-active) segments from the map; caller unlinks.
  void drop_segments_locked(const std::vector<std::shared_ptr<Segment>>& victims);
  Result<AppendResult> append_leader(std::span<uint8_t> batches, int32_t leader_epoch);
  Result<AppendResult> append_follower(std::span<const uint8_t> batches);
  Result<AppendResult> append_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                     int32_t coordinator_epoch, int32_t leader_epoch);
  // An I/O failure (see set_failure_handler) goes to the handler; others
  // (validation, a full disk) do not. Call with no lock held.
  void note_failure(const Status& s);
  Status offline_error() const;
  Result<AppendResult> append_locked(std::span<uint8_t> batches, std::vector<BatchInfo>& infos,
                                     int64_t first_offset, int64_t now, int64_t append_time);
  int64_t now() const;
  void notify_flusher();
  // Producer state from the newest valid snapshot at or below `bound`, then
  // the batches after it up to the log end (recovery, truncation).
  Status rebuild_producer_state_locked(int64_t bound);
  void snapshot_producers_locked(int64_t offset);
  // An aborted transaction goes into the .txnindex of the segment holding its marker.
  void index_completed_txn_locked(const CompletedTxn& txn);
  // After segments below the log start went: their snapshots and producers go too.
  void trim_producer_state_locked();
  Result<bool> swap_in_cleaned(const std::vector<std::shared_ptr<Segment>>& olds,
                               const std::vector<int64_t>& old_sizes, const std::shared_ptr<Segment>& cleaned);

  std::string dir_;
  std::string topic_;
  int32_t partition_ = 0;

  mutable std::mutex config_mu_;
  LogConfig config_;

  std::mutex append_mu_;
  mutable std::shared_mutex segs_mu_;  // guards segments_ (writers also hold append_mu_)
  std::map<int64_t, std::shared_ptr<Segment>> segments_;
  std::vector<std::shared_ptr<Segment>> unsynced_sealed_;  // rolled since the last flush
  bool dir_dirty_ = false;

  std::mutex flush_mu_;
  std::atomic<int64_t> log_start_{0};
  std::atomic<int64_t> log_end_{0};
  std::atomic<int64_t> flushed_{0};
  std::atomic<int64_t> last_flush_ms_{0};
  std::atomic<bool> closed_{false};
  std::atomic<bool> offline_{false};
  std::atomic<bool> failure_reported_{false};
  std::function<void(const std::string&)> failure_handler_;
  std::atomic<uint64_t> truncations_{0};  // a flush racing a truncation must not advance
  std::atomic<Flusher*> flusher_{nullptr};
  LeaderEpochCache epochs_;
  std::function<int64_t()> clock_;

  ProducerStateManager producers_;  // guarded by append_mu_
  std::atomic<int64_t> producer_expiration_ms_{-1};  // -1: default_producer_expiration_ms()

  std::mutex clean_mu_;  // one cleaner pass at a time
  std::atomic<int64_t> first_dirty_{0};
  // Earliest delete horizon of tombstones kept by the last pass (in memory
  // only: after a restart the next dirty pass finds them again).
  std::atomic<int64_t> next_delete_horizon_{INT64_MAX};
};

}  // namespace spool::storage
