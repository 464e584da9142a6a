#include "cli/group_format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "cli/topic_format.h"
#include "protocol/error_code.h"

namespace spool::cli {
namespace {

using nlohmann::json;
using protocol::ErrorCode;

const std::string kNone = "-";

std::string opt_num(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : kNone; }
std::string or_dash(const std::string& s) { return s.empty() ? kNone : s; }
json opt_json(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }
json str_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

size_t partition_count(const GroupMember& m) {
  size_t n = 0;
  for (const auto& t : m.assignment) n += t.partitions.size();
  return n;
}

std::string assignment_text(const GroupMember& m) {
  std::string out;
  for (const auto& t : m.assignment) {
    if (!out.empty()) out += ",";
    out += t.topic + "(";
    for (size_t i = 0; i < t.partitions.size(); ++i) out += (i ? "," : "") + std::to_string(t.partitions[i]);
    out += ")";
  }
  return or_dash(out);
}

json describe_json(const GroupDescription& g) {
  json j{{"group", g.group_id}, {"state", g.state}, {"protocol_type", g.protocol_type}, {"protocol", g.protocol}};
  if (g.error_code != 0) {
    j["error"] = kafka_error_name(g.error_code);
  } else if (g.state == "Dead") {
    j["error"] = kafka_error_name(static_cast<int16_t>(ErrorCode::kGroupIdNotFound));
  }
  j["coordinator"] = g.coordinator_id >= 0 ? json{{"id", g.coordinator_id},
                                                  {"host", g.coordinator_host},
                                                  {"port", g.coordinator_port}}
                                           : json(nullptr);
  json offsets = json::array();
  for (const auto& r : g.offsets) {
    offsets.push_back({{"topic", str_or_null(r.topic)},
                       {"partition", r.topic.empty() ? json(nullptr) : json(r.partition)},
                       {"current_offset", opt_json(r.current_offset)},
                       {"log_end_offset", opt_json(r.log_end_offset)},
                       {"lag", opt_json(group_lag(r))},
                       {"consumer_id", str_or_null(r.member_id)},
                       {"host", str_or_null(r.host)},
                       {"client_id", str_or_null(r.client_id)}});
  }
  j["offsets"] = std::move(offsets);
  json members = json::array();
  for (const auto& m : g.members) {
    json assignment = json::array();
    for (const auto& t : m.assignment) assignment.push_back({{"topic", t.topic}, {"partitions", t.partitions}});
    members.push_back({{"consumer_id", m.member_id},
                       {"group_instance_id", m.group_instance_id ? json(*m.group_instance_id) : json(nullptr)},
                       {"host", m.host},
                       {"client_id", m.client_id},
                       {"partitions", partition_count(m)},
                       {"assignment", std::move(assignment)}});
  }
  j["members"] = std::move(members);
  return j;
}

// Text lines before a group's table: why there is nothing, or a warning.
// Returns false when the group has nothing more to show.
bool describe_preamble(const GroupDescription& g, std::string& out) {
  if (g.error_code == static_cast<int16_t>(ErrorCode::kGroupIdNotFound) || g.state == "Dead") {
    out += "Consumer group '" + g.group_id + "' does not exist.\n";
    return false;
  }
  if (g.error_code != 0) {
    out += "Error: consumer group '" + g.group_id + "': " + group_error_text(g.error_code) + "\n";
    return false;
  }
  if (g.state == "Empty") out += "Consumer group '" + g.group_id + "' has no active members.\n";
  if (g.state == "PreparingRebalance" || g.state == "CompletingRebalance") {
    out += "Warning: consumer group '" + g.group_id + "' is rebalancing.\n";
  }
  return true;
}

}  // namespace

std::optional<int64_t> group_lag(const GroupOffsetRow& row) {
  if (!row.current_offset || !row.log_end_offset) return std::nullopt;
  return *row.log_end_offset - *row.current_offset;
}

std::vector<TopicPartitionKey> partitions_of(const std::vector<GroupMember>& members,
                                             const std::map<TopicPartitionKey, int64_t>& committed) {
  std::set<TopicPartitionKey> all;
  for (const auto& m : members) {
    for (const auto& t : m.assignment) {
      for (int32_t p : t.partitions) all.emplace(t.topic, p);
    }
  }
  for (const auto& [key, offset] : committed) all.insert(key);
  return {all.begin(), all.end()};
}

std::vector<GroupOffsetRow> build_offset_rows(const std::vector<GroupMember>& members,
                                              const std::map<TopicPartitionKey, int64_t>& committed,
                                              const std::map<TopicPartitionKey, int64_t>& log_end) {
  std::map<TopicPartitionKey, const GroupMember*> owner;
  for (const auto& m : members) {
    for (const auto& t : m.assignment) {
      for (int32_t p : t.partitions) owner.emplace(TopicPartitionKey{t.topic, p}, &m);
    }
  }
  std::vector<GroupOffsetRow> rows;
  for (const auto& key : partitions_of(members, committed)) {
    GroupOffsetRow r;
    r.topic = key.first;
    r.partition = key.second;
    if (auto it = committed.find(key); it != committed.end()) r.current_offset = it->second;
    if (auto it = log_end.find(key); it != log_end.end()) r.log_end_offset = it->second;
    if (auto it = owner.find(key); it != owner.end()) {
      r.member_id = it->second->member_id;
      r.host = it->second->host;
      r.client_id = it->second->client_id;
    }
    rows.push_back(std::move(r));
  }
  for (const auto& m : members) {
    if (partition_count(m) != 0) continue;
    GroupOffsetRow r;
    r.member_id = m.member_id;
    r.host = m.host;
    r.client_id = m.client_id;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string format_group_list(const std::vector<GroupListing>& groups, OutputFormat fmt) {
  std::vector<GroupListing> sorted = groups;
  std::sort(sorted.begin(), sorted.end(),
            [](const GroupListing& a, const GroupListing& b) { return a.group_id < b.group_id; });
  if (fmt == OutputFormat::kJson) {
    json arr = json::array();
    for (const auto& g : sorted) {
      arr.push_back({{"group", g.group_id}, {"state", str_or_null(g.state)}, {"protocol_type", g.protocol_type}});
    }
    return arr.dump(2) + "\n";
  }
  std::vector<std::vector<std::string>> rows{{"GROUP", "STATE", "PROTOCOL-TYPE"}};
  for (const auto& g : sorted) rows.push_back({g.group_id, or_dash(g.state), or_dash(g.protocol_type)});
  return format_table(rows);
}

std::string format_group_describe(const std::vector<GroupDescription>& groups, const std::string& view, bool verbose,
                                  OutputFormat fmt) {
  if (fmt == OutputFormat::kJson) {
    json arr = json::array();
    for (const auto& g : groups) arr.push_back(describe_json(g));
    return arr.dump(2) + "\n";
  }
  std::string out;
  for (const auto& g : groups) {
    if (!out.empty()) out += "\n";
    if (!describe_preamble(g, out)) continue;
    std::vector<std::vector<std::string>> rows;
    if (view == "state") {
      std::string coordinator = g.coordinator_id >= 0 ? g.coordinator_host + ":" + std::to_string(g.coordinator_port) +
                                                            " (" + std::to_string(g.coordinator_id) + ")"
                                                      : kNone;
      rows = {{"GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"},
              {g.group_id, coordinator, or_dash(g.protocol), or_dash(g.state), std::to_string(g.members.size())}};
    } else if (view == "members") {
      if (g.members.empty()) continue;  // the preamble said so
      rows.push_back({"GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"});
      if (verbose) {
        rows[0].insert(rows[0].begin() + 2, "GROUP-INSTANCE-ID");
        rows[0].push_back("ASSIGNMENT");
      }
      for (const auto& m : g.members) {
        std::vector<std::string> row{g.group_id, m.member_id, or_dash(m.host), or_dash(m.client_id),
                                     std::to_string(partition_count(m))};
        if (verbose) {
          row.insert(row.begin() + 2, m.group_instance_id ? or_dash(*m.group_instance_id) : kNone);
          row.push_back(assignment_text(m));
        }
        rows.push_back(std::move(row));
      }
    } else {
      if (g.offsets.empty()) {
        out += "Consumer group '" + g.group_id + "' has no committed offsets and no assigned partitions.\n";
        continue;
      }
      rows.push_back({"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID",
                      "HOST", "CLIENT-ID"});
      for (const auto& r : g.offsets) {
        rows.push_back({g.group_id, or_dash(r.topic), r.topic.empty() ? kNone : std::to_string(r.partition),
                        opt_num(r.current_offset), opt_num(r.log_end_offset), opt_num(group_lag(r)),
                        or_dash(r.member_id), or_dash(r.host), or_dash(r.client_id)});
      }
    }
    out += format_table(rows);
  }
  return out;
}

std::string group_error_hint(int16_t code) {
  switch (static_cast<ErrorCode>(code)) {
    case ErrorCode::kNonEmptyGroup:
      return "the group still has active members; stop its consumers (or wait for their session timeout) first";
    case ErrorCode::kGroupIdNotFound:
      return "the group does not exist";
    case ErrorCode::kUnknownMemberId:
    case ErrorCode::kIllegalGeneration:
    case ErrorCode::kRebalanceInProgress:
      return "the group is active; offsets can only be changed while the group is inactive (no running consumers)";
    case ErrorCode::kGroupSubscribedToTopic:
      return "an active member of the group is subscribed to the topic";
    case ErrorCode::kCoordinatorNotAvailable:
    case ErrorCode::kCoordinatorLoadInProgress:
    case ErrorCode::kNotCoordinator:
      return "the group coordinator is not ready; retry shortly";
    case ErrorCode::kInvalidGroupId:
      return "invalid group id";
    case ErrorCode::kUnknownTopicOrPartition:
      return "no such topic or partition";
    default:
      return "";
  }
}

std::string group_error_text(int16_t code) {
  std::string hint = group_error_hint(code);
  return kafka_error_name(code) + (hint.empty() ? "" : " (" + hint + ")");
}

std::string format_group_delete(const std::vector<GroupOpResult>& results, OutputFormat fmt) {
  if (fmt == OutputFormat::kJson) {
    json arr = json::array();
    for (const auto& r : results) {
      json j{{"group", r.group_id}, {"ok", r.error_code == 0}};
      if (r.error_code != 0) {
        j["error"] = kafka_error_name(r.error_code);
        j["error_code"] = r.error_code;
        std::string hint = group_error_hint(r.error_code);
        if (!hint.empty()) j["message"] = hint;
      }
      arr.push_back(std::move(j));
    }
    return arr.dump(2) + "\n";
  }
  std::string ok_list, out;
  for (const auto& r : results) {
    if (r.error_code == 0) ok_list += (ok_list.empty() ? "'" : ", '") + r.group_id + "'";
  }
  if (!ok_list.empty()) out += "Deletion of requested consumer groups (" + ok_list + ") was successful.\n";
  for (const auto& r : results) {
    if (r.error_code != 0) {
      out += "Error: deletion of consumer group '" + r.group_id + "' failed: " + group_error_text(r.error_code) + "\n";
    }
  }
  return out;
}

std::string format_reset_plan(const std::vector<ResetPlanRow>& rows, OutputFormat fmt) {
  if (fmt == OutputFormat::kJson) {
    json arr = json::array();
    for (const auto& r : rows) {
      json j{{"group", r.group_id},
             {"topic", r.topic},
             {"partition", r.partition},
             {"current_offset", opt_json(r.current_offset)},
             {"new_offset", opt_json(r.new_offset)}};
      if (!r.error.empty()) j["error"] = r.error;
      arr.push_back(std::move(j));
    }
    return arr.dump(2) + "\n";
  }
  bool any_error = std::any_of(rows.begin(), rows.end(), [](const ResetPlanRow& r) { return !r.error.empty(); });
  std::vector<std::vector<std::string>> table{{"GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"}};
  if (any_error) table[0].push_back("ERROR");
  for (const auto& r : rows) {
    table.push_back({r.group_id, r.topic, std::to_string(r.partition), opt_num(r.new_offset)});
    if (any_error) table.back().push_back(r.error);
  }
  return format_table(table);
}

std::string format_offset_delete(const std::string& group_id, int16_t group_error,
                                 const std::vector<OffsetDeleteRow>& rows, OutputFormat fmt) {
  if (fmt == OutputFormat::kJson) {
    json j{{"group", group_id}, {"ok", group_error == 0}};
    if (group_error != 0) j["error"] = kafka_error_name(group_error);
    json parts = json::array();
    for (const auto& r : rows) {
      json p{{"topic", r.topic}, {"partition", r.partition >= 0 ? json(r.partition) : json(nullptr)},
             {"ok", r.error_code == 0}};
      if (r.error_code != 0) p["error"] = kafka_error_name(r.error_code);
      parts.push_back(std::move(p));
    }
    j["partitions"] = std::move(parts);
    return j.dump(2) + "\n";
  }
  if (group_error != 0) {
    return "Error: deleting offsets of consumer group '" + group_id + "' failed: " + group_error_text(group_error) +
           "\n";
  }
  bool all_ok = std::all_of(rows.begin(), rows.end(), [](const OffsetDeleteRow& r) { return r.error_code == 0; });
  std::string out = all_ok ? "Request succeeded for deleting offsets of consumer group '" + group_id + "'.\n"
                           : "Request failed for some partitions of consumer group '" + group_id + "'.\n";
  std::vector<std::vector<std::string>> table{{"TOPIC", "PARTITION", "STATUS"}};
  for (const auto& r : rows) {
    table.push_back({r.topic, r.partition >= 0 ? std::to_string(r.partition) : kNone,
                     r.error_code == 0 ? "Successful" : "Error: " + group_error_text(r.error_code)});
  }
  return out + format_table(table);
}

}  // namespace spool::cli
