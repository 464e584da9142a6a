// LogManager: owns every partition log in every log.dir.
//
// open() creates missing dirs, checks meta.properties (meta_properties.h:
// another broker's or cluster's dir is refused), reads the
// recovery-point and log-start-offset checkpoints (garbage = absent, i.e.
// recover everything), recovers each `<topic>-<partition>` dir (in
// `recovery_threads` threads), removes the clean-shutdown marker, and starts
// the background threads: the Flusher, a housekeeper that applies
// retention and writes checkpoints on their intervals, and (log.cleaner.enable)
// a cleaner thread that compacts `cleanup.policy=compact` logs whose
// cleanable_info() is due, one at a time, then sleeps log.cleaner.backoff.ms
// when none is. The cleaner checkpoint (cleaner-offset-checkpoint) is read at
// open and written with the other checkpoints. shutdown() stops them,
// flushes and closes every log, writes checkpoints and the marker (not in an
// offline dir: see fail_dir).
// Thread-safe: the log map is guarded by a mutex; logs are shared_ptrs that
// stay usable (read-only after remove()) while callers hold them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/checkpoint.h"
#include "storage/flusher.h"
#include "storage/log.h"
#include "storage/log_config.h"

namespace spool::storage {

class LogManager {
 public:
  struct Options {
    std::vector<std::string> log_dirs;
    int64_t retention_check_interval_ms = 300000;
    int64_t flush_checkpoint_interval_ms = 60000;
    int32_t broker_id = 0;
    LogConfig defaults;
    int recovery_threads = 1;
    // The cluster's id (/cluster/id); empty: keep the one on disk (or make one up).
    std::string cluster_id;
    // Per-partition config at open time; defaults when unset or nullopt.
    std::function<LogConfig(const std::string& topic)> config_for;
    bool cleaner_enable = true;                      // log.cleaner.enable
    int64_t cleaner_backoff_ms = 15000;              // log.cleaner.backoff.ms
    int64_t cleaner_dedupe_buffer_bytes = 134217728; // log.cleaner.dedupe.buffer.size
  };

  static Result<std::unique_ptr<LogManager>> open(Options opts);
  ~LogManager();

  std::vector<std::shared_ptr<Log>> logs() const;
  std::shared_ptr<Log> get(const std::string& topic, int32_t partition) const;
  // Idempotent: an existing log gets `config` applied and is returned.
  Result<std::shared_ptr<Log>> create(const std::string& topic, int32_t partition, const LogConfig& config);
  // Renames the dir to `<dir>.<id>-delete` (and syncs its log dir), then
  // removes it, then rewrites the checkpoints without it. An unknown
  // partition is an error (code 3).
  Status remove(const std::string& topic, int32_t partition);
  // remove() for every partition of `topic` in [0, count) that has a log,
  // with one log-dir sync and one checkpoint rewrite for all of them: a
  // topic of n partitions goes in O(n), not with n rewrites of checkpoints
  // of up to n lines (a CreateTopics of 20000 partitions that ran out of
  // file descriptors took hours to undo; found by fuzz_dispatcher). Every
  // partition is tried; failures are logged and the first is returned.
  Status remove_topic(const std::string& topic, int32_t count);
  // The same for any set of partitions (StopReplica with delete). `each`,
  // when given, gets one status per entry of `partitions`, in order (ok for
  // a partition without a log: nothing to remove).
  Status remove_partitions(const std::vector<TopicPartition>& partitions, std::vector<Status>* each = nullptr);
  Flusher& flusher() { return flusher_; }
  const std::string& cluster_id() const { return cluster_id_; }

  // Log-dir failure (KIP-112). fail_dir() takes `root` offline, once: every
  // log in it goes offline (Log::take_offline: KAFKA_STORAGE_ERROR from then
  // on), no new log is placed there, its checkpoints and clean-shutdown
  // marker are no longer written, and the listener is told (on the failing
  // thread: it must not block). A log's own I/O failure (Log's failure
  // handler) calls it. Nothing brings a dir back while the process runs.
  using DirFailureListener = std::function<void(const std::string& root, const std::string& why)>;
  void set_dir_failure_listener(DirFailureListener listener);
  void fail_dir(const std::string& root, const std::string& why);
  bool dir_offline(const std::string& root) const;
  std::vector<std::string> offline_dirs() const;
  const std::vector<std::string>& log_dirs() const { return opts_.log_dirs; }

  void shutdown();
  // Stops the background threads and nothing else: no flush, no checkpoint,
  // no marker (what a crash leaves behind). For crash tests.
  void halt();
  // Direct entry points for tests and admin paths.
  Status run_retention_once();
  // Cleans every compacted log that is due (dirty ratio, max lag, delete
  // horizon) and writes the checkpoints; returns how many were cleaned.
  Result<int> run_cleaner_once();
  Status write_checkpoints();
  // log.cleaner.backoff.ms while running (dynamic broker config): the next
  // idle wait of the cleaner uses it. Any thread.
  void set_cleaner_backoff_ms(int64_t ms) { cleaner_backoff_ms_.store(ms, std::memory_order_relaxed); }

 private:
  explicit LogManager(Options opts) : opts_(std::move(opts)), cleaner_backoff_ms_(opts_.cleaner_backoff_ms) {}
  Status init();
  void housekeeping();
  void cleaner_loop();
  Result<int> clean_due_logs(KeyOffsetMap& map);
  void stop_threads();
  struct Entry {
    std::shared_ptr<Log> log;
    std::string root;
  };

  void arm_failure_handler(Log& log, const std::string& root);

  Options opts_;
  std::atomic<int64_t> cleaner_backoff_ms_;
  std::set<std::string> offline_dirs_;  // guarded by mu_
  DirFailureListener dir_failure_listener_;  // guarded by mu_
  std::string cluster_id_;
  mutable std::mutex mu_;
  std::map<TopicPartition, Entry> logs_;
  Flusher flusher_;
  std::mutex checkpoint_mu_;

  std::mutex hk_mu_;
  std::condition_variable hk_cv_;
  bool hk_stop_ = false;
  std::thread housekeeper_;
  std::thread cleaner_;
  std::mutex cleaner_mu_;
  std::atomic<bool> cleaner_abort_{false};  // one pass at a time (thread vs run_cleaner_once)
  KeyOffsetMap cleaner_map_{134217728};
  bool shut_down_ = false;
};

}  // namespace spool::storage
