// TxnCoordinator: Kafka's transaction coordinator (KIP-98, KIP-360, KIP-588)
// on a compacted internal topic (__transaction_state) reached through an
// OffsetsLog, writing COMMIT/ABORT markers through a TxnMarkerSender and
// taking producer ids from a ProducerIdSource.
//
// Contract with the broker's handlers: one method per API, plain parameters,
// each answering exactly once through its callback (possibly later, from the
// log's flusher thread). Error codes are Kafka's; fencing is always
// PRODUCER_FENCED here and handlers map it to INVALID_PRODUCER_EPOCH for
// request versions that predate KIP-588. Topic existence is checked by the
// handler; the coordinator trusts the partitions it is given.
//
// Id -> partition: abs(Java String.hashCode(transactional_id)) % partitions.
// While a partition loads: COORDINATOR_LOAD_IN_PROGRESS; not loaded (or
// unloaded): NOT_COORDINATOR.
//
// State machine: Empty -> Ongoing -> PrepareCommit|PrepareAbort ->
// CompleteCommit|CompleteAbort -> Ongoing ...; Dead when an idle id expires.
// Each transition is written to the log before it takes effect and before
// the client is answered; a write in flight makes every other request for
// that id answer CONCURRENT_TRANSACTIONS. After PrepareX is durable the
// client is answered, markers go to every partition (retried with backoff
// until each is written) and then CompleteX is written.
//
// Timers: one background thread (Options::start_background) aborts Ongoing
// transactions past their timeout (with an epoch bump that fences the
// producer), expires idle ids and retries markers; tests turn it off and call
// run_periodic_tasks() on a fake clock instead.
// Threading: every method is thread-safe (one coordinator lock, never held
// while calling the log, the marker sender, the id source or a callback).
// Callbacks must not block.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/offsets_log.h"
#include "coordinator/txn/txn_metadata.h"
#include "coordinator/txn/txn_ports.h"
#include "protocol/error_code.h"
#include "util/clock.h"

namespace spool::coordinator {

using protocol::ErrorCode;

struct TxnCoordinatorOptions {
  int32_t transaction_max_timeout_ms = 900000;                   // transaction.max.timeout.ms
  int64_t transactional_id_expiration_ms = 604800000;            // transactional.id.expiration.ms
  int64_t abort_timed_out_interval_ms = 10000;   // transaction.abort.timed.out.transaction.cleanup.interval.ms
  int64_t remove_expired_interval_ms = 3600000;  // transaction.remove.expired.transaction.cleanup.interval.ms
  int64_t marker_retry_backoff_ms = 100;
  // AddOffsetsToTxn adds the group's partition of this topic.
  std::string offsets_topic = "__consumer_offsets";
  std::function<int32_t(const std::string& group_id)> group_partition_for;  // null: partition 0
  // Time source; its wall scale stamps and times transactions (timeouts,
  // expiry, retries), as Kafka's time.milliseconds(). null: system_clock().
  std::shared_ptr<Clock> clock;
  bool start_background = true;
};

struct InitProducerIdResult {
  ErrorCode error = ErrorCode::kNone;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

struct DescribedTxn {
  ErrorCode error = ErrorCode::kNone;
  std::string transactional_id;
  std::string state;
  int32_t txn_timeout_ms = 0;
  int64_t txn_start_timestamp = -1;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  std::vector<TxnPartition> partitions;
};

struct ListedTxn {
  std::string transactional_id;
  int64_t producer_id = -1;
  std::string state;
};

// ListTransactions filters (KIP-664, KIP-994, KIP-1152). Empty lists and
// duration < 0 match everything; unknown state names are reported back and
// match nothing; a non-empty id_pattern must match the whole id.
struct ListTxnsFilter {
  std::vector<std::string> states;
  std::vector<int64_t> producer_ids;
  int64_t min_duration_ms = -1;  // only transactions started longer ago than this
  std::optional<std::string> id_pattern;
};

// Per requested partition: NONE if it is in the open transaction, else the
// reason (Kafka's handleVerifyPartitionsInTransaction).
struct VerifiedPartition {
  TxnPartition partition;
  ErrorCode error = ErrorCode::kNone;
};

struct ListTxnsResult {
  ErrorCode error = ErrorCode::kNone;
  std::vector<std::string> unknown_state_filters;
  std::vector<ListedTxn> transactions;  // sorted by id
};

class TxnCoordinator {
 public:
  TxnCoordinator(OffsetsLog& log, TxnMarkerSender& markers, ProducerIdSource& ids, TxnCoordinatorOptions options);
  ~TxnCoordinator();  // shutdown()
  TxnCoordinator(const TxnCoordinator&) = delete;
  TxnCoordinator& operator=(const TxnCoordinator&) = delete;

  int32_t partition_for(const std::string& transactional_id) const;

  // Replays `partition` and takes ownership of its ids; transactions found in
  // PrepareCommit/PrepareAbort get their markers (re)sent and are completed.
  // coordinator_epoch goes into every marker (one node: fixed).
  Status load_partition(int32_t partition, int32_t coordinator_epoch = 0);
  void unload_partition(int32_t partition);
  bool is_loading(int32_t partition) const;
  // COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR or NONE.
  ErrorCode coordinator_status(const std::string& transactional_id) const;

  // expected: KIP-360 (producer id, epoch) of a producer re-initialising
  // (InitProducerId v3+ with both set), nullopt otherwise.
  void init_producer_id(const std::string& transactional_id, int32_t txn_timeout_ms,
                        std::optional<std::pair<int64_t, int16_t>> expected,
                        std::function<void(InitProducerIdResult)> done);
  // One error for all partitions (Kafka's behaviour).
  void add_partitions(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                      std::vector<TxnPartition> partitions, std::function<void(ErrorCode)> done);
  void add_offsets(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                   const std::string& group_id, std::function<void(ErrorCode)> done);
  void end_txn(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch, bool commit,
               std::function<void(ErrorCode)> done);

  std::vector<DescribedTxn> describe(const std::vector<std::string>& transactional_ids);
  // Empty filters match everything; unknown state names are reported back
  // and match nothing (Kafka's ListTransactions).
  ListTxnsResult list(const std::vector<std::string>& state_filters, const std::vector<int64_t>& producer_id_filters);
  // INVALID_REGULAR_EXPRESSION for a pattern that does not compile (see
  // txn_coordinator.cc for the regex dialect).
  ListTxnsResult list(const ListTxnsFilter& filter);

  // KIP-890 verification (AddPartitionsToTxn v4+ VerifyOnly, TxnOffsetCommit):
  // changes nothing. One error for every partition (INVALID_REQUEST,
  // NOT_COORDINATOR, INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
  // CONCURRENT_TRANSACTIONS while the transaction is being prepared), else
  // NONE or TRANSACTION_ABORTABLE (not in the transaction) per partition.
  std::vector<VerifiedPartition> verify_partitions(const std::string& transactional_id, int64_t producer_id,
                                                   int16_t producer_epoch, const std::vector<TxnPartition>& partitions);

  // What the background thread does when due; returns the number of
  // transactions aborted / ids expired / marker jobs started.
  int abort_timed_out_transactions();
  int expire_transactional_ids();
  int retry_due_markers();
  // All three, each only when its interval has passed (tests: force=true).
  void run_periodic_tasks(bool force = false);

  // Current committed metadata of an id (tests, tools).
  std::optional<TxnMetadata> metadata(const std::string& transactional_id) const;

  void shutdown();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace spool::coordinator
