// The table of Kafka 3.x's dynamic broker keys (DynamicBrokerConfig:
// DynamicLogConfig's topic-default synonyms, LogCleaner, DynamicThreadPool,
// DynamicListenerConfig, SocketServer, DynamicProducerStateManagerConfig,
// DynamicRemoteLogConfig, the replication quotas of DynamicConfig.Broker)
// and the validation of a dynamic update.
#include "config/dynamic_keys.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "config/config_def.h"

namespace spool::config {
namespace {

constexpr DynamicScope kAll = DynamicScope::kClusterWide, kOne = DynamicScope::kPerBroker;
constexpr LiveUpdate kLive = LiveUpdate::kLive, kStart = LiveUpdate::kAtStart;

constexpr DynamicKey kDynamicKeys[] = {
    // ---- Topic defaults (DynamicLogConfig: the broker synonyms of topic keys).
    // Applied live: every topic without an override gets the new value.
    {"log.segment.bytes", kAll, kLive},
    {"log.roll.ms", kAll, kLive},
    {"log.index.size.max.bytes", kAll, kLive},
    {"log.index.interval.bytes", kAll, kLive},
    {"log.flush.interval.messages", kAll, kLive},
    {"log.flush.interval.ms", kAll, kLive},
    {"log.retention.bytes", kAll, kLive},
    {"log.retention.ms", kAll, kLive},
    {"message.max.bytes", kAll, kLive},
    {"log.cleanup.policy", kAll, kLive},
    {"log.cleaner.delete.retention.ms", kAll, kLive},
    {"log.cleaner.min.compaction.lag.ms", kAll, kLive},
    {"log.cleaner.max.compaction.lag.ms", kAll, kLive},
    {"log.cleaner.min.cleanable.ratio", kAll, kLive},
    {"min.insync.replicas", kAll, kLive},
    {"unclean.leader.election.enable", kAll, kLive},
    {"log.message.timestamp.type", kAll, kLive},
    // Topic defaults Spool does not act on (Acts::kNo).
    {"log.roll.jitter.ms", kAll, kLive},
    {"log.segment.delete.delay.ms", kAll, kLive},
    {"log.preallocate", kAll, kLive},
    {"log.message.format.version", kAll, kLive},
    {"log.message.timestamp.difference.max.ms", kAll, kLive},
    {"log.message.timestamp.before.max.ms", kAll, kLive},
    {"log.message.timestamp.after.max.ms", kAll, kLive},
    {"log.message.downconversion.enable", kAll, kLive},
    {"log.local.retention.ms", kAll, kLive},
    {"log.local.retention.bytes", kAll, kLive},
    {"compression.type", kAll, kLive},
    {"compression.gzip.level", kAll, kLive},
    {"compression.lz4.level", kAll, kLive},
    {"compression.zstd.level", kAll, kLive},

    // ---- Log cleaner (LogCleaner.ReconfigurableConfigs, message.max.bytes above).
    {"log.cleaner.backoff.ms", kAll, kLive},
    {"log.cleaner.dedupe.buffer.size", kAll, kStart},
    {"log.cleaner.threads", kAll, kLive},
    {"log.cleaner.io.buffer.load.factor", kAll, kLive},
    {"log.cleaner.io.buffer.size", kAll, kLive},
    {"log.cleaner.io.max.bytes.per.second", kAll, kLive},

    // ---- Thread pools (DynamicThreadPool).
    {"num.replica.fetchers", kAll, kStart},
    {"num.recovery.threads.per.data.dir", kAll, kStart},
    {"num.io.threads", kAll, kLive},
    {"num.network.threads", kAll, kLive},
    {"background.threads", kAll, kLive},
    {"metric.reporters", kAll, kLive},

    // ---- Connections (SocketServer; max.connections is cluster-level in
    // DynamicListenerConfig too).
    {"max.connections", kAll, kLive},
    {"max.connection.creation.rate", kAll, kLive},
    {"max.connections.per.ip", kAll, kLive},
    {"max.connections.per.ip.overrides", kAll, kLive},

    // ---- Producer state (DynamicProducerStateManagerConfig).
    {"producer.id.expiration.ms", kAll, kLive},
    {"transaction.partition.verification.enable", kAll, kLive},

    // ---- Replication quotas (DynamicConfig.Broker): the KIP-73 quota rates.
    {"leader.replication.throttled.rate", kAll, kLive},
    {"follower.replication.throttled.rate", kAll, kLive},
    {"replica.alter.log.dirs.io.max.bytes.per.second", kAll, kLive},

    // ---- Tiered storage (DynamicRemoteLogConfig).
    {"remote.log.index.file.cache.total.size.bytes", kAll, kLive},
    {"remote.log.manager.copy.max.bytes.per.second", kAll, kLive},
    {"remote.log.manager.fetch.max.bytes.per.second", kAll, kLive},

    // ---- Listeners, TLS and SASL (DynamicListenerConfig, DynamicSecurityConfigs): per broker.
    {"listeners", kOne, kStart},
    {"advertised.listeners", kOne, kStart},
    {"listener.security.protocol.map", kOne, kStart},
    {"principal.builder.class", kOne, kStart},
    {"ssl.protocol", kOne, kStart},
    {"ssl.provider", kOne, kStart},
    {"ssl.cipher.suites", kOne, kStart},
    {"ssl.enabled.protocols", kOne, kStart},
    {"ssl.keystore.type", kOne, kStart},
    {"ssl.keystore.location", kOne, kStart},
    {"ssl.keystore.password", kOne, kStart},
    {"ssl.key.password", kOne, kStart},
    {"ssl.keystore.certificate.chain", kOne, kStart},
    {"ssl.keystore.key", kOne, kStart},
    {"ssl.truststore.type", kOne, kStart},
    {"ssl.truststore.location", kOne, kStart},
    {"ssl.truststore.password", kOne, kStart},
    {"ssl.truststore.certificates", kOne, kStart},
    {"ssl.keymanager.algorithm", kOne, kStart},
    {"ssl.trustmanager.algorithm", kOne, kStart},
    {"ssl.endpoint.identification.algorithm", kOne, kStart},
    {"ssl.secure.random.implementation", kOne, kStart},
    {"ssl.client.auth", kOne, kStart},
    {"ssl.engine.factory.class", kOne, kStart},
    {"sasl.mechanism.inter.broker.protocol", kOne, kStart},
    {"sasl.jaas.config", kOne, kStart},
    {"sasl.enabled.mechanisms", kOne, kStart},
    {"sasl.kerberos.service.name", kOne, kStart},
    {"sasl.kerberos.kinit.cmd", kOne, kStart},
    {"sasl.kerberos.ticket.renew.window.factor", kOne, kStart},
    {"sasl.kerberos.ticket.renew.jitter", kOne, kStart},
    {"sasl.kerberos.min.time.before.relogin", kOne, kStart},
    {"sasl.kerberos.principal.to.local.rules", kOne, kStart},
    {"sasl.login.refresh.window.factor", kOne, kStart},
    {"sasl.login.refresh.window.jitter", kOne, kStart},
    {"sasl.login.refresh.min.period.seconds", kOne, kStart},
    {"sasl.login.refresh.buffer.seconds", kOne, kStart},
};

// Kafka's DynamicSecurityConfigs (SslConfigs.RECONFIGURABLE_CONFIGS): dynamic
// only with a listener prefix.
constexpr std::string_view kListenerOnly[] = {
    "ssl.keystore.type",     "ssl.keystore.location",   "ssl.keystore.password",
    "ssl.key.password",      "ssl.truststore.type",     "ssl.truststore.location",
    "ssl.truststore.password", "ssl.keystore.certificate.chain", "ssl.keystore.key",
    "ssl.truststore.certificates",
};

Status refused(std::string message) { return Status::error(std::move(message), kInvalidRequestCode); }
Status bad_config(std::string message) { return Status::error(std::move(message), 40); }

// Why Spool refuses a dynamic update of a key Kafka allows; "" = accepted.
std::string spool_refusal(std::string_view key) {
  if (key.starts_with("listener.name."))
    return "per-listener overrides are not supported yet (only one PLAINTEXT listener is served)";
  const KeyDef* def = find_broker_key(key);
  const DynamicKey* dyn = find_dynamic_broker_key(key);
  if (def == nullptr || dyn == nullptr) return "not a dynamic broker config in Spool";
  if (def->acts == Acts::kRefused) return std::string(def->refusal) + " (Spool fails closed)";
  if (def->acts == Acts::kNo) return "Spool does not act on this config";
  if (dyn->update == LiveUpdate::kAtStart)
    return "Spool applies it only at start, not live yet (set it in server.properties and restart)";
  return "";
}

}  // namespace

std::span<const DynamicKey> dynamic_broker_keys() { return kDynamicKeys; }

const DynamicKey* find_dynamic_broker_key(std::string_view name) {
  static const std::unordered_map<std::string_view, const DynamicKey*> index = [] {
    std::unordered_map<std::string_view, const DynamicKey*> m;
    for (const DynamicKey& k : kDynamicKeys) m.emplace(k.name, &k);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

bool accepts_dynamic_update(std::string_view name) {
  return find_dynamic_broker_key(name) != nullptr && spool_refusal(name).empty();
}

std::vector<std::string> broker_key_synonyms(std::string_view name) {
  if (name == "log.roll.ms" || name == "log.roll.hours") return {"log.roll.ms", "log.roll.hours"};
  if (name == "log.roll.jitter.ms" || name == "log.roll.jitter.hours")
    return {"log.roll.jitter.ms", "log.roll.jitter.hours"};
  if (name == "log.flush.interval.ms") return {"log.flush.interval.ms", "log.flush.scheduler.interval.ms"};
  if (name == "log.retention.ms" || name == "log.retention.minutes" || name == "log.retention.hours")
    return {"log.retention.ms", "log.retention.minutes", "log.retention.hours"};
  return {std::string(name)};
}

std::string kafka_key_set(const std::vector<std::string>& keys) {
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  std::string out = "Set(";
  for (size_t i = 0; i < sorted.size(); ++i) out += (i ? ", " : "") + sorted[i];
  return out + ")";
}

Result<std::map<std::string, std::string>> validate_dynamic_broker_configs(
    const std::map<std::string, std::string>& configs, bool per_broker) {
  std::vector<std::string> unknown, read_only, listener_only, default_level;
  for (const auto& [key, value] : configs) {
    if (find_broker_key(key) == nullptr && !is_accepted_prefixed_key(key)) unknown.push_back(key);
  }
  if (!unknown.empty()) {
    std::vector<std::string_view> names;
    for (const KeyDef& d : broker_key_defs()) names.emplace_back(d.name);
    std::string msg = "Unknown broker configs: " + kafka_key_set(unknown);
    if (std::string hint = closest_name(unknown.front(), names); !hint.empty())
      msg += " (did you mean '" + hint + "'?)";
    return bad_config(msg);
  }
  for (const auto& [key, value] : configs) {
    if (find_broker_key(key) != nullptr && find_dynamic_broker_key(key) == nullptr) read_only.push_back(key);
    if (std::find(std::begin(kListenerOnly), std::end(kListenerOnly), key) != std::end(kListenerOnly))
      listener_only.push_back(key);
  }
  if (!read_only.empty()) return refused("Cannot update these configs dynamically: " + kafka_key_set(read_only));
  if (!listener_only.empty())
    return refused("These security configs can be dynamically updated only per-listener using the listener prefix: " +
                   kafka_key_set(listener_only));
  std::map<std::string, std::string> normalized;
  for (const auto& [key, value] : configs) {
    const KeyDef* def = find_broker_key(key);
    if (def == nullptr) {
      normalized[key] = std::string(trim(value));
      continue;
    }
    auto parsed = parse_value(*def, value);
    if (!parsed) return bad_config(parsed.status().message());
    normalized[key] = std::move(*parsed);
  }
  if (!per_broker) {
    for (const auto& [key, value] : configs) {
      const DynamicKey* dyn = find_dynamic_broker_key(key);
      if ((dyn != nullptr && dyn->scope == DynamicScope::kPerBroker) || key.starts_with("listener.name."))
        default_level.push_back(key);
    }
    if (!default_level.empty())
      return refused("Cannot update these configs at default cluster level, broker id must be specified: " +
                     kafka_key_set(default_level));
  }
  std::string why;
  for (const auto& [key, value] : configs) {
    std::string reason = spool_refusal(key);
    if (!reason.empty()) why += (why.empty() ? "" : "; ") + key + " (" + reason + ")";
  }
  if (!why.empty()) return refused("Spool cannot update these configs dynamically: " + why);
  return normalized;
}

}  // namespace spool::config
