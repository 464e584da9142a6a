// Producer: Spool's native Kafka producer (Kafka's KafkaProducer), built
// from producer properties (producer_config.h).
//
// send() is asynchronous: it picks the partition (partitioner.h: the
// record's own, a custom Partitioner, murmur2 of the key as the Java client,
// or the sticky partition for records without a key), appends the record to
// the accumulator and returns. It blocks only while the topic's metadata is
// unknown or buffer.memory is used up, both bounded by max.block.ms. The
// callback runs later on the producer's I/O thread with the record's offset
// or its error. An error send() finds itself (closed producer, record larger
// than max.request.size or buffer.memory, a partition out of range, no
// metadata within max.block.ms) goes to the callback too, and is returned.
// The Sender thread (sender.h) batches, retries and keeps idempotent
// ordering; a NetworkClient (client/network_client.h) carries the requests.
//
// flush() makes every batch sendable and waits for all records sent before
// it. close(timeout) refuses new sends, sends what is queued and waits for
// the answers up to the timeout, then fails what is left (their callbacks
// get the error); the destructor is close(0) when close was not called.
//
// Transactions: with transactional.id, init_transactions() once, then
// begin_transaction(), send()s, optionally send_offsets_to_transaction(),
// and commit_transaction() or abort_transaction()
// (transaction_manager.h). send() outside a transaction fails.
//
// Threading: send(), flush() and close() may be called from any thread,
// concurrently. Callbacks must not call flush() or close() (they run on the
// thread those wait for).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "client/client_metadata.h"
#include "client/network_client.h"
#include "client/producer/idempotence_state.h"
#include "client/producer/partitioner.h"
#include "client/producer/producer_config.h"
#include "client/producer/producer_record.h"
#include "client/producer/record_accumulator.h"
#include "client/producer/sender.h"
#include "client/producer/transaction_manager.h"

namespace spool::client {

struct ProducerHooks {
  std::shared_ptr<Partitioner> partitioner;  // custom partitioner, optional
  std::shared_ptr<Clock> clock;              // null: system clock
  RequestSender* network = nullptr;          // tests: a fake (else a NetworkClient of its own)
  uint64_t seed = 0;                         // sticky partition choices; 0 = random
};

class Producer {
 public:
  static Result<std::unique_ptr<Producer>> create(const config::PropertyList& properties, ProducerHooks hooks = {},
                                                  std::vector<std::string>* warnings = nullptr);
  Producer(ProducerConfig config, ProducerHooks hooks);
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  Status send(ProducerRecord record, SendCallback callback = {});
  // False when the wait ended first.
  bool flush(int64_t timeout_ms = INT64_MAX / 4);
  void close(int64_t timeout_ms = INT64_MAX / 4);

  // Transactions (transactional.id set; Kafka's semantics and messages).
  // Each blocks up to its timeout (default max.block.ms).
  Status init_transactions(int64_t timeout_ms = -1);
  Status begin_transaction();
  Status send_offsets_to_transaction(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                                     const ConsumerGroupMetadata& group, int64_t timeout_ms = -1);
  Status commit_transaction(int64_t timeout_ms = -1);
  Status abort_transaction(int64_t timeout_ms = -1);

  const ProducerConfig& config() const { return config_; }
  // The partition count of a topic (waiting for its metadata).
  Result<int32_t> partitions_for(const std::string& topic);

 private:
  // The record's partition; *sticky says the sticky partitioner chose it
  // (then the caller holds sticky_mu_ until on_append).
  Result<int32_t> choose_partition(const ProducerRecord& record, int32_t num_partitions, bool* sticky);
  int32_t sticky_partition(const std::string& topic, int32_t num_partitions);

  ProducerConfig config_;
  ProducerHooks hooks_;
  std::shared_ptr<Clock> clock_;
  std::unique_ptr<NetworkClient> own_network_;
  RequestSender* network_;
  ClientMetadata metadata_;
  IdempotenceState idem_;
  std::unique_ptr<RecordAccumulator> accumulator_;
  std::unique_ptr<TransactionManager> txn_;
  std::unique_ptr<Sender> sender_;
  std::mutex sticky_mu_;
  StickyPartitioner sticky_;
  std::atomic<bool> closed_{false};
};

}  // namespace spool::client
