#include "broker/broker_settings.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <thread>

#include "config/broker_config.h"
#include "config/kafka_version.h"
#include "config/topic_config.h"

namespace spool::broker {
namespace {

int64_t num(const std::map<std::string, std::string>& m, const char* key, int64_t fallback) {
  auto it = m.find(key);
  if (it == m.end()) return fallback;
  int64_t v = 0;
  const auto& s = it->second;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return (ec == std::errc() && p == s.data() + s.size()) ? v : fallback;
}

double dbl(const std::map<std::string, std::string>& m, const char* key, double fallback) {
  auto it = m.find(key);
  if (it == m.end() || it->second.empty()) return fallback;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  return (end && *end == '\0') ? v : fallback;
}

std::string str(const std::map<std::string, std::string>& m, const char* key, const std::string& fallback) {
  auto it = m.find(key);
  return it == m.end() ? fallback : it->second;
}

}  // namespace

const cluster::EndPoint* BrokerSettings::advertised_on(std::string_view listener) const {
  for (const cluster::EndPoint& ep : advertised) {
    if (ep.listener == listener) return &ep;
  }
  return nullptr;
}

BrokerSettings settings_from_config(const config::BrokerConfig& cfg) {
  BrokerSettings s;
  s.broker_id = cfg.broker_id();
  if (!cfg.listeners().empty()) s.listeners.clear();
  for (const config::Listener& l : cfg.listeners()) {
    s.listeners.push_back({l.name, l.host.empty() ? "0.0.0.0" : l.host, l.port, l.security_protocol});
  }
  // advertised_listeners() defaults to listeners and has its hosts resolved
  // (BrokerConfig::resolve); a wildcard bind address is not routable.
  if (!cfg.advertised_listeners().empty()) s.advertised.clear();
  for (const config::Listener& l : cfg.advertised_listeners()) {
    std::string host = l.host.empty() || l.host == "0.0.0.0" ? "127.0.0.1" : l.host;
    s.advertised.push_back({l.name, std::move(host), l.port, l.security_protocol});
  }
  s.log_dirs = cfg.log_dirs();
  s.zookeeper_connect = cfg.get("zookeeper.connect");
  s.zookeeper_session_timeout_ms = static_cast<int32_t>(cfg.get_long("zookeeper.session.timeout.ms"));
  s.zookeeper_connection_timeout_ms = cfg.get_optional("zookeeper.connection.timeout.ms")
                                          ? static_cast<int32_t>(cfg.get_long("zookeeper.connection.timeout.ms"))
                                          : s.zookeeper_session_timeout_ms;
  s.broker_rack = cfg.get("broker.rack");
  s.inter_broker_listener_name = cfg.inter_broker_listener_name();
  s.control_plane_listener_name = cfg.control_plane_listener_name();
  s.num_replica_fetchers = static_cast<int32_t>(cfg.get_long("num.replica.fetchers"));
  s.replica_fetch_max_bytes = static_cast<int32_t>(cfg.get_long("replica.fetch.max.bytes"));
  s.replica_fetch_min_bytes = static_cast<int32_t>(cfg.get_long("replica.fetch.min.bytes"));
  s.replica_fetch_wait_max_ms = static_cast<int32_t>(cfg.get_long("replica.fetch.wait.max.ms"));
  s.replica_fetch_backoff_ms = static_cast<int32_t>(cfg.get_long("replica.fetch.backoff.ms"));
  s.replication_quota_window_num = static_cast<int32_t>(cfg.get_long("replication.quota.window.num"));
  s.replication_quota_window_ms = cfg.get_long("replication.quota.window.size.seconds") * 1000;
  if (auto ibp = config::parse_kafka_version(cfg.get("inter.broker.protocol.version")))
    s.truncate_on_fetch = config::truncation_on_fetch_supported(*ibp);
  s.replica_lag_time_max_ms = cfg.get_long("replica.lag.time.max.ms");
  s.replica_socket_timeout_ms = static_cast<int32_t>(cfg.get_long("replica.socket.timeout.ms"));
  s.unclean_leader_election_enable = cfg.get_bool("unclean.leader.election.enable");
  s.min_insync_replicas = static_cast<int32_t>(cfg.get_long("min.insync.replicas"));
  s.transaction_state_log_replication_factor =
      static_cast<int16_t>(cfg.get_long("transaction.state.log.replication.factor"));
  s.controller_socket_timeout_ms = static_cast<int32_t>(cfg.get_long("controller.socket.timeout.ms"));
  s.controlled_shutdown_max_retries = static_cast<int32_t>(cfg.get_long("controlled.shutdown.max.retries"));
  s.controlled_shutdown_retry_backoff_ms = cfg.get_long("controlled.shutdown.retry.backoff.ms");
  s.controlled_shutdown_enable = cfg.get_bool("controlled.shutdown.enable");
  s.num_partitions = cfg.num_partitions();
  s.default_replication_factor = cfg.default_replication_factor();
  s.auto_create_topics = cfg.auto_create_topics_enable();
  s.delete_topic_enable = cfg.delete_topic_enable();
  s.auto_leader_rebalance_enable = cfg.get_bool("auto.leader.rebalance.enable");
  s.leader_imbalance_per_broker_percentage =
      static_cast<int32_t>(cfg.get_long("leader.imbalance.per.broker.percentage"));
  s.leader_imbalance_check_interval_ms = cfg.get_long("leader.imbalance.check.interval.seconds") * 1000;
  s.message_max_bytes = cfg.message_max_bytes();
  s.socket_request_max_bytes = cfg.socket_request_max_bytes();
  s.connections_max_idle_ms = cfg.connections_max_idle_ms();
  s.reactor_threads = cfg.reactor_threads();
  if (s.reactor_threads <= 0) s.reactor_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  s.retention_check_interval_ms = cfg.log_retention_check_interval_ms();
  s.flush_checkpoint_interval_ms = cfg.log_flush_offset_checkpoint_interval_ms();
  s.recovery_threads = cfg.num_recovery_threads_per_data_dir();
  s.cleaner_enable = cfg.get_bool("log.cleaner.enable");
  s.cleaner_backoff_ms = cfg.get_long("log.cleaner.backoff.ms");
  s.cleaner_dedupe_buffer_bytes = cfg.get_long("log.cleaner.dedupe.buffer.size");
  s.max_incremental_fetch_session_cache_slots = cfg.max_incremental_fetch_session_cache_slots();
  s.group_min_session_timeout_ms = static_cast<int32_t>(cfg.get_long("group.min.session.timeout.ms"));
  s.group_max_session_timeout_ms = static_cast<int32_t>(cfg.get_long("group.max.session.timeout.ms"));
  s.group_initial_rebalance_delay_ms = static_cast<int32_t>(cfg.get_long("group.initial.rebalance.delay.ms"));
  s.group_max_size = static_cast<int32_t>(cfg.get_long("group.max.size"));
  s.offset_metadata_max_bytes = static_cast<int32_t>(cfg.get_long("offset.metadata.max.bytes"));
  s.offsets_retention_ms = cfg.get_long("offsets.retention.minutes") * 60 * 1000;
  s.offsets_retention_check_interval_ms = cfg.get_long("offsets.retention.check.interval.ms");
  s.offsets_topic_num_partitions = static_cast<int32_t>(cfg.get_long("offsets.topic.num.partitions"));
  s.offsets_topic_segment_bytes = static_cast<int32_t>(cfg.get_long("offsets.topic.segment.bytes"));
  s.offsets_topic_replication_factor = static_cast<int16_t>(cfg.get_long("offsets.topic.replication.factor"));
  s.producer_id_expiration_ms = cfg.get_long("producer.id.expiration.ms");
  s.transaction_max_timeout_ms = static_cast<int32_t>(cfg.get_long("transaction.max.timeout.ms"));
  s.transactional_id_expiration_ms = cfg.get_long("transactional.id.expiration.ms");
  s.transaction_state_log_num_partitions = static_cast<int32_t>(cfg.get_long("transaction.state.log.num.partitions"));
  s.transaction_state_log_segment_bytes = static_cast<int32_t>(cfg.get_long("transaction.state.log.segment.bytes"));
  s.transaction_state_log_min_isr = static_cast<int32_t>(cfg.get_long("transaction.state.log.min.isr"));
  s.transaction_abort_timed_out_interval_ms =
      cfg.get_long("transaction.abort.timed.out.transaction.cleanup.interval.ms");
  s.transaction_remove_expired_interval_ms = cfg.get_long("transaction.remove.expired.transaction.cleanup.interval.ms");
  s.topic_defaults->replace(config::effective_topic_config(cfg, {}));
  return s;
}

std::map<std::string, std::string> effective_topic_config(const BrokerSettings& s,
                                                          const std::map<std::string, std::string>& overrides) {
  auto m = *s.topic_defaults->snapshot();
  for (const auto& [k, v] : overrides) m[k] = v;
  return m;
}

storage::LogConfig log_config_for(const BrokerSettings& s, const std::map<std::string, std::string>& overrides) {
  auto m = effective_topic_config(s, overrides);
  storage::LogConfig c;
  c.segment_bytes = num(m, "segment.bytes", c.segment_bytes);
  c.segment_ms = num(m, "segment.ms", c.segment_ms);
  c.retention_ms = num(m, "retention.ms", c.retention_ms);
  c.retention_bytes = num(m, "retention.bytes", c.retention_bytes);
  c.index_interval_bytes = static_cast<int32_t>(num(m, "index.interval.bytes", c.index_interval_bytes));
  c.segment_index_bytes = static_cast<int32_t>(num(m, "segment.index.bytes", c.segment_index_bytes));
  c.flush_messages = num(m, "flush.messages", c.flush_messages);
  c.flush_ms = num(m, "flush.ms", c.flush_ms);
  c.durable_writes = str(m, "durable.writes", "true") == "true";
  c.timestamp_log_append_time = str(m, "message.timestamp.type", "CreateTime") == "LogAppendTime";
  (void)storage::parse_cleanup_policy(str(m, "cleanup.policy", "delete"), c);  // validated by config/
  c.delete_retention_ms = num(m, "delete.retention.ms", c.delete_retention_ms);
  c.min_cleanable_dirty_ratio = dbl(m, "min.cleanable.dirty.ratio", c.min_cleanable_dirty_ratio);
  c.min_compaction_lag_ms = num(m, "min.compaction.lag.ms", c.min_compaction_lag_ms);
  c.max_compaction_lag_ms = num(m, "max.compaction.lag.ms", c.max_compaction_lag_ms);
  return c;
}

}  // namespace spool::broker
