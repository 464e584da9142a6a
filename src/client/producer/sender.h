// Sender: the native producer's I/O loop (Kafka's Sender). One thread runs
// run_once() over and over; each pass:
//   1. handles the answers that arrived (the RequestSender's callbacks only
//      post them to this loop's mailbox, so all producer state is touched
//      by this thread alone);
//   2. gets a producer id (InitProducerId) when idempotence needs one, and
//      applies a requested epoch bump (idempotence_state.h);
//   3. refreshes metadata when due (client_metadata.h);
//   4. asks the accumulator which leaders are ready, drains their batches
//      (at most max.in.flight.requests.per.connection requests per node),
//      closes them (compression) and sends one Produce request per node;
//   5. fails queued batches past delivery.timeout.ms.
// Answers: success completes the batch's records; DUPLICATE_SEQUENCE_NUMBER
// counts as success (the broker has it). A retriable error (Kafka's
// RetriableException set, a lost connection, a request timeout, and for the
// idempotent producer UNKNOWN_PRODUCER_ID and OUT_OF_ORDER_SEQUENCE_NUMBER)
// re-queues the batch while `retries` and delivery.timeout.ms allow, and
// asks for fresh metadata when the leader may have moved; anything else,
// or a retry past those limits, completes the batch with the error.
// MESSAGE_TOO_LARGE is not split into smaller batches (Java splits it):
// the batch fails.
// acks=0 requests get no answer: their batches complete once written, with
// offset -1.
//
// Transactions (a TransactionManager given): the producer id comes from
// init_transactions, not from this loop; each pass lets the manager add new
// partitions to the transaction, and a batch that fails for good makes the
// transaction abortable. Produce stays at v11, the last version before the
// broker adds partitions itself (transaction version 2).
//
// Closing: initiate_close() lets the loop send what is queued and wait for
// every answer, then stop; force_close() fails everything left with the
// given status. A fatal producer-id error (authorization, an unsupported
// version) fails every queued batch and later sends.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "client/client_metadata.h"
#include "client/producer/idempotence_state.h"
#include "client/producer/record_accumulator.h"
#include "client/producer/transaction_manager.h"
#include "client/request_sender.h"

namespace spool::client {

struct SenderOptions {
  int16_t acks = -1;
  int32_t request_timeout_ms = 30000;
  int32_t max_request_size = 1024 * 1024;
  int32_t retries = INT32_MAX;
  int64_t retry_backoff_ms = 100;
  int64_t delivery_timeout_ms = 120000;
  int32_t max_in_flight = 5;
  std::optional<std::string> transactional_id;
  int32_t transaction_timeout_ms = 60000;
  std::shared_ptr<Clock> clock;  // null: system clock
};

class Sender {
 public:
  Sender(SenderOptions options, RecordAccumulator& accumulator, ClientMetadata& metadata, IdempotenceState& idem,
         RequestSender& network, TransactionManager* txn = nullptr);
  ~Sender();

  // One pass of the loop (see above). Returns how long the loop may sleep.
  int64_t run_once();

  // The loop on its own thread.
  void start();
  void wakeup();
  void initiate_close();
  void force_close(const Status& why);
  // Waits for the thread to end (after a close).
  void join();
  // After join() and the network's shutdown: completes the answers that
  // arrived since (their batches fail), and anything still queued.
  void finish();
  // Nothing queued, nothing in flight, no answer waiting.
  bool idle() const;
  // A fatal error, once one happened (ok otherwise). has_fatal_error() is
  // the send path's check: one relaxed load, no lock, no copy.
  Status fatal_error() const;
  bool has_fatal_error() const { return has_fatal_.load(std::memory_order_acquire); }
  // Fails every batch not sent yet with `why`, on the loop's thread (an
  // aborted transaction).
  void abort_queued(const Status& why);
  // Waits until idle() (the loop running), up to timeout_ms.
  bool await_idle(int64_t timeout_ms);

 private:
  struct InFlight {
    Node node;
    std::vector<std::unique_ptr<ProducerBatch>> batches;
  };

  void post(std::function<void()> fn);
  void run_mailbox();
  void maybe_init_producer_id(int64_t now);
  void send_ready(int64_t now, int64_t& wait_ms);
  void send_produce(const Node& node, std::vector<std::unique_ptr<ProducerBatch>> batches, int64_t now);
  void on_produce_answer(const std::shared_ptr<InFlight>& req, Result<RawResponse> r);
  void on_batch_error(std::unique_ptr<ProducerBatch> batch, int16_t code, const std::string& message);
  void complete(std::unique_ptr<ProducerBatch> batch, int64_t base_offset, int64_t log_append_time,
                const Status& status);
  void fail_all(const Status& why);
  void set_fatal(const Status& why);

  SenderOptions options_;
  std::shared_ptr<Clock> clock_;
  RecordAccumulator& accumulator_;
  ClientMetadata& metadata_;
  IdempotenceState& idem_;
  RequestSender& network_;
  TransactionManager* txn_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> mailbox_;
  bool woken_ = false;
  bool closing_ = false;
  bool forced_ = false;
  Status force_status_;
  Status fatal_;
  std::atomic<bool> has_fatal_{false};  // fatal_ is set
  int32_t requests_in_flight_ = 0;  // all nodes, guarded by mu_ for idle()

  // The loop thread only:
  std::map<int32_t, int32_t> in_flight_per_node_;
  bool init_in_flight_ = false;
  int64_t next_init_ms_ = 0;
  size_t init_node_ = 0;
  std::thread thread_;
};

}  // namespace spool::client
