// ReplicaManager's read path: fetch_messages (Fetch). See replica_manager.h.
// One FetchRead is one pass over the partitions; a FetchWait is the state a
// parked fetch keeps (its parameters and callback), shared by the
// DelayedFetch's two halves.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "broker/delayed_fetch.h"
#include "broker/replica_manager.h"
#include "replica/truncation.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

constexpr int8_t kReadCommitted = 1;

// What one pass over the partitions found.
struct FetchRead {
  std::vector<FetchPartitionResult> results;
  size_t total_bytes = 0;  // record bytes read
  bool any_error = false;
  bool diverged = false;  // a partition answered DivergingEpoch
  int64_t throttled_bytes = 0;  // record bytes of leader-throttled partitions read for an out-of-sync replica
};

struct FetchWait {
  const ReplicaManager& rm;
  const TopicRegistry& registry;
  FetchParams params;
  FetchCallback done;

  bool read_committed() const { return params.isolation_level == kReadCommitted; }
  // A follower's fetch (cluster mode): reads up to the log end, updates the
  // follower's state on the leader.
  bool from_replica() const { return params.replica_id >= 0; }

  // KIP-73, the leader side: this partition's bytes count against the leader
  // quota (throttled partition, replica not in the ISR) ...
  bool counts_against_quota(const Partition& partition) const {
    return from_replica() && rm.leader_quota() && partition.leader_throttled() && !partition.in_isr(params.replica_id);
  }
  // ... and while the quota is exceeded it gets no records.
  bool held_back(const Partition& partition) const {
    return counts_against_quota(partition) && rm.leader_quota()->exceeded();
  }

  // The partition `fp` names, or the error that answers it instead (topic id,
  // existence and leader epoch checks, in Kafka's order).
  std::shared_ptr<Partition> lookup(const FetchPartitionWanted& fp, ErrorCode& error) const {
    std::string resolved;
    const std::string* name = &fp.topic;
    if (params.by_topic_id && name->empty()) {
      // Unknown when the request (or the session) named it; maybe known now.
      if (auto n = registry.name_of(fp.topic_id)) resolved = std::move(*n);
      name = &resolved;
    }
    if (params.by_topic_id && name->empty()) {
      error = ErrorCode::kUnknownTopicId;
      return nullptr;
    }
    if (params.may_read && !params.may_read(*name)) {
      error = ErrorCode::kTopicAuthorizationFailed;
      return nullptr;
    }
    auto partition = rm.partition(*name, fp.partition);
    if (!partition) {
      error = ErrorCode::kUnknownTopicOrPartition;
      return nullptr;
    }
    if (params.by_topic_id && partition->topic_id() != fp.topic_id) {
      // The name now belongs to a re-created topic: never its data under the old id.
      error = ErrorCode::kInconsistentTopicId;
      return nullptr;
    }
    // Only the leader serves (no follower fetching, KIP-392, in Spool).
    if (!partition->is_leader()) {
      error = ErrorCode::kNotLeaderOrFollower;
      return nullptr;
    }
    if (from_replica() && partition->role() != Partition::Role::kLeader) {
      error = ErrorCode::kNotLeaderOrFollower;  // a single-node partition has no followers
      return nullptr;
    }
    if (fp.current_leader_epoch >= 0) {
      const int32_t local = partition->leader_epoch();
      if (local > fp.current_leader_epoch) {
        error = ErrorCode::kFencedLeaderEpoch;
        return partition;
      }
      if (local < fp.current_leader_epoch) {
        error = ErrorCode::kUnknownLeaderEpoch;
        return nullptr;
      }
    }
    error = ErrorCode::kNone;
    return partition;
  }

  // LastFetchedEpoch (v12+) against the leader-epoch cache, as Kafka's
  // Partition.readRecords: OFFSET_OUT_OF_RANGE, or true with pr's
  // diverging_epoch set, or false (read normally).
  static bool diverges(Partition& partition, const FetchPartitionWanted& fp, FetchPartitionResult& pr) {
    if (fp.last_fetched_epoch < 0) return false;
    if (partition.role() == Partition::Role::kLeader) {
      // The leader-side rule of replica/truncation.h (Partition.readRecords).
      auto d = replica::check_fetch_divergence(fp.last_fetched_epoch, fp.fetch_offset,
                                               partition.log().end_offset_for_epoch(fp.last_fetched_epoch),
                                               partition.log_start_offset());
      if (d.error != ErrorCode::kNone) {
        pr.error_code = d.error;
        return false;
      }
      if (d.diverging) {
        pr.diverging_epoch.epoch = d.diverging->epoch;
        pr.diverging_epoch.end_offset = d.diverging->end_offset;
        return true;
      }
      return false;
    }
    const auto [epoch, end_offset] = partition.log().end_offset_for_epoch(fp.last_fetched_epoch);
    if (epoch < 0 || end_offset < 0 || fp.fetch_offset < partition.log_start_offset()) {
      pr.error_code = ErrorCode::kOffsetOutOfRange;
      return false;
    }
    if (epoch < fp.last_fetched_epoch || end_offset < fp.fetch_offset) {
      pr.diverging_epoch.epoch = epoch;
      pr.diverging_epoch.end_offset = end_offset;
      return true;
    }
    return false;
  }

  // Reads every partition, one result each, in order.
  FetchRead read_all() const {
    FetchRead out;
    auto& results = out.results;
    auto& total_bytes = out.total_bytes;
    auto& any_error = out.any_error;
    results.reserve(params.partitions.size());
    const int64_t max_bytes = params.max_bytes > 0 ? params.max_bytes : 0;
    for (const auto& fp : params.partitions) {
      auto& pr = results.emplace_back();
      pr.partition_index = fp.partition;
      pr.high_watermark = -1;
      pr.last_stable_offset = -1;
      pr.log_start_offset = -1;
      pr.preferred_read_replica = -1;
      pr.records.emplace();  // librdkafka refuses a null record set; an empty one means "nothing"
      ErrorCode error = ErrorCode::kNone;
      auto partition = lookup(fp, error);
      if (error != ErrorCode::kNone) {
        pr.error_code = error;
        any_error = true;
        continue;
      }
      if (from_replica()) {
        // The follower's fetch offset is its log end (and, durable, its
        // fsynced offset: replica/fetch_builder.h); the high watermark may move.
        const ErrorCode e = partition->record_follower_fetch(params.replica_id, fp.fetch_offset, fp.log_start_offset,
                                                            params.replica_epoch);
        if (e != ErrorCode::kNone) {
          pr.error_code = e;
          any_error = true;
          continue;
        }
      }
      const int64_t hw = partition->high_watermark();
      const int64_t lso = partition->last_stable_offset();
      // read_committed consumers see only what no open transaction may still
      // abort; followers read up to the log end.
      const int64_t bound = from_replica() ? partition->log_end_offset() : read_committed() ? lso : hw;
      pr.high_watermark = hw;
      pr.last_stable_offset = lso;
      pr.log_start_offset = partition->log_start_offset();
      pr.aborted_transactions.emplace();
      int64_t budget = std::min<int64_t>(fp.max_bytes, max_bytes - static_cast<int64_t>(total_bytes));
      if (fp.max_bytes < 0) {
        pr.error_code = ErrorCode::kInvalidFetchSize;  // not retried by clients
        any_error = true;
        continue;
      }
      if (diverges(*partition, fp, pr)) {
        out.diverged = true;  // answered at once, as Kafka does
        continue;
      }
      if (pr.error_code != ErrorCode::kNone) {
        any_error = true;
        continue;
      }
      // At/after the bound but inside the log (read_committed between LSO and
      // HW): nothing to return yet, as Kafka answers. A throttled replica
      // gets nothing while the leader quota is exceeded.
      if ((fp.fetch_offset >= bound && fp.fetch_offset <= partition->log_end_offset()) ||
          (budget <= 0 && total_bytes > 0) || held_back(*partition)) {
        pr.error_code = ErrorCode::kNone;
        continue;
      }
      auto read = partition->log().read_regions(fp.fetch_offset, static_cast<int32_t>(std::max<int64_t>(budget, 0)),
                                                bound, /*min_one=*/total_bytes == 0);
      if (!read) {
        int16_t c = read.status().kafka_code();
        pr.error_code = c > 0 ? static_cast<ErrorCode>(c) : ErrorCode::kKafkaStorageError;
        if (c <= 0) spdlog::error("fetch {}-{}: {}", fp.topic, fp.partition, read.status().message());
        any_error = true;
        continue;
      }
      pr.error_code = ErrorCode::kNone;
      pr.log_start_offset = read->log_start_offset;
      if (read_committed() && read->next_offset >= 0) {
        for (const auto& t : partition->log().collect_aborted_txns(fp.fetch_offset, read->next_offset)) {
          auto& a = pr.aborted_transactions->emplace_back();
          a.producer_id = t.producer_id;
          a.first_offset = t.first_offset;
        }
      }
      total_bytes += read->bytes;
      if (counts_against_quota(*partition)) out.throttled_bytes += read->bytes;
      if (read->bytes > 0) pr.records = protocol::Records::from_regions(std::move(read->regions));
    }
    return out;
  }

  bool enough(const FetchRead& read) const {
    // Nothing to read (e.g. a full fetch of no partitions) is answered at once, as Kafka does.
    return static_cast<int64_t>(read.total_bytes) >= std::max<int32_t>(params.min_bytes, 1) || read.any_error ||
           read.diverged || params.partitions.empty();
  }

  // The DelayedFetch condition. A cheap look at the high watermarks first:
  // most waits end with min_bytes=1 and the first new batch.
  bool ready() const {
    bool moved = false;
    for (const auto& fp : params.partitions) {
      ErrorCode error = ErrorCode::kNone;
      auto partition = lookup(fp, error);
      if (error != ErrorCode::kNone) return true;  // deleted or re-created meanwhile: report the error now
      if (fp.last_fetched_epoch >= 0) {
        FetchPartitionResult probe;
        if (diverges(*partition, fp, probe) || probe.error_code != ErrorCode::kNone) return true;
      }
      if (fp.fetch_offset < partition->log_start_offset() || fp.fetch_offset > partition->log_end_offset())
        return true;  // out of range: report now
      const int64_t bound = from_replica()     ? partition->log_end_offset()
                            : read_committed() ? partition->last_stable_offset()
                                               : partition->high_watermark();
      // A held-back throttled partition does not end the wait (Kafka's
      // DelayedFetch leaves its bytes out).
      if (bound > fp.fetch_offset && !held_back(*partition)) moved = true;
    }
    if (!moved) return false;
    if (params.min_bytes <= 1) return true;
    return enough(read_all());
  }
};

}  // namespace

void ReplicaManager::fetch_messages(FetchParams params, FetchCallback done) {
  auto wait = std::make_shared<FetchWait>(FetchWait{*this, registry_, std::move(params), std::move(done)});
  auto read = wait->read_all();
  if (wait->enough(read) || wait->params.max_wait_ms <= 0) {
    if (read.throttled_bytes > 0) leader_quota()->record(read.throttled_bytes);
    wait->done(std::move(read.results));
    return;
  }
  auto delayed = std::make_shared<DelayedFetch>(
      wait->params.max_wait_ms, [wait] { return wait->ready(); },
      [wait] {
        auto last = wait->read_all();
        if (last.throttled_bytes > 0) wait->rm.leader_quota()->record(last.throttled_bytes);
        wait->done(std::move(last.results));
      });
  std::vector<TopicPartition> keys;
  keys.reserve(wait->params.partitions.size());
  for (const auto& fp : wait->params.partitions) {
    if (!fp.topic.empty()) keys.emplace_back(fp.topic, fp.partition);
  }
  fetch_purgatory_->try_complete_else_watch(delayed, keys);
}

}  // namespace spool::broker
