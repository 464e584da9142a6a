// DeleteRecords (v0-2; v1 is v0, v2 is v1 flexible, as in Kafka 4.4): moves each partition's log start offset up to the
// requested offset (-1 = the high watermark), so fetches below it answer
// OFFSET_OUT_OF_RANGE and whole segments below it are deleted. An offset
// above the high watermark (or negative other than -1) is OFFSET_OUT_OF_RANGE;
// one at or below the current start changes nothing. low_watermark is the
// log start offset afterwards.
//
// Durability: the log-start-offset checkpoint is rewritten before answering,
// so a deletion the client saw acknowledged survives a crash. That is one
// small fsync on the reactor thread; DeleteRecords is a rare admin call
// (TopicRegistry writes do the same for CreateTopics).
#include <spdlog/spdlog.h>

#include <vector>

#include "broker/handlers/handlers.h"
#include "protocol/delete_records_request.h"
#include "protocol/delete_records_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

constexpr int64_t kHighWatermark = -1;  // Kafka's DeleteRecordsRequest.HIGH_WATERMARK

}  // namespace

void handle_delete_records(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DeleteRecordsRequest req;
  if (!decode_or_close(ctx, body, req, "DeleteRecords")) return;

  protocol::DeleteRecordsResponse resp;
  std::vector<std::pair<size_t, size_t>> moved;  // (topic, partition) answers that depend on the checkpoint
  for (const auto& t : req.topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = t.name;
    for (const auto& p : t.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      pr.low_watermark = -1;
      auto partition = b.replicas.partition(t.name, p.partition_index);
      if (!partition) {
        pr.error_code = ErrorCode::kUnknownTopicOrPartition;
        continue;
      }
      const int64_t hw = partition->high_watermark();
      const int64_t target = p.offset == kHighWatermark ? hw : p.offset;
      if (target < 0 || target > hw) {
        pr.error_code = ErrorCode::kOffsetOutOfRange;
        continue;
      }
      const int64_t before = partition->log_start_offset();
      Status s = partition->log().advance_log_start_offset(target);
      if (!s) {
        pr.error_code = s.kafka_code() > 0 ? static_cast<ErrorCode>(s.kafka_code()) : ErrorCode::kKafkaStorageError;
        spdlog::warn("DeleteRecords {}-{} to {}: {}", t.name, p.partition_index, target, s.message());
        continue;
      }
      pr.error_code = ErrorCode::kNone;
      pr.low_watermark = partition->log_start_offset();
      if (pr.low_watermark != before) moved.emplace_back(resp.topics.size() - 1, tr.partitions.size() - 1);
    }
  }
  if (!moved.empty()) {
    if (Status s = b.logs.write_checkpoints(); !s) {
      spdlog::error("DeleteRecords: writing the log start checkpoint failed: {}", s.message());
      for (auto [ti, pi] : moved) resp.topics[ti].partitions[pi].error_code = ErrorCode::kKafkaStorageError;
    }
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
