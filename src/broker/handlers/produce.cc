// Produce: validate each partition's batches, append them (offsets assigned
// in place, in the request frame: the records are never copied before the
// segment write), and answer. acks=0 gets no answer, unless a partition failed:
// then, as Kafka does, the connection is closed so the client notices.
// acks=all answers once every appended partition is durable (group-committed
// fsync when durable.writes is on) through a DelayedProduce in the produce
// purgatory, or REQUEST_TIMED_OUT after timeout.ms; acks=1 never waits for
// the disk. acks=all is refused with NOT_ENOUGH_REPLICAS, before anything is
// appended, while the topic's min.insync.replicas exceeds the in-sync replicas
// (on one node: whenever it is above 1), as Kafka does; acks=0/1 are not.
// Idempotent producers: see storage/producer_state.h (checked in the append).
// Produce v0-2 carry the old message formats that Spool does not store; they
// are advertised (librdkafka keeps its codecs on only when v0 is in range) and
// answered with UNSUPPORTED_VERSION per partition.
// Versions: v9 is flexible (same semantics). v10 (KIP-951) adds the
// CurrentLeader / NodeEndpoints tags, filled for partitions answered
// NOT_LEADER_OR_FOLLOWER (never on one node, where this broker leads every
// partition; the code path is there for cluster mode). v11/v12 (KIP-890) only
// allow TRANSACTION_ABORTABLE, which Kafka returns when transaction
// verification fails; Spool does no partition verification, so it never
// occurs, and v12's implicit AddPartitionsToTxn of transaction version 2 is
// not done either (Spool does not enable transaction.version 2, so clients
// still add partitions explicitly). v13 (KIP-516) names each topic by id: an
// id the registry does not know (deleted, never existed, or all zero) is
// UNKNOWN_TOPIC_ID for each of its partitions; a partition whose data belongs
// to another id (the topic was re-created meanwhile) is INCONSISTENT_TOPIC_ID;
// the answer carries the id, not the name.
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>

#include "broker/delayed_produce.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_name.h"
#include "protocol/error_code.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"
#include "record/produce_validation.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

constexpr int16_t kFirstServedVersion = 3;

int16_t code(ErrorCode c) { return static_cast<int16_t>(c); }

// KIP-951 (v10+): a partition answered NOT_LEADER_OR_FOLLOWER names the
// leader (here: this node, at the partition's epoch) and the response lists
// that leader's endpoint once.
void add_current_leaders(const BrokerContext& b, protocol::ProduceResponse& resp) {
  for (auto& tr : resp.responses) {
    for (auto& pr : tr.partition_responses) {
      if (pr.error_code != ErrorCode::kNotLeaderOrFollower) continue;
      auto partition = b.replicas.partition(tr.name, pr.index);
      if (!partition) continue;  // leader unknown: the tag stays at its default (-1, -1)
      pr.current_leader.leader_id = b.settings.broker_id;
      pr.current_leader.leader_epoch = partition->leader_epoch();
      if (resp.node_endpoints.empty()) {
        auto& n = resp.node_endpoints.emplace_back();
        n.node_id = b.settings.broker_id;
        n.host = b.settings.advertised_host;
        n.port = b.settings.advertised_port;
      }
    }
  }
}

}  // namespace

void handle_produce(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  // Each partition's records decode as a view into the frame (protocol::
  // Records): the batches stay where recv put them and offsets are assigned
  // by rewriting their headers in place. The frame is owned by
  // Dispatcher::handle for the whole call and nothing keeps a view past it
  // (acks=all waits hold offsets, not bytes).
  protocol::ProduceRequest req;
  if (!decode_or_close(ctx, body, req, "Produce")) return;
  const int16_t v = ctx.version();
  const bool served = v >= kFirstServedVersion;
  bool any_error = false;
  protocol::ProduceResponse resp;
  if (req.acks != 0 && req.acks != 1 && req.acks != -1) {
    // Kafka answers INVALID_REQUIRED_ACKS for every partition.
    for (auto& td : req.topic_data) {
      auto& tr = resp.responses.emplace_back();
      tr.name = td.name;
      tr.topic_id = td.topic_id;
      for (auto& pd : td.partition_data) {
        auto& pr = tr.partition_responses.emplace_back();
        pr.index = pd.index;
        pr.error_code = ErrorCode::kInvalidRequiredAcks;
        pr.base_offset = -1;
      }
    }
    ctx.respond(resp);
    return;
  }

  // Durable partitions an acks=all answer must wait for.
  struct ToWait {
    std::shared_ptr<Partition> partition;
    int64_t last_offset;
    size_t topic, index;
  };
  std::vector<ToWait> waits;
  resp.responses.reserve(req.topic_data.size());
  for (auto& td : req.topic_data) {
    auto& tr = resp.responses.emplace_back();
    // v13: the topic is named by id; resolved once per topic, not per partition.
    bool unknown_id = false;
    if (v >= 13) {
      tr.topic_id = td.topic_id;
      if (auto name = b.registry.name_of(td.topic_id)) {
        td.name = std::move(*name);  // the request's name field is not on the wire at v13
      } else {
        unknown_id = true;
      }
    }
    tr.name = td.name;  // not encoded at v13; kept for the partition lookups below
    tr.partition_responses.reserve(td.partition_data.size());
    for (auto& pd : td.partition_data) {
      auto& pr = tr.partition_responses.emplace_back();
      pr.index = pd.index;
      pr.base_offset = -1;
      pr.log_append_time_ms = -1;
      pr.log_start_offset = -1;
      auto fail = [&](ErrorCode c, std::string msg = {}) {
        pr.error_code = c;
        if (!msg.empty()) pr.error_message = msg;
        any_error = true;
      };
      if (!served) {
        fail(ErrorCode::kUnsupportedVersion, "produce v0-2 (message format v0/v1) is not supported");
        continue;
      }
      if (unknown_id) {
        fail(ErrorCode::kUnknownTopicId);
        continue;
      }
      if (is_internal_topic(td.name)) {
        fail(ErrorCode::kInvalidTopicException, "Cannot append to internal topic " + td.name);
        continue;
      }
      auto partition = b.replicas.partition(td.name, pd.index);
      if (!partition) {
        fail(ErrorCode::kUnknownTopicOrPartition);
        continue;
      }
      if (v >= 13 && partition->topic_id() != td.topic_id) {
        // Deleted and re-created between the id lookup and here: never
        // append to the new topic under the old id.
        fail(ErrorCode::kInconsistentTopicId);
        continue;
      }
      pr.log_start_offset = partition->log_start_offset();
      if (req.acks == -1) {
        if (Status enough = partition->check_enough_replicas(); !enough) {
          fail(ErrorCode::kNotEnoughReplicas, enough.message());
          continue;
        }
      }
      if (!pd.records || pd.records->empty()) {
        fail(ErrorCode::kCorruptMessage, "no record batch");
        continue;
      }
      std::span<uint8_t> batches = pd.records->bytes();
      // The topic's max.message.bytes (dynamic), else the broker's message.max.bytes.
      const int32_t max_bytes =
          partition->max_message_bytes() >= 0 ? partition->max_message_bytes() : b.settings.message_max_bytes;
      record::ProduceValidationOptions vo;
      vo.max_message_bytes = static_cast<size_t>(max_bytes);
      // Uncompressed batches get the allocation-free record walk (it accepts
      // exactly what full decoding accepts, see produce_validation.h);
      // compressed ones are decompressed and decoded.
      vo.records = record::RecordCheck::kWalk;
      auto valid = record::validate_produce_records(batches, vo);
      if (!valid) {
        spdlog::debug("produce to {}-{} from {} refused: {}", td.name, pd.index, ctx.conn.peer,
                      valid.status().message());
        fail(static_cast<ErrorCode>(valid.status().kafka_code()), valid.status().message());
        continue;
      }
      // Idempotent batches are checked inside the append (atomic with offset
      // assignment): OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH and
      // INVALID_RECORD come back as the status code; a retried duplicate
      // succeeds with its original offsets (never DUPLICATE_SEQUENCE_NUMBER).
      auto appended = partition->append(batches, valid->record_count);
      if (!appended) {
        int16_t c = appended.status().kafka_code();
        if (c == code(ErrorCode::kOutOfOrderSequenceNumber) || c == code(ErrorCode::kInvalidProducerEpoch) ||
            c == code(ErrorCode::kInvalidRecord))
          spdlog::debug("produce to {}-{} from {} refused: {}", td.name, pd.index, ctx.conn.peer,
                        appended.status().message());
        else
          spdlog::error("append to {}-{} failed: {}", td.name, pd.index, appended.status().message());
        fail(c > 0 ? static_cast<ErrorCode>(c) : ErrorCode::kKafkaStorageError, appended.status().message());
        continue;
      }
      pr.base_offset = appended->first_offset;
      pr.log_append_time_ms = appended->log_append_time_ms;
      pr.error_code = ErrorCode::kNone;
      if (req.acks == -1 && partition->durable_writes())
        waits.push_back({partition, appended->last_offset, resp.responses.size() - 1,
                         tr.partition_responses.size() - 1});
    }
  }

  if (req.acks == 0) {
    if (any_error) {
      ctx.close("acks=0 produce failed on at least one partition");
    } else {
      ctx.no_response();
    }
    return;
  }
  if (v >= 10 && any_error) add_current_leaders(b, resp);
  if (waits.empty()) {
    ctx.respond(resp);
    return;
  }
  auto op = std::make_shared<DelayedProduce>(std::max<int64_t>(req.timeout_ms, 0), ctx, std::move(resp));
  for (const auto& w : waits) {
    auto* answer = &op->response().responses[w.topic].partition_responses[w.index];
    auto& wait = op->add_wait(w.partition, w.last_offset, answer);
    auto* purgatory = &b.produce_purgatory;
    std::string key = w.partition->key();
    w.partition->await_durable(w.last_offset, [purgatory, &wait, op, key](Status s) {
      if (!s) wait.failed.store(true);
      purgatory->check_and_complete(key);
    });
  }
  b.produce_purgatory.try_complete_else_watch(op, op->keys());
}

}  // namespace spool::broker
