// The follower's side of a replica Fetch: which partitions may be fetched,
// the request itself, the follower's high watermark, and on the leader the
// replica id of a request (Kafka's ReplicaFetcherThread / RemoteLeaderEndPoint
// buildFetch). Pure functions over plain values, safe from any thread;
// FollowerPartition is a plain struct owned by the fetcher thread. No
// failure: a partition that may not be fetched is left out of the request.
//
// How a follower reports its fsynced offset (durable.writes=true). Kafka's
// Fetch has no field for it. Spool's rule: a follower sends a partition's
// FetchOffset (= its log end, as in Kafka) only once everything below it is
// fsynced — ready_to_fetch() is false while FetchOffset > fsynced offset, and
// the fetcher flushes first. The leader then counts the FetchOffset as both
// the follower's log end and its fsynced offset (FollowerReplica), so the
// high watermark, and with it acks=all, means "on disk on every ISR
// replica", with no new wire field and no second message.
// The cost, weighed: the fsync sits between receiving a response and
// sending the next fetch. It adds no latency to acks=all compared with any
// other scheme — the leader can only count a follower's fsync after it
// happened and after the follower told it, which is exactly the next fetch —
// but it stops a follower from overlapping the next fetch with the fsync,
// so catching up runs at one fsync per round. Rounds batch themselves (a
// slower round brings more bytes, up to replica.fetch.max.bytes per
// partition), like group commit; the alternative, fetching ahead and
// reporting the fsynced offset in a tagged field, would pipeline better but
// puts a Spool-only field on the wire and a second offset on the leader.
// With durable.writes=false the follower fetches at once (Kafka's
// behaviour). durable.writes is a topic config, so leader and followers
// agree on it.
//
// The follower's high watermark (follower_high_watermark): min(leader high
// watermark, own log end), raised to at least its log start; taken from a
// fetch response only while the partition is fetching and only if the
// response carried no DivergingEpoch (KAFKA-14704: a follower truncates
// before it takes the leader's high watermark, else it could expose offsets
// of data it is about to drop). It may go down (a new leader's high
// watermark can lag the old one's); consumers reading from a follower see at
// most it. The follower's log start likewise follows the fetch response's
// LogStartOffset upwards (storage::Log::advance_log_start_offset), as Kafka's
// maybeIncrementLogStartOffset.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "protocol/fetch_request.h"
#include "util/topic_partition.h"

namespace spool::replica {

enum class FetchPhase {
  kFetching,    // sending Fetch
  kTruncating,  // waiting on OffsetForLeaderEpoch / a truncation
  kParked,      // FENCED_LEADER_EPOCH: until the next LeaderAndIsr
};

// The fetcher's state of one partition it follows.
struct FollowerPartition {
  TopicPartition tp;
  protocol::Uuid topic_id = {};  // Fetch v13+
  int32_t current_leader_epoch = -1;
  FetchPhase phase = FetchPhase::kFetching;
  int64_t fetch_offset = 0;                   // = the local log end while fetching
  std::optional<int32_t> last_fetched_epoch;  // LocalLogView::last_batch_epoch()
  int64_t log_start_offset = 0;
  int64_t synced_offset = 0;                  // storage::Log::flushed_offset()
  bool durable_writes = true;
  int64_t backoff_until_ms = 0;  // after a retriable error (replica.fetch.backoff.ms)
};

// Kafka's replica.fetch.* defaults.
struct ReplicaFetchSettings {
  int32_t replica_id = -1;          // broker.id
  int64_t broker_epoch = -1;        // ReplicaState.ReplicaEpoch (v15+)
  int32_t max_wait_ms = 500;        // replica.fetch.wait.max.ms
  int32_t min_bytes = 1;            // replica.fetch.min.bytes
  int32_t max_bytes = 10485760;     // replica.fetch.response.max.bytes
  int32_t partition_max_bytes = 1048576;  // replica.fetch.max.bytes
};

// Whether everything below fetch_offset is fsynced (always without durable writes).
bool fsynced_to_log_end(const FollowerPartition& p);
// Fetching, not backing off, and fsynced_to_log_end.
bool ready_to_fetch(const FollowerPartition& p, int64_t now_ms);

// One Fetch (sessionless: session id 0, epoch -1; read_uncommitted) for the
// partitions that are ready_to_fetch, grouped by topic in first-seen order.
// `version` decides where the replica id goes: ReplicaState.ReplicaId
// (+ReplicaEpoch) from v15, the top-level ReplicaId below; topic ids from
// v13, names below. LastFetchedEpoch is -1 when the log has no batch.
protocol::FetchRequest build_replica_fetch(const ReplicaFetchSettings& settings, int16_t version,
                                           const std::vector<FollowerPartition>& partitions, int64_t now_ms);

// The replica id of a Fetch as the leader reads it (-1: a consumer).
int32_t replica_id_of(const protocol::FetchRequest& request, int16_t version);

// See the header comment. nullopt: leave the high watermark as it is (the
// response carried a DivergingEpoch, or the partition is not fetching).
// `log_end_offset`: the local log end after appending the response.
std::optional<int64_t> follower_high_watermark(const FollowerPartition& p, int64_t log_end_offset,
                                               int64_t leader_high_watermark, bool diverging_epoch);

}  // namespace spool::replica
