// The partition bookkeeping OffsetCommit and TxnOffsetCommit share: every
// requested partition gets a slot in the response (in request order);
// partitions of unknown topics (or beyond a topic's partition count; in a
// cluster as the metadata cache knows them, broker/topic_lookup.h) are
// answered UNKNOWN_TOPIC_OR_PARTITION at once, and without a group service
// COORDINATOR_NOT_AVAILABLE; the others become coordinator entries whose
// errors are filled into their slots when the coordinator answers.
// Templates over the generated request/response types, whose commit fields
// have the same names in both APIs. `topic_errors` (OffsetCommit v10, topics
// named by id): per request topic, an error that answers all its partitions
// at once (UNKNOWN_TOPIC_ID for an id no topic has).
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "broker/broker_context.h"
#include "broker/handlers/group_common.h"
#include "broker/topic_lookup.h"
#include "coordinator/group/group_coordinator.h"

namespace spool::broker {

// Where each coordinator answer goes (a partition may be listed twice).
using CommitSlots = std::multimap<coordinator::TopicPartitionKey, std::pair<size_t, size_t>>;

template <typename RequestTopics, typename Response>
std::vector<coordinator::OffsetCommitEntry> split_commit_partitions(
    BrokerContext& b, RequestTopics& topics, bool with_leader_epoch, Response& resp, CommitSlots& slots,
    const std::vector<protocol::ErrorCode>* topic_errors = nullptr) {
  std::vector<coordinator::OffsetCommitEntry> entries;
  size_t topic_index = 0;
  for (auto& t : topics) {
    const protocol::ErrorCode topic_error =
        topic_errors != nullptr ? (*topic_errors)[topic_index] : protocol::ErrorCode::kNone;
    ++topic_index;
    auto& rt = resp.topics.emplace_back();
    rt.name = t.name;
    for (auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
      if (topic_error != protocol::ErrorCode::kNone) {
        rp.error_code = topic_error;
        continue;
      }
      if (b.groups == nullptr) {
        rp.error_code = protocol::ErrorCode::kCoordinatorNotAvailable;
        continue;
      }
      if (!partition_exists(b, t.name, part.partition_index)) {
        rp.error_code = protocol::ErrorCode::kUnknownTopicOrPartition;
        continue;
      }
      coordinator::OffsetCommitEntry e;
      e.tp = {t.name, part.partition_index};
      e.offset = part.committed_offset;
      e.leader_epoch = with_leader_epoch ? part.committed_leader_epoch : -1;
      e.metadata = std::move(part.committed_metadata);
      slots.emplace(e.tp, std::make_pair(resp.topics.size() - 1, rt.partitions.size() - 1));
      entries.push_back(std::move(e));
    }
  }
  return entries;
}

template <typename Response>
void fill_commit_errors(Response& resp, const CommitSlots& slots, const coordinator::PartitionErrors& errors) {
  for (const auto& [tp, err] : errors) {
    auto [lo, hi] = slots.equal_range(tp);
    for (auto it = lo; it != hi; ++it) resp.topics[it->second.first].partitions[it->second.second].error_code = err;
  }
}

}  // namespace spool::broker
