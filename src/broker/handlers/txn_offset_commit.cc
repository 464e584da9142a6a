// TxnOffsetCommit v0-6 (v3 flexible). A transactional producer commits a
// group's offsets inside its transaction; they become visible to OffsetFetch
// only when the transaction's COMMIT marker reaches the group's
// __consumer_offsets partition (GroupCoordinator::complete_txn_offsets).
// As Kafka 4.4's KafkaApis and group coordinator serve it:
//  * per topic: an unknown topic (or a partition beyond its count) answers
//    UNKNOWN_TOPIC_OR_PARTITION; v6 names topics by id (KIP-1319), an id no
//    topic has answers UNKNOWN_TOPIC_ID, and answers carry the id;
//  * KIP-890 verification, before the group is looked at: unless the
//    producer already has this transaction open on the group's offsets
//    partition, the transaction coordinator is asked whether that partition
//    is in the transaction (v0-4) or adds it (v5+, the implicit
//    AddOffsetsToTxn of KIP-890 part 2). Not in it: TRANSACTION_ABORTABLE
//    (v4+), INVALID_TXN_STATE below v4; PRODUCER_FENCED becomes
//    INVALID_PRODUCER_EPOCH; every partition gets that one error;
//  * the rest go to the group coordinator in one call, answered once durable,
//    every requested partition in request order. v2 adds the committed
//    leader epoch; v3 the member identity (KIP-447), checked only when given;
//    a generation for a group that does not exist is ILLEGAL_GENERATION, from
//    v6 GROUP_ID_NOT_FOUND;
//  * cluster mode: topics are checked against the metadata cache (this broker
//    need not host them); a transaction coordinator on another broker is not
//    asked yet (v0-4 commit unverified, see below; a documented difference);
//    a topic the cache lacks, on a broker that is not the group's coordinator,
//    answers NOT_COORDINATOR (or COORDINATOR_LOAD_IN_PROGRESS): a restarted
//    broker serves before its first UpdateMetadata, and a client that still
//    takes it for the coordinator must be sent to the real one, not told
//    UNKNOWN_TOPIC_OR_PARTITION, which it takes as final (Kafka's broker does
//    not serve before its metadata has caught up);
//  * below v2, COORDINATOR_LOAD_IN_PROGRESS is answered as
//    COORDINATOR_NOT_AVAILABLE (those clients do not retry the former).
// With an authorizer (Kafka's checks, first): WRITE on the transactional id
// (else every partition TRANSACTIONAL_ID_AUTHORIZATION_FAILED), READ on the
// group (else GROUP_AUTHORIZATION_FAILED), READ on each topic (else its
// partitions TOPIC_AUTHORIZATION_FAILED).
#include <memory>

#include "broker/group_service.h"
#include "broker/handlers/commit_partitions.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/partition.h"
#include "broker/replica_manager.h"
#include "broker/topic_lookup.h"
#include "broker/topic_name.h"
#include "broker/topic_registry.h"
#include "broker/txn_service.h"
#include "cluster/metadata_cache.h"
#include "protocol/txn_offset_commit_request.h"
#include "protocol/txn_offset_commit_response.h"

namespace spool::broker {

using protocol::ErrorCode;
using Response = protocol::TxnOffsetCommitResponse;

namespace {

// How a verification error reaches the client (Kafka's
// AddPartitionsToTxnManager, then the group coordinator's
// handleOperationException).
ErrorCode verification_error(ErrorCode e, int16_t v) {
  switch (e) {
    case ErrorCode::kProducerFenced:
      return ErrorCode::kInvalidProducerEpoch;
    case ErrorCode::kTransactionAbortable:
      return v < 4 ? ErrorCode::kInvalidTxnState : e;
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kRequestTimedOut:
      return ErrorCode::kCoordinatorNotAvailable;
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kKafkaStorageError:
      return ErrorCode::kNotCoordinator;
    default:
      return e;
  }
}

void send(const RequestContext& ctx, Response& resp) {
  if (ctx.version() < 2) {
    for (auto& t : resp.topics)
      for (auto& p : t.partitions)
        if (p.error_code == ErrorCode::kCoordinatorLoadInProgress) p.error_code = ErrorCode::kCoordinatorNotAvailable;
  }
  ctx.respond(resp);
}

// Every partition sent to the coordinator gets `e`.
void fail_entries(Response& resp, const CommitSlots& slots, ErrorCode e) {
  for (const auto& [tp, slot] : slots) resp.topics[slot.first].partitions[slot.second].error_code = e;
}

}  // namespace

void handle_txn_offset_commit(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::TxnOffsetCommitRequest req;
  if (!decode_or_close(ctx, body, req, "TxnOffsetCommit")) return;
  const int16_t v = ctx.version();
  auto resp = std::make_shared<Response>();
  coordinator::TxnOffsetCommitParams p;
  CommitSlots slots;
  ErrorCode unknown_topic = ErrorCode::kUnknownTopicOrPartition;
  if (b.metadata != nullptr && b.groups != nullptr) {
    const ErrorCode status = b.groups->coordinator().coordinator_status(req.group_id);
    if (status != ErrorCode::kNone) unknown_topic = status;  // see the contract: the cache may lag here
  }
  ErrorCode refused = ErrorCode::kNone;  // every partition's, when set
  if (!allowed(b, ctx, security::AclOperation::kWrite, security::ResourceType::kTransactionalId,
               req.transactional_id)) {
    refused = ErrorCode::kTransactionalIdAuthorizationFailed;
  } else if (!group_allowed(b, ctx, security::AclOperation::kRead, req.group_id)) {
    refused = ErrorCode::kGroupAuthorizationFailed;
  }
  for (auto& t : req.topics) {
    auto& rt = resp->topics.emplace_back();
    std::string name;
    bool known = true;
    if (v >= 6) {
      rt.topic_id = t.topic_id;
      auto found = topic_name_by_id(b, t.topic_id);
      known = found.has_value();
      if (known) name = *found;
    } else {
      rt.name = t.name;
      name = t.name;
    }
    for (auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
      if (refused != ErrorCode::kNone) {
        rp.error_code = refused;
      } else if (!known) {
        rp.error_code = ErrorCode::kUnknownTopicId;
      } else if (!topic_allowed(b, ctx, security::AclOperation::kRead, name)) {
        rp.error_code = ErrorCode::kTopicAuthorizationFailed;
      } else if (b.groups == nullptr) {
        rp.error_code = ErrorCode::kCoordinatorNotAvailable;
      } else if (!partition_exists(b, name, part.partition_index)) {
        rp.error_code = unknown_topic;
      } else {
        coordinator::OffsetCommitEntry e;
        e.tp = {name, part.partition_index};
        e.offset = part.committed_offset;
        e.leader_epoch = v >= 2 ? part.committed_leader_epoch : -1;
        e.metadata = std::move(part.committed_metadata);
        slots.emplace(e.tp, std::make_pair(resp->topics.size() - 1, rt.partitions.size() - 1));
        p.offsets.push_back(std::move(e));
      }
    }
  }
  if (p.offsets.empty()) {
    send(ctx, *resp);
    return;
  }
  p.transactional_id = std::move(req.transactional_id);
  p.group_id = std::move(req.group_id);
  p.producer_id = req.producer_id;
  p.producer_epoch = req.producer_epoch;
  if (v >= 3) {
    p.generation_id = req.generation_id_or_member_epoch;
    p.member_id = std::move(req.member_id);
    p.group_instance_id = std::move(req.group_instance_id);
  }
  p.group_id_not_found_error = v >= 6;

  auto params = std::make_shared<coordinator::TxnOffsetCommitParams>(std::move(p));
  auto shared_slots = std::make_shared<CommitSlots>(std::move(slots));
  GroupService* groups = b.groups;
  auto commit = [ctx, resp, params, shared_slots, groups]() {
    groups->coordinator().commit_txn_offsets(std::move(*params),
                                             [ctx, resp, shared_slots](coordinator::PartitionErrors errors) {
                                               fill_commit_errors(*resp, *shared_slots, errors);
                                               send(ctx, *resp);
                                             });
  };
  auto refuse = [ctx, resp, shared_slots, v](ErrorCode e) {
    fail_entries(*resp, *shared_slots, verification_error(e, v));
    send(ctx, *resp);
  };

  // An empty group id is refused by the group coordinator (INVALID_GROUP_ID)
  // before any verification, as in Kafka.
  if (params->group_id.empty()) return commit();
  if (b.txns == nullptr) return refuse(ErrorCode::kCoordinatorNotAvailable);
  const int32_t offsets_partition = groups->coordinator().partition_for(params->group_id);
  // Kafka's hasOngoingTransaction: this transaction already wrote here.
  if (auto part = b.replicas.partition(kConsumerOffsetsTopic, offsets_partition)) {
    auto entry = part->log().producer_entry(params->producer_id);
    if (entry && entry->current_txn_first_offset >= 0 && entry->epoch == params->producer_epoch) return commit();
  }
  const coordinator::TxnPartition tp{kConsumerOffsetsTopic, offsets_partition};
  if (v >= 5) {
    b.txns->coordinator().add_partitions(params->transactional_id, params->producer_id, params->producer_epoch, {tp},
                                         [commit, refuse](ErrorCode e) {
                                           if (e == ErrorCode::kNone) return commit();
                                           refuse(e);
                                         });
    return;
  }
  auto verified = b.txns->coordinator().verify_partitions(params->transactional_id, params->producer_id,
                                                          params->producer_epoch, {tp});
  const ErrorCode e = verified.empty() ? ErrorCode::kUnknownServerError : verified.front().error;
  // In a cluster the transaction coordinator is usually another broker; Kafka
  // asks it over the wire (AddPartitionsToTxn verifyOnly). Spool does not yet:
  // the commit goes ahead unverified, as before KIP-890 (the transaction's
  // marker still decides its visibility). v5+ (the implicit add) is not served
  // that way: the partition would never get its marker.
  if (e == ErrorCode::kNotCoordinator && b.cluster != nullptr) return commit();
  if (e != ErrorCode::kNone) return refuse(e);
  commit();
}

}  // namespace spool::broker
