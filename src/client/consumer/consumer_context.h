// ConsumerContext: what the parts of the consumer loop share (the fetcher,
// the offset requests, the group coordinator): settings, clock, the network
// port, cluster metadata, the subscription state, the loop's mailbox, and
// the queues of rebalance events and completions for the application thread.
//
// Threading: everything here belongs to the consumer loop thread, except
// post() (any thread: the RequestSender's callbacks hand their answers to
// the loop with it) and notify_progress(), which wakes a poll() waiting on
// the application thread. Plain aggregate of references; no failure.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "client/client_metadata.h"
#include "client/consumer/consumer_config.h"
#include "client/consumer/subscription_state.h"
#include "client/request_sender.h"
#include "util/clock.h"

namespace spool::client {

// A rebalance listener call the application thread must make (inside poll):
// `done` runs on the loop afterwards (it completes the rebalance step).
struct RebalanceEvent {
  enum class Kind : int8_t { kRevoked, kAssigned, kLost };
  Kind kind = Kind::kAssigned;
  std::vector<TopicPartition> partitions;
  std::function<void()> done;
};

struct ConsumerContext {
  const ConsumerConfig& config;
  std::shared_ptr<Clock> clock;
  RequestSender& network;
  ClientMetadata& metadata;
  SubscriptionState& subscriptions;
  std::function<void(std::function<void()>)> post;
  std::function<void()> notify_progress;
  std::deque<RebalanceEvent> events;
  // Other work for the application thread (commit_async callbacks).
  std::deque<std::function<void()>> completions;

  int64_t now() const { return clock->monotonic_ms(); }
  // The partition's leader and leader epoch, when known.
  struct Leader {
    Node node;
    int32_t epoch = -1;
  };
  std::optional<Leader> leader(const TopicPartition& tp) const {
    auto snap = metadata.snapshot();
    const Node* n = snap->leader(tp.topic, tp.partition);
    if (n == nullptr) return std::nullopt;
    return Leader{*n, snap->topic(tp.topic)->partitions[static_cast<size_t>(tp.partition)].leader_epoch};
  }
};

}  // namespace spool::client
