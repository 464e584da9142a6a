// ConsumerConfig: the native consumer's settings, read from Kafka consumer
// properties with the Java client's key names, defaults and checks
// (ConsumerConfig.java, Kafka 4.x):
//   bootstrap.servers (required), client.id, client.rack, group.id,
//   group.instance.id, group.protocol (classic only), session.timeout.ms 45000,
//   heartbeat.interval.ms 3000, max.poll.interval.ms 300000,
//   max.poll.records 500, enable.auto.commit true, auto.commit.interval.ms 5000,
//   auto.offset.reset latest (earliest|latest|none), isolation.level
//   read_uncommitted (read_committed), fetch.min.bytes 1, fetch.max.bytes
//   52428800, fetch.max.wait.ms 500, max.partition.fetch.bytes 1048576,
//   partition.assignment.strategy "range,cooperative-sticky" (Kafka names or
//   the Java class names of the four built-in assignors), request.timeout.ms
//   30000, default.api.timeout.ms 60000, retry.backoff.ms 100,
//   retry.backoff.max.ms 1000, metadata.max.age.ms, reconnect.backoff.ms,
//   reconnect.backoff.max.ms, socket.connection.setup.timeout.ms,
//   allow.auto.create.topics true, exclude.internal.topics true, check.crcs,
//   and the security keys of client/client_security.h.
// Java's cross-checks: heartbeat.interval.ms below session.timeout.ms;
// enable.auto.commit=true set explicitly without a group.id is an error (left
// at its default it is turned off); group.instance.id needs a group.id.
// key/value.deserializer are accepted and ignored (records stay bytes);
// other unknown keys come back as warnings, as Java logs them.
// Errors name the key and the value. Plain value; thread-safe to read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/client_security.h"
#include "client/consumer/consumer_record.h"
#include "config/properties.h"
#include "util/status.h"

namespace spool::client {

struct ConsumerConfig {
  std::vector<std::string> bootstrap_servers;
  std::string client_id;
  std::string client_rack;
  std::optional<std::string> group_id;
  std::optional<std::string> group_instance_id;
  int32_t session_timeout_ms = 45000;
  int32_t heartbeat_interval_ms = 3000;
  int32_t max_poll_interval_ms = 300000;
  int32_t max_poll_records = 500;
  bool enable_auto_commit = true;
  int32_t auto_commit_interval_ms = 5000;
  OffsetResetStrategy auto_offset_reset = OffsetResetStrategy::kLatest;
  IsolationLevel isolation_level = IsolationLevel::kReadUncommitted;
  int32_t fetch_min_bytes = 1;
  int32_t fetch_max_bytes = 52428800;
  int32_t fetch_max_wait_ms = 500;
  int32_t max_partition_fetch_bytes = 1048576;
  std::vector<std::string> assignment_strategies = {"range", "cooperative-sticky"};
  int32_t request_timeout_ms = 30000;
  int64_t default_api_timeout_ms = 60000;
  int64_t retry_backoff_ms = 100;
  int64_t retry_backoff_max_ms = 1000;
  int64_t metadata_max_age_ms = 300000;
  int64_t reconnect_backoff_ms = 50;
  int64_t reconnect_backoff_max_ms = 1000;
  int32_t connect_timeout_ms = 10000;
  bool allow_auto_create_topics = true;
  bool exclude_internal_topics = true;
  bool check_crcs = true;
  ClientSecurity security;

  // Parses and checks; unknown keys are appended to `warnings` when given.
  static Result<ConsumerConfig> from_properties(const config::PropertyList& props,
                                                std::vector<std::string>* warnings = nullptr);
};

// "range", "roundrobin", "sticky", "cooperative-sticky" or a Java class name
// of one of them (org.apache.kafka.clients.consumer.RangeAssignor...) to the
// Kafka name; nullopt when unknown.
std::optional<std::string> assignor_name(const std::string& value);

}  // namespace spool::client
