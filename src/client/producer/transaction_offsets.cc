// TransactionManager's offsets half: send_offsets_to_transaction
// (AddOffsetsToTxn to the transaction coordinator, then TxnOffsetCommit to
// the group's coordinator). See transaction_manager.h.
#include <thread>

#include "client/blocking_call.h"
#include "client/producer/transaction_errors.h"
#include "client/producer/transaction_manager.h"
#include "protocol/add_offsets_to_txn_request.h"
#include "protocol/add_offsets_to_txn_response.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/txn_offset_commit_request.h"
#include "protocol/txn_offset_commit_response.h"

namespace spool::client {

using protocol::ErrorCode;
using namespace txn;  // NOLINT: the shared error rules and versions

Status TransactionManager::add_offsets(const ConsumerGroupMetadata& group, int64_t deadline_ms) {
  while (true) {
    auto node = coordinator(deadline_ms);
    if (!node) return node.status();
    protocol::AddOffsetsToTxnRequest req;
    req.transactional_id = options_.transactional_id;
    req.producer_id = idem_.producer_id();
    req.producer_epoch = idem_.epoch();
    req.group_id = group.group_id;
    auto r = call_sync<protocol::AddOffsetsToTxnRequest, protocol::AddOffsetsToTxnResponse>(
        network_, *node, req, options_.request_timeout_ms, SendOptions{0, 4, -1});
    const ErrorCode ec = r ? r->error_code : code_of(r.status());
    if (ec == ErrorCode::kNone) return Status::ok();
    if (!is_retry(ec)) return error_status("AddOffsetsToTxn", ec);
    if (coordinator_moved(ec)) forget_coordinator();
    if (now() >= deadline_ms) return error_status("AddOffsetsToTxn timed out", ec);
    sleep_backoff();
  }
}

Status TransactionManager::commit_offsets(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                                          const ConsumerGroupMetadata& group, int64_t deadline_ms) {
  std::optional<Node> group_coordinator;
  std::string last = "no answer";
  while (true) {
    if (!group_coordinator) {
      auto snap = metadata_.snapshot();
      if (snap->brokers.empty()) return Status::error("no broker known", protocol::to_int(ErrorCode::kNetworkException));
      const Node& any = snap->brokers.begin()->second;
      protocol::FindCoordinatorRequest fc;
      fc.key = group.group_id;
      fc.key_type = 0;
      fc.coordinator_keys = {group.group_id};
      auto r = call_sync<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(
          network_, any, fc, options_.request_timeout_ms, kFindCoordinatorVersions);
      if (r) {
        ErrorCode ec = r->coordinators.empty() ? r->error_code : r->coordinators[0].error_code;
        const auto& c = r->coordinators;
        const int32_t port = c.empty() ? r->port : c[0].port;
        if (ec == ErrorCode::kNone && port > 0 && port <= 65535) {
          group_coordinator = Node{c.empty() ? r->node_id : c[0].node_id, c.empty() ? r->host : c[0].host,
                                   static_cast<uint16_t>(port)};
        } else if (!is_retry(ec)) {
          return error_status("FindCoordinator for group " + group.group_id, ec);
        } else {
          last = "FindCoordinator: " + std::string(protocol::error_name(ec));
        }
      } else {
        last = "FindCoordinator: " + r.status().message();
      }
    }
    if (group_coordinator) {
      protocol::TxnOffsetCommitRequest req;
      req.transactional_id = options_.transactional_id;
      req.group_id = group.group_id;
      req.producer_id = idem_.producer_id();
      req.producer_epoch = idem_.epoch();
      req.generation_id_or_member_epoch = group.generation_id;
      req.member_id = group.member_id;
      req.group_instance_id = group.group_instance_id;
      std::map<std::string, size_t> index;
      for (const auto& [tp, om] : offsets) {
        auto [it, added] = index.emplace(tp.topic, req.topics.size());
        if (added) {
          req.topics.emplace_back();
          req.topics.back().name = tp.topic;
        }
        protocol::TxnOffsetCommitRequest::TxnOffsetCommitRequestPartition p;
        p.partition_index = tp.partition;
        p.committed_offset = om.offset;
        p.committed_leader_epoch = om.leader_epoch;
        p.committed_metadata = om.metadata;
        req.topics[it->second].partitions.push_back(std::move(p));
      }
      auto r = call_sync<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(
          network_, *group_coordinator, req, options_.request_timeout_ms, kTxnOffsetCommitVersions);
      ErrorCode worst = r ? ErrorCode::kNone : code_of(r.status());
      if (r) {
        for (const auto& t : r->topics) {
          for (const auto& p : t.partitions) {
            if (p.error_code != ErrorCode::kNone) worst = p.error_code;
          }
        }
      }
      if (worst == ErrorCode::kNone) return Status::ok();
      if (!is_retry(worst)) return error_status("TxnOffsetCommit", worst);
      last = "TxnOffsetCommit to node " + std::to_string(group_coordinator->id) + ": " +
             (r ? std::string(protocol::error_name(worst)) : r.status().message());
      if (coordinator_moved(worst)) group_coordinator.reset();
    }
    if (now() >= deadline_ms) {
      return Status::error("TxnOffsetCommit timed out (last: " + last + ")", protocol::to_int(ErrorCode::kRequestTimedOut));
    }
    sleep_backoff();
  }
}

Status TransactionManager::send_offsets_to_transaction(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                                                       const ConsumerGroupMetadata& group, int64_t timeout_ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = check_state_locked("send offsets"); !s) return s;
    if (state_ != State::kInTransaction) {
      return Status::error(std::string("Cannot send offsets in state ") + state_name(state_));
    }
  }
  if (group.group_id.empty()) return Status::error("send_offsets_to_transaction needs a group id");
  const int64_t deadline = now() + timeout_ms;
  Status s = add_offsets(group, deadline);
  if (s) {
    std::lock_guard<std::mutex> lock(mu_);
    offsets_added_ = true;
  }
  if (s) s = commit_offsets(offsets, group, deadline);
  if (!s) {
    std::lock_guard<std::mutex> lock(mu_);
    set_error_locked(is_fatal(code_of(s)) ? State::kFatal : State::kAbortable, s);
  }
  return s;
}

}  // namespace spool::client
