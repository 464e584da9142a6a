#include "client/producer/producer_config.h"

#include <functional>
#include <map>
#include <set>

#include "client/config_values.h"

namespace spool::client {

std::optional<record::Compression> parse_compression_type(const std::string& name) {
  static const std::map<std::string, record::Compression> kCodecs = {{"none", record::Compression::kNone},
                                                                     {"gzip", record::Compression::kGzip},
                                                                     {"snappy", record::Compression::kSnappy},
                                                                     {"lz4", record::Compression::kLz4},
                                                                     {"zstd", record::Compression::kZstd}};
  auto it = kCodecs.find(name);
  if (it == kCodecs.end()) return std::nullopt;
  return it->second;
}

Result<ProducerConfig> ProducerConfig::from_properties(const config::PropertyList& props,
                                                       std::vector<std::string>* warnings) {
  const auto p = property_map(props);
  ProducerConfig c;
  std::optional<bool> idempotence_set;
  std::map<std::string, int> levels;  // compression.<codec>.level
  const int64_t kMaxMs = INT64_MAX / 4;
  const std::map<std::string, PropertySetter> setters = {
      {"bootstrap.servers",
       [&](auto&, auto& v) {
         c.bootstrap_servers = split_list_value(v);
         return Status::ok();
       }},
      {"client.id",
       [&](auto&, auto& v) {
         c.client_id = v;
         return Status::ok();
       }},
      {"acks",
       [&](auto& k, auto& v) {
         if (v == "all" || v == "-1") {
           c.acks = -1;
         } else if (v == "0" || v == "1") {
           c.acks = static_cast<int16_t>(v[0] - '0');
         } else {
           return invalid_value(k, v, "expected all, -1, 0 or 1");
         }
         return Status::ok();
       }},
      {"batch.size", [&](auto& k, auto& v) { return parse_int_value<int32_t>(k, v, 0, INT32_MAX, c.batch_size); }},
      {"linger.ms", [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, c.linger_ms); }},
      {"buffer.memory", [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, INT64_MAX, c.buffer_memory); }},
      {"max.block.ms", [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, c.max_block_ms); }},
      {"compression.type",
       [&](auto& k, auto& v) {
         auto codec = parse_compression_type(v);
         if (!codec) return invalid_value(k, v, "expected none, gzip, snappy, lz4 or zstd");
         c.compression = *codec;
         return Status::ok();
       }},
      {"compression.gzip.level", [&](auto& k, auto& v) { return parse_int_value<int>(k, v, -1, 9, levels["gzip"]); }},
      {"compression.lz4.level", [&](auto& k, auto& v) { return parse_int_value<int>(k, v, 1, 17, levels["lz4"]); }},
      {"compression.zstd.level", [&](auto& k, auto& v) { return parse_int_value<int>(k, v, -131072, 22, levels["zstd"]); }},
      {"max.in.flight.requests.per.connection",
       [&](auto& k, auto& v) { return parse_int_value<int32_t>(k, v, 1, INT32_MAX, c.max_in_flight); }},
      {"retries", [&](auto& k, auto& v) { return parse_int_value<int32_t>(k, v, 0, INT32_MAX, c.retries); }},
      {"retry.backoff.ms", [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, c.retry_backoff_ms); }},
      {"retry.backoff.max.ms",
       [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, c.retry_backoff_max_ms); }},
      {"delivery.timeout.ms",
       [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, c.delivery_timeout_ms); }},
      {"request.timeout.ms",
       [&](auto& k, auto& v) { return parse_int_value<int32_t>(k, v, 0, INT32_MAX, c.request_timeout_ms); }},
      {"max.request.size", [&](auto& k, auto& v) { return parse_int_value<int32_t>(k, v, 0, INT32_MAX, c.max_request_size); }},
      {"enable.idempotence",
       [&](auto& k, auto& v) {
         bool b = false;
         if (auto s = parse_bool_value(k, v, b); !s) return s;
         idempotence_set = b;
         return Status::ok();
       }},
      {"transactional.id",
       [&](auto&, auto& v) {
         if (!v.empty()) c.transactional_id = v;
         return Status::ok();
       }},
      {"transaction.timeout.ms",
       [&](auto& k, auto& v) { return parse_int_value<int32_t>(k, v, 1, INT32_MAX, c.transaction_timeout_ms); }},
      {"partitioner.ignore.keys", [&](auto& k, auto& v) { return parse_bool_value(k, v, c.partitioner_ignore_keys); }},
      {"metadata.max.age.ms",
       [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, c.metadata_max_age_ms); }},
      {"reconnect.backoff.ms",
       [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, c.reconnect_backoff_ms); }},
      {"reconnect.backoff.max.ms",
       [&](auto& k, auto& v) { return parse_int_value<int64_t>(k, v, 0, kMaxMs, c.reconnect_backoff_max_ms); }},
      {"socket.connection.setup.timeout.ms",
       [&](auto& k, auto& v) { return parse_int_value<int32_t>(k, v, 1, INT32_MAX, c.connect_timeout_ms); }},
      {"partitioner.class",
       [&](auto& k, auto& v) {
         return invalid_value(k, v, "the native producer takes a Partitioner object, not a class name");
       }},
  };
  static const std::set<std::string> kIgnored = {"key.serializer", "value.serializer",
                                                 "partitioner.adaptive.partitioning.enable",
                                                 "partitioner.availability.timeout.ms", "linger.ms.jitter"};
  if (Status s = apply_properties(p, setters, kIgnored, warnings); !s) return s;
  if (Status s = finish_common_config(props, c.bootstrap_servers, c.security); !s) return s;
  static const std::map<record::Compression, std::string> kLevelKey = {
      {record::Compression::kGzip, "gzip"}, {record::Compression::kLz4, "lz4"}, {record::Compression::kZstd, "zstd"}};
  if (auto it = kLevelKey.find(c.compression); it != kLevelKey.end() && levels.count(it->second)) {
    c.compression_level = levels[it->second];
  }
  if (c.delivery_timeout_ms < c.linger_ms + c.request_timeout_ms) {
    return invalid_value("delivery.timeout.ms", std::to_string(c.delivery_timeout_ms),
               "should be equal to or larger than linger.ms + request.timeout.ms");
  }
  const bool idempotence_fits = c.acks == -1 && c.retries > 0 && c.max_in_flight <= 5;
  if (idempotence_set.value_or(true) && !idempotence_fits) {
    if (idempotence_set.value_or(false) || c.transactional_id) {
      const std::string why = c.acks != -1 ? "Must set acks to all in order to use the idempotent producer."
                              : c.retries == 0
                                  ? "Must set retries to non-zero when using the idempotent producer."
                                  : "Must set max.in.flight.requests.per.connection to at most 5 when using the "
                                    "idempotent producer.";
      return Status::error("Invalid configuration for the idempotent producer: " + why);
    }
    idempotence_set = false;
  }
  c.idempotence = idempotence_set.value_or(true);
  if (c.transactional_id && !c.idempotence) {
    return Status::error(
        "Cannot set a transactional.id without also enabling idempotence (enable.idempotence=true).");
  }
  return c;
}

}  // namespace spool::client
