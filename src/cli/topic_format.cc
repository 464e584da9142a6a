#include "cli/topic_format.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "protocol/error_code.h"

namespace spool::cli {
namespace {

std::string join_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

std::string error_text(int16_t code, const std::string& message) {
  std::string s = kafka_error_name(code);
  if (!message.empty()) s += ": " + message;
  return s;
}

}  // namespace

std::string kafka_error_name(int16_t code) {
  return std::string(protocol::error_name(static_cast<protocol::ErrorCode>(code)));
}

std::string format_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string format_topic_list(const std::vector<TopicInfo>& topics, OutputFormat fmt) {
  std::vector<std::string> names;
  for (const auto& t : topics) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  if (fmt == OutputFormat::kJson) return nlohmann::json(names).dump(2) + "\n";
  std::string out;
  for (const auto& n : names) out += n + "\n";
  return out;
}

std::string format_topic_describe(const std::vector<TopicInfo>& topics, OutputFormat fmt) {
  if (fmt == OutputFormat::kJson) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& t : topics) {
      nlohmann::json jt{{"name", t.name}, {"internal", t.internal}, {"partition_count", t.partitions.size()}};
      if (t.error_code != 0) jt["error"] = kafka_error_name(t.error_code);
      jt["replication_factor"] = t.partitions.empty() ? 0 : t.partitions.front().replicas.size();
      nlohmann::json parts = nlohmann::json::array();
      for (const auto& p : t.partitions) {
        nlohmann::json jp{{"partition", p.partition}, {"leader", p.leader},       {"leader_epoch", p.leader_epoch},
                          {"replicas", p.replicas},   {"isr", p.isr},             {"offline_replicas", p.offline}};
        if (p.error_code != 0) jp["error"] = kafka_error_name(p.error_code);
        parts.push_back(std::move(jp));
      }
      jt["partitions"] = std::move(parts);
      if (t.configs_known) jt["configs"] = t.configs;
      arr.push_back(std::move(jt));
    }
    return arr.dump(2) + "\n";
  }
  std::string out;
  for (const auto& t : topics) {
    if (!out.empty()) out += "\n";
    if (t.error_code != 0) {
      out += "Topic: " + t.name + "  Error: " + kafka_error_name(t.error_code) + "\n";
      continue;
    }
    size_t rf = t.partitions.empty() ? 0 : t.partitions.front().replicas.size();
    out += "Topic: " + t.name + "  Partitions: " + std::to_string(t.partitions.size()) +
           "  ReplicationFactor: " + std::to_string(rf) + (t.internal ? "  Internal: true" : "");
    if (t.configs_known) {
      std::string cfgs;
      for (const auto& [k, v] : t.configs) cfgs += (cfgs.empty() ? "" : ",") + k + "=" + v;
      out += "  Configs: " + (cfgs.empty() ? std::string("(defaults)") : cfgs);
    }
    out += "\n";
    std::vector<std::vector<std::string>> rows{{"PARTITION", "LEADER", "EPOCH", "REPLICAS", "ISR", "OFFLINE", "ERROR"}};
    for (const auto& p : t.partitions) {
      rows.push_back({std::to_string(p.partition), p.leader < 0 ? "none" : std::to_string(p.leader),
                      std::to_string(p.leader_epoch), join_ids(p.replicas), join_ids(p.isr), join_ids(p.offline),
                      p.error_code == 0 ? "" : kafka_error_name(p.error_code)});
    }
    std::string table = format_table(rows);
    size_t pos = 0;
    while (pos < table.size()) {
      size_t nl = table.find('\n', pos);
      std::string line = table.substr(pos, nl - pos);
      line.erase(line.find_last_not_of(' ') + 1);
      out += "  " + line + "\n";
      pos = nl + 1;
    }
  }
  return out;
}

std::string format_topic_op(const std::string& verb, const std::vector<TopicOpResult>& results, OutputFormat fmt) {
  if (fmt == OutputFormat::kJson) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : results) {
      nlohmann::json j{{"topic", r.name}, {"ok", r.error_code == 0}};
      if (r.error_code != 0) {
        j["error"] = kafka_error_name(r.error_code);
        j["error_code"] = r.error_code;
        if (!r.error_message.empty()) j["message"] = r.error_message;
      }
      if (r.partitions >= 0) j["partitions"] = r.partitions;
      if (r.replication_factor >= 0) j["replication_factor"] = r.replication_factor;
      arr.push_back(std::move(j));
    }
    return arr.dump(2) + "\n";
  }
  std::string out;
  for (const auto& r : results) {
    if (r.error_code == 0) {
      out += verb + " topic '" + r.name + "'";
      if (r.partitions >= 0) {
        out += " (" + std::to_string(r.partitions) + " partition" + (r.partitions == 1 ? "" : "s");
        if (r.replication_factor >= 0) out += ", replication factor " + std::to_string(r.replication_factor);
        out += ")";
      }
      out += "\n";
    } else {
      out += "error: topic '" + r.name + "': " + error_text(r.error_code, r.error_message) + "\n";
    }
  }
  return out;
}

std::string format_delete_records(const std::vector<DeleteRecordsResult>& results, OutputFormat fmt) {
  if (fmt == OutputFormat::kJson) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : results) {
      nlohmann::json j{{"topic", r.topic}, {"partition", r.partition}, {"ok", r.error_code == 0}};
      if (r.error_code == 0) {
        j["low_watermark"] = r.low_watermark;
      } else {
        j["error"] = kafka_error_name(r.error_code);
        j["error_code"] = r.error_code;
      }
      arr.push_back(std::move(j));
    }
    return arr.dump(2) + "\n";
  }
  std::string out;
  for (const auto& r : results) {
    std::string where = "topic '" + r.topic + "' partition " + std::to_string(r.partition);
    if (r.error_code == 0)
      out += where + ": log start offset is now " + std::to_string(r.low_watermark) + "\n";
    else
      out += "error: " + where + ": " + error_text(r.error_code, "") + "\n";
  }
  return out;
}

Result<std::map<std::string, std::string>> parse_config_pairs(const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::error("invalid --config '" + item + "' (expected key=value)");
    }
    std::string key = item.substr(0, eq);
    if (!out.emplace(key, item.substr(eq + 1)).second) {
      return Status::error("--config key '" + key + "' given more than once");
    }
  }
  return out;
}

}  // namespace spool::cli
