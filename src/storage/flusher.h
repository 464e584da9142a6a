// Flusher: the one background thread that fsyncs logs (group commit).
//
// await_durable() parks a callback until every offset <= last_offset of the
// log is on disk. Each pass takes all parked waiters, fsyncs each distinct
// log once, and answers them; appends that arrive while a pass runs are
// covered by the next pass, so N concurrent acks=all producers cost ~1
// fdatasync per log per pass, not N. mark_dirty() feeds Kafka's
// flush.messages / flush.ms policy. Callbacks run on the flusher thread and
// must not block. Logs with durable.writes=false are answered without a
// sync (still on the flusher thread). Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "util/status.h"

namespace spool::storage {

class Log;

class Flusher {
 public:
  Flusher() = default;
  ~Flusher();
  Flusher(const Flusher&) = delete;
  Flusher& operator=(const Flusher&) = delete;

  void start();
  // Runs a last pass for parked waiters, then joins. Waiters arriving after
  // stop() are answered with an error at once.
  void stop();

  void await_durable(std::shared_ptr<Log> log, int64_t last_offset, std::function<void(Status)> done);
  void mark_dirty(std::shared_ptr<Log> log);

  uint64_t passes() const;  // completed passes (tests)

 private:
  struct Waiter {
    std::shared_ptr<Log> log;
    int64_t last_offset;
    std::function<void(Status)> done;
  };
  void run();
  // One pass over `waiters` plus the policy-due logs; returns waiters to retry.
  std::vector<Waiter> pass(std::vector<Waiter> waiters, const std::vector<std::shared_ptr<Log>>& due);
  std::vector<std::shared_ptr<Log>> due_logs_locked(int64_t now, int64_t& next_due);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Waiter> waiters_;
  std::map<Log*, std::weak_ptr<Log>> dirty_;
  bool running_ = false;
  bool stopping_ = false;
  uint64_t passes_ = 0;
  bool failed_ = false;  // last pass hit a flush error (flusher thread only)
  std::thread thread_;
};

}  // namespace spool::storage
