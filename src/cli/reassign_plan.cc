#include "cli/reassign_plan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "cluster/replica_assignment.h"

namespace spool::cli {

namespace {

using nlohmann::json;

Status bad(const std::string& what) { return Status::error(what); }

void sort_plan(Plan& plan) {
  std::sort(plan.begin(), plan.end(), [](const PlanPartition& a, const PlanPartition& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  });
}

const TopicInfo* find_topic(const ClusterInfo& c, const std::string& name) {
  for (const auto& t : c.topics)
    if (t.name == name && t.error_code == 0) return &t;
  return nullptr;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

Result<std::vector<std::string>> parse_topics_to_move(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return bad("the topics-to-move file is not a JSON object");
  if (!doc.contains("topics") || !doc["topics"].is_array()) return bad("the topics-to-move file has no \"topics\" array");
  std::vector<std::string> out;
  for (const auto& t : doc["topics"]) {
    if (!t.is_object() || !t.contains("topic") || !t["topic"].is_string() || t["topic"].get<std::string>().empty())
      return bad("every entry of \"topics\" needs a \"topic\" name");
    std::string name = t["topic"].get<std::string>();
    if (std::find(out.begin(), out.end(), name) != out.end()) return bad("topic '" + name + "' is listed twice");
    out.push_back(std::move(name));
  }
  if (out.empty()) return bad("the topics-to-move file lists no topic");
  return out;
}

Result<Plan> parse_reassignment(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return bad("the reassignment file is not a JSON object");
  if (!doc.contains("partitions") || !doc["partitions"].is_array())
    return bad("the reassignment file has no \"partitions\" array");
  Plan plan;
  std::set<std::pair<std::string, int32_t>> seen;
  for (const auto& p : doc["partitions"]) {
    if (!p.is_object() || !p.contains("topic") || !p["topic"].is_string() || !p.contains("partition") ||
        !p["partition"].is_number_integer() || !p.contains("replicas") || !p["replicas"].is_array())
      return bad("every partition needs \"topic\", \"partition\" and \"replicas\"");
    PlanPartition pp;
    pp.topic = p["topic"].get<std::string>();
    const int64_t index = p["partition"].get<int64_t>();
    if (pp.topic.empty() || index < 0 || index > INT32_MAX) return bad("bad topic or partition in the reassignment file");
    pp.partition = static_cast<int32_t>(index);
    const std::string name = pp.topic + "-" + std::to_string(pp.partition);
    for (const auto& r : p["replicas"]) {
      if (!r.is_number_integer() || r.get<int64_t>() < 0 || r.get<int64_t>() > INT32_MAX)
        return bad("partition " + name + ": replicas must be broker ids");
      pp.replicas.push_back(static_cast<int32_t>(r.get<int64_t>()));
    }
    if (pp.replicas.empty()) return bad("partition " + name + " has an empty replica list");
    if (std::set<int32_t>(pp.replicas.begin(), pp.replicas.end()).size() != pp.replicas.size())
      return bad("partition " + name + " lists a replica twice");
    if (p.contains("log_dirs")) {
      if (!p["log_dirs"].is_array() || p["log_dirs"].size() != pp.replicas.size())
        return bad("partition " + name + ": log_dirs must have one entry per replica");
      for (const auto& d : p["log_dirs"])
        if (!d.is_string() || d.get<std::string>() != "any")
          return bad("partition " + name + ": only \"any\" log dirs are supported (no JBOD moves yet)");
    }
    if (!seen.emplace(pp.topic, pp.partition).second) return bad("partition " + name + " is listed twice");
    plan.push_back(std::move(pp));
  }
  if (plan.empty()) return bad("the reassignment file lists no partition");
  sort_plan(plan);
  return plan;
}

std::string format_reassignment(const Plan& plan) {
  nlohmann::ordered_json doc;
  doc["version"] = 1;
  doc["partitions"] = nlohmann::ordered_json::array();
  for (const auto& p : plan) {
    nlohmann::ordered_json e;
    e["topic"] = p.topic;
    e["partition"] = p.partition;
    e["replicas"] = p.replicas;
    e["log_dirs"] = std::vector<std::string>(p.replicas.size(), "any");
    doc["partitions"].push_back(std::move(e));
  }
  return doc.dump();
}

Result<Plan> current_assignment(const ClusterInfo& cluster, const std::vector<std::string>& topics) {
  Plan plan;
  for (const auto& name : topics) {
    const TopicInfo* t = find_topic(cluster, name);
    if (t == nullptr) return bad("topic '" + name + "' does not exist");
    for (const auto& p : t->partitions) plan.push_back(PlanPartition{name, p.partition, p.replicas});
  }
  sort_plan(plan);
  return plan;
}

Result<Plan> generate_plan(const ClusterInfo& cluster, const std::vector<std::string>& topics,
                           const std::vector<int32_t>& brokers, bool rack_aware, uint64_t seed) {
  std::vector<cluster::BrokerMetadata> metas;
  for (int32_t id : brokers) {
    auto b = std::find_if(cluster.brokers.begin(), cluster.brokers.end(), [&](const BrokerInfo& x) { return x.id == id; });
    if (b == cluster.brokers.end()) return bad("broker " + std::to_string(id) + " is not a live broker of the cluster");
    metas.push_back(cluster::BrokerMetadata{id, rack_aware ? b->rack : std::nullopt});
  }
  std::sort(metas.begin(), metas.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  Plan plan;
  uint64_t draw = seed;
  for (const auto& name : topics) {
    const TopicInfo* t = find_topic(cluster, name);
    if (t == nullptr) return bad("topic '" + name + "' does not exist");
    if (t->partitions.empty()) continue;
    const auto rf = static_cast<int32_t>(t->partitions.front().replicas.size());
    auto a = cluster::assign_replicas_to_brokers(metas, static_cast<int32_t>(t->partitions.size()), rf,
                                                 cluster::random_assignment_start(draw++, metas.size()));
    if (!a) return bad("topic '" + name + "': " + a.status().message());
    for (const auto& [p, replicas] : *a) plan.push_back(PlanPartition{name, p, replicas});
  }
  sort_plan(plan);
  return plan;
}

Throttles plan_throttles(const Plan& current, const Plan& target) {
  Throttles out;
  std::map<std::string, std::vector<std::string>> leader, follower;
  std::set<int32_t> brokers;
  for (const auto& t : target) {
    auto c = std::find_if(current.begin(), current.end(), [&](const PlanPartition& x) {
      return x.topic == t.topic && x.partition == t.partition;
    });
    if (c == current.end() || c->replicas == t.replicas) continue;
    for (int32_t b : c->replicas) {
      leader[t.topic].push_back(std::to_string(t.partition) + ":" + std::to_string(b));
      brokers.insert(b);
    }
    for (int32_t b : t.replicas) {
      brokers.insert(b);
      if (std::find(c->replicas.begin(), c->replicas.end(), b) == c->replicas.end())
        follower[t.topic].push_back(std::to_string(t.partition) + ":" + std::to_string(b));
    }
  }
  for (auto& [topic, items] : leader) out.leader[topic] = join(items);
  for (auto& [topic, items] : follower) out.follower[topic] = join(items);
  out.brokers.assign(brokers.begin(), brokers.end());
  return out;
}

}  // namespace spool::cli
