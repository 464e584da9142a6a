// ListOffsets v1-5: earliest (-2) is the log start offset, latest (-1) the
// high watermark (read_uncommitted) or the last stable offset
// (read_committed, isolation_level 1), any other timestamp the first offset
// whose batch timestamp is >= it and below that same bound, or -1/-1 when
// there is none (Kafka's fetchOffsetForTimestamp).
#include "broker/handlers/handlers.h"
#include "protocol/error_code.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {
constexpr int64_t kLatest = -1;
constexpr int64_t kEarliest = -2;
constexpr int8_t kReadCommitted = 1;
}  // namespace

void handle_list_offsets(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::ListOffsetsRequest req;
  if (!decode_or_close(ctx, body, req, "ListOffsets")) return;
  protocol::ListOffsetsResponse resp;
  for (const auto& t : req.topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = t.name;
    for (const auto& p : t.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      pr.timestamp = -1;
      pr.offset = -1;
      pr.leader_epoch = -1;
      auto partition = b.replicas.partition(t.name, p.partition_index);
      if (!partition) {
        pr.error_code = ErrorCode::kUnknownTopicOrPartition;
        continue;
      }
      pr.error_code = ErrorCode::kNone;
      pr.leader_epoch = partition->leader_epoch();
      const int64_t fetchable =
          req.isolation_level == kReadCommitted ? partition->last_stable_offset() : partition->high_watermark();
      if (p.timestamp == kEarliest) {
        pr.offset = partition->log_start_offset();
      } else if (p.timestamp == kLatest) {
        pr.offset = fetchable;
      } else if (p.timestamp < 0) {
        pr.error_code = ErrorCode::kInvalidRequest;
      } else if (auto found = partition->log().offset_for_timestamp(p.timestamp)) {
        // Only offsets a consumer of that isolation level may read count.
        if (found->first < fetchable) {
          pr.offset = found->first;
          pr.timestamp = found->second;
        }
      }
    }
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
