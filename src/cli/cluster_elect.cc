#include "cli/cluster_elect.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <ostream>

#include "cli/metadata_fetch.h"
#include "protocol/elect_leaders_request.h"
#include "protocol/elect_leaders_response.h"

namespace spool::cli {

namespace {

struct Outcome {
  std::string topic;
  int32_t partition = 0;
  int16_t error = 0;
  std::string message;
};

std::string result_text(int16_t error) {
  if (error == 0) return "elected";
  if (error == 84) return "already elected";  // ELECTION_NOT_NEEDED
  return kafka_error_name(error);
}

}  // namespace

int run_elect_leaders(const ClusterArgs& a, client::Admin& admin, const ClusterInfo& cluster, std::ostream& out,
                      std::ostream& err) {
  const std::string who = "spool cluster elect-leaders: ";
  protocol::ElectLeadersRequest req;
  req.election_type = a.unclean ? 1 : 0;
  req.timeout_ms = a.timeout_ms;
  if (!a.all_topic_partitions) {
    auto t = std::find_if(cluster.topics.begin(), cluster.topics.end(),
                          [&](const TopicInfo& info) { return info.name == a.topic && info.error_code == 0; });
    if (t == cluster.topics.end()) {
      err << who << "topic '" << a.topic << "' does not exist\n";
      return kExitUsage;
    }
    auto& tp = req.topic_partitions.emplace().emplace_back();
    tp.topic = a.topic;
    for (const auto& p : t->partitions) {
      if (a.partitions.empty() ||
          std::find(a.partitions.begin(), a.partitions.end(), p.partition) != a.partitions.end())
        tp.partitions.push_back(p.partition);
    }
    for (int32_t p : a.partitions) {
      if (std::find(tp.partitions.begin(), tp.partitions.end(), p) == tp.partitions.end()) {
        err << who << "topic '" << a.topic << "' has no partition " << p << "\n";
        return kExitUsage;
      }
    }
  }
  const int32_t controller_id = cluster.controller_id;
  // The Admin sends ElectLeaders to this controller.
  if (Status st = live_controller(cluster); !st) {
    err << who << "controller: " << st.message() << "\n";
    return kExitFailure;
  }
  auto resp = admin.elect_leaders(req);
  if (!resp) {
    err << who << "controller " << controller_id << ": " << resp.status().message() << "\n";
    return kExitFailure;
  }
  if (resp->error_code != protocol::ErrorCode::kNone) {
    err << who << "controller " << controller_id << " answered "
        << kafka_error_name(static_cast<int16_t>(resp->error_code)) << "\n";
    return kExitFailure;
  }
  std::vector<Outcome> outcomes;
  for (const auto& t : resp->replica_election_results)
    for (const auto& p : t.partition_result)
      outcomes.push_back(Outcome{t.topic, p.partition_id, static_cast<int16_t>(p.error_code),
                                 p.error_message.value_or("")});
  std::sort(outcomes.begin(), outcomes.end(), [](const Outcome& x, const Outcome& y) {
    return std::tie(x.topic, x.partition) < std::tie(y.topic, y.partition);
  });
  bool ok = true;
  for (const auto& o : outcomes) ok = ok && (o.error == 0 || o.error == 84);
  const char* type = a.unclean ? "UNCLEAN" : "PREFERRED";
  if (a.output == OutputFormat::kJson) {
    nlohmann::json j = {{"election_type", type}, {"controller", controller_id}, {"partitions", nlohmann::json::array()}};
    for (const auto& o : outcomes)
      j["partitions"].push_back({{"topic", o.topic}, {"partition", o.partition}, {"result", result_text(o.error)},
                                 {"error_code", o.error}, {"message", o.message}});
    out << j.dump(2) << "\n";
  } else {
    out << type << " leader election through controller " << controller_id << "\n";
    out << std::left << std::setw(30) << "TOPIC" << std::setw(11) << "PARTITION" << "RESULT\n";
    for (const auto& o : outcomes) {
      out << std::left << std::setw(30) << o.topic << std::setw(11) << o.partition << result_text(o.error);
      if (!o.message.empty() && o.error != 0 && o.error != 84) out << " (" << o.message << ")";
      out << "\n";
    }
  }
  return ok ? kExitOk : kExitFailure;
}

}  // namespace spool::cli
