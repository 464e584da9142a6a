#include "cli/topic_command.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <set>

#include "cli/admin_connect.h"
#include "cli/metadata_fetch.h"
#include "cli/topic_format.h"
#include "cli/topic_reassign.h"
#include "client/host_port.h"
#include "protocol/create_partitions_request.h"
#include "protocol/create_partitions_response.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/delete_records_request.h"
#include "protocol/delete_records_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"
#include "protocol/metadata_response.h"
#include "util/progress_log.h"

namespace spool::cli {
namespace {

using client::Admin;
namespace proto = spool::protocol;

// Fills each existing topic's overrides when the broker serves DescribeConfigs;
// leaves configs_known false (and says nothing) when it does not.
void fetch_topic_configs(Admin& c, std::vector<TopicInfo>& topics) {
  proto::DescribeConfigsRequest req;
  for (const auto& t : topics) {
    if (t.error_code != 0) continue;
    proto::DescribeConfigsRequest::DescribeConfigsResource res;
    res.resource_type = 2;  // TOPIC
    res.resource_name = t.name;
    res.configuration_keys = std::nullopt;  // every key
    req.resources.push_back(std::move(res));
  }
  if (req.resources.empty()) return;
  auto resp = c.describe_configs(req);
  if (!resp) return;
  for (const auto& r : resp->results) {
    if (r.error_code != proto::ErrorCode::kNone) continue;
    for (auto& t : topics) {
      if (t.name != r.resource_name) continue;
      t.configs_known = true;
      for (const auto& e : r.configs) {
        // Source 1 = DYNAMIC_TOPIC_CONFIG: a topic override.
        if (e.config_source == 1) t.configs[e.name] = e.is_sensitive ? "(sensitive)" : e.value.value_or("");
      }
    }
  }
}

int do_create(Admin& c, const TopicArgs& a, std::ostream& out, std::ostream& err) {
  auto configs = parse_config_pairs(a.configs);
  if (!configs) {
    err << "spool topic create: " << configs.status().message() << "\n";
    return kExitUsage;
  }
  proto::CreateTopicsRequest req;
  req.timeout_ms = a.timeout_ms;
  proto::CreateTopicsRequest::CreatableTopic t;
  t.name = a.name;
  // -1: the broker's defaults (CreateTopics v4+, which the Admin then asks for).
  t.num_partitions = a.partitions > 0 ? a.partitions : -1;
  t.replication_factor = static_cast<int16_t>(a.replication_factor > 0 ? a.replication_factor : -1);
  for (const auto& [k, val] : *configs) t.configs.push_back({k, val});
  req.topics.push_back(std::move(t));
  auto resp = c.create_topics(req);
  if (!resp) {
    err << "spool topic create: " << resp.status().message() << "\n";
    return kExitFailure;
  }
  std::vector<TopicOpResult> results;
  bool ok = true;
  for (const auto& r : resp->topics) {
    // Counts come back only from v5 on; before that, echo what was asked for.
    int32_t parts = r.num_partitions >= 0 ? r.num_partitions : a.partitions;
    int32_t rf = r.replication_factor >= 0 ? r.replication_factor : a.replication_factor;
    const bool created = r.error_code == proto::ErrorCode::kNone;
    results.push_back(
        {r.name, proto::to_int(r.error_code), r.error_message.value_or(""), created ? parts : -1, created ? rf : -1});
    ok = ok && r.error_code == proto::ErrorCode::kNone;
  }
  if (results.empty()) {
    err << "spool topic create: the broker returned no result for '" << a.name << "'\n";
    return kExitFailure;
  }
  (ok ? out : err) << format_topic_op("created", results, a.output);
  return ok ? kExitOk : kExitFailure;
}

int do_delete(Admin& c, const TopicArgs& a, std::ostream& out, std::ostream& err) {
  proto::DeleteTopicsRequest req;
  req.topic_names = {a.name};                         // v0-5
  req.topics.push_back({a.name, proto::Uuid{}});     // v6+: by name
  req.timeout_ms = a.timeout_ms;
  auto resp = c.delete_topics(req);
  if (!resp) {
    err << "spool topic delete: " << resp.status().message() << "\n";
    return kExitFailure;
  }
  std::vector<TopicOpResult> results;
  bool ok = true;
  for (const auto& r : resp->responses) {
    results.push_back({r.name.value_or(""), proto::to_int(r.error_code), r.error_message.value_or(""), -1, -1});
    ok = ok && r.error_code == proto::ErrorCode::kNone;
  }
  if (results.empty()) {
    err << "spool topic delete: the broker returned no result for '" << a.name << "'\n";
    return kExitFailure;
  }
  (ok ? out : err) << format_topic_op("deleted", results, a.output);
  return ok ? kExitOk : kExitFailure;
}

int do_add_partitions(Admin& c, const TopicArgs& a, std::ostream& out, std::ostream& err) {
  proto::CreatePartitionsRequest req;
  req.timeout_ms = a.timeout_ms;
  proto::CreatePartitionsRequest::CreatePartitionsTopic t;
  t.name = a.name;
  t.count = a.partitions;
  t.assignments = std::nullopt;  // the broker places them
  req.topics.push_back(std::move(t));
  auto resp = c.create_partitions(req);
  if (!resp) {
    err << "spool topic add-partitions: " << resp.status().message() << "\n";
    return kExitFailure;
  }
  std::vector<TopicOpResult> results;
  bool ok = true;
  for (const auto& r : resp->results) {
    const bool added = r.error_code == proto::ErrorCode::kNone;
    results.push_back({r.name, proto::to_int(r.error_code), r.error_message.value_or(""), added ? a.partitions : -1, -1});
    ok = ok && r.error_code == proto::ErrorCode::kNone;
  }
  if (results.empty()) {
    err << "spool topic add-partitions: the broker returned no result for '" << a.name << "'\n";
    return kExitFailure;
  }
  (ok ? out : err) << format_topic_op("resized", results, a.output);
  return ok ? kExitOk : kExitFailure;
}

// The partitions delete-records works on: --partition, or with
// --all-partitions every partition Metadata lists for the topic.
Result<std::vector<int32_t>> delete_records_partitions(Admin& c, const TopicArgs& a) {
  if (!a.all_partitions) return std::vector<int32_t>{a.partition};
  auto md = c.metadata(std::vector<std::string>{a.name});
  if (!md) return md.status();
  for (const auto& t : md->topics) {
    if (!t.name || *t.name != a.name) continue;
    if (t.error_code != proto::ErrorCode::kNone)
      return Status::error("topic '" + a.name + "': " + std::string(proto::error_name(t.error_code)));
    std::vector<int32_t> out;
    for (const auto& p : t.partitions) out.push_back(p.partition_index);
    std::sort(out.begin(), out.end());
    return out;
  }
  return Status::error("topic '" + a.name + "' is not in the metadata");
}

int do_delete_records(Admin& c, const TopicArgs& a, std::ostream& out, std::ostream& err) {
  constexpr size_t kPerRequest = 100;
  auto partitions = delete_records_partitions(c, a);
  if (!partitions) {
    err << "spool topic delete-records: " << partitions.status().message() << "\n";
    return kExitFailure;
  }
  util::ProgressLog progress("delete-records " + a.name, "partitions", static_cast<int64_t>(partitions->size()),
                             [&err](const std::string& line) { err << line << "\n" << std::flush; },
                             std::chrono::seconds(1));
  std::vector<DeleteRecordsResult> results;
  bool ok = true;
  for (size_t from = 0; from < partitions->size(); from += kPerRequest) {
    proto::DeleteRecordsRequest req;
    req.timeout_ms = a.timeout_ms;
    auto& t = req.topics.emplace_back();
    t.name = a.name;
    for (size_t i = from; i < std::min(partitions->size(), from + kPerRequest); ++i) {
      auto& p = t.partitions.emplace_back();
      p.partition_index = (*partitions)[i];
      p.offset = a.offset;
    }
    auto resp = c.delete_records(req);
    if (!resp) {
      err << "spool topic delete-records: " << resp.status().message() << "\n";
      return kExitFailure;
    }
    for (const auto& rt : resp->topics) {
      for (const auto& rp : rt.partitions) {
        results.push_back({rt.name, rp.partition_index, proto::to_int(rp.error_code), rp.low_watermark});
        ok = ok && rp.error_code == proto::ErrorCode::kNone;
      }
    }
    progress.advance(static_cast<int64_t>(t.partitions.size()));
  }
  progress.finish();
  if (results.empty()) {
    err << "spool topic delete-records: the broker returned no result for '" << a.name << "'\n";
    return kExitFailure;
  }
  (ok ? out : err) << format_delete_records(results, a.output);
  return ok ? kExitOk : kExitFailure;
}

// One IncrementalAlterConfigs request; a key may appear once across all flags
// (the broker refuses duplicates, so say it here with the flag names).
int do_alter_config(Admin& c, const TopicArgs& a, std::ostream& out, std::ostream& err) {
  const std::string who = "spool topic alter-config: ";
  proto::IncrementalAlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = 2;  // TOPIC
  res.resource_name = a.name;
  std::set<std::string> keys;
  auto add = [&](const std::string& key, int8_t op, std::optional<std::string> value) {
    if (!keys.insert(key).second) {
      err << who << "config key '" << key << "' is given more than once\n";
      return false;
    }
    res.configs.push_back({key, op, std::move(value)});
    return true;
  };
  for (auto [items, op] : {std::pair{&a.set_configs, int8_t{0}}, std::pair{&a.append_configs, int8_t{2}},
                           std::pair{&a.subtract_configs, int8_t{3}}}) {
    for (const auto& item : *items) {
      auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        err << who << "expected key=value, got '" << item << "'\n";
        return kExitUsage;
      }
      if (!add(item.substr(0, eq), op, item.substr(eq + 1))) return kExitUsage;
    }
  }
  for (const auto& key : a.delete_configs) {
    if (key.empty() || !add(key, 1, std::nullopt)) return kExitUsage;
  }
  if (res.configs.empty()) {
    err << who << "nothing to change: give --set, --delete, --append or --subtract\n";
    return kExitUsage;
  }
  proto::IncrementalAlterConfigsRequest req;
  req.resources.push_back(std::move(res));
  auto resp = c.incremental_alter_configs(req);
  if (!resp) {
    err << who << resp.status().message() << "\n";
    return kExitFailure;
  }
  std::vector<TopicOpResult> results;
  bool ok = true;
  for (const auto& r : resp->responses) {
    results.push_back({r.resource_name, proto::to_int(r.error_code), r.error_message.value_or(""), -1, -1});
    ok = ok && r.error_code == proto::ErrorCode::kNone;
  }
  if (results.empty()) {
    err << who << "the broker returned no result for '" << a.name << "'\n";
    return kExitFailure;
  }
  (ok ? out : err) << format_topic_op("altered", results, a.output);
  return ok ? kExitOk : kExitFailure;
}

}  // namespace

int run_topic_command(const TopicArgs& args) { return run_topic_command(args, std::cout, std::cerr); }

int run_topic_command(const TopicArgs& a, std::ostream& out, std::ostream& err) {
  const std::string who = "spool topic " + a.action + ": ";
  auto addr = client::parse_host_port(a.bootstrap_server);
  if (!addr) {
    err << who << "--bootstrap-server: " << addr.status().message() << "\n";
    return kExitUsage;
  }
  auto admin = open_admin(a.bootstrap_server, a.timeout_ms);
  if (!admin) {
    err << who << admin.status().message() << "\n";
    return kExitFailure;
  }
  Admin& c = **admin;
  if (a.action == "create") return do_create(c, a, out, err);
  if (a.action == "delete") return do_delete(c, a, out, err);
  if (a.action == "add-partitions") return do_add_partitions(c, a, out, err);
  if (a.action == "delete-records") return do_delete_records(c, a, out, err);
  if (a.action == "alter-config") return do_alter_config(c, a, out, err);
  if (a.action == "reassign") return run_topic_reassign(c, a, out, err);

  auto meta = fetch_cluster_metadata(c, a.action == "describe" ? a.name : std::string());
  if (!meta) {
    err << who << meta.status().message() << "\n";
    return kExitFailure;
  }
  std::vector<TopicInfo>* topics = &meta->topics;
  if (a.action == "list") {
    out << format_topic_list(*topics, a.output);
    return kExitOk;
  }
  fetch_topic_configs(c, *topics);
  out << format_topic_describe(*topics, a.output);
  bool failed = std::any_of(topics->begin(), topics->end(), [](const TopicInfo& t) { return t.error_code != 0; });
  if (failed) {
    for (const auto& t : *topics) {
      if (t.error_code != 0) err << who << "topic '" << t.name << "': " << kafka_error_name(t.error_code) << "\n";
    }
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace spool::cli
