// AlterConfigs (v0-2) and IncrementalAlterConfigs (v0-1). The versions
// differ only on the wire, as in Kafka 4.4: AlterConfigs v1 is v0, v2 is v1
// flexible; IncrementalAlterConfigs v1 is v0 flexible. AlterConfigs replaces
// a resource's whole set (keys left out return to their defaults), as Kafka
// does; IncrementalAlterConfigs edits it key by key: SET, DELETE, APPEND and
// SUBTRACT (the last two only on list-typed keys such as cleanup.policy,
// starting from a topic's effective value, or a broker set's value else the
// key's default).
// Topics: the new override set goes through
// ReplicaManager::edit_topic_config (one node), which validates, persists
// and applies it live, or to ZooKeeper (cluster, alter_in_cluster below).
// Broker resources (dynamic broker configs) and broker loggers
// (IncrementalAlterConfigs only): alter_broker_configs.h.
// Errors are per resource: UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG,
// INVALID_REQUEST (unknown type or operation, null value, key or resource
// listed twice, a broker key that cannot be updated dynamically).
// validate_only answers as if applied and changes nothing. Duplicates and
// resource types are checked on the reactor; the edits run on the admin
// executor (broker/admin_executor.h), which answers.
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "broker/cluster_admin.h"
#include "broker/cluster_member.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/alter_broker_configs.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/replica_manager.h"
#include "config/config_def.h"
#include "config/topic_config.h"
#include "protocol/alter_configs_request.h"
#include "protocol/alter_configs_response.h"
#include "protocol/error_code.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

constexpr int8_t kTopicResource = 2;   // Kafka's ConfigResource.Type.TOPIC
constexpr int8_t kBrokerResource = 4;  // ConfigResource.Type.BROKER
constexpr int8_t kBrokerLoggerResource = 8;  // ConfigResource.Type.BROKER_LOGGER

// IncrementalAlterConfigs operations (Kafka's AlterConfigOp.OpType ids).
constexpr int8_t kSet = 0;
constexpr int8_t kDelete = 1;
constexpr int8_t kAppend = 2;
constexpr int8_t kSubtract = 3;

Status kafka_error(ErrorCode c, std::string m) { return Status::error(std::move(m), static_cast<int16_t>(c)); }

// The per-resource error for a type neither API serves.
Status check_resource_type(int8_t type, bool incremental) {
  if (type == kTopicResource || type == kBrokerResource) return Status::ok();
  if (type == kBrokerLoggerResource) {
    if (incremental) return Status::ok();
    return kafka_error(ErrorCode::kInvalidRequest,
                       "AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER");
  }
  return kafka_error(ErrorCode::kInvalidRequest, "Unsupported resource type: " + std::to_string(type));
}

// Counts resources by (type, name): Kafka refuses a resource named twice.
template <typename Resources>
std::map<std::pair<int8_t, std::string>, int> count_resources(const Resources& rs) {
  std::map<std::pair<int8_t, std::string>, int> seen;
  for (const auto& r : rs) seen[{r.resource_type, r.resource_name}]++;
  return seen;
}

template <typename Configs>
bool has_duplicate_keys(const Configs& cs) {
  std::set<std::string> keys;
  for (const auto& c : cs) {
    if (!keys.insert(c.name).second) return true;
  }
  return false;
}

Status apply_alter(std::map<std::string, std::string>& overrides,
                   const protocol::AlterConfigsRequest::AlterConfigsResource& res) {
  if (has_duplicate_keys(res.configs)) return kafka_error(ErrorCode::kInvalidRequest, "Error due to duplicate config keys");
  overrides.clear();
  for (const auto& c : res.configs) {
    if (!c.value) return kafka_error(ErrorCode::kInvalidRequest, "Null value not supported for : " + c.name);
    overrides[c.name] = *c.value;
  }
  return Status::ok();
}

// APPEND/SUBTRACT start from a topic's effective value (override, else
// default), or a broker set's value (else the key's default).
Status apply_list_op(BrokerContext& b, std::map<std::string, std::string>& overrides, const std::string& key,
                     int8_t op, const std::string& value, int8_t resource_type) {
  std::vector<std::string> items;
  if (resource_type == kBrokerResource) {
    auto base = broker_list_value(overrides, key, op == kAppend);
    if (!base) return base.status();
    items = config::split_list(*base);
  } else {
    const config::TopicKeyDef* def = config::find_topic_key(key);
    if (def == nullptr) return kafka_error(ErrorCode::kInvalidConfig, "Unknown topic config name: " + key);
    if (def->def.type != config::ConfigType::kList)
      return kafka_error(ErrorCode::kInvalidConfig, std::string("Config value ") +
                                                        (op == kAppend ? "append" : "subtract") +
                                                        " is not allowed for config key: " + key);
    auto eff = effective_topic_config(b.settings, overrides);
    if (auto it = eff.find(key); it != eff.end()) items = config::split_list(it->second);
  }
  for (const auto& item : config::split_list(value)) {
    auto pos = std::find(items.begin(), items.end(), item);
    if (op == kAppend && pos == items.end()) items.push_back(item);
    if (op == kSubtract && pos != items.end()) items.erase(pos);
  }
  std::string joined;
  for (const auto& item : items) joined += (joined.empty() ? "" : ",") + item;
  overrides[key] = joined;
  return Status::ok();
}

Status apply_incremental(BrokerContext& b, std::map<std::string, std::string>& overrides,
                         const protocol::IncrementalAlterConfigsRequest::AlterConfigsResource& res) {
  if (has_duplicate_keys(res.configs)) return kafka_error(ErrorCode::kInvalidRequest, "Error due to duplicate config keys");
  for (const auto& c : res.configs) {
    const int8_t op = c.config_operation;
    if (op < kSet || op > kSubtract)
      return kafka_error(ErrorCode::kInvalidRequest, "Unknown config operation " + std::to_string(op) + " for " + c.name);
    if (op == kDelete) {
      overrides.erase(c.name);
      continue;
    }
    if (!c.value) return kafka_error(ErrorCode::kInvalidRequest, "Null value not supported for : " + c.name);
    if (op == kSet) {
      overrides[c.name] = *c.value;
      continue;
    }
    if (Status s = apply_list_op(b, overrides, c.name, op, *c.value, res.resource_type); !s) return s;
  }
  return Status::ok();
}

// Cluster mode (Kafka's ZooKeeper-mode AdminZkClient.changeTopicConfig): the
// topic must exist in the store; its override set there is edited and
// validated, written back to /config/topics/T with a /config/changes
// notification; every broker (this one included) then applies it live to
// the partitions it hosts (ConfigChanges).
template <typename Resource, typename EditFn>
Status alter_in_cluster(BrokerContext& b, const Resource& res, const EditFn& edit, bool validate_only) {
  if (auto a = read_topic_assignment(*b.cluster, res.resource_name); !a) return a.status();
  auto overrides = read_topic_config(*b.cluster, res.resource_name);
  if (!overrides) return overrides.status();
  if (Status s = edit(*overrides, res); !s) return s;
  if (Status s = config::validate_topic_configs(*overrides); !s)
    return s.kafka_code() != 0 ? s : kafka_error(ErrorCode::kInvalidConfig, s.message());
  if (!validate_only) return set_topic_config(*b.cluster, res.resource_name, *overrides);
  return Status::ok();
}

// A broker logger resource's operations (IncrementalAlterConfigs only).
template <typename Resource>
std::vector<LoggerOp> logger_ops(const Resource& res) {
  std::vector<LoggerOp> ops;
  if constexpr (requires { res.configs.front().config_operation; }) {
    for (const auto& c : res.configs) ops.push_back({c.name, c.config_operation, c.value});
  }
  return ops;
}

// One resource, on the admin executor.
template <typename Request, typename Edit>
Status alter_one(BrokerContext& b, const Request& req, const typename decltype(Request::resources)::value_type& res,
                 const Edit& edit) {
  if (res.resource_type == kBrokerResource) {
    return alter_broker_resource(
        b, res.resource_name, [&](config::DynamicConfigs& set) { return edit(set, res); }, req.validate_only);
  }
  if (res.resource_type == kBrokerLoggerResource)
    return alter_broker_logger(b, res.resource_name, logger_ops(res), req.validate_only);
  if (b.cluster != nullptr) return alter_in_cluster(b, res, edit, req.validate_only);
  // The edit runs under the replica manager's lock, on the current set.
  auto altered = b.replicas.edit_topic_config(
      res.resource_name, [&](std::map<std::string, std::string>& overrides) { return edit(overrides, res); },
      req.validate_only);
  return altered ? Status::ok() : altered.status();
}

// Shared body of both APIs: duplicates and resource types are checked here,
// on the reactor; then, on the admin executor, each remaining resource's
// current set is edited with `edit`, validated, persisted and applied, and
// the job answers.
template <typename Request, typename Response, typename Edit>
void alter(BrokerContext& b, const RequestContext& ctx, std::shared_ptr<const Request> req, const char* api,
           bool incremental, Edit edit) {
  struct Job {
    Response resp;
    std::vector<size_t> pending;  // resources (same index in resp.responses) left to apply
  };
  auto job = std::make_shared<Job>();
  auto seen = count_resources(req->resources);
  for (const auto& res : req->resources) {
    auto& r = job->resp.responses.emplace_back();
    r.resource_type = res.resource_type;
    r.resource_name = res.resource_name;
    auto fail = [&](const Status& s) {
      r.error_code = static_cast<ErrorCode>(s.kafka_code());
      r.error_message = s.message();
    };
    if (seen[{res.resource_type, res.resource_name}] > 1) {
      fail(kafka_error(ErrorCode::kInvalidRequest, "Error due to duplicate config resource: " + res.resource_name));
      continue;
    }
    if (Status s = check_resource_type(res.resource_type, incremental); !s) {
      fail(s);
      continue;
    }
    if (auto refused = config_refusal(b, ctx, res.resource_type, res.resource_name,
                                      security::AclOperation::kAlterConfigs)) {
      fail(kafka_error(*refused, authorization_message(*refused)));
      continue;
    }
    job->pending.push_back(job->resp.responses.size() - 1);
  }
  if (job->pending.empty()) {
    ctx.respond(job->resp);
    return;
  }
  run_admin_job(
      b, api,
      [&b, ctx, req, job, edit] {
        for (size_t i : job->pending) {
          auto& r = job->resp.responses[i];
          Status s = alter_one(b, *req, req->resources[i], edit);
          r.error_code = s ? ErrorCode::kNone : static_cast<ErrorCode>(s.kafka_code());
          if (!s) r.error_message = s.message();
        }
        ctx.respond(job->resp);
      },
      [ctx, job](const Status& s) {
        for (size_t i : job->pending) {
          job->resp.responses[i].error_code = static_cast<ErrorCode>(s.kafka_code());
          job->resp.responses[i].error_message = s.message();
        }
        ctx.respond(job->resp);
      });
}

}  // namespace

void handle_alter_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  auto req = std::make_shared<protocol::AlterConfigsRequest>();
  if (!decode_or_close(ctx, body, *req, "AlterConfigs")) return;
  alter<protocol::AlterConfigsRequest, protocol::AlterConfigsResponse>(
      b, ctx, req, "AlterConfigs", false,
      [](auto& overrides, const auto& res) { return apply_alter(overrides, res); });
}

void handle_incremental_alter_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  auto req = std::make_shared<protocol::IncrementalAlterConfigsRequest>();
  if (!decode_or_close(ctx, body, *req, "IncrementalAlterConfigs")) return;
  alter<protocol::IncrementalAlterConfigsRequest, protocol::IncrementalAlterConfigsResponse>(
      b, ctx, req, "IncrementalAlterConfigs", true,
      [&b](auto& overrides, const auto& res) { return apply_incremental(b, overrides, res); });
}

}  // namespace spool::broker
