// Admin, topics area: create, delete, add partitions (controller), delete
// records, list offsets and describe producers (partition leaders); see admin.h.
#include <algorithm>

#include "client/admin/admin_routing.h"
#include "protocol/list_offsets_request.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {

// The first retriable error among per-item results, else kNone.
template <class Items>
ErrorCode first_retriable(const Items& items) {
  for (const auto& i : items) {
    if (admin_retriable(i.error_code)) return i.error_code;
  }
  return ErrorCode::kNone;
}

// A request's topic entry for `name`, appended when absent.
template <class Topics>
auto& topic_entry(Topics& topics, const std::string& name) {
  auto t = std::find_if(topics.begin(), topics.end(), [&](const auto& x) { return x.name == name; });
  if (t != topics.end()) return *t;
  auto& added = topics.emplace_back();
  added.name = name;
  return added;
}

}  // namespace

Result<protocol::CreateTopicsResponse> Admin::create_topics(const protocol::CreateTopicsRequest& request) {
  SendOptions opts;
  for (const auto& t : request.topics) {
    if (t.num_partitions < 0 || t.replication_factor < 0) opts.min_version = 4;  // the broker's defaults
  }
  auto reply = call_retrying<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(
      [this] { return controller(); }, request, [](const auto& m) { return first_retriable(m.topics); }, opts);
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::DeleteTopicsResponse> Admin::delete_topics(const protocol::DeleteTopicsRequest& request) {
  auto reply = call_retrying<protocol::DeleteTopicsRequest, protocol::DeleteTopicsResponse>(
      [this] { return controller(); }, request, [](const auto& m) { return first_retriable(m.responses); });
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::CreatePartitionsResponse> Admin::create_partitions(const protocol::CreatePartitionsRequest& request) {
  auto reply = call_retrying<protocol::CreatePartitionsRequest, protocol::CreatePartitionsResponse>(
      [this] { return controller(); }, request, [](const auto& m) { return first_retriable(m.results); });
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::DeleteRecordsResponse> Admin::delete_records(const protocol::DeleteRecordsRequest& request) {
  std::vector<TopicPartition> partitions;
  std::map<TopicPartition, int64_t> offsets;
  for (const auto& t : request.topics) {
    for (const auto& p : t.partitions) {
      partitions.emplace_back(t.name, p.partition_index);
      offsets[{t.name, p.partition_index}] = p.offset;
    }
  }
  auto split = split_by_leader(partitions);
  if (!split) return split.status();
  protocol::DeleteRecordsResponse out;
  auto add = [&](const std::string& topic, protocol::DeleteRecordsResponse::DeleteRecordsTopicResult::
                                               DeleteRecordsPartitionResult p) {
    topic_entry(out.topics, topic).partitions.push_back(std::move(p));
  };
  for (const auto& [tp, code] : split->errors) {
    protocol::DeleteRecordsResponse::DeleteRecordsTopicResult::DeleteRecordsPartitionResult p;
    p.partition_index = tp.second;
    p.low_watermark = -1;
    p.error_code = code;
    add(tp.first, p);
  }
  for (const auto& [leader, tps] : split->by_leader) {
    protocol::DeleteRecordsRequest req;
    req.timeout_ms = request.timeout_ms;
    for (const auto& tp : tps) {
      auto& p = topic_entry(req.topics, tp.first).partitions.emplace_back();
      p.partition_index = tp.second;
      p.offset = offsets[tp];
    }
    // The leader was known when split; after a retriable answer, ask the new one.
    const TopicPartition first = tps.front();
    int32_t target_leader = leader;
    auto reply = call_retrying<protocol::DeleteRecordsRequest, protocol::DeleteRecordsResponse>(
        [&]() -> Result<Node> {
          if (!cache_.known) {
            if (auto st = refresh_metadata({first.first}); !st) return st;
            target_leader = cache_.leaders[first.first][first.second];
          }
          return broker(target_leader);
        },
        req,
        [](const auto& m) {
          for (const auto& t : m.topics) {
            if (auto c = first_retriable(t.partitions); c != ErrorCode::kNone) return c;
          }
          return ErrorCode::kNone;
        });
    if (!reply) return reply.status();
    for (auto& t : reply->message.topics) {
      for (auto& p : t.partitions) add(t.name, std::move(p));
    }
  }
  return out;
}

Result<std::map<TopicPartition, protocol::ListOffsetsResponse::ListOffsetsTopicResponse::ListOffsetsPartitionResponse>>
Admin::list_offsets(const std::vector<TopicPartition>& partitions, int64_t timestamp) {
  using PartitionAnswer = protocol::ListOffsetsResponse::ListOffsetsTopicResponse::ListOffsetsPartitionResponse;
  std::map<TopicPartition, PartitionAnswer> out;
  if (partitions.empty()) return out;
  auto split = split_by_leader(partitions);
  if (!split) return split.status();
  auto failed = [](int32_t partition, ErrorCode code) {
    PartitionAnswer a;
    a.partition_index = partition;
    a.error_code = code;
    a.offset = -1;
    return a;
  };
  for (const auto& [tp, code] : split->errors) out[tp] = failed(tp.second, code);
  for (const auto& [leader, tps] : split->by_leader) {
    protocol::ListOffsetsRequest req;
    req.replica_id = -1;
    req.isolation_level = 0;
    for (const auto& tp : tps) {
      auto& p = topic_entry(req.topics, tp.first).partitions.emplace_back();
      p.partition_index = tp.second;
      p.timestamp = timestamp;
    }
    auto node = broker(leader);
    if (!node) return node.status();
    SendOptions opts;
    opts.min_version = 1;  // v0 answers in a different shape (offset arrays)
    auto reply = call<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse>(*node, req, opts);
    if (!reply) return reply.status();
    for (const auto& t : reply->message.topics) {
      for (const auto& p : t.partitions) out[{t.name, p.partition_index}] = p;
    }
    for (const auto& tp : tps) {
      if (!out.count(tp)) out[tp] = failed(tp.second, ErrorCode::kUnknownServerError);
    }
  }
  return out;
}

Result<protocol::DescribeProducersResponse> Admin::describe_producers(
    const protocol::DescribeProducersRequest& request) {
  std::vector<TopicPartition> partitions;
  for (const auto& t : request.topics) {
    for (int32_t p : t.partition_indexes) partitions.emplace_back(t.name, p);
  }
  auto split = split_by_leader(partitions);
  if (!split) return split.status();
  protocol::DescribeProducersResponse out;
  for (const auto& [tp, code] : split->errors) {
    auto& p = topic_entry(out.topics, tp.first).partitions.emplace_back();
    p.partition_index = tp.second;
    p.error_code = code;
  }
  for (const auto& [leader, tps] : split->by_leader) {
    protocol::DescribeProducersRequest req;
    for (const auto& tp : tps) topic_entry(req.topics, tp.first).partition_indexes.push_back(tp.second);
    auto node = broker(leader);
    if (!node) return node.status();
    auto reply = call<protocol::DescribeProducersRequest, protocol::DescribeProducersResponse>(*node, req);
    if (!reply) return reply.status();
    for (auto& t : reply->message.topics) {
      for (auto& p : t.partitions) topic_entry(out.topics, t.name).partitions.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace spool::client
