// Partition: one topic-partition this broker leads, wrapping its Log.
//
// Carries what Kafka's partition carries on a leader: leader epoch, high
// watermark, log start offset. On a single node the high watermark is derived,
// not stored: with durable.writes it is the log's fsynced offset (consumers
// never see data a crash could lose), otherwise the log end offset. Cluster mode
// will replace the derivation with follower progress (the ISR's).
// acks=all waits for "high watermark >= required offset"
// (check_enough_replicas_reach_offset, Kafka's checkEnoughReplicasReachOffset);
// a failed group-committed fsync is remembered so such a wait answers
// KAFKA_STORAGE_ERROR instead of waiting for its timeout.
// Cluster mode (partition_cluster.cc): LeaderAndIsr makes the partition a
// leader (a replica::ReplicaSet then owns the ISR and the high watermark:
// min counted offset over the ISR, fsync-counted, strict min-ISR rule) or a
// follower (the high watermark is min(leader's, own log end), learnt from
// fetch responses; produces and consumer fetches get NOT_LEADER_OR_FOLLOWER).
// A single-node partition (role kSingleNode) never enters that code.
// Thread-safe: the Log serialises appends; the cluster state sits under
// cluster_mu_ (never held while a listener or callback runs); the rest is
// atomic or const.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "broker/refused_batches.h"
#include "broker/topic_registry.h"
#include "protocol/error_code.h"
#include "replica/replica_set.h"
#include "storage/log.h"
#include "util/status.h"
#include "util/topic_partition.h"

namespace spool::storage {
class Flusher;
}

namespace spool::broker {

class Partition : public std::enable_shared_from_this<Partition> {
 public:
  // Called with key() whenever the high watermark may have moved (or a flush
  // failed), so parked fetches and acks=all produces watching this partition
  // can complete. May run on the flusher thread; must not block.
  using HwListener = std::function<void(const TopicPartition& key)>;

  Partition(std::string topic, int32_t index, std::shared_ptr<storage::Log> log,
            storage::Flusher& flusher, bool durable_writes, HwListener on_hw_advance = {});

  const std::string& topic() const { return tp_.topic; }
  int32_t index() const { return tp_.partition; }
  // The partition's name: the key delayed operations watch it under.
  const TopicPartition& key() const { return tp_; }
  int32_t leader_epoch() const { return leader_epoch_.load(); }
  // The topic id (KIP-516) this partition's data belongs to. Set by the
  // ReplicaManager before the partition is published and never changed, so
  // id-based requests (Produce v13, Fetch v13+) can tell a re-created topic
  // of the same name from the one they named.
  const TopicId& topic_id() const { return topic_id_; }
  void set_topic_id(const TopicId& id) { topic_id_ = id; }
  storage::Log& log() { return *log_; }
  const std::shared_ptr<storage::Log>& log_ptr() const { return log_; }

  int64_t high_watermark() const;
  // Kafka's LSO: the first offset of the oldest open (or not yet replicated)
  // transaction, bounded by the high watermark; = HW without transactions.
  int64_t last_stable_offset() const { return log_->last_stable_offset(high_watermark()); }
  int64_t log_start_offset() const { return log_->log_start_offset(); }
  int64_t log_end_offset() const { return log_->log_end_offset(); }
  bool durable_writes() const { return durable_.load(); }
  void set_durable_writes(bool on) { durable_.store(on); }
  // The topic's max.message.bytes (largest batch a produce may append);
  // -1 until the replica manager sets it, then the broker's limit applies.
  int32_t max_message_bytes() const { return max_message_bytes_.load(); }
  void set_max_message_bytes(int32_t n) { max_message_bytes_.store(n); }
  // The topic's min.insync.replicas (dynamic, else the broker's); 1 until set.
  // A leader's replica set takes a new value at once (partition_cluster.cc).
  int32_t min_insync_replicas() const { return min_insync_replicas_.load(); }
  void set_min_insync_replicas(int32_t n);
  // The in-sync replica set's size: on one node only the leader itself.
  int32_t in_sync_replica_count() const { return 1; }
  // Kafka's check before an acks=all append: NOT_ENOUGH_REPLICAS (nothing is
  // appended) while fewer replicas are in sync than min.insync.replicas asks.
  Status check_enough_replicas() const;

  // Whether an acks=all append ending before `required_offset` (its last
  // offset + 1) is answered: reached once the high watermark is at or past
  // it; else error KAFKA_STORAGE_ERROR if the fsync meant to cover it failed
  // (reached false); else still waiting (reached false, NONE). In a cluster
  // a lost leadership will answer NOT_LEADER_OR_FOLLOWER here.
  struct ReplicaCheck {
    bool reached = false;
    protocol::ErrorCode error = protocol::ErrorCode::kNone;
  };
  ReplicaCheck check_enough_replicas_reach_offset(int64_t required_offset) const;

  // Appends validated batches (offsets are assigned in place). In durable mode
  // every append also asks the flusher for a prompt group-committed fsync so
  // the high watermark follows within milliseconds.
  Result<storage::AppendResult> append(std::span<uint8_t> batches, int32_t record_count);
  // Idempotent batches refused before the append (refused_batches.h).
  RefusedBatches& refused_batches() { return refused_batches_; }

  // Appends a COMMIT/ABORT marker for the producer (WriteTxnMarkers). Wakes
  // parked fetches like an append: the LSO may move once it is durable.
  Result<storage::AppendResult> append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                                  int32_t coordinator_epoch);

  // ListOffsets lookups (Kafka's Partition.fetchOffsetForTimestamp reads
  // these): (offset, timestamp) of the first record with a timestamp >= ts,
  // and of the first record carrying the largest timestamp; none if absent.
  std::optional<std::pair<int64_t, int64_t>> offset_for_timestamp(int64_t ts) const {
    return log_->offset_for_timestamp(ts);
  }
  std::optional<std::pair<int64_t, int64_t>> max_timestamp_offset() const { return log_->max_timestamp_offset(); }

  // OffsetForLeaderEpoch (Kafka's Partition.lastOffsetForLeaderEpoch, the
  // epoch fencing left to the caller): (largest known epoch <= epoch, its end
  // offset), or (-1, -1) for an epoch newer than any known. An empty
  // partition has no cached epoch yet; as Kafka caches the leader's epoch at
  // the log end when it becomes leader, the current epoch is answered
  // (epoch, log end offset) there too.
  std::pair<int32_t, int64_t> last_offset_for_leader_epoch(int32_t epoch) const;

  // DeleteRecords (Kafka's Partition.deleteRecordsOnLeader): moves the log
  // start offset up to `offset` (kDeleteToHighWatermark = -1: the high
  // watermark) and returns the log start offset afterwards. An offset above
  // the high watermark, or negative other than -1, is OFFSET_OUT_OF_RANGE;
  // one at or below the current start changes nothing. The new start is not
  // yet checkpointed (ReplicaManager::delete_records writes the checkpoint).
  static constexpr int64_t kDeleteToHighWatermark = -1;
  Result<int64_t> delete_records_on_leader(int64_t offset);

  // Calls done(status) once the offsets up to last_offset are durable (at once
  // when durable.writes is off: acks=all then means "in the log", as in Kafka
  // with one replica). Called on the flusher thread or the caller's thread.
  void await_durable(int64_t last_offset, std::function<void(Status)> done);

  // ------------------------------------------------------ cluster mode
  enum class Role : uint8_t { kSingleNode, kLeader, kFollower };
  Role role() const { return role_.load(); }
  bool is_leader() const { return role() != Role::kFollower; }
  int32_t leader_id() const { return leader_id_.load(); }
  int32_t partition_epoch() const;
  // Milliseconds on the manager's clock (ReplicaSet times); set before use.
  void set_clock(std::function<int64_t()> now_ms) { now_ms_ = std::move(now_ms); }
  // Where proposed ISR changes go (AlterPartition); may be empty (tests).
  using IsrChangeSink = std::function<void(const std::shared_ptr<Partition>&, const replica::IsrChange&)>;
  void set_isr_change_sink(IsrChangeSink sink) { isr_sink_ = std::move(sink); }

  // LeaderAndIsr naming this broker leader (Kafka's makeLeader). kSkippedStale
  // when the partition epoch is below ours. On a new leader epoch the epoch
  // start (new epoch, log end) is stamped into the leader-epoch cache. Wakes
  // the purgatories (the ISR may allow the high watermark to move).
  replica::BecomeLeaderOutcome make_leader(int32_t local_broker_id, const replica::LeaderAndIsrState& state,
                                           const replica::ReplicaSetConfig& config,
                                           replica::ReplicaSet::Eligible eligible);
  // LeaderAndIsr naming another leader (makeFollower): stops leading; parked
  // acks=all produces and consumer fetches are woken and answer
  // NOT_LEADER_OR_FOLLOWER. The high watermark becomes min(hw, log end).
  // False when the partition epoch is below ours (skipped).
  bool make_follower(int32_t leader, int32_t leader_epoch, int32_t partition_epoch);
  // Whether a LeaderAndIsr with this leader epoch is newer than ours (the
  // first LeaderAndIsr of a partition always is).
  bool leader_epoch_is_newer(int32_t leader_epoch) const;
  // Its log's dir went offline (storage::Log::offline): produces, fetches
  // and acks=all waits answer KAFKA_STORAGE_ERROR; this wakes the parked
  // ones so they do at once.
  bool offline() const { return log_->offline(); }
  void wake_after_offline() const { notify_hw(); }

  // Leader: a follower's Fetch at fetch_offset (its log end and, per
  // replica/fetch_builder.h, its fsynced offset). Updates its state, proposes
  // an ISR expansion, advances the high watermark (waking the purgatories).
  // UNKNOWN_LEADER_EPOCH for a broker not in the assignment,
  // NOT_LEADER_OR_FOLLOWER when not leading.
  protocol::ErrorCode record_follower_fetch(int32_t replica_id, int64_t fetch_offset, int64_t log_start_offset,
                                            int64_t broker_epoch);
  // Leader: the periodic ISR shrink (every replica.lag.time.max.ms / 2).
  void maybe_shrink_isr();
  // Leader: the controller's answer to a proposed change.
  replica::AlterOutcome on_alter_partition_response(uint64_t change_id, const replica::AlterPartitionResult& result);
  // Leader: recompute the high watermark (after the leader's own fsync).
  void maybe_advance_high_watermark();
  // A copy of the leader's replica state (tests, describe); nullopt unless leading.
  std::optional<replica::ReplicaSet> replica_set() const;
  // Leader: whether `replica_id` is in the committed ISR.
  bool in_isr(int32_t replica_id) const;

  // Replication throttles (KIP-73): whether this broker's replica of the
  // partition is listed in the topic's leader.replication.throttled.replicas
  // (throttled while serving followers that are not in sync) or
  // follower.replication.throttled.replicas (while fetching out of sync).
  // Set from the topic's configs whenever they are applied.
  void set_replication_throttles(bool leader, bool follower) {
    leader_throttled_.store(leader);
    follower_throttled_.store(follower);
  }
  bool leader_throttled() const { return leader_throttled_.load(); }
  bool follower_throttled() const { return follower_throttled_.load(); }

  // Follower: append the leader's batches as they are (offsets, epochs,
  // producer state from the batches); the high watermark learnt from the
  // leader's response.
  Result<storage::AppendResult> append_as_follower(std::span<const uint8_t> batches);
  void set_follower_high_watermark(int64_t hw);
  // The high watermark read back from replication-offset-checkpoint at start.
  void restore_high_watermark(int64_t hw);

 private:
  void after_append(int64_t last_offset);
  void propose(const std::optional<replica::IsrChange>& change);
  replica::LocalLogOffsets local_offsets() const;
  void notify_hw() const {
    if (on_hw_advance_) on_hw_advance_(tp_);
  }

  TopicPartition tp_;
  HwListener on_hw_advance_;
  std::shared_ptr<storage::Log> log_;
  storage::Flusher& flusher_;
  std::atomic<bool> durable_;
  std::atomic<int32_t> leader_epoch_{0};
  TopicId topic_id_{};
  std::atomic<int32_t> max_message_bytes_{-1};
  std::atomic<int32_t> min_insync_replicas_{1};
  std::atomic<bool> leader_throttled_{false};
  std::atomic<bool> follower_throttled_{false};
  // Cluster mode.
  std::atomic<Role> role_{Role::kSingleNode};
  std::atomic<int32_t> leader_id_{-1};
  std::atomic<int64_t> cluster_hw_{0};  // leader: ReplicaSet's; follower: learnt
  std::function<int64_t()> now_ms_;
  IsrChangeSink isr_sink_;
  mutable std::mutex cluster_mu_;
  std::optional<replica::ReplicaSet> replicas_;  // engaged once LeaderAndIsr named us leader
  int32_t partition_epoch_ = -1;                 // follower side (the ReplicaSet keeps its own)
  bool seen_leader_and_isr_ = false;
  // The largest last offset whose requested fsync failed; -1: none.
  std::atomic<int64_t> failed_flush_through_{-1};
  RefusedBatches refused_batches_;
};

}  // namespace spool::broker
