// ReplicaFetcherManager: the follower side of replication (Kafka's
// ReplicaFetcherManager / ReplicaFetcherThread). num.replica.fetchers
// threads per source broker; a partition goes to thread hash(tp) % n of its
// leader. Each thread loops: decide truncation (replica/truncation.h), send
// one Fetch for its ready partitions (replica/fetch_builder.h: replica id,
// current_leader_epoch, last_fetched_epoch), then per partition append the
// leader's batches as they are (storage::Log::append_as_follower: offsets,
// epochs and producer state from the batches), fsync before the next fetch
// when durable.writes (so the leader's fsync-counted high watermark is
// honest), take the follower high watermark and log start, truncate on
// DivergingEpoch, ask the leader's offsets on OFFSET_OUT_OF_RANGE, park on
// FENCED_LEADER_EPOCH (until the partition is added again by the next
// LeaderAndIsr), back off replica.fetch.backoff.ms on other errors.
//
// Ownership: the manager owns its threads; partitions hold their Log
// shared. Threading: add/remove/shutdown are thread-safe and may be called
// from any thread but a fetcher thread; a partition's log is written only by
// the one thread it is on. Failure: network errors back the partitions off
// and retry; a storage error on a partition backs it off and is logged.
//
// Two ways to find where a follower's log diverges (Kafka's
// isTruncationOnFetchSupported, inter.broker.protocol.version >= 2.7-IV1):
// - truncate_on_fetch (the default): a partition starts fetching at once
//   with LastFetchedEpoch, and the leader's DivergingEpoch drives the
//   truncation (KIP-595's path); an incomplete truncation (an epoch we never
//   had) simply fetches again, and the next DivergingEpoch continues it.
// - otherwise (KIP-101/279): a partition starts Truncating and its thread
//   first sends OffsetForLeaderEpoch (one request for every such partition
//   of the leader) for the latest epoch in its log, truncates on the answer,
//   asks again for the next epoch while the answer names an epoch it never
//   had, and only then fetches, without LastFetchedEpoch. A log without
//   epochs truncates to its high watermark instead.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "replica/fetch_builder.h"
#include "replica/leader_endpoint.h"
#include "replica/replication_quota.h"
#include "storage/log.h"

namespace spool::replica {

struct FetcherOptions {
  ReplicaFetchSettings fetch;       // replica id, wait, min/max bytes
  int32_t num_fetchers = 1;         // num.replica.fetchers
  int64_t backoff_ms = 1000;        // replica.fetch.backoff.ms
  int16_t fetch_version = 15;       // the request's shape (both replica id fields are set)
  bool truncate_on_fetch = true;    // false: OffsetForLeaderEpoch first (see above)
  // The follower side's replication throttle (KIP-73): a partition whose
  // FollowedPartition::throttled() holds and that is not caught up (its log
  // end below the leader's last high watermark) is left out of the fetch
  // while the quota is exceeded; the bytes such partitions append are
  // recorded. Null: no throttling.
  std::shared_ptr<ReplicationQuota> quota;
};

// One partition to follow.
struct FollowedPartition {
  TopicPartition tp;
  protocol::Uuid topic_id = {};
  int32_t leader_epoch = -1;
  std::shared_ptr<storage::Log> log;
  bool durable_writes = true;
  int64_t high_watermark = 0;                    // the local one now
  std::function<void(int64_t)> set_high_watermark;  // called on the fetcher thread
  // Listed in follower.replication.throttled.replicas (read every round; empty: never).
  std::function<bool()> throttled;
};

class ReplicaFetcherManager {
 public:
  ReplicaFetcherManager(FetcherOptions options, std::shared_ptr<LeaderEndpoint> endpoint);
  ~ReplicaFetcherManager();
  ReplicaFetcherManager(const ReplicaFetcherManager&) = delete;
  ReplicaFetcherManager& operator=(const ReplicaFetcherManager&) = delete;

  // Starts (or restarts, with the new epoch and leader) fetching `p`.
  void add(const client::Node& leader, FollowedPartition p);
  // Stops fetching. Never waits for a Fetch in flight (a hung leader must
  // not stall LeaderAndIsr); once it returns, no fetcher thread touches the
  // partition's log again, so the caller may truncate, lead or delete.
  void remove(const TopicPartition& tp);
  void shutdown();

  // Tests: the fetch state of a followed partition.
  std::optional<FollowerPartition> state(const TopicPartition& tp) const;
  size_t thread_count() const;

 private:
  class Thread;
  struct Key {
    int32_t broker = -1;
    std::string host;
    uint16_t port = 0;
    int32_t index = 0;
    auto operator<=>(const Key&) const = default;
  };
  FetcherOptions options_;
  std::shared_ptr<LeaderEndpoint> endpoint_;
  mutable std::mutex mu_;
  std::map<Key, std::unique_ptr<Thread>> threads_;
  std::map<TopicPartition, Key> where_;
  std::vector<std::unique_ptr<Thread>> retired_;  // stopping; joined once finished
  bool stopped_ = false;

  void reap_retired_locked();
};

}  // namespace spool::replica
