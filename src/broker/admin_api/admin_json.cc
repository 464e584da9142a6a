// AdminApi's JSON views: /v1/cluster, /v1/topics, /v1/config (admin_api.h).
#include <algorithm>

#include "broker/admin_api/admin_api.h"
#include "broker/partition.h"
#include "broker/topic_name.h"
#include "cluster/metadata_cache.h"
#include "config/describe.h"

namespace spool::broker {
namespace {

using nlohmann::json;

json endpoints_json(const std::vector<cluster::EndPoint>& eps) {
  json out = json::array();
  for (const auto& e : eps)
    out.push_back({{"listener", e.listener}, {"host", e.host}, {"port", e.port},
                   {"security_protocol", e.security_protocol}});
  return out;
}

// What this broker knows of its own replica of `tp`; null when not hosted.
json local_replica_json(const ReplicaManager& rm, const TopicPartition& tp) {
  auto p = rm.partition(tp);
  if (!p) return nullptr;
  json out = {{"size_bytes", p->log().size_bytes()},
              {"log_start_offset", p->log_start_offset()},
              {"log_end_offset", p->log_end_offset()},
              {"offline", p->offline()}};
  if (p->is_leader()) out["high_watermark"] = p->high_watermark();
  return out;
}

const char* source_name(config::ConfigSource s) {
  switch (s) {
    case config::ConfigSource::kDynamicTopic: return "DYNAMIC_TOPIC_CONFIG";
    case config::ConfigSource::kDynamicBroker: return "DYNAMIC_BROKER_CONFIG";
    case config::ConfigSource::kDynamicDefaultBroker: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case config::ConfigSource::kStaticBroker: return "STATIC_BROKER_CONFIG";
    case config::ConfigSource::kDefault: return "DEFAULT_CONFIG";
    case config::ConfigSource::kDynamicBrokerLogger: return "DYNAMIC_BROKER_LOGGER_CONFIG";
    default: return "UNKNOWN";
  }
}

}  // namespace

json AdminApi::cluster_json() const {
  json brokers = json::array();
  int32_t controller = ctx_.settings.broker_id;
  if (ctx_.metadata != nullptr) {
    controller = ctx_.metadata->controller_id();
    for (const auto& b : ctx_.metadata->live_brokers())
      brokers.push_back({{"id", b.id}, {"rack", b.rack ? json(*b.rack) : json(nullptr)},
                         {"endpoints", endpoints_json(b.endpoints)}});
  } else {
    brokers.push_back({{"id", ctx_.settings.broker_id}, {"rack", nullptr},
                       {"endpoints", endpoints_json(ctx_.settings.advertised)}});
  }
  return {{"cluster_id", ctx_.logs.cluster_id()},
          {"broker_id", ctx_.settings.broker_id},
          {"controller_id", controller},
          {"mode", ctx_.metadata != nullptr ? "zookeeper" : "single-node"},
          {"brokers", brokers}};
}

json AdminApi::topics_json() const {
  json topics = json::array();
  if (ctx_.metadata != nullptr) {
    for (const auto& name : ctx_.metadata->topics()) {
      json parts = json::array();
      for (const auto& pm : ctx_.metadata->topic_partitions(name)) {
        parts.push_back({{"partition", pm.tp.partition},
                         {"leader", pm.leader},
                         {"leader_epoch", pm.leader_epoch},
                         {"replicas", pm.replicas},
                         {"isr", pm.isr},
                         {"offline_replicas", pm.offline_replicas},
                         {"local", local_replica_json(ctx_.replicas, pm.tp)}});
      }
      topics.push_back({{"name", name}, {"internal", is_internal_topic(name)}, {"partitions", parts}});
    }
  } else {
    const int32_t self = ctx_.settings.broker_id;
    for (const auto& info : ctx_.registry.list()) {
      json parts = json::array();
      for (int32_t p = 0; p < info.partitions; ++p) {
        const TopicPartition tp{info.name, p};
        auto part = ctx_.replicas.partition(tp);
        parts.push_back({{"partition", p},
                         {"leader", part ? self : -1},
                         {"leader_epoch", part ? part->leader_epoch() : 0},
                         {"replicas", {self}},
                         {"isr", {self}},
                         {"offline_replicas", json::array()},
                         {"local", local_replica_json(ctx_.replicas, tp)}});
      }
      topics.push_back({{"name", info.name}, {"internal", is_internal_topic(info.name)}, {"partitions", parts}});
    }
  }
  std::sort(topics.begin(), topics.end(),
            [](const json& a, const json& b) { return a["name"].get<std::string>() < b["name"].get<std::string>(); });
  return {{"topics", topics}};
}

json AdminApi::config_json() const {
  json configs = json::array();
  if (auto layers = ctx_.config_layers()) {
    for (const auto& e : config::describe_broker_config(*layers)) {
      configs.push_back({{"name", e.name},
                         {"value", e.value && !e.is_sensitive ? json(*e.value) : json(nullptr)},
                         {"source", source_name(e.source)},
                         {"sensitive", e.is_sensitive},
                         {"read_only", e.read_only}});
    }
  }
  return {{"broker_id", ctx_.settings.broker_id}, {"configs", configs}};
}

}  // namespace spool::broker
