// TxnService: the broker's side of transactions. Owns __transaction_state
// (an InternalTopicLog, compacted, transaction.state.log.* settings), the
// marker sender and producer id adapters, and the TxnCoordinator on them;
// decides when the coordinator takes the topic's partitions:
//  * at start, an existing topic is replayed on one background thread
//    (COORDINATOR_LOAD_IN_PROGRESS for a partition meanwhile); transactions
//    found prepared get their markers resent;
//  * the first FindCoordinator(TRANSACTION) creates the topic and loads its
//    empty partitions before answering.
// Threading: thread-safe. shutdown() (also the destructor) joins the loader
// and stops the coordinator; call it after the server stopped and before the
// logs close.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "broker/broker_context.h"
#include "broker/internal_topic_log.h"
#include "broker/txn_marker_sender.h"
#include "coordinator/txn/txn_coordinator.h"
#include "protocol/error_code.h"

namespace spool::broker {

inline constexpr const char* kTransactionStateTopic = "__transaction_state";

// The coordinator's options from the broker settings; AddOffsetsToTxn maps
// groups to __consumer_offsets partitions with the group coordinator's rule.
coordinator::TxnCoordinatorOptions txn_coordinator_options(const BrokerSettings& settings,
                                                           std::function<int32_t(const std::string&)> group_partition);

class TxnService {
 public:
  // ctx must outlive the service (markers and producer ids go through it).
  TxnService(BrokerContext& ctx, coordinator::TxnCoordinatorOptions options);
  ~TxnService();
  TxnService(const TxnService&) = delete;
  TxnService& operator=(const TxnService&) = delete;

  coordinator::TxnCoordinator& coordinator() { return *coordinator_; }
  InternalTopicLog& state_topic() { return log_; }

  void start();
  // NONE, or COORDINATOR_NOT_AVAILABLE when the topic cannot be created.
  protocol::ErrorCode ensure_state_topic();
  // As GroupService::offsets_topic_ready(): ensure_state_topic() would return
  // NONE at once. Any thread, never blocks.
  bool state_topic_ready() const { return started_.load(); }
  bool all_partitions_loaded() const { return loaded_.load(); }
  // Cluster mode, as GroupService::on_leadership: load (with the partition's
  // leader epoch as the coordinator epoch) or unload __transaction_state-`partition`.
  void on_leadership(int32_t partition, bool leader, int32_t leader_epoch);
  void shutdown();

 private:
  void load_all(bool log_progress);

  const bool cluster_;  // partitions follow leadership (on_leadership)
  InternalTopicLog log_;
  BrokerTxnMarkerSender markers_;
  ProducerIdAdapter ids_;
  std::unique_ptr<coordinator::TxnCoordinator> coordinator_;
  std::mutex mu_;
  std::atomic<bool> started_{false};  // written under mu_
  std::atomic<bool> loaded_{false};
  std::atomic<bool> stopping_{false};
  std::thread loader_;
};

}  // namespace spool::broker
