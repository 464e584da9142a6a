// TxnCoordinator::Impl: state shared by txn_coordinator.cc (partitions,
// loading, describe/list, background tasks), txn_requests.cc (the client
// APIs) and txn_markers_flow.cc (persisting transitions, markers, completion).
// Lifetime: callbacks handed to the log and the marker sender hold a
// shared_ptr to Impl, so a late answer after shutdown touches live memory
// (and finds shutting_down set).
// Locking: `mu` guards everything below it. It is never held while calling
// the log, the marker sender, the producer id source or a callback; a
// TxnEntry's `pending` flag (set under mu) serialises writes of one id.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "coordinator/txn/txn_coordinator.h"

namespace spool::coordinator {

// Java's String.hashCode (defined with the group coordinator, which maps
// group ids to partitions the same way).
int32_t java_string_hash(const std::string& s);

// Log append failures mapped as Kafka's TransactionStateManager does.
ErrorCode txn_append_error(const Status& s);

struct TxnEntry {
  std::string id;  // immutable: readable without mu
  TxnMetadata md;  // committed (durable) state
  int32_t partition = 0;
  bool pending = false;  // a write of this id is in flight
};

// A marker round (or the CompleteX write after it) to retry once due.
struct MarkerJob {
  std::shared_ptr<TxnEntry> entry;
  TxnMarker marker;              // partitions still to be written
  bool write_complete = false;   // markers are done; the CompleteX write failed
  int64_t due_ms = 0;
};

struct TxnCoordinator::Impl : std::enable_shared_from_this<TxnCoordinator::Impl> {
  Impl(OffsetsLog& log, TxnMarkerSender& markers, ProducerIdSource& ids,
       TxnCoordinatorOptions opts);

  OffsetsLog& log;
  TxnMarkerSender& marker_sender;
  ProducerIdSource& ids;
  TxnCoordinatorOptions opts;
  const std::shared_ptr<Clock> clock;  // opts.clock or the real clock

  mutable std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<TxnEntry>> txns;
  std::map<int32_t, int32_t> owned;  // partition -> coordinator epoch
  std::set<int32_t> loading;
  std::vector<MarkerJob> retries;
  bool shutting_down = false;
  int64_t last_abort_check = 0;
  int64_t last_expire_check = 0;
  std::condition_variable cv;  // wakes the background thread
  std::thread background;

  int64_t now() const;
  int32_t partition_for(const std::string& id) const;
  // Under mu.
  ErrorCode status_locked(const std::string& id) const;
  std::shared_ptr<TxnEntry> find_locked(const std::string& id) const;
  bool is_current_locked(const std::shared_ptr<TxnEntry>& e) const;

  // ---- txn_markers_flow.cc (called without mu; e->pending already set) ----
  // Writes `target` for e's id; on success it becomes e's committed state
  // (Dead: a tombstone, and the id is forgotten). then(error) runs once.
  void persist(const std::shared_ptr<TxnEntry>& e, TxnMetadata target, std::function<void(ErrorCode)> then);
  // Ongoing -> PrepareX (target), answer `then`, then markers and CompleteX.
  void prepare_end(const std::shared_ptr<TxnEntry>& e, TxnMetadata target, std::function<void(ErrorCode)> then);
  // Sends the markers of e's PrepareX state (after a load, or a retry).
  void start_markers(const std::shared_ptr<TxnEntry>& e);
  void send_markers(const std::shared_ptr<TxnEntry>& e, TxnMarker marker);
  void write_complete(const std::shared_ptr<TxnEntry>& e);
  void schedule_retry(MarkerJob job);
  // The epoch-bumping abort of an Ongoing transaction (timeout or a new
  // producer with the same id): PrepareAbort at epoch + 1, last epoch -1.
  TxnMetadata fence_abort_target(const TxnMetadata& md) const;
};

}  // namespace spool::coordinator
