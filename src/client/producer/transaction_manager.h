// TransactionManager: the transactional half of the native producer (Kafka's
// TransactionManager for transaction.version 1: AddPartitionsToTxn before a
// partition's first batch, EndTxn at the end).
//
// States: uninitialized -> (init_transactions) ready -> (begin_transaction)
// in transaction -> (commit/abort) ready. An error that spoils only the
// current transaction (a batch that failed for good, a topic it may not
// write) makes it abortable: commit fails with that error and only abort
// works; the producer stays usable after the abort (with a fresh epoch from
// InitProducerId, so no sequence of the failed batches lingers). A fencing
// error (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH, TRANSACTIONAL_ID_
// AUTHORIZATION_FAILED, a newer producer took the transactional id) is
// fatal: every later call fails and the producer must be closed.
//
// The blocking calls (init, begin, send_offsets, commit, abort) run on the
// application's thread, look up the transaction coordinator
// (FindCoordinator, key type 1) and retry Kafka's retriable answers
// (COORDINATOR_LOAD_IN_PROGRESS, CONCURRENT_TRANSACTIONS, NOT_COORDINATOR
// and COORDINATOR_NOT_AVAILABLE after a new lookup) until their timeout.
// The sender's thread calls poll(), which adds the partitions that send()
// named (one AddPartitionsToTxn in flight at a time) and may_send(), which
// holds back a partition's batches until the coordinator has added it.
//
// Threading: every method may be called from any thread (one mutex; no
// call is made under it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "client/client_metadata.h"
#include "client/offset_and_metadata.h"
#include "client/producer/idempotence_state.h"
#include "client/request_sender.h"
#include "util/clock.h"
#include "util/topic_partition.h"

namespace spool::client {

struct TransactionOptions {
  std::string transactional_id;
  int32_t transaction_timeout_ms = 60000;
  int32_t request_timeout_ms = 30000;
  int64_t retry_backoff_ms = 100;
  std::shared_ptr<Clock> clock;
};

class TransactionManager {
 public:
  enum class State { kUninitialized, kReady, kInTransaction, kCommitting, kAborting, kAbortable, kFatal };

  TransactionManager(TransactionOptions options, RequestSender& network, ClientMetadata& metadata,
                     IdempotenceState& idem);

  Status init_transactions(int64_t timeout_ms);
  Status begin_transaction();
  Status send_offsets_to_transaction(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                                     const ConsumerGroupMetadata& group, int64_t timeout_ms);
  // `flush` sends everything queued and waits for the answers (the
  // producer's flush), before EndTxn.
  Status commit_transaction(int64_t timeout_ms, const std::function<bool(int64_t)>& flush);
  // `drop_queued` fails what is not sent yet; `await_sent` waits for the
  // answers to what is in flight.
  Status abort_transaction(int64_t timeout_ms, const std::function<void()>& drop_queued,
                           const std::function<bool(int64_t)>& await_sent);

  // send(): may a record be sent now? Registers its partition.
  Status on_send(const TopicPartition& tp);
  // The sender's thread.
  bool may_send(const TopicPartition& tp) const;
  void poll();
  // A batch of the transaction failed for good.
  void on_batch_failed(const TopicPartition& tp, const Status& why);

  State state() const;
  // Java's name of a state ("IN_TRANSACTION"), for messages.
  static const char* state_name(State s);
  Status last_error() const;

 private:
  Result<Node> coordinator(int64_t deadline_ms);
  void forget_coordinator();
  // The sender's lookup: no wait; the answer sets coordinator_.
  void find_coordinator_async();
  Status end_transaction(bool commit, int64_t deadline_ms);
  Status bump_epoch(int64_t deadline_ms);
  Status init_producer_id(int64_t deadline_ms, bool keep_id);
  Status add_offsets(const ConsumerGroupMetadata& group, int64_t deadline_ms);
  Status commit_offsets(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                        const ConsumerGroupMetadata& group, int64_t deadline_ms);
  void set_error_locked(State s, const Status& why);
  Status check_state_locked(const char* op) const;
  void sleep_backoff() const;
  int64_t now() const { return clock_->monotonic_ms(); }

  TransactionOptions options_;
  std::shared_ptr<Clock> clock_;
  RequestSender& network_;
  ClientMetadata& metadata_;
  IdempotenceState& idem_;

  mutable std::mutex mu_;
  State state_ = State::kUninitialized;
  Status error_;
  std::optional<Node> coordinator_;
  std::set<TopicPartition> pending_;  // named by send(), not added yet
  std::set<TopicPartition> added_;
  bool add_in_flight_ = false;
  bool find_in_flight_ = false;
  int64_t next_add_ms_ = 0;
  bool offsets_added_ = false;
  bool needs_bump_ = false;  // a failed batch left sequences behind
};

}  // namespace spool::client
