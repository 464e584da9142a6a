// DeleteRecords (v0-2; v1 is v0, v2 is v1 flexible, as in Kafka 4.4): moves each partition's log start offset up to the
// requested offset (-1 = the high watermark), so fetches below it answer
// OFFSET_OUT_OF_RANGE and whole segments below it are deleted. An offset
// above the high watermark (or negative other than -1) is OFFSET_OUT_OF_RANGE;
// one at or below the current start changes nothing. low_watermark is the
// log start offset afterwards.
//
// The work is ReplicaManager::delete_records (Partition::
// delete_records_on_leader per partition). Durability: the log-start-offset
// checkpoint is rewritten before answering, so a deletion the client saw
// acknowledged survives a crash. That is one small fsync on the reactor
// thread; DeleteRecords is a rare admin call (TopicRegistry writes do the
// same for CreateTopics).
#include <set>
#include <vector>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "protocol/delete_records_request.h"
#include "protocol/delete_records_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

void handle_delete_records(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DeleteRecordsRequest req;
  if (!decode_or_close(ctx, body, req, "DeleteRecords")) return;

  // Kafka's check: DELETE on the topic, else TOPIC_AUTHORIZATION_FAILED.
  std::set<std::string> refused;
  std::vector<DeleteRecordsEntry> entries;
  for (const auto& t : req.topics) {
    if (!topic_allowed(b, ctx, security::AclOperation::kDelete, t.name)) {
      refused.insert(t.name);
      continue;
    }
    for (const auto& p : t.partitions) entries.push_back({TopicPartition(t.name, p.partition_index), p.offset});
  }
  auto results = b.replicas.delete_records(entries);

  protocol::DeleteRecordsResponse resp;
  size_t i = 0;
  for (const auto& t : req.topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = t.name;
    const bool permitted = refused.count(t.name) == 0;
    for (const auto& p : t.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      if (!permitted) {
        pr.error_code = protocol::ErrorCode::kTopicAuthorizationFailed;
        pr.low_watermark = -1;
        continue;
      }
      pr.error_code = results[i].error;
      pr.low_watermark = results[i].low_watermark;
      ++i;
    }
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
