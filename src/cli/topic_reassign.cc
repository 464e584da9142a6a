#include "cli/topic_reassign.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include "cli/client_options.h"
#include "cli/metadata_fetch.h"
#include "cli/reassign_plan.h"
#include "protocol/alter_partition_reassignments_request.h"
#include "protocol/alter_partition_reassignments_response.h"
#include "protocol/describe_log_dirs_request.h"
#include "protocol/describe_log_dirs_response.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"
#include "protocol/list_partition_reassignments_request.h"
#include "protocol/list_partition_reassignments_response.h"

namespace spool::cli {

namespace {

namespace proto = spool::protocol;
using client::Admin;

constexpr int8_t kTopicResource = 2, kBrokerResource = 4;
constexpr int8_t kSet = 0, kDelete = 1;
constexpr const char* kLeaderRate = "leader.replication.throttled.rate";
constexpr const char* kFollowerRate = "follower.replication.throttled.rate";
constexpr const char* kLeaderReplicas = "leader.replication.throttled.replicas";
constexpr const char* kFollowerReplicas = "follower.replication.throttled.replicas";

std::string name_of(const std::string& topic, int32_t p) { return topic + "-" + std::to_string(p); }

std::string ids(const std::vector<int32_t>& v) {
  std::string out;
  for (int32_t x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Status::error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// One IncrementalAlterConfigs (the Admin sends a BROKER resource to that
// broker); "" when every resource was accepted, else the first error.
std::string alter_configs(Admin& c, std::vector<proto::IncrementalAlterConfigsRequest::AlterConfigsResource> rs) {
  proto::IncrementalAlterConfigsRequest req;
  req.resources = std::move(rs);
  auto resp = c.incremental_alter_configs(req);
  if (!resp) return resp.status().message();
  for (const auto& r : resp->responses) {
    if (r.error_code != proto::ErrorCode::kNone)
      return r.resource_name + ": " + kafka_error_name(static_cast<int16_t>(r.error_code)) +
             (r.error_message ? " (" + *r.error_message + ")" : "");
  }
  return "";
}

proto::IncrementalAlterConfigsRequest::AlterConfigsResource resource(int8_t type, std::string name) {
  proto::IncrementalAlterConfigsRequest::AlterConfigsResource r;
  r.resource_type = type;
  r.resource_name = std::move(name);
  return r;
}

void add_op(proto::IncrementalAlterConfigsRequest::AlterConfigsResource& r, const char* key, int8_t op,
            std::optional<std::string> value) {
  auto& c = r.configs.emplace_back();
  c.name = key;
  c.config_operation = op;
  c.value = std::move(value);
}

// Sets (or, with rate < 0, removes) the throttle rates on each broker, one
// request each (a BROKER resource goes to that broker).
std::string broker_throttles(Admin& admin, const ClusterInfo& cluster, const std::vector<int32_t>& brokers,
                             int64_t rate) {
  for (int32_t b : brokers) {
    if (!is_live(cluster, b)) return "broker " + std::to_string(b) + " is not live";
    auto r = resource(kBrokerResource, std::to_string(b));
    const int8_t op = rate >= 0 ? kSet : kDelete;
    const std::optional<std::string> value = rate >= 0 ? std::optional<std::string>(std::to_string(rate)) : std::nullopt;
    add_op(r, kLeaderRate, op, value);
    add_op(r, kFollowerRate, op, value);
    if (std::string e = alter_configs(admin, {std::move(r)}); !e.empty()) return "broker " + std::to_string(b) + ": " + e;
  }
  return "";
}

std::string clear_throttles(Admin& admin, const ClusterInfo& cluster, const Plan& plan, std::ostream& out) {
  std::vector<int32_t> all;
  for (const auto& b : cluster.brokers) all.push_back(b.id);
  out << "Clearing broker-level throttles on brokers " << ids(all) << "\n";
  if (std::string e = broker_throttles(admin, cluster, all, -1); !e.empty()) return e;
  std::set<std::string> topics;
  for (const auto& p : plan) topics.insert(p.topic);
  std::vector<proto::IncrementalAlterConfigsRequest::AlterConfigsResource> rs;
  for (const auto& t : topics) {
    out << "Clearing topic-level throttles on topic " << t << "\n";
    auto r = resource(kTopicResource, t);
    add_op(r, kLeaderReplicas, kDelete, std::nullopt);
    add_op(r, kFollowerReplicas, kDelete, std::nullopt);
    rs.push_back(std::move(r));
  }
  return alter_configs(admin, std::move(rs));
}

struct Ongoing {
  std::vector<int32_t> replicas, adding, removing;
};

Result<std::map<std::pair<std::string, int32_t>, Ongoing>> list_ongoing(Admin& admin) {
  proto::ListPartitionReassignmentsRequest req;
  req.timeout_ms = 30000;
  auto resp = admin.list_partition_reassignments(req);
  if (!resp) return resp.status();
  if (resp->error_code != proto::ErrorCode::kNone)
    return Status::error("ListPartitionReassignments: " + kafka_error_name(static_cast<int16_t>(resp->error_code)));
  std::map<std::pair<std::string, int32_t>, Ongoing> out;
  for (const auto& t : resp->topics)
    for (const auto& p : t.partitions)
      out[{t.name, p.partition_index}] = Ongoing{p.replicas, p.adding_replicas, p.removing_replicas};
  return out;
}

// Sizes of these partitions on one broker (DescribeLogDirs), -1 where unknown.
std::map<std::pair<std::string, int32_t>, int64_t> sizes_on(Admin& admin, const ClusterInfo& cluster, int32_t broker,
                                                             const std::set<std::pair<std::string, int32_t>>& parts) {
  std::map<std::pair<std::string, int32_t>, int64_t> out;
  if (!is_live(cluster, broker)) return out;
  proto::DescribeLogDirsRequest req;
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& [t, p] : parts) by_topic[t].push_back(p);
  req.topics.emplace();
  for (auto& [t, ps] : by_topic) {
    auto& e = req.topics->emplace_back();
    e.topic = t;
    e.partitions = ps;
  }
  auto resp = admin.describe_log_dirs(broker, req);
  if (!resp) return out;
  for (const auto& dir : resp->results)
    for (const auto& t : dir.topics)
      for (const auto& p : t.partitions)
        if (!p.is_future_key) out[{t.name, p.partition_index}] = p.partition_size;
  return out;
}

std::string bar(double fraction) {
  const int width = 20;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width + 0.5);
  return "[" + std::string(filled, '#') + std::string(width - filled, '-') + "]";
}

int generate(const ClusterInfo& cluster, const TopicArgs& a, std::ostream& out, std::ostream& err) {
  auto text = read_file(a.topics_to_move_file);
  if (!text) return err << "spool topic reassign: " << text.status().message() << "\n", kExitUsage;
  auto topics = parse_topics_to_move(*text);
  if (!topics) return err << "spool topic reassign: " << topics.status().message() << "\n", kExitUsage;
  std::vector<int32_t> brokers;
  std::stringstream ss(a.broker_list);
  for (std::string item; std::getline(ss, item, ',');) {
    try {
      size_t used = 0;
      int v = std::stoi(item, &used);
      if (used != item.size() || v < 0) throw std::invalid_argument(item);
      brokers.push_back(v);
    } catch (const std::exception&) {
      err << "spool topic reassign: --broker-list: '" << item << "' is not a broker id\n";
      return kExitUsage;
    }
  }
  if (brokers.empty()) return err << "spool topic reassign: --broker-list is empty\n", kExitUsage;
  auto current = current_assignment(cluster, *topics);
  if (!current) return err << "spool topic reassign: " << current.status().message() << "\n", kExitUsage;
  const uint64_t seed = std::random_device{}();
  auto proposal = generate_plan(cluster, *topics, brokers, !a.disable_rack_aware, seed);
  if (!proposal) return err << "spool topic reassign: " << proposal.status().message() << "\n", kExitUsage;
  if (a.output == OutputFormat::kJson) {
    out << nlohmann::json{{"current", nlohmann::json::parse(format_reassignment(*current))},
                          {"proposed", nlohmann::json::parse(format_reassignment(*proposal))},
                          {"seed", seed}}
               .dump(2)
        << "\n";
  } else {
    out << "Current partition replica assignment\n" << format_reassignment(*current) << "\n\n";
    out << "Proposed partition reassignment configuration\n" << format_reassignment(*proposal) << "\n";
  }
  return kExitOk;
}

}  // namespace

int run_topic_reassign(Admin& admin, const TopicArgs& a, std::ostream& out, std::ostream& err) {
  const std::string who = "spool topic reassign: ";
  auto cluster = fetch_cluster_metadata(admin, "");
  if (!cluster) return err << who << cluster.status().message() << "\n", kExitFailure;
  if (a.reassign_mode == "generate") return generate(*cluster, a, out, err);
  // The Admin sends the reassignment requests to this controller.
  if (Status st = live_controller(*cluster); !st) return err << who << "controller: " << st.message() << "\n", kExitFailure;
  if (a.reassign_mode == "list") {
    auto ongoing = list_ongoing(admin);
    if (!ongoing) return err << who << ongoing.status().message() << "\n", kExitFailure;
    nlohmann::json j = nlohmann::json::array();
    if (a.output != OutputFormat::kJson)
      out << (ongoing->empty() ? "No partition reassignments found.\n" : "Current partition reassignments:\n");
    for (const auto& [tp, o] : *ongoing) {
      if (a.output == OutputFormat::kJson) {
        j.push_back({{"topic", tp.first}, {"partition", tp.second}, {"replicas", o.replicas}, {"adding", o.adding},
                     {"removing", o.removing}});
      } else {
        out << name_of(tp.first, tp.second) << ": replicas: " << ids(o.replicas) << ". adding: " << ids(o.adding)
            << ". removing: " << ids(o.removing) << ".\n";
      }
    }
    if (a.output == OutputFormat::kJson) out << j.dump(2) << "\n";
    return kExitOk;
  }
  auto text = read_file(a.reassignment_file);
  if (!text) return err << who << text.status().message() << "\n", kExitUsage;
  auto plan = parse_reassignment(*text);
  if (!plan) return err << who << plan.status().message() << "\n", kExitUsage;
  std::vector<std::string> topics;
  for (const auto& p : *plan)
    if (topics.empty() || topics.back() != p.topic) topics.push_back(p.topic);
  auto current_all = current_assignment(*cluster, topics);
  if (!current_all) return err << who << current_all.status().message() << "\n", kExitUsage;
  Plan current;
  for (const auto& c : *current_all)
    for (const auto& p : *plan)
      if (p.topic == c.topic && p.partition == c.partition) current.push_back(c);
  if (current.size() != plan->size()) return err << who << "the plan names partitions that do not exist\n", kExitUsage;

  if (a.reassign_mode == "execute" || a.reassign_mode == "cancel") {
    const bool cancel = a.reassign_mode == "cancel";
    if (!cancel) {
      out << "Current partition replica assignment\n\n" << format_reassignment(current) << "\n\n"
          << "Save this to use as the --reassignment-json-file option during rollback\n";
      if (a.throttle >= 0) {
        Throttles th = plan_throttles(current, *plan);
        std::vector<proto::IncrementalAlterConfigsRequest::AlterConfigsResource> rs;
        for (const auto& t : topics) {
          if (!th.leader.count(t)) continue;
          auto r = resource(kTopicResource, t);
          add_op(r, kLeaderReplicas, kSet, th.leader[t]);
          add_op(r, kFollowerReplicas, kSet, th.follower[t]);
          rs.push_back(std::move(r));
        }
        std::string e = rs.empty() ? "" : alter_configs(admin, std::move(rs));
        if (e.empty()) e = broker_throttles(admin, *cluster, th.brokers, a.throttle);
        if (!e.empty()) return err << who << "setting the throttle: " << e << "\n", kExitFailure;
        out << "Warning: You must run --verify periodically, until the reassignment completes, to ensure the "
               "throttle is removed.\n"
            << "The inter-broker throttle limit was set to " << a.throttle << " B/s\n";
      }
    }
    proto::AlterPartitionReassignmentsRequest req;
    req.timeout_ms = a.timeout_ms;
    for (const auto& p : *plan) {
      if (req.topics.empty() || req.topics.back().name != p.topic) req.topics.emplace_back().name = p.topic;
      auto& rp = req.topics.back().partitions.emplace_back();
      rp.partition_index = p.partition;
      if (!cancel) rp.replicas = p.replicas;  // null: cancel
    }
    auto resp = admin.alter_partition_reassignments(req);
    if (!resp) return err << who << resp.status().message() << "\n", kExitFailure;
    if (resp->error_code != proto::ErrorCode::kNone)
      return err << who << "the controller answered " << kafka_error_name(static_cast<int16_t>(resp->error_code))
                 << "\n",
             kExitFailure;
    std::vector<std::string> ok;
    bool failed = false;
    for (const auto& t : resp->responses)
      for (const auto& p : t.partitions) {
        // A cancel of a partition that was not moving is no failure.
        if (p.error_code == proto::ErrorCode::kNone ||
            (cancel && p.error_code == proto::ErrorCode::kNoReassignmentInProgress)) {
          ok.push_back(name_of(t.name, p.partition_index));
          continue;
        }
        failed = true;
        err << who << name_of(t.name, p.partition_index) << ": "
            << kafka_error_name(static_cast<int16_t>(p.error_code))
            << (p.error_message ? " (" + *p.error_message + ")" : "") << "\n";
      }
    std::string list;
    for (const auto& s : ok) list += (list.empty() ? "" : ",") + s;
    out << (cancel ? "Successfully cancelled partition reassignments for: " : "Successfully started partition "
                                                                              "reassignments for ")
        << list << "\n";
    if (cancel && !a.preserve_throttles) {
      if (std::string e = clear_throttles(admin, *cluster, *plan, out); !e.empty())
        return err << who << "clearing the throttles: " << e << "\n", kExitFailure;
    }
    return failed ? kExitFailure : kExitOk;
  }

  // verify
  auto ongoing = list_ongoing(admin);
  if (!ongoing) return err << who << ongoing.status().message() << "\n", kExitFailure;
  std::set<std::pair<std::string, int32_t>> moving;
  std::map<int32_t, std::set<std::pair<std::string, int32_t>>> ask;  // broker -> partitions to size
  for (const auto& p : *plan) {
    auto it = ongoing->find({p.topic, p.partition});
    if (it == ongoing->end()) continue;
    moving.insert(it->first);
    for (const auto& t : cluster->topics)
      if (t.name == p.topic)
        for (const auto& pi : t.partitions)
          if (pi.partition == p.partition && pi.leader >= 0) ask[pi.leader].insert(it->first);
    for (int32_t b : it->second.adding) ask[b].insert(it->first);
  }
  std::map<int32_t, std::map<std::pair<std::string, int32_t>, int64_t>> sizes;
  for (const auto& [b, parts] : ask) sizes[b] = sizes_on(admin, *cluster, b, parts);
  bool complete = true;
  nlohmann::json j = {{"partitions", nlohmann::json::array()}};
  if (a.output != OutputFormat::kJson) out << "Status of partition reassignment:\n";
  double progress_sum = 0;
  size_t completed = 0;
  for (size_t i = 0; i < plan->size(); ++i) {
    const auto& p = (*plan)[i];
    const auto key = std::make_pair(p.topic, p.partition);
    std::string state, line;
    double progress = 1.0;
    if (moving.count(key)) {
      complete = false;
      state = "in progress";
      int32_t leader = -1;
      for (const auto& t : cluster->topics)
        if (t.name == p.topic)
          for (const auto& pi : t.partitions)
            if (pi.partition == p.partition) leader = pi.leader;
      const int64_t total = leader >= 0 && sizes[leader].count(key) ? sizes[leader][key] : -1;
      progress = 0;
      int64_t least = -1;
      for (int32_t b : (*ongoing)[key].adding) {
        const int64_t got = sizes[b].count(key) ? sizes[b][key] : 0;
        least = least < 0 ? got : std::min(least, got);
      }
      if (total > 0 && least >= 0) progress = std::min(1.0, static_cast<double>(least) / static_cast<double>(total));
      std::ostringstream l;
      l << "Reassignment of partition " << name_of(p.topic, p.partition) << " is still in progress. " << bar(progress)
        << " " << static_cast<int>(progress * 100) << "%";
      if (total >= 0) l << " (" << std::max<int64_t>(least, 0) << " of " << total << " bytes on the new replicas)";
      line = l.str();
    } else if (current[i].replicas == p.replicas) {
      state = "completed";
      line = "Reassignment of partition " + name_of(p.topic, p.partition) + " is completed.";
    } else {
      complete = false;
      state = "not running";
      line = "There is no active reassignment of partition " + name_of(p.topic, p.partition) + ", but replica set is " +
             ids(current[i].replicas) + " rather than " + ids(p.replicas) + ".";
    }
    progress_sum += state == "not running" ? 0.0 : progress;
    completed += state == "completed" ? 1 : 0;
    if (a.output == OutputFormat::kJson) {
      j["partitions"].push_back(
          {{"topic", p.topic}, {"partition", p.partition}, {"state", state}, {"progress", progress}});
    } else {
      out << line << "\n";
    }
  }
  // The whole plan: the mean of its partitions' progress.
  const double overall = plan->empty() ? 1.0 : progress_sum / static_cast<double>(plan->size());
  if (a.output == OutputFormat::kJson) {
    j["progress"] = overall;
  } else {
    out << "Overall: " << bar(overall) << " " << static_cast<int>(overall * 100) << "% (" << completed << " of "
        << plan->size() << " partitions completed)\n";
  }
  j["complete"] = complete;
  if (complete && !a.preserve_throttles) {
    std::ostringstream notes;
    std::string e = clear_throttles(admin, *cluster, *plan, a.output == OutputFormat::kJson ? notes : out);
    if (!e.empty()) return err << who << "clearing the throttles: " << e << "\n", kExitFailure;
    j["throttles_cleared"] = true;
  }
  if (a.output == OutputFormat::kJson) out << j.dump(2) << "\n";
  return kExitOk;
}

void configure_topic_reassign(CLI::App* topic, CliArgs& args) {
  TopicArgs& t = args.topic;
  CLI::App* r = topic->add_subcommand(
      "reassign", "Move partitions between brokers, as kafka-reassign-partitions.sh (generate, execute, verify, "
                  "cancel, list)");
  auto* gen = r->add_flag("--generate", t.reassign_generate,
                          "Propose an assignment of --topics-to-move-json-file over --broker-list");
  auto* exe = r->add_flag("--execute", t.reassign_execute, "Start the reassignment of --reassignment-json-file");
  auto* ver = r->add_flag("--verify", t.reassign_verify,
                          "Show the progress of --reassignment-json-file; clear the throttles once done");
  auto* can = r->add_flag("--cancel", t.reassign_cancel, "Cancel the ongoing reassignments of --reassignment-json-file");
  auto* lst = r->add_flag("--list", t.reassign_list, "List the ongoing reassignments");
  const std::vector<CLI::Option*> modes{gen, exe, ver, can, lst};
  for (auto* a : modes)
    for (auto* b : modes)
      if (a != b) a->excludes(b);
  r->add_option("--topics-to-move-json-file", t.topics_to_move_file, "{\"topics\":[{\"topic\":\"foo\"}],\"version\":1}");
  r->add_option("--reassignment-json-file", t.reassignment_file, "The plan (as --generate prints it)");
  r->add_option("--broker-list", t.broker_list, "Brokers to spread the topics over, e.g. 0,1,2");
  r->add_option("--throttle", t.throttle, "Replication throttle in bytes/s while the reassignment runs")
      ->check(CLI::NonNegativeNumber);
  r->add_flag("--disable-rack-aware", t.disable_rack_aware, "Ignore broker racks when generating");
  r->add_flag("--preserve-throttles", t.preserve_throttles, "Leave the throttles in place");
  add_client_options(r, t);
  r->callback([&args] {
    TopicArgs& a = args.topic;
    if (a.reassign_generate) a.reassign_mode = "generate";
    if (a.reassign_execute) a.reassign_mode = "execute";
    if (a.reassign_verify) a.reassign_mode = "verify";
    if (a.reassign_cancel) a.reassign_mode = "cancel";
    if (a.reassign_list) a.reassign_mode = "list";
    if (a.reassign_mode.empty())
      throw CLI::ValidationError("reassign", "one of --generate, --execute, --verify, --cancel or --list is required");
    if (a.reassign_mode == "generate" && (a.topics_to_move_file.empty() || a.broker_list.empty()))
      throw CLI::ValidationError("reassign", "--generate needs --topics-to-move-json-file and --broker-list");
    if (a.reassign_mode != "generate" && a.reassign_mode != "list" && a.reassignment_file.empty())
      throw CLI::ValidationError("reassign", "--" + a.reassign_mode + " needs --reassignment-json-file");
    if (a.throttle >= 0 && a.reassign_mode != "execute")
      throw CLI::ValidationError("reassign", "--throttle goes with --execute");
    args.command = "topic";
    a.action = "reassign";
  });
}

}  // namespace spool::cli
