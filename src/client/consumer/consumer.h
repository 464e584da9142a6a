// Consumer: Spool's native Kafka consumer (Kafka's KafkaConsumer on the
// classic group protocol), built from consumer properties
// (consumer_config.h).
//
// Reading: subscribe() to topics or a regex (group management: needs a
// group.id) or assign() partitions yourself; poll() returns up to
// max.poll.records records, waiting up to its timeout for some. Positions
// come from the group's committed offsets, else auto.offset.reset; seek(),
// seek_to_beginning() and seek_to_end() move them; pause()/resume() stop and
// restart fetching a partition. offsets_for_times(), beginning_offsets()
// and end_offsets() ask the leaders (ListOffsets). commit_sync() /
// commit_async() store positions in the group (enable.auto.commit does it
// every auto.commit.interval.ms, before a rebalance and on close).
// isolation.level=read_committed skips aborted transactions. A leader epoch
// change validates positions with OffsetForLeaderEpoch: a truncated log
// resets to the divergence point (or fails poll() with the LogTruncation
// error when auto.offset.reset=none).
//
// Threading (docs: consumer_loop.h): a loop thread of the consumer's own
// does all network work and owns all state; it fetches ahead and
// heartbeats whether or not poll() is called. The public methods may be
// called from any thread, one at a time (as Java, the consumer is not meant
// for concurrent use; wakeup() is the exception). Rebalance listener
// methods and commit_async() callbacks run on the thread calling poll()
// (or commit_sync()/close()), inside that call, so they may call the
// consumer; a rebalance waits for poll() to run them.
//
// Failure: methods return Status/Result with Kafka's messages and error
// codes; an error met in the background (OFFSET_OUT_OF_RANGE without a
// reset policy, an authorization failure, FENCED_INSTANCE_ID...) is returned
// by the next poll(). Timeouts fail with REQUEST_TIMED_OUT. Calls after
// close() fail.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/consumer/consumer_config.h"
#include "client/consumer/consumer_loop.h"
#include "client/consumer/consumer_record.h"
#include "client/network_client.h"

namespace spool::client {

struct ConsumerHooks {
  std::shared_ptr<Clock> clock;      // null: system clock
  RequestSender* network = nullptr;  // tests: a fake (else a NetworkClient of its own)
};

class Consumer {
 public:
  using CommitCallback = std::function<void(const std::map<TopicPartition, OffsetAndMetadata>&, const Status&)>;

  static Result<std::unique_ptr<Consumer>> create(const config::PropertyList& properties, ConsumerHooks hooks = {},
                                                  std::vector<std::string>* warnings = nullptr);
  Consumer(ConsumerConfig config, ConsumerHooks hooks);
  ~Consumer();
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Subscriptions. An empty topic list is unsubscribe().
  Status subscribe(const std::vector<std::string>& topics,
                   std::shared_ptr<ConsumerRebalanceListener> listener = nullptr);
  Status subscribe_pattern(const std::string& regex, std::shared_ptr<ConsumerRebalanceListener> listener = nullptr);
  Status assign(const std::vector<TopicPartition>& partitions);
  void unsubscribe();
  std::set<TopicPartition> assignment();
  std::set<std::string> subscription();

  Result<std::vector<ConsumerRecord>> poll(int64_t timeout_ms);
  // Makes a poll() blocked now (or the next one) return a WakeupException error.
  void wakeup();

  // Positions.
  Status seek(const TopicPartition& tp, int64_t offset);
  Status seek(const TopicPartition& tp, const OffsetAndMetadata& offset);  // with its leader epoch: validated
  // Empty = every assigned partition.
  Status seek_to_beginning(const std::vector<TopicPartition>& partitions = {});
  Status seek_to_end(const std::vector<TopicPartition>& partitions = {});
  Result<int64_t> position(const TopicPartition& tp, int64_t timeout_ms = -1);

  Result<std::map<TopicPartition, std::optional<OffsetAndTimestamp>>> offsets_for_times(
      const std::map<TopicPartition, int64_t>& timestamps, int64_t timeout_ms = -1);
  Result<std::map<TopicPartition, int64_t>> beginning_offsets(const std::vector<TopicPartition>& partitions,
                                                              int64_t timeout_ms = -1);
  Result<std::map<TopicPartition, int64_t>> end_offsets(const std::vector<TopicPartition>& partitions,
                                                        int64_t timeout_ms = -1);
  // Partition count of a topic (from metadata, waiting for it).
  Result<int32_t> partitions_for(const std::string& topic, int64_t timeout_ms = -1);

  void pause(const std::vector<TopicPartition>& partitions);
  void resume(const std::vector<TopicPartition>& partitions);
  std::set<TopicPartition> paused();

  // Commits. Without offsets: the positions of every assigned partition.
  // timeout_ms -1 = default.api.timeout.ms.
  Status commit_sync(int64_t timeout_ms = -1);
  Status commit_sync(const std::map<TopicPartition, OffsetAndMetadata>& offsets, int64_t timeout_ms = -1);
  void commit_async(CommitCallback callback = {});
  void commit_async(const std::map<TopicPartition, OffsetAndMetadata>& offsets, CommitCallback callback = {});
  Result<std::map<TopicPartition, OffsetAndMetadata>> committed(const std::set<TopicPartition>& partitions,
                                                                int64_t timeout_ms = -1);

  // Group membership (for tests and tools): member id and generation.
  std::string member_id();
  int32_t generation();

  // Commits (enable.auto.commit), revokes through the listener, leaves the
  // group, and stops. Idempotent.
  void close(int64_t timeout_ms = 30000);

  const ConsumerConfig& config() const { return config_; }

 private:
  int64_t api_timeout(int64_t timeout_ms) const;
  // Runs the rebalance events and completions queued for this thread.
  bool run_app_events();
  Status check_open() const;
  Result<std::map<TopicPartition, OffsetAndTimestamp>> list_offsets(const std::map<TopicPartition, int64_t>& ts,
                                                                    int64_t timeout_ms);
  Status reset_to(const std::vector<TopicPartition>& partitions, OffsetResetStrategy strategy);

  ConsumerConfig config_;
  ConsumerHooks hooks_;
  std::shared_ptr<Clock> clock_;
  std::unique_ptr<NetworkClient> own_network_;
  RequestSender* network_;
  std::unique_ptr<ConsumerLoop> loop_;
  std::shared_ptr<ConsumerRebalanceListener> listener_;
  std::atomic<bool> wakeup_{false};
  std::atomic<bool> closed_{false};
};

}  // namespace spool::client
