// ReplicaSet: a partition leader's view of its replicas — the ISR, the
// pending ISR change, each follower's fetch state, the leader epoch and its
// start offset, and the high watermark (Kafka's Partition, leader side).
// It decides; the caller acts: it appends, sends AlterPartition, completes
// delayed produces and fetches, persists the high watermark.
//
// Ownership and threading: one per led partition, owned by the partition;
// not thread-safe — the owner calls it under its partition lock, and fires
// no callback while holding it. Time is the caller's `now_ms` (no clock).
// Failure: bad or stale input (a fetch from a non-replica, a stale
// AlterPartition answer) is an error code or an ignored outcome, never a
// crash; nothing here does I/O.
//
// Rules (Kafka 3.6 Partition unless marked Spool):
// - ISR shrink: maybe_shrink_isr, which the caller runs every
//   replica.lag.time.max.ms / 2, proposes removing every ISR follower that is
//   not caught up (follower_replica.h). Never the leader, never while a change
//   is pending.
// - ISR expand: maybe_expand_isr (after each fetch of a non-ISR follower)
//   proposes adding a follower that is eligible (live), has log end >= the
//   high watermark and >= the start offset of the current leader epoch
//   (KAFKA-7128: else it could be elected without data committed in this
//   epoch). Never while a change is pending.
// - One change in flight (KIP-497). While pending, the "maximal ISR" is
//   current + new when expanding (stricter, so safe before the controller
//   agrees) and the current ISR when shrinking (the shrink may yet fail).
// - High watermark = min, over the leader and every follower in the maximal
//   ISR or caught up and eligible (waiting for it to join), of its *counted
//   offset*; it never moves backwards.
//   Spool: counted offset = log end when durable.writes=false, else
//   min(log end, fsynced offset) — the leader's own fsynced offset included —
//   so with durable writes acks=all means "on disk on every ISR replica".
//   Spool (KIP-966 strict rule, as Kafka 4): the high watermark does not
//   move while the committed ISR is smaller than the effective
//   min.insync.replicas = min(min.insync.replicas, replica count), the
//   replica-count cap also being Kafka 4's (an RF=1 topic with minISR 2
//   would otherwise never expose data).
// - acks=all:
//   check_append: before the append, ISR < effective minISR ->
//   NOT_ENOUGH_REPLICAS (nothing is written).
//   check_enough_replicas_reach(offset), Spool's version of Kafka's
//   checkEnoughReplicasReachOffset:
//     high watermark >= offset -> done, NONE. Under the strict rule the high
//       watermark only got there while the ISR held >= minISR replicas, all
//       of which had the data, so it is committed and consumers may already
//       read it: it is never reported as failed. (Kafka answers
//       NOT_ENOUGH_REPLICAS_AFTER_APPEND here if the ISR shrank meanwhile,
//       i.e. it fails a write consumers can see.)
//     high watermark < offset and maximal ISR < effective minISR -> done,
//       NOT_ENOUGH_REPLICAS_AFTER_APPEND: the high watermark is frozen, so
//       the data is not visible now. It is in the leader's log and becomes
//       visible if the ISR recovers before a truncation: like a timeout, the
//       outcome is unknown to the producer (which retries; idempotence
//       deduplicates). NOT_ENOUGH_REPLICAS_AFTER_APPEND therefore never
//       describes data consumers can see at the time of the answer.
//     otherwise not done (keep waiting, or time out).
// - become_leader (LeaderAndIsr, Kafka's makeLeader): a partition epoch below
//   ours is skipped; the assignment and ISR are taken (any pending change is
//   dropped); on a new leader epoch the epoch start offset becomes the local
//   log end (the caller stamps it into the epoch cache:
//   storage::Log::begin_leader_epoch) and every follower is reset.
// - AlterPartition answers (on_alter_partition_response): an answer for
//   another change than the pending one, or with a leader epoch other than
//   ours, or a partition epoch below ours, is ignored. Success commits the
//   returned ISR and partition epoch (then run maybe_advance_high_watermark:
//   a shrink may free it). INELIGIBLE_REPLICA / OPERATION_NOT_ATTEMPTED drop
//   the pending change (the controller says it did not apply it).
//   FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, UNKNOWN_TOPIC_OR_PARTITION,
//   UNKNOWN_TOPIC_ID, INVALID_REQUEST and NEW_LEADER_ELECTED keep it pending —
//   no further ISR change — until the next LeaderAndIsr. Any other error:
//   retry the same change.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "protocol/error_code.h"
#include "replica/follower_replica.h"

namespace spool::replica {

struct ReplicaSetConfig {
  int64_t replica_lag_time_max_ms = 30000;  // replica.lag.time.max.ms
  int32_t min_insync_replicas = 1;          // min.insync.replicas
  bool durable_writes = true;               // durable.writes (Spool)
};

// The partition state from a LeaderAndIsr naming this broker leader.
struct LeaderAndIsrState {
  int32_t leader_epoch = 0;
  int32_t partition_epoch = 0;
  std::vector<int32_t> replicas;  // the assignment, this broker included
  std::vector<int32_t> isr;
};

// The leader's own log, read by the caller.
struct LocalLogOffsets {
  int64_t log_end_offset = 0;
  int64_t synced_offset = 0;  // storage::Log::flushed_offset()
};

// One AlterPartition item (KIP-497), in flight until answered.
struct IsrChange {
  enum class Kind { kExpand, kShrink };
  Kind kind = Kind::kExpand;
  uint64_t id = 0;  // pass it back with the answer
  int32_t leader_epoch = 0;
  int32_t partition_epoch = 0;
  std::vector<int32_t> new_isr;   // sorted; what AlterPartition sends
  std::vector<int32_t> replicas;  // the followers added or removed, sorted
};

// The AlterPartition answer for one partition.
struct AlterPartitionResult {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  int32_t leader_id = -1;
  int32_t leader_epoch = -1;
  int32_t partition_epoch = -1;
  std::vector<int32_t> isr;
};

enum class AlterOutcome {
  kCommitted,          // the new ISR is in force
  kIgnored,            // stale answer: nothing changed
  kReset,              // the change was dropped; a new one may be proposed
  kAwaitLeaderAndIsr,  // stays pending until the next LeaderAndIsr
  kRetry,              // send the same change again
};

enum class BecomeLeaderOutcome {
  kSkippedStale,  // partition epoch below ours: nothing changed
  kSameEpoch,     // ISR and assignment updated, follower state kept
  kNewEpoch,      // epoch start offset set, followers reset
};

struct AckCheck {
  bool done = false;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  bool operator==(const AckCheck&) const = default;
};

class ReplicaSet {
 public:
  // Whether a broker may be in the ISR or hold the high watermark back while
  // it catches up (ZooKeeper mode: it is live in the metadata cache).
  using Eligible = std::function<bool(int32_t broker_id)>;

  // `eligible` empty: every replica is eligible.
  ReplicaSet(int32_t local_broker_id, ReplicaSetConfig config, Eligible eligible = {});

  void set_config(const ReplicaSetConfig& config) { config_ = config; }
  const ReplicaSetConfig& config() const { return config_; }

  // LeaderAndIsr. `log_end_offset` and `high_watermark`: the local log's now
  // (the high watermark it had as follower or from the checkpoint). Then
  // call maybe_advance_high_watermark (the ISR may have shrunk to the leader).
  BecomeLeaderOutcome become_leader(const LeaderAndIsrState& state, int64_t log_end_offset, int64_t high_watermark,
                                    int64_t now_ms);
  // LeaderAndIsr naming another leader: stop leading (follower state, ISR
  // and any pending change are dropped; the epochs are kept for the stale
  // check, and the next become_leader starts as a new leader).
  void become_follower(int32_t leader_epoch, int32_t partition_epoch);
  bool leading() const { return leading_; }

  // CurrentLeaderEpoch of a Fetch / OffsetForLeaderEpoch / ListOffsets
  // against ours: below -> FENCED_LEADER_EPOCH, above -> UNKNOWN_LEADER_EPOCH,
  // -1 (not sent) or equal -> NONE.
  protocol::ErrorCode check_leader_epoch(int32_t request_leader_epoch) const;

  // A follower's Fetch. `leader_log_end_offset`: read before serving it.
  // UNKNOWN_LEADER_EPOCH if the broker is not a follower in the assignment
  // (the follower retries, as Kafka's answer for a replica it does not know).
  protocol::ErrorCode record_fetch(int32_t replica_id, int64_t fetch_offset, int64_t follower_log_start_offset,
                                   int64_t follower_broker_epoch, int64_t leader_log_end_offset, int64_t now_ms);

  // ISR changes to send; each makes the partition pending.
  std::optional<IsrChange> maybe_expand_isr(int32_t replica_id);
  std::optional<IsrChange> maybe_shrink_isr(int64_t leader_log_end_offset, int64_t now_ms);
  // ISR followers that are not caught up (empty while a change is pending).
  std::vector<int32_t> out_of_sync_replicas(int64_t leader_log_end_offset, int64_t now_ms) const;
  // Whether this follower may join the ISR now (the expand rule above).
  bool can_expand(int32_t replica_id) const;

  // Recomputes the high watermark; true if it advanced.
  bool maybe_advance_high_watermark(const LocalLogOffsets& local, int64_t now_ms);
  // What the high watermark would be (before the never-backwards and strict
  // min-ISR rules); -1 when some counted replica's offset is unknown.
  int64_t high_watermark_candidate(const LocalLogOffsets& local, int64_t now_ms) const;

  // acks=all (see the header comment). check_append for other acks: NONE.
  protocol::ErrorCode check_append(int16_t acks) const;
  AckCheck check_enough_replicas_reach(int64_t required_offset) const;

  AlterOutcome on_alter_partition_response(uint64_t change_id, const AlterPartitionResult& result);

  int32_t local_broker_id() const { return local_broker_id_; }
  int32_t leader_epoch() const { return leader_epoch_; }
  int64_t leader_epoch_start_offset() const { return leader_epoch_start_offset_; }
  int32_t partition_epoch() const { return partition_epoch_; }
  const std::vector<int32_t>& replicas() const { return replicas_; }
  const std::vector<int32_t>& isr() const { return isr_; }  // committed, sorted
  std::vector<int32_t> maximal_isr() const;                 // sorted
  const std::optional<IsrChange>& pending_change() const { return pending_; }
  bool awaiting_leader_and_isr() const { return awaiting_leader_and_isr_; }
  int64_t high_watermark() const { return high_watermark_; }
  // Effective min.insync.replicas: min(min.insync.replicas, replica count).
  int32_t effective_min_isr() const;
  bool under_min_isr() const { return static_cast<int32_t>(isr_.size()) < effective_min_isr(); }
  const FollowerReplica* follower(int32_t broker_id) const;

 private:
  bool eligible(int32_t broker_id) const { return !eligible_ || eligible_(broker_id); }
  bool in(const std::vector<int32_t>& set, int32_t id) const;
  int64_t counted_offset(int64_t log_end, int64_t synced) const;
  IsrChange make_change(IsrChange::Kind kind, std::vector<int32_t> new_isr, std::vector<int32_t> changed);

  int32_t local_broker_id_;
  ReplicaSetConfig config_;
  Eligible eligible_;

  bool leading_ = false;
  int32_t leader_epoch_ = -1;
  int64_t leader_epoch_start_offset_ = -1;
  int32_t partition_epoch_ = -1;
  std::vector<int32_t> replicas_;
  std::vector<int32_t> isr_;
  std::map<int32_t, FollowerReplica> followers_;
  std::optional<IsrChange> pending_;
  bool awaiting_leader_and_isr_ = false;
  uint64_t next_change_id_ = 1;
  int64_t high_watermark_ = 0;
};

}  // namespace spool::replica
