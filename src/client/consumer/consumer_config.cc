#include "client/consumer/consumer_config.h"

#include <functional>
#include <map>
#include <set>

#include "client/config_values.h"
#include "config/config_def.h"

namespace spool::client {

std::optional<std::string> assignor_name(const std::string& value) {
  static const std::map<std::string, std::string> kNames = {
      {"range", "range"},
      {"roundrobin", "roundrobin"},
      {"sticky", "sticky"},
      {"cooperative-sticky", "cooperative-sticky"},
      {"org.apache.kafka.clients.consumer.RangeAssignor", "range"},
      {"org.apache.kafka.clients.consumer.RoundRobinAssignor", "roundrobin"},
      {"org.apache.kafka.clients.consumer.StickyAssignor", "sticky"},
      {"org.apache.kafka.clients.consumer.CooperativeStickyAssignor", "cooperative-sticky"}};
  auto it = kNames.find(value);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

Result<ConsumerConfig> ConsumerConfig::from_properties(const config::PropertyList& props,
                                                       std::vector<std::string>* warnings) {
  const auto p = property_map(props);  // the last one of a key wins
  ConsumerConfig c;
  std::optional<bool> auto_commit_set;
  using Setter = PropertySetter;
  const int64_t kMaxMs = INT64_MAX / 4;
  auto str = [](std::string& out) -> Setter {
    return [&out](auto&, auto& v) {
      out = v;
      return Status::ok();
    };
  };
  auto i32 = [](int32_t& out, int32_t min) -> Setter {
    return [&out, min](auto& k, auto& v) { return parse_int_value<int32_t>(k, v, min, INT32_MAX, out); };
  };
  auto i64 = [kMaxMs](int64_t& out) -> Setter {
    return [&out, kMaxMs](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, out); };
  };
  const std::map<std::string, Setter> setters = {
      {"bootstrap.servers",
       [&](auto&, auto& v) {
         c.bootstrap_servers = config::split_list(v);
         return Status::ok();
       }},
      {"client.id", str(c.client_id)},
      {"client.rack", str(c.client_rack)},
      {"group.id",
       [&](auto&, auto& v) {
         c.group_id = v;
         return Status::ok();
       }},
      {"group.instance.id",
       [&](auto& k, auto& v) {
         if (v.empty()) return invalid_value(k, v, "Group instance id must be non-empty string");
         c.group_instance_id = v;
         return Status::ok();
       }},
      {"group.protocol",
       [&](auto& k, auto& v) {
         if (v == "classic" || v == "CLASSIC") return Status::ok();
         return invalid_value(k, v, "the native consumer speaks the classic group protocol only");
       }},
      {"session.timeout.ms", i32(c.session_timeout_ms, 1)},
      {"heartbeat.interval.ms", i32(c.heartbeat_interval_ms, 1)},
      {"max.poll.interval.ms", i32(c.max_poll_interval_ms, 1)},
      {"max.poll.records", i32(c.max_poll_records, 1)},
      {"enable.auto.commit",
       [&](auto& k, auto& v) {
         bool b = false;
         if (auto s = parse_bool_value(k, v, b); !s) return s;
         auto_commit_set = b;
         return Status::ok();
       }},
      {"auto.commit.interval.ms", i32(c.auto_commit_interval_ms, 0)},
      {"auto.offset.reset",
       [&](auto& k, auto& v) {
         if (v == "earliest") {
           c.auto_offset_reset = OffsetResetStrategy::kEarliest;
         } else if (v == "latest") {
           c.auto_offset_reset = OffsetResetStrategy::kLatest;
         } else if (v == "none") {
           c.auto_offset_reset = OffsetResetStrategy::kNone;
         } else {
           return invalid_value(k, v, "expected earliest, latest or none");
         }
         return Status::ok();
       }},
      {"isolation.level",
       [&](auto& k, auto& v) {
         if (v == "read_uncommitted") {
           c.isolation_level = IsolationLevel::kReadUncommitted;
         } else if (v == "read_committed") {
           c.isolation_level = IsolationLevel::kReadCommitted;
         } else {
           return invalid_value(k, v, "expected read_committed or read_uncommitted");
         }
         return Status::ok();
       }},
      {"fetch.min.bytes", i32(c.fetch_min_bytes, 0)},
      {"fetch.max.bytes", i32(c.fetch_max_bytes, 0)},
      {"fetch.max.wait.ms", i32(c.fetch_max_wait_ms, 0)},
      {"max.partition.fetch.bytes", i32(c.max_partition_fetch_bytes, 0)},
      {"partition.assignment.strategy",
       [&](auto& k, auto& v) {
         c.assignment_strategies.clear();
         for (const std::string& item : config::split_list(v)) {
           auto name = assignor_name(item);
           if (!name) return invalid_value(k, v, "unknown assignor " + item);
           c.assignment_strategies.push_back(*name);
         }
         if (c.assignment_strategies.empty()) return invalid_value(k, v, "at least one assignor is needed");
         return Status::ok();
       }},
      {"request.timeout.ms", i32(c.request_timeout_ms, 0)},
      {"default.api.timeout.ms", i64(c.default_api_timeout_ms)},
      {"retry.backoff.ms", i64(c.retry_backoff_ms)},
      {"retry.backoff.max.ms", i64(c.retry_backoff_max_ms)},
      {"metadata.max.age.ms", i64(c.metadata_max_age_ms)},
      {"reconnect.backoff.ms", i64(c.reconnect_backoff_ms)},
      {"reconnect.backoff.max.ms", i64(c.reconnect_backoff_max_ms)},
      {"socket.connection.setup.timeout.ms", i32(c.connect_timeout_ms, 1)},
      {"allow.auto.create.topics", [&](auto& k, auto& v) { return parse_bool_value(k, v, c.allow_auto_create_topics); }},
      {"exclude.internal.topics", [&](auto& k, auto& v) { return parse_bool_value(k, v, c.exclude_internal_topics); }},
      {"check.crcs", [&](auto& k, auto& v) { return parse_bool_value(k, v, c.check_crcs); }},
  };
  static const std::set<std::string> kIgnored = {"key.deserializer", "value.deserializer", "auto.include.jmx.reporter",
                                                 "send.buffer.bytes", "receive.buffer.bytes",
                                                 "connections.max.idle.ms", "enable.metrics.push"};
  if (Status s = apply_properties(p, setters, kIgnored, warnings); !s) return s;
  if (Status s = finish_common_config(props, c.bootstrap_servers, c.security); !s) return s;
  if (c.group_id && c.group_id->empty()) c.group_id.reset();  // Java treats "" like no group for these checks
  if (!c.group_id) {
    if (auto_commit_set.value_or(false)) {
      return invalid_value("enable.auto.commit", "true",
                 "enable.auto.commit cannot be set to true when default group id (null) is used.");
    }
    if (c.group_instance_id) {
      return Status::error("group.instance.id requires a group.id (static membership is a group feature)");
    }
    auto_commit_set = false;
  }
  c.enable_auto_commit = auto_commit_set.value_or(true);
  if (c.heartbeat_interval_ms >= c.session_timeout_ms) {
    return invalid_value("heartbeat.interval.ms", std::to_string(c.heartbeat_interval_ms),
               "Heartbeat must be set lower than the session timeout (session.timeout.ms)");
  }
  return c;
}

}  // namespace spool::client
