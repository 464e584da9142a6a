// BrokerSettings: the plain values the broker module reads from the broker
// configuration, resolved once at start (see settings_from_config). Keeping
// them in one struct keeps the rest of src/broker independent of how config
// files are parsed. Immutable after start, safe to share between threads,
// except the topic defaults: dynamic broker configs replace them while the
// broker runs (broker/dynamic_broker_config.h), so they sit behind a
// thread-safe TopicDefaults that every copy of the settings shares.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "client/client_security.h"
#include "cluster/zk_data.h"
#include "config/listener.h"
#include "storage/log_config.h"

namespace spool::config {
class BrokerConfig;
}

namespace spool::broker {

// The topic-level defaults (Kafka topic key -> value) that topic overrides
// sit on, derived from the effective broker config. Readers take a snapshot
// (never changes under them); a writer replaces the whole map. Thread-safe.
class TopicDefaults {
 public:
  using Map = std::map<std::string, std::string>;
  std::shared_ptr<const Map> snapshot() const {
    std::lock_guard lk(mu_);
    return map_;
  }
  void replace(Map m) {
    auto next = std::make_shared<const Map>(std::move(m));
    std::lock_guard lk(mu_);
    map_ = std::move(next);
  }
  // One key (tests, and hand-wired settings).
  void set(const std::string& key, const std::string& value) {
    std::lock_guard lk(mu_);
    auto next = std::make_shared<Map>(*map_);
    (*next)[key] = value;
    map_ = std::move(next);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Map> map_ = std::make_shared<const Map>();
};

// One entry of `listeners`: where the broker accepts connections.
struct ListenerSettings {
  std::string name = "PLAINTEXT";  // upper-cased listener name
  std::string bind_host = "127.0.0.1";  // "0.0.0.0" = every IPv4 interface
  uint16_t port = 9092;
  std::string security_protocol = "PLAINTEXT";  // PLAINTEXT | SSL | SASL_PLAINTEXT | SASL_SSL
  bool sasl() const { return config::is_sasl_protocol(security_protocol); }
  bool tls() const { return config::is_tls_protocol(security_protocol); }
};

struct BrokerSettings {
  int32_t broker_id = 0;
  // listeners, in the configured order (one net::Server serves them all).
  std::vector<ListenerSettings> listeners{ListenerSettings{}};
  // advertised.listeners (default: listeners), hosts resolved: what this
  // broker registers and tells clients, per listener name. A listener
  // missing here is served but not advertised (Kafka's rule): clients on it
  // see no broker endpoints.
  std::vector<cluster::EndPoint> advertised{cluster::EndPoint{"PLAINTEXT", "127.0.0.1", 9092, "PLAINTEXT"}};
  // This broker's advertised endpoint on `listener`; nullptr when none.
  const cluster::EndPoint* advertised_on(std::string_view listener) const;
  std::vector<std::string> log_dirs;
  int32_t num_partitions = 1;
  int16_t default_replication_factor = 1;
  bool auto_create_topics = true;
  bool delete_topic_enable = true;
  bool auto_leader_rebalance_enable = true;               // auto.leader.rebalance.enable
  int32_t leader_imbalance_per_broker_percentage = 10;    // leader.imbalance.per.broker.percentage
  int64_t leader_imbalance_check_interval_ms = 300000;    // leader.imbalance.check.interval.seconds
  // message.max.bytes at start: only the fallback for a partition without a
  // max.message.bytes (hand-wired tests); partitions take theirs from the
  // topic defaults, which dynamic configs change.
  int32_t message_max_bytes = 1048588;
  int32_t socket_request_max_bytes = 104857600;
  int64_t connections_max_idle_ms = 600000;
  int reactor_threads = 0;
  int64_t retention_check_interval_ms = 300000;
  int64_t flush_checkpoint_interval_ms = 60000;
  int32_t recovery_threads = 1;
  bool cleaner_enable = true;                      // log.cleaner.enable
  int64_t cleaner_backoff_ms = 15000;              // log.cleaner.backoff.ms
  int64_t cleaner_dedupe_buffer_bytes = 134217728; // log.cleaner.dedupe.buffer.size
  int32_t max_incremental_fetch_session_cache_slots = 1000;
  // Consumer groups (issue 5): the coordinator's options and __consumer_offsets.
  int32_t group_min_session_timeout_ms = 6000;        // group.min.session.timeout.ms
  int32_t group_max_session_timeout_ms = 1800000;     // group.max.session.timeout.ms
  int32_t group_initial_rebalance_delay_ms = 3000;    // group.initial.rebalance.delay.ms
  int32_t group_max_size = INT32_MAX;                 // group.max.size
  int32_t offset_metadata_max_bytes = 4096;           // offset.metadata.max.bytes
  int64_t offsets_retention_ms = 10080LL * 60 * 1000; // offsets.retention.minutes
  int64_t offsets_retention_check_interval_ms = 600000;  // offsets.retention.check.interval.ms
  int32_t offsets_topic_num_partitions = 50;          // offsets.topic.num.partitions
  int32_t offsets_topic_segment_bytes = 104857600;    // offsets.topic.segment.bytes
  int16_t offsets_topic_replication_factor = 3;       // offsets.topic.replication.factor (capped by brokers)
  // Idempotent producers (issue 6).
  int64_t producer_id_expiration_ms = 86400000;       // producer.id.expiration.ms
  int32_t transaction_max_timeout_ms = 900000;        // transaction.max.timeout.ms
  // Transactions (issue 6): the coordinator and __transaction_state.
  int64_t transactional_id_expiration_ms = 604800000;           // transactional.id.expiration.ms
  int32_t transaction_state_log_num_partitions = 50;            // transaction.state.log.num.partitions
  int32_t transaction_state_log_segment_bytes = 104857600;      // transaction.state.log.segment.bytes
  int32_t transaction_state_log_min_isr = 2;                    // transaction.state.log.min.isr (capped by replicas)
  int64_t transaction_abort_timed_out_interval_ms = 10000;      // transaction.abort.timed.out.transaction.cleanup.interval.ms
  int64_t transaction_remove_expired_interval_ms = 3600000;     // transaction.remove.expired.transaction.cleanup.interval.ms
  // Cluster mode (issue 13): on when zookeeper.connect is non-empty.
  std::string zookeeper_connect;                      // zookeeper.connect ("" = single node)
  int32_t zookeeper_session_timeout_ms = 18000;       // zookeeper.session.timeout.ms
  int32_t zookeeper_connection_timeout_ms = 18000;    // zookeeper.connection.timeout.ms (default: the session timeout)
  std::string broker_rack;                            // broker.rack ("" = none)
  // inter.broker.listener.name; unset: the listener named PLAINTEXT (Kafka's
  // default, from security.inter.broker.protocol), else the first advertised.
  // How this broker authenticates to the others' inter-broker listener
  // (null: PLAINTEXT); set at start from the listener's keys
  // (broker/listener_security.h).
  std::shared_ptr<const client::ClientSecurity> inter_broker_security;
  std::string inter_broker_listener_name = "PLAINTEXT";
  // control.plane.listener.name ("" = none): the listener the controller's
  // requests and the requests to the controller (AlterPartition,
  // ControlledShutdown) use; else the inter-broker one (Kafka's ZooKeeper mode).
  std::string control_plane_listener_name;
  const std::string& controller_listener() const {
    return control_plane_listener_name.empty() ? inter_broker_listener_name : control_plane_listener_name;
  }
  int32_t num_replica_fetchers = 1;                   // num.replica.fetchers
  int32_t replica_fetch_max_bytes = 1048576;          // replica.fetch.max.bytes
  int32_t replica_fetch_min_bytes = 1;                // replica.fetch.min.bytes
  int32_t replica_fetch_wait_max_ms = 500;            // replica.fetch.wait.max.ms
  int32_t replica_fetch_backoff_ms = 1000;            // replica.fetch.backoff.ms
  // inter.broker.protocol.version >= 2.7-IV1 (Kafka's rule): followers
  // truncate on the Fetch response's DivergingEpoch; below it they first ask
  // OffsetForLeaderEpoch (KIP-101/279). The version selects nothing else.
  bool truncate_on_fetch = true;
  // The replication throttles' rate window (KIP-73): replication.quota.window.num
  // samples of replication.quota.window.size.seconds.
  int32_t replication_quota_window_num = 11;
  int64_t replication_quota_window_ms = 1000;
  int64_t replica_lag_time_max_ms = 30000;            // replica.lag.time.max.ms
  int32_t replica_socket_timeout_ms = 30000;          // replica.socket.timeout.ms
  bool unclean_leader_election_enable = false;        // unclean.leader.election.enable
  int32_t min_insync_replicas = 1;                    // min.insync.replicas
  int16_t transaction_state_log_replication_factor = 3;  // transaction.state.log.replication.factor
  int32_t controller_socket_timeout_ms = 30000;       // controller.socket.timeout.ms
  int32_t controlled_shutdown_max_retries = 3;        // controlled.shutdown.max.retries
  int64_t controlled_shutdown_retry_backoff_ms = 5000;  // controlled.shutdown.retry.backoff.ms
  bool controlled_shutdown_enable = true;             // controlled.shutdown.enable
  bool cluster_mode() const { return !zookeeper_connect.empty(); }
  // Topic-level defaults that topic overrides sit on (dynamic: see TopicDefaults).
  std::shared_ptr<TopicDefaults> topic_defaults = std::make_shared<TopicDefaults>();
};

BrokerSettings settings_from_config(const config::BrokerConfig& cfg);

// Effective log config of a topic: broker defaults overlaid with the topic's
// own overrides (already validated), in Kafka's topic key names.
storage::LogConfig log_config_for(const BrokerSettings& s, const std::map<std::string, std::string>& overrides);
// The same merge as a key -> value map (for describe and durable.writes).
std::map<std::string, std::string> effective_topic_config(
    const BrokerSettings& s, const std::map<std::string, std::string>& overrides);

}  // namespace spool::broker
