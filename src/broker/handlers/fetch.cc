// Fetch (v4-18, consumers only for now): whole batches from each requested
// partition up to the high watermark (read_uncommitted) or the last stable
// offset (read_committed, isolation_level 1), bounded by partition_max_bytes and the
// request's max_bytes (the first batch found is always returned whole, as
// Kafka does, so a batch larger than the limits cannot stall a consumer).
// When less than min_bytes is available the request is parked as a
// DelayedFetch in the fetch purgatory, watched under each partition's key: a
// high-watermark move on any of them re-checks it at once, and max_wait_ms
// expiry answers with what exists.
// Fetch sessions (KIP-227, v7+): the FetchSessionCache classifies the request
// once, up front; its context says which partitions to read (for an
// incremental fetch: the whole session) and builds the answer from what was
// read (for an incremental fetch: only the changed partitions).
// Transactions: every answer carries last_stable_offset = the partition's
// LSO (as Kafka does for both isolation levels); read_committed answers also
// list the aborted transactions (producer id, first offset) overlapping the
// returned range, which clients use to drop the aborted producers' batches
// up to their ABORT marker.
// Versions (as Kafka 4.4's leader answers a consumer):
//   v9+  CurrentLeaderEpoch fencing: a given epoch (>= 0) older than the
//        partition's is FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH.
//   v12  flexible. LastFetchedEpoch (>= 0) is checked against the leader-epoch
//        cache: no end offset for it (or a fetch offset below the log start)
//        is OFFSET_OUT_OF_RANGE; an epoch that ended before the fetch offset,
//        or is unknown here, answers DivergingEpoch = (largest epoch <= it,
//        its end offset) with no records, at once. ClusterId is ignored
//        (Kafka checks it only on the KRaft controller's fetch).
//   v13  topics by TopicId, also in sessions and ForgottenTopicsData: an id
//        the registry does not know is UNKNOWN_TOPIC_ID; a session partition
//        whose topic was re-created (same name, new id) is
//        INCONSISTENT_TOPIC_ID; the answer names topics by id. v14: same.
//   v15  ReplicaState (ReplicaId/ReplicaEpoch) replaces ReplicaId; a replica
//        id >= 0 is refused as before.
//   v16  NodeEndpoints: with CurrentLeader, filled for FENCED_LEADER_EPOCH
//        (and NOT_LEADER_OR_FOLLOWER, never answered on one node).
//   v17/v18 ReplicaDirectoryId and HighWatermark are a follower's fields:
//        decoded and ignored, as Kafka's leader ignores them for consumers.
// Zero copy: partitions are read as file regions of their segments (only
// batch headers are read), and the answer carries them as protocol::Records
// of regions, which the encoder leaves as splices the connection fills with
// sendfile (RequestContext::respond); with sendfile off the net layer reads
// them into memory instead, same bytes.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "broker/delayed_fetch.h"
#include "broker/fetch_session_cache.h"
#include "broker/handlers/handlers.h"
#include "protocol/error_code.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

constexpr int8_t kReadCommitted = 1;

// What one pass over the partitions found.
struct FetchRead {
  std::vector<FetchPartitionResult> results;
  size_t total_bytes = 0;   // record bytes read
  bool any_error = false;
  bool diverged = false;    // a partition answered DivergingEpoch
  std::vector<protocol::FetchResponse::NodeEndpoint> leaders;  // v16+ NodeEndpoints
};

struct FetchOp : std::enable_shared_from_this<FetchOp> {
  BrokerContext& b;
  RequestContext ctx;
  protocol::FetchRequest req;
  std::optional<FetchContext> session;  // set once the request is decoded

  FetchOp(BrokerContext& broker, RequestContext c) : b(broker), ctx(std::move(c)) {}

  bool by_id() const { return ctx.version() >= 13; }

  // The partition `fp` names, or the error that answers it instead (topic id,
  // existence and leader epoch checks, in Kafka's order).
  std::shared_ptr<Partition> lookup(const FetchPartitionWanted& fp, ErrorCode& error) const {
    std::string resolved;
    const std::string* name = &fp.topic;
    if (by_id() && name->empty()) {
      // Unknown when the request (or the session) named it; maybe known now.
      if (auto n = b.registry.name_of(fp.topic_id)) resolved = std::move(*n);
      name = &resolved;
    }
    if (by_id() && name->empty()) {
      error = ErrorCode::kUnknownTopicId;
      return nullptr;
    }
    auto partition = b.replicas.partition(*name, fp.partition);
    if (!partition) {
      error = ErrorCode::kUnknownTopicOrPartition;
      return nullptr;
    }
    if (by_id() && partition->topic_id() != fp.topic_id) {
      // The name now belongs to a re-created topic: never its data under the old id.
      error = ErrorCode::kInconsistentTopicId;
      return nullptr;
    }
    if (fp.current_leader_epoch >= 0) {
      const int32_t local = partition->leader_epoch();
      if (local > fp.current_leader_epoch) {
        error = ErrorCode::kFencedLeaderEpoch;
        return partition;  // the caller names the current leader (v16+)
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
  bool diverges(Partition& partition, const FetchPartitionWanted& fp, FetchPartitionResult& pr) const {
    if (fp.last_fetched_epoch < 0) return false;
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

  // Reads every partition the session context lists, one result each, in
  // order.
  FetchRead read_all() {
    FetchRead out;
    auto& results = out.results;
    auto& total_bytes = out.total_bytes;
    auto& any_error = out.any_error;
    results.reserve(session->partitions().size());
    const int64_t max_bytes = req.max_bytes > 0 ? req.max_bytes : 0;
    for (const auto& fp : session->partitions()) {
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
        if (error == ErrorCode::kFencedLeaderEpoch && ctx.version() >= 16) name_leader(*partition, pr, out);
        continue;
      }
      const int64_t hw = partition->high_watermark();
      const int64_t lso = partition->last_stable_offset();
      // read_committed consumers see only what no open transaction may still abort.
      const int64_t bound = read_committed() ? lso : hw;
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
      // HW): nothing to return yet, as Kafka answers.
      if ((fp.fetch_offset >= bound && fp.fetch_offset <= partition->log_end_offset()) ||
          (budget <= 0 && total_bytes > 0)) {
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
      if (read->bytes > 0) pr.records = protocol::Records::from_regions(std::move(read->regions));
    }
    return out;
  }

  // KIP-951 (v16+): the partition's leader, this node at its epoch, in
  // CurrentLeader, and its endpoint once in NodeEndpoints.
  void name_leader(const Partition& partition, FetchPartitionResult& pr, FetchRead& out) const {
    pr.current_leader.leader_id = b.settings.broker_id;
    pr.current_leader.leader_epoch = partition.leader_epoch();
    if (out.leaders.empty()) {
      auto& n = out.leaders.emplace_back();
      n.node_id = b.settings.broker_id;
      n.host = b.settings.advertised_host;
      n.port = b.settings.advertised_port;
    }
  }

  bool read_committed() const { return req.isolation_level == kReadCommitted; }

  bool enough(const FetchRead& read) const {
    // Nothing to read (e.g. a full fetch of no partitions) is answered at once, as Kafka does.
    return static_cast<int64_t>(read.total_bytes) >= std::max<int32_t>(req.min_bytes, 1) || read.any_error ||
           read.diverged || session->partitions().empty();
  }

  void respond(FetchRead read) {
    const size_t partitions = read.results.size();
    auto resp = session->make_response(std::move(read.results));
    if (!resp.responses.empty()) resp.node_endpoints = std::move(read.leaders);
    ctx.respond(resp, 64 + 96 * partitions);
  }

  // The DelayedFetch condition. A cheap look at the high watermarks first:
  // most waits end with min_bytes=1 and the first new batch.
  bool ready() {
    bool moved = false;
    for (const auto& fp : session->partitions()) {
      ErrorCode error = ErrorCode::kNone;
      auto partition = lookup(fp, error);
      if (error != ErrorCode::kNone) return true;  // deleted or re-created meanwhile: report the error now
      if (fp.last_fetched_epoch >= 0) {
        FetchPartitionResult probe;
        if (diverges(*partition, fp, probe) || probe.error_code != ErrorCode::kNone) return true;
      }
      if (fp.fetch_offset < partition->log_start_offset() || fp.fetch_offset > partition->log_end_offset())
        return true;  // out of range: report now
      const int64_t bound = read_committed() ? partition->last_stable_offset() : partition->high_watermark();
      if (bound > fp.fetch_offset) moved = true;
    }
    if (!moved) return false;
    if (req.min_bytes <= 1) return true;
    auto read = read_all();
    return enough(read);
  }

  void start() {
    auto read = read_all();
    if (enough(read) || req.max_wait_ms <= 0) {
      respond(std::move(read));
      return;
    }
    auto self = shared_from_this();
    auto delayed = std::make_shared<DelayedFetch>(
        req.max_wait_ms, [self] { return self->ready(); },
        [self] { self->respond(self->read_all()); });
    std::vector<std::string> keys;
    keys.reserve(session->partitions().size());
    for (const auto& fp : session->partitions()) {
      if (!fp.topic.empty()) keys.push_back(fp.topic + "-" + std::to_string(fp.partition));
    }
    b.fetch_purgatory.try_complete_else_watch(delayed, keys);
  }
};

}  // namespace

void handle_fetch(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  auto op = std::make_shared<FetchOp>(b, ctx);
  if (!decode_or_close(ctx, body, op->req, "Fetch")) return;
  // v15+ carries the fetcher's id in the ReplicaState tag (KIP-903).
  const int32_t replica_id = ctx.version() >= 15 ? op->req.replica_state.replica_id : op->req.replica_id;
  if (replica_id >= 0) {
    ctx.close("replica fetches are not served by a single-node broker");
    return;
  }
  auto resolve = [&b](const TopicId& id) {
    auto n = b.registry.name_of(id);
    return n ? std::move(*n) : std::string();
  };
  op->session.emplace(b.fetch_sessions.new_context(op->req, ctx.version(), /*is_follower=*/false, resolve));
  if (op->session->error()) {
    ctx.respond(op->session->make_response({}));  // a session error reads nothing and waits for nothing
    return;
  }
  op->start();
}

}  // namespace spool::broker
