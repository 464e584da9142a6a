#include "config/topic_config.h"

#include <unordered_map>

namespace spool::config {
namespace {

constexpr ConfigType B = ConfigType::kBoolean, I = ConfigType::kInt, L = ConfigType::kLong,
                     D = ConfigType::kDouble, Str = ConfigType::kString, Lst = ConfigType::kList;
constexpr Acts Y = Acts::kYes, N = Acts::kNo, R = Acts::kRefused;
// Why a kRefused topic key fails with INVALID_CONFIG (config_def.h).
constexpr const char* kTiered = "tiered storage is not supported yet";
#define LONG_MAX_S "9223372036854775807"

constexpr TopicKeyDef kTopicKeys[] = {
    {{"cleanup.policy", Lst, "delete", list_of("compact|delete"), Y}, "log.cleanup.policy"},
    {{"compression.type", Str, "producer", one_of("uncompressed|zstd|lz4|snappy|gzip|producer"), N}, "compression.type"},
    {{"compression.gzip.level", I, "-1", between(-1, 9), N}, "compression.gzip.level"},
    {{"compression.lz4.level", I, "9", between(1, 17), N}, "compression.lz4.level"},
    {{"compression.zstd.level", I, "3", between(-131072, 22), N}, "compression.zstd.level"},
    {{"delete.retention.ms", L, "86400000", at_least(0), N}, "log.cleaner.delete.retention.ms"},
    {{"file.delete.delay.ms", L, "60000", at_least(0), N}, "log.segment.delete.delay.ms"},
    {{"flush.messages", L, LONG_MAX_S, at_least(1), Y}, "log.flush.interval.messages"},
    {{"flush.ms", L, LONG_MAX_S, at_least(0), Y}, "log.flush.interval.ms"},
    {{"follower.replication.throttled.replicas", Lst, "", throttled_replicas(), Y}, nullptr},
    {{"index.interval.bytes", I, "4096", at_least(0), Y}, "log.index.interval.bytes"},
    {{"leader.replication.throttled.replicas", Lst, "", throttled_replicas(), Y}, nullptr},
    {{"local.retention.bytes", L, "-2", at_least(-2), N}, "log.local.retention.bytes"},
    {{"local.retention.ms", L, "-2", at_least(-2), N}, "log.local.retention.ms"},
    {{"max.compaction.lag.ms", L, LONG_MAX_S, at_least(1), N}, "log.cleaner.max.compaction.lag.ms"},
    {{"max.message.bytes", I, "1048588", at_least(0), Y}, "message.max.bytes"},
    {{"message.downconversion.enable", B, "true", no_check(), N}, "log.message.downconversion.enable"},
    {{"message.format.version", Str, "3.0-IV1", no_check(), N}, "log.message.format.version"},
    {{"message.timestamp.difference.max.ms", L, LONG_MAX_S, at_least(0), N}, "log.message.timestamp.difference.max.ms"},
    {{"message.timestamp.before.max.ms", L, LONG_MAX_S, at_least(0), N}, "log.message.timestamp.before.max.ms"},
    {{"message.timestamp.after.max.ms", L, LONG_MAX_S, at_least(0), N}, "log.message.timestamp.after.max.ms"},
    {{"message.timestamp.type", Str, "CreateTime", one_of("CreateTime|LogAppendTime"), Y}, "log.message.timestamp.type"},
    {{"min.cleanable.dirty.ratio", D, "0.5", dbetween(0, 1), N}, "log.cleaner.min.cleanable.ratio"},
    {{"min.compaction.lag.ms", L, "0", at_least(0), N}, "log.cleaner.min.compaction.lag.ms"},
    {{"min.insync.replicas", I, "1", at_least(1), Y}, "min.insync.replicas"},
    {{"preallocate", B, "false", no_check(), N}, "log.preallocate"},
    {{"remote.storage.enable", B, "false", no_check(), R, kTiered}, nullptr},
    {{"retention.bytes", L, "-1", no_check(), Y}, "log.retention.bytes"},
    {{"retention.ms", L, "604800000", at_least(-1), Y}, "log.retention.ms"},
    {{"segment.bytes", I, "1073741824", at_least(14), Y}, "log.segment.bytes"},
    {{"segment.index.bytes", I, "10485760", at_least(4), Y}, "log.index.size.max.bytes"},
    {{"segment.jitter.ms", L, "0", at_least(0), N}, "log.roll.jitter.ms"},
    {{"segment.ms", L, "604800000", at_least(1), Y}, "log.roll.ms"},
    {{"unclean.leader.election.enable", B, "false", no_check(), N}, "unclean.leader.election.enable"},
    {{"durable.writes", B, "true", no_check(), Y}, "durable.writes"},
};

#undef LONG_MAX_S

Status invalid(std::string msg) { return Status::error(std::move(msg), kInvalidConfigCode); }

}  // namespace

std::span<const TopicKeyDef> topic_key_defs() { return kTopicKeys; }

const TopicKeyDef* find_topic_key(std::string_view name) {
  static const std::unordered_map<std::string_view, const TopicKeyDef*> index = [] {
    std::unordered_map<std::string_view, const TopicKeyDef*> m;
    for (const TopicKeyDef& d : kTopicKeys) m.emplace(d.def.name, &d);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

Status validate_topic_config(std::string_view key, std::string_view value) {
  const TopicKeyDef* def = find_topic_key(key);
  if (def == nullptr) {
    std::vector<std::string_view> names;
    for (const TopicKeyDef& d : kTopicKeys) names.emplace_back(d.def.name);
    std::string hint = closest_name(key, names);
    return invalid("unknown topic config '" + std::string(key) + "'" +
                   (hint.empty() ? std::string() : " (did you mean '" + hint + "'?)"));
  }
  auto parsed = parse_value(def->def, value);
  if (!parsed) return invalid(parsed.status().message());
  // Kafka 3.x accepts an empty cleanup.policy and then neither deletes nor
  // compacts in a well-defined way; Spool refuses it, so a SUBTRACT cannot
  // leave a topic without a policy.
  if (key == "cleanup.policy" && parsed->empty()) {
    return invalid("cleanup.policy must name at least one of compact, delete");
  }
  if (def->def.acts == Acts::kRefused && !is_off_value(def->def, *parsed)) {
    return invalid("topic config '" + std::string(key) + "' is not supported by Spool yet: " + def->def.refusal +
                   " (remove it or leave it at its default)");
  }
  return Status::ok();
}

Status validate_topic_configs(const std::map<std::string, std::string>& overrides) {
  for (const auto& [k, v] : overrides) {
    Status s = validate_topic_config(k, v);
    if (!s) return s;
  }
  auto num = [&](const char* key, int64_t fallback) {
    auto it = overrides.find(key);
    return it == overrides.end() ? fallback : to_int64(it->second);
  };
  int64_t min_lag = num("min.compaction.lag.ms", 0);
  int64_t max_lag = num("max.compaction.lag.ms", INT64_MAX);
  if (min_lag > max_lag) {
    return invalid("conflict: min.compaction.lag.ms (" + std::to_string(min_lag) +
                   ") must not exceed max.compaction.lag.ms (" + std::to_string(max_lag) + ")");
  }
  // Kafka: local retention (>= 0) cannot exceed a bounded total retention.
  int64_t ret_ms = num("retention.ms", -1), local_ms = num("local.retention.ms", -2);
  if (ret_ms >= 0 && local_ms >= 0 && local_ms > ret_ms) {
    return invalid("conflict: local.retention.ms (" + std::to_string(local_ms) + ") must not exceed retention.ms (" +
                   std::to_string(ret_ms) + ")");
  }
  int64_t ret_b = num("retention.bytes", -1), local_b = num("local.retention.bytes", -2);
  if (ret_b >= 0 && local_b >= 0 && local_b > ret_b) {
    return invalid("conflict: local.retention.bytes (" + std::to_string(local_b) +
                   ") must not exceed retention.bytes (" + std::to_string(ret_b) + ")");
  }
  return Status::ok();
}

std::string topic_default_from_broker(const BrokerConfig& broker, const TopicKeyDef& def) {
  if (def.broker_synonym == nullptr) return def.def.default_value ? def.def.default_value : "";
  std::string_view syn = def.broker_synonym;
  // Keys whose broker value is resolved from several keys.
  if (syn == "log.retention.ms") return std::to_string(broker.log_retention_ms());
  if (syn == "log.roll.ms") return std::to_string(broker.log_roll_ms());
  if (syn == "log.roll.jitter.ms") return std::to_string(broker.log_roll_jitter_ms());
  if (syn == "log.flush.interval.ms") return std::to_string(broker.log_flush_interval_ms());
  auto v = broker.get_optional(syn);
  if (v) return *v;
  return def.def.default_value ? def.def.default_value : "";
}

std::map<std::string, std::string> effective_topic_config(const BrokerConfig& broker,
                                                          const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> out;
  for (const TopicKeyDef& d : kTopicKeys) {
    auto it = overrides.find(d.def.name);
    if (it != overrides.end()) {
      auto parsed = parse_value(d.def, it->second);
      out[d.def.name] = parsed ? *parsed : it->second;
    } else {
      out[d.def.name] = topic_default_from_broker(broker, d);
    }
  }
  return out;
}

}  // namespace spool::config
