// DescribeConfigs (v1-4). Topic resources (type 2): every topic key with its
// effective value and source (topic override, dynamic broker config,
// static broker setting, default). Broker resources (type 4): named by this
// broker's id, every broker key with its source among the layers (dynamic
// per-broker, dynamic default, static, default) and read_only unless Spool
// accepts a dynamic update of it; the empty name is the cluster-wide dynamic
// default (/config/brokers/<default>): only the keys set there. Another
// broker's id is INVALID_REQUEST (Kafka's: that broker answers for itself).
// Broker loggers (type 8, KIP-412): this broker's loggers and levels
// (broker_logger.h). Synonyms only when include_synonyms. A null or empty
// key list means all keys; unknown keys are left out, as Kafka does. Errors
// are per resource: UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION,
// INVALID_REQUEST.
//
// Per version, as Kafka 4.4: v1 is the baseline (ConfigSource, synonyms); v2
// is v1. v3 answers each entry's ConfigType (Kafka's type id, 0 = UNKNOWN for
// a key without a definition) whatever IncludeDocumentation says, and
// Documentation only when IncludeDocumentation is set: Spool's key tables
// carry no documentation text, so it is null either way (Kafka answers a
// key's doc string; README "differences from Kafka"). v4 is v3, flexible.
#include <charconv>
#include <memory>
#include <set>

#include "broker/broker_logger.h"
#include "broker/cluster_admin.h"
#include "broker/cluster_member.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_name.h"
#include "config/describe.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

constexpr int8_t kTopicResource = 2;   // Kafka's ConfigResource.Type.TOPIC
constexpr int8_t kBrokerResource = 4;  // ConfigResource.Type.BROKER
constexpr int8_t kBrokerLoggerResource = 8;  // ConfigResource.Type.BROKER_LOGGER

using ResourceResult = protocol::DescribeConfigsResponse::DescribeConfigsResult;

Status kafka_error(ErrorCode c, std::string m) { return Status::error(std::move(m), static_cast<int16_t>(c)); }

// Kafka's resourceNameToBrokerId.
Result<int32_t> broker_id_of(const std::string& name) {
  int32_t id = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
  if (name.empty() || ec != std::errc() || end != name.data() + name.size())
    return kafka_error(ErrorCode::kInvalidRequest, "Broker id must be an integer, but it is: " + name);
  return id;
}

std::vector<config::ConfigEntry> logger_entries() {
  std::vector<config::ConfigEntry> out;
  for (const auto& [name, level] : describe_loggers()) {
    config::ConfigEntry e;
    e.name = name;
    e.value = level;
    e.source = config::ConfigSource::kDynamicBrokerLogger;
    out.push_back(std::move(e));
  }
  return out;
}

// The entries a resource describes, or the per-resource error.
Result<std::vector<config::ConfigEntry>> entries_for(BrokerContext& b, int8_t type, const std::string& name) {
  auto layers = b.config_layers();
  if (layers == nullptr) return kafka_error(ErrorCode::kUnknownServerError, "broker configuration unavailable");
  if (type == kTopicResource) {
    if (!is_valid_topic_name(name)) return kafka_error(ErrorCode::kInvalidTopicException, "invalid topic name '" + name + "'");
    if (b.cluster != nullptr) {
      // Cluster mode (Kafka's ZooKeeper mode): the topic and its overrides as
      // ZooKeeper holds them (this runs on the admin executor).
      if (auto a = read_topic_assignment(*b.cluster, name); !a) return a.status();
      auto overrides = read_topic_config(*b.cluster, name);
      if (!overrides) return overrides.status();
      return config::describe_topic_config(*layers, *overrides);
    }
    auto info = b.replicas.topic(name);
    if (!info) return kafka_error(ErrorCode::kUnknownTopicOrPartition, "Topic '" + name + "' does not exist.");
    return config::describe_topic_config(*layers, info->configs);
  }
  if (type == kBrokerResource) {
    if (name.empty()) return config::describe_broker_defaults(*layers);
    auto id = broker_id_of(name);
    if (!id) return id.status();
    if (*id != b.settings.broker_id)
      return kafka_error(ErrorCode::kInvalidRequest, "Unexpected broker id, expected " +
                                                         std::to_string(b.settings.broker_id) +
                                                         " or empty string, but received " + name);
    return config::describe_broker_config(*layers);
  }
  if (type == kBrokerLoggerResource) {
    if (name.empty()) return kafka_error(ErrorCode::kInvalidRequest, "Broker id must not be empty");
    auto id = broker_id_of(name);
    if (!id) return id.status();
    if (*id != b.settings.broker_id)
      return kafka_error(ErrorCode::kInvalidRequest, "Unexpected broker id, expected " +
                                                         std::to_string(b.settings.broker_id) + " but received " +
                                                         name);
    return logger_entries();
  }
  return kafka_error(ErrorCode::kInvalidRequest, "Unsupported resource type: " + std::to_string(type));
}

void fill(ResourceResult& r, const std::vector<config::ConfigEntry>& entries,
          const std::optional<std::vector<std::string>>& keys, bool synonyms) {
  std::set<std::string> wanted;
  if (keys) wanted.insert(keys->begin(), keys->end());
  for (const auto& e : entries) {
    if (!wanted.empty() && !wanted.count(e.name)) continue;
    auto& c = r.configs.emplace_back();
    c.name = e.name;
    c.value = e.is_sensitive ? std::nullopt : e.value;
    c.read_only = e.read_only;
    c.config_source = static_cast<int8_t>(e.source);
    c.is_sensitive = e.is_sensitive;
    c.config_type = config::kafka_type_id(e.type);
    c.documentation = std::nullopt;  // no key has documentation text in Spool
    if (!synonyms) continue;
    for (const auto& s : e.synonyms) {
      auto& cs = c.synonyms.emplace_back();
      cs.name = s.name;
      cs.value = e.is_sensitive ? std::nullopt : s.value;
      cs.source = static_cast<int8_t>(s.source);
    }
  }
}

void describe(BrokerContext& b, const RequestContext& ctx, const protocol::DescribeConfigsRequest& req);

}  // namespace

void handle_describe_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  auto shared = std::make_shared<protocol::DescribeConfigsRequest>();
  if (!decode_or_close(ctx, body, *shared, "DescribeConfigs")) return;
  if (b.cluster != nullptr) {
    // ZooKeeper round trips: off the reactor.
    run_admin_job(
        b, "DescribeConfigs", [&b, ctx, shared] { describe(b, ctx, *shared); },
        [ctx, shared](const Status& s) {
          protocol::DescribeConfigsResponse resp;
          for (const auto& res : shared->resources) {
            auto& r = resp.results.emplace_back();
            r.resource_type = res.resource_type;
            r.resource_name = res.resource_name;
            r.error_code = static_cast<ErrorCode>(s.kafka_code());
            r.error_message = s.message();
          }
          ctx.respond(resp);
        });
    return;
  }
  describe(b, ctx, *shared);
}

namespace {

void describe(BrokerContext& b, const RequestContext& ctx, const protocol::DescribeConfigsRequest& req) {
  protocol::DescribeConfigsResponse resp;
  for (const auto& res : req.resources) {
    auto& r = resp.results.emplace_back();
    r.resource_type = res.resource_type;
    r.resource_name = res.resource_name;
    if (auto refused = config_refusal(b, ctx, res.resource_type, res.resource_name,
                                      security::AclOperation::kDescribeConfigs)) {
      r.error_code = *refused;
      r.error_message = authorization_message(*refused);
      continue;
    }
    auto entries = entries_for(b, res.resource_type, res.resource_name);
    if (!entries) {
      r.error_code = static_cast<ErrorCode>(entries.status().kafka_code());
      r.error_message = entries.status().message();
      continue;
    }
    r.error_code = ErrorCode::kNone;
    fill(r, entries.value(), res.configuration_keys, req.include_synonyms);
  }
  ctx.respond(resp);
}

}  // namespace

}  // namespace spool::broker
