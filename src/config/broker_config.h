// BrokerConfig: the broker's configuration, Kafka's server.properties keys
// and defaults plus Spool's own keys (durable.writes, reactor.threads,
// log.level).
//
// load() reads a Java .properties file, applies "k=v" overrides in order (a
// later value wins), and validates everything up front: a key that is
// neither Kafka's nor Spool's is refused with a did-you-mean, a bad value is
// refused naming key, value and the allowed range, a setting that restricts
// access or promises safety which Spool does not act on yet is refused
// (refusal.h: Spool fails closed), and every other key Spool does not act on
// yet yields one warning (returned, not logged: the caller logs).
// The object is immutable after load and safe to read from any thread.
//
// Resolution rules (as Kafka): log.dirs wins over log.dir; log.retention.ms
// over .minutes over .hours (negative = forever, reported as -1); log.roll.ms
// over log.roll.hours; log.flush.interval.ms unset falls back to
// log.flush.scheduler.interval.ms (Long.MAX = never). broker.id -1 (Kafka's
// "generate one") becomes 0: a single Spool node needs no generated id.
// advertised.listeners falls back to listeners; an empty listener host is
// advertised as this machine's hostname (as Kafka does), and advertising
// 0.0.0.0 is refused.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/listener.h"
#include "config/properties.h"
#include "util/status.h"

namespace spool::config {

enum class TimestampType : uint8_t { kCreateTime, kLogAppendTime };

class BrokerConfig {
 public:
  // Every key at its default.
  BrokerConfig();

  static Result<BrokerConfig> load(const std::optional<std::string>& properties_file,
                                   const std::vector<std::string>& overrides,
                                   std::vector<std::string>* warnings);
  // Same, from already-parsed key/value pairs applied in order.
  static Result<BrokerConfig> from_properties(const PropertyList& props, std::vector<std::string>* warnings);

  // ---- Keys Spool acts on, typed and resolved.
  int32_t broker_id() const { return broker_id_; }
  const std::vector<Listener>& listeners() const { return listeners_; }
  const std::vector<Listener>& advertised_listeners() const { return advertised_listeners_; }
  // inter.broker.listener.name, upper-cased; unset: the advertised listener
  // named after security.inter.broker.protocol (Kafka's rule, PLAINTEXT by
  // default) or, when there is none, the first advertised listener (Spool's
  // addition, so one listener of any name needs no extra key).
  const std::string& inter_broker_listener_name() const { return inter_broker_listener_name_; }
  // control.plane.listener.name, upper-cased; "" when unset. Advertised,
  // and not the inter-broker listener (Kafka's rules).
  const std::string& control_plane_listener_name() const { return control_plane_listener_name_; }
  const std::vector<std::string>& log_dirs() const { return log_dirs_; }
  int32_t num_partitions() const { return static_cast<int32_t>(get_long("num.partitions")); }
  int16_t default_replication_factor() const { return static_cast<int16_t>(get_long("default.replication.factor")); }
  bool auto_create_topics() const { return get_bool("auto.create.topics.enable"); }
  bool auto_create_topics_enable() const { return auto_create_topics(); }
  bool delete_topic_enable() const { return get_bool("delete.topic.enable"); }
  int32_t log_segment_bytes() const { return static_cast<int32_t>(get_long("log.segment.bytes")); }
  int64_t log_roll_ms() const { return log_roll_ms_; }
  int64_t log_roll_jitter_ms() const { return log_roll_jitter_ms_; }
  int64_t log_retention_ms() const { return log_retention_ms_; }  // -1 = forever
  int64_t log_retention_bytes() const { return get_long("log.retention.bytes"); }  // -1 = unlimited
  int64_t log_retention_check_interval_ms() const { return get_long("log.retention.check.interval.ms"); }
  int64_t log_flush_interval_messages() const { return get_long("log.flush.interval.messages"); }
  int64_t log_flush_interval_ms() const { return log_flush_interval_ms_; }  // INT64_MAX = never
  int64_t log_flush_offset_checkpoint_interval_ms() const { return get_long("log.flush.offset.checkpoint.interval.ms"); }
  int32_t log_index_interval_bytes() const { return static_cast<int32_t>(get_long("log.index.interval.bytes")); }
  int32_t log_index_size_max_bytes() const { return static_cast<int32_t>(get_long("log.index.size.max.bytes")); }
  TimestampType log_message_timestamp_type() const {
    return get("log.message.timestamp.type") == "LogAppendTime" ? TimestampType::kLogAppendTime : TimestampType::kCreateTime;
  }
  int32_t message_max_bytes() const { return static_cast<int32_t>(get_long("message.max.bytes")); }
  int32_t socket_request_max_bytes() const { return static_cast<int32_t>(get_long("socket.request.max.bytes")); }
  int32_t max_connections() const { return static_cast<int32_t>(get_long("max.connections")); }
  int32_t max_connections_per_ip() const { return static_cast<int32_t>(get_long("max.connections.per.ip")); }
  // max.connections.per.ip.overrides, host -> count (checked at parse time).
  std::map<std::string, int> max_connections_per_ip_overrides() const;
  int64_t connections_max_idle_ms() const { return get_long("connections.max.idle.ms"); }
  int32_t num_recovery_threads_per_data_dir() const { return static_cast<int32_t>(get_long("num.recovery.threads.per.data.dir")); }
  std::vector<std::string> log_cleanup_policy() const { return get_list("log.cleanup.policy"); }
  bool log_cleanup_compact() const;
  bool log_cleanup_delete() const;
  int32_t min_insync_replicas() const { return static_cast<int32_t>(get_long("min.insync.replicas")); }
  bool durable_writes() const { return get_bool("durable.writes"); }
  int32_t reactor_threads() const { return reactor_threads_; }  // 0 resolved to the number of cores
  std::string log_level() const { return get("log.level"); }
  int32_t max_incremental_fetch_session_cache_slots() const {
    return static_cast<int32_t>(get_long("max.incremental.fetch.session.cache.slots"));
  }

  // ---- Any key (Kafka's, Spool's, or an accepted prefixed key).
  // Effective normalized value: the set value, else the default, else "" (null).
  std::string get(std::string_view key) const;
  std::optional<std::string> get_optional(std::string_view key) const;  // nullopt = null
  bool is_set(std::string_view key) const;  // set by the file or an override
  int64_t get_long(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  double get_double(std::string_view key) const;
  std::vector<std::string> get_list(std::string_view key) const;
  // Keys set explicitly, with their normalized values.
  const std::map<std::string, std::string, std::less<>>& explicit_values() const { return values_; }
  // Set keys Spool does not act on yet, sorted.
  std::vector<std::string> unacted_keys() const;

 private:
  Status resolve();

  std::map<std::string, std::string, std::less<>> values_;
  int32_t broker_id_ = 0;
  std::vector<Listener> listeners_;
  std::vector<Listener> advertised_listeners_;
  std::string inter_broker_listener_name_;
  std::string control_plane_listener_name_;
  std::vector<std::string> log_dirs_;
  int64_t log_roll_ms_ = 0;
  int64_t log_roll_jitter_ms_ = 0;
  int64_t log_retention_ms_ = 0;
  int64_t log_flush_interval_ms_ = 0;
  int32_t reactor_threads_ = 1;
};

// Validates one key (Kafka's, Spool's, or accepted prefixed) and returns its
// normalized value; the error names the key and has a did-you-mean.
Result<std::string> validate_broker_config(std::string_view key, std::string_view value);

}  // namespace spool::config
