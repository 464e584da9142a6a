// AdminApi's /v1/groups (admin_api.h): the consumer groups this broker
// coordinates, from the group coordinator's own state (ListGroups,
// DescribeGroups and OffsetFetch's data, read in place: nothing waits on
// another broker). Members' assignments are decoded as Kafka's
// ConsumerProtocol when the group's protocol type is "consumer"; a member
// whose assignment does not decode shows "assignment_error" instead.
// Per partition: the committed offset (null when only assigned), the log end
// offset (the high watermark where the partition is led here, else null) and
// lag = log end - committed when both are known (never below 0).
#include <algorithm>
#include <map>
#include <optional>

#include "broker/admin_api/admin_api.h"
#include "broker/group_service.h"
#include "broker/partition.h"
#include "client/consumer/consumer_protocol.h"
#include "coordinator/group/group_coordinator.h"

namespace spool::broker {
namespace {

using nlohmann::json;

struct PartitionRow {
  std::optional<int64_t> committed;
  std::optional<std::string> metadata;
  std::optional<std::string> owner;  // member id of the member it is assigned to
};

// The high watermark of `tp` when this broker leads it; nullopt otherwise.
std::optional<int64_t> local_high_watermark(const ReplicaManager& rm, const TopicPartition& tp) {
  auto p = rm.partition(tp);
  if (!p || !p->is_leader() || p->offline()) return std::nullopt;
  return p->high_watermark();
}

json partition_rows_json(const ReplicaManager& rm, const std::map<TopicPartition, PartitionRow>& rows,
                         int64_t& total_lag, bool& lag_known) {
  json out = json::array();
  for (const auto& [tp, row] : rows) {
    const std::optional<int64_t> end = local_high_watermark(rm, tp);
    json lag = nullptr;
    if (end && row.committed && *row.committed >= 0) {
      const int64_t l = std::max<int64_t>(0, *end - *row.committed);
      lag = l;
      total_lag += l;
    } else {
      lag_known = false;
    }
    out.push_back({{"topic", tp.topic},
                   {"partition", tp.partition},
                   {"committed_offset", row.committed ? json(*row.committed) : json(nullptr)},
                   {"metadata", row.metadata ? json(*row.metadata) : json(nullptr)},
                   {"log_end_offset", end ? json(*end) : json(nullptr)},
                   {"lag", lag},
                   {"member_id", row.owner ? json(*row.owner) : json(nullptr)}});
  }
  return out;
}

json group_json(const ReplicaManager& rm, coordinator::GroupCoordinator& coord,
                const coordinator::DescribedGroup& g) {
  std::map<TopicPartition, PartitionRow> rows;
  const bool consumer = g.protocol_type == client::kConsumerProtocolType;
  json members = json::array();
  for (const auto& m : g.members) {
    json jm = {{"member_id", m.member_id},
               {"group_instance_id", m.group_instance_id ? json(*m.group_instance_id) : json(nullptr)},
               {"client_id", m.client_id},
               {"host", m.client_host}};
    json assigned = json::array();
    if (consumer && !m.assignment.empty()) {
      auto a = client::decode_assignment(m.assignment);
      if (a) {
        for (const auto& tp : a->partitions) {
          assigned.push_back({{"topic", tp.topic}, {"partition", tp.partition}});
          rows[tp].owner = m.member_id;
        }
      } else {
        jm["assignment_error"] = a.status().message();
      }
    }
    jm["assignment"] = std::move(assigned);
    members.push_back(std::move(jm));
  }
  const auto fetched = coord.fetch_offsets(g.group_id, std::nullopt, /*require_stable=*/false);
  for (const auto& c : fetched.offsets) {
    if (c.error != protocol::ErrorCode::kNone || c.offset < 0) continue;
    auto& row = rows[c.tp];
    row.committed = c.offset;
    row.metadata = c.metadata;
  }
  int64_t total_lag = 0;
  bool lag_known = true;
  json partitions = partition_rows_json(rm, rows, total_lag, lag_known);
  return {{"group_id", g.group_id},
          {"state", g.state},
          {"protocol_type", g.protocol_type},
          {"protocol", g.protocol_name},
          {"members", std::move(members)},
          {"partitions", std::move(partitions)},
          {"total_lag", total_lag},
          // false when some partition's lag is unknown (not led here, or no commit)
          {"total_lag_complete", lag_known}};
}

}  // namespace

json AdminApi::groups_json() const {
  json groups = json::array();
  json out = {{"coordinator", ctx_.settings.broker_id}};
  if (ctx_.groups == nullptr) {
    out["error"] = nullptr;
    out["groups"] = std::move(groups);
    return out;
  }
  auto& coord = ctx_.groups->coordinator();
  auto [error, listed] = coord.list_groups({});
  std::vector<std::string> ids;
  ids.reserve(listed.size());
  for (const auto& l : listed) ids.push_back(l.group_id);
  for (const auto& g : coord.describe_groups(ids)) {
    if (g.error != protocol::ErrorCode::kNone || !g.exists) continue;  // moved or deleted meanwhile
    groups.push_back(group_json(ctx_.replicas, coord, g));
  }
  // COORDINATOR_LOAD_IN_PROGRESS: some __consumer_offsets partition is still
  // being replayed; its groups are missing from the list for now.
  out["error"] = error == protocol::ErrorCode::kNone ? json(nullptr) : json(std::string(protocol::error_name(error)));
  out["groups"] = std::move(groups);
  return out;
}

}  // namespace spool::broker
