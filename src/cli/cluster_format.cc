#include "cli/cluster_format.h"

#include <nlohmann/json.hpp>

namespace spool::cli {
namespace {

std::string join_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

template <class Pred>
std::vector<PartitionProblem> select(const ClusterInfo& c, Pred pred) {
  std::vector<PartitionProblem> out;
  for (const auto& t : c.topics) {
    for (const auto& p : t.partitions) {
      if (pred(p)) out.push_back({t.name, p});
    }
  }
  return out;
}

nlohmann::json problems_json(const std::vector<PartitionProblem>& ps) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& p : ps) {
    arr.push_back({{"topic", p.topic},
                   {"partition", p.partition.partition},
                   {"leader", p.partition.leader},
                   {"replicas", p.partition.replicas},
                   {"isr", p.partition.isr},
                   {"offline_replicas", p.partition.offline}});
  }
  return arr;
}

std::string problems_table(const std::string& title, const std::vector<PartitionProblem>& ps) {
  std::string out = title + ": " + std::to_string(ps.size()) + "\n";
  if (ps.empty()) return out;
  std::vector<std::vector<std::string>> rows{{"TOPIC", "PARTITION", "LEADER", "REPLICAS", "ISR", "OFFLINE"}};
  for (const auto& p : ps) {
    rows.push_back({p.topic, std::to_string(p.partition.partition), std::to_string(p.partition.leader),
                    join_ids(p.partition.replicas), join_ids(p.partition.isr), join_ids(p.partition.offline)});
  }
  return out + format_table(rows);
}

}  // namespace

std::vector<PartitionProblem> under_replicated(const ClusterInfo& c) {
  return select(c, [](const PartitionInfo& p) { return p.isr.size() < p.replicas.size(); });
}

std::vector<PartitionProblem> offline(const ClusterInfo& c) {
  return select(c, [](const PartitionInfo& p) { return p.leader < 0; });
}

std::string format_cluster_describe(const ClusterInfo& c, OutputFormat fmt) {
  const auto under = under_replicated(c);
  const auto down = offline(c);
  if (fmt == OutputFormat::kJson) {
    nlohmann::json brokers = nlohmann::json::array();
    for (const auto& b : c.brokers) {
      brokers.push_back({{"id", b.id}, {"host", b.host}, {"port", b.port},
                         {"rack", b.rack ? nlohmann::json(*b.rack) : nlohmann::json(nullptr)}});
    }
    nlohmann::json j{{"cluster_id", c.cluster_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.cluster_id)},
                     {"controller_id", c.controller_id},
                     {"brokers", brokers},
                     {"under_replicated_partitions", problems_json(under)},
                     {"offline_partitions", problems_json(down)}};
    return j.dump(2) + "\n";
  }
  std::string out;
  out += "Cluster id: " + (c.cluster_id.empty() ? std::string("-") : c.cluster_id) + "\n";
  out += "Controller: " + (c.controller_id < 0 ? std::string("none") : std::to_string(c.controller_id)) + "\n";
  out += "Brokers: " + std::to_string(c.brokers.size()) + "\n";
  std::vector<std::vector<std::string>> rows{{"ID", "HOST", "PORT", "RACK", "ROLE"}};
  for (const auto& b : c.brokers) {
    rows.push_back({std::to_string(b.id), b.host, std::to_string(b.port), b.rack.value_or("-"),
                    b.id == c.controller_id ? "controller" : "-"});
  }
  out += format_table(rows);
  out += problems_table("Under-replicated partitions", under);
  out += problems_table("Offline partitions", down);
  return out;
}

}  // namespace spool::cli
