#include "cli/group_admin.h"

#include <algorithm>

#include "cli/admin_connect.h"
#include "protocol/error_code.h"

namespace spool::cli {
namespace {

namespace proto = spool::protocol;
using protocol::ErrorCode;

// The coordinator errors the Admin retries; one still there when it gave up
// fails the command (rather than reading as the group's answer).
bool retriable_coordinator_error(ErrorCode code) {
  return code == ErrorCode::kCoordinatorLoadInProgress || code == ErrorCode::kCoordinatorNotAvailable ||
         code == ErrorCode::kNotCoordinator;
}

Status kafka_error(const std::string& what, ErrorCode code) {
  return Status::error(what + ": " + std::string(protocol::error_name(code)), protocol::to_int(code));
}

std::vector<GroupMember> decode_members(const proto::DescribeGroupsResponse::DescribedGroup& g) {
  std::vector<GroupMember> out;
  // Kafka's admin decodes the assignment for "consumer" and for an empty
  // protocol type (a group whose members are all gone keeps no type).
  bool consumer = g.protocol_type == "consumer" || g.protocol_type.empty();
  for (const auto& m : g.members) {
    GroupMember gm;
    gm.member_id = m.member_id;
    gm.group_instance_id = m.group_instance_id;
    gm.client_id = m.client_id;
    gm.host = m.client_host;
    if (consumer) {
      auto a = decode_consumer_assignment(m.member_assignment);
      if (a) gm.assignment = std::move(*a);  // undecodable: shown as no assignment
    }
    out.push_back(std::move(gm));
  }
  return out;
}

}  // namespace

Result<GroupAdmin> GroupAdmin::open(const std::string& bootstrap, int timeout_ms) {
  auto admin = open_admin(bootstrap, timeout_ms);
  if (!admin) return Status::error("--bootstrap-server: " + admin.status().message());
  return GroupAdmin(std::move(*admin));
}

Result<std::vector<GroupListing>> GroupAdmin::list_groups(const std::vector<std::string>& states) {
  auto listed = admin_->list_groups(states);
  if (!listed) return listed.status();
  std::vector<GroupListing> out;
  for (auto& g : *listed) out.push_back({std::move(g.group_id), std::move(g.state), std::move(g.protocol_type)});
  return out;
}

Result<GroupDescription> GroupAdmin::describe_group(const std::string& group) {
  auto described = admin_->describe_group(group);
  if (!described) return described.status();
  const auto& g = described->group;
  GroupDescription d;
  d.group_id = g.group_id;
  d.error_code = proto::to_int(g.error_code);
  d.state = g.group_state;
  d.protocol_type = g.protocol_type;
  d.protocol = g.protocol_data;
  d.members = decode_members(g);
  d.coordinator_id = described->coordinator.id;
  d.coordinator_host = described->coordinator.host;
  d.coordinator_port = described->coordinator.port;
  return d;
}

Result<std::map<TopicPartitionKey, int64_t>> GroupAdmin::committed_offsets(const std::string& group) {
  auto resp = admin_->list_group_offsets(group);
  if (!resp) return resp.status();
  if (resp->error_code != ErrorCode::kNone) return kafka_error("OffsetFetch", resp->error_code);
  std::map<TopicPartitionKey, int64_t> out;
  for (const auto& t : resp->topics) {
    for (const auto& p : t.partitions) {
      if (retriable_coordinator_error(p.error_code)) return kafka_error("OffsetFetch", p.error_code);
      if (p.error_code == ErrorCode::kNone && p.committed_offset >= 0) out[{t.name, p.partition_index}] = p.committed_offset;
    }
  }
  return out;
}

Result<std::vector<int32_t>> GroupAdmin::topic_partitions(const std::string& topic) {
  auto meta = admin_->metadata(std::vector<std::string>{topic});
  if (!meta) return meta.status();
  for (const auto& t : meta->topics) {
    if (t.name != topic) continue;
    if (t.error_code != ErrorCode::kNone) return kafka_error("topic '" + topic + "'", t.error_code);
    std::vector<int32_t> out;
    for (const auto& p : t.partitions) out.push_back(p.partition_index);
    std::sort(out.begin(), out.end());
    return out;
  }
  return kafka_error("topic '" + topic + "'", ErrorCode::kUnknownTopicOrPartition);
}

Result<std::map<TopicPartitionKey, OffsetLookup>> GroupAdmin::list_offsets(
    const std::vector<TopicPartitionKey>& partitions, int64_t timestamp) {
  std::map<TopicPartitionKey, OffsetLookup> out;
  if (partitions.empty()) return out;
  auto found = admin_->list_offsets(partitions, timestamp);
  if (!found) return found.status();
  for (const auto& [tp, p] : *found) out[tp] = {proto::to_int(p.error_code), p.offset};
  for (const auto& tp : partitions) {
    if (!out.count(tp)) out[tp] = {proto::to_int(ErrorCode::kUnknownServerError), -1};
  }
  return out;
}

Result<int16_t> GroupAdmin::delete_group(const std::string& group) {
  auto r = admin_->delete_group(group);
  if (!r) return r.status();
  if (retriable_coordinator_error(r->error_code)) return kafka_error("DeleteGroups", r->error_code);
  return proto::to_int(r->error_code);
}

Result<std::map<TopicPartitionKey, int16_t>> GroupAdmin::commit_offsets(
    const std::string& group, const std::map<TopicPartitionKey, int64_t>& offsets) {
  auto resp = admin_->alter_group_offsets(group, offsets);
  if (!resp) return resp.status();
  std::map<TopicPartitionKey, int16_t> out;
  for (const auto& t : resp->topics) {
    for (const auto& p : t.partitions) {
      if (retriable_coordinator_error(p.error_code)) return kafka_error("OffsetCommit", p.error_code);
      out[{t.name, p.partition_index}] = proto::to_int(p.error_code);
    }
  }
  for (const auto& [k, offset] : offsets) {
    if (!out.count(k)) out[k] = proto::to_int(ErrorCode::kUnknownServerError);
  }
  return out;
}

Result<GroupAdmin::OffsetDeleteResult> GroupAdmin::delete_offsets(const std::string& group,
                                                                  const std::vector<TopicPartitionKey>& partitions) {
  auto resp = admin_->delete_group_offsets(group, partitions);
  if (!resp) return resp.status();
  if (retriable_coordinator_error(resp->error_code)) return kafka_error("OffsetDelete", resp->error_code);
  OffsetDeleteResult out;
  out.error_code = proto::to_int(resp->error_code);
  for (const auto& t : resp->topics) {
    for (const auto& p : t.partitions) out.partitions[{t.name, p.partition_index}] = proto::to_int(p.error_code);
  }
  return out;
}

}  // namespace spool::cli
