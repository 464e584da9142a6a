// ProducerConfig: the native producer's settings, read from Kafka producer
// properties with the Java client's key names, defaults and checks
// (ProducerConfig.java, Kafka 4.x):
//   bootstrap.servers (required), client.id, acks (all|-1|0|1; default all),
//   batch.size 16384, linger.ms 5, buffer.memory 32 MiB, max.block.ms 60000,
//   compression.type none|gzip|snappy|lz4|zstd, compression.{gzip,lz4,zstd}.level,
//   max.in.flight.requests.per.connection 5, retries INT32_MAX,
//   retry.backoff.ms 100, retry.backoff.max.ms 1000, delivery.timeout.ms 120000,
//   request.timeout.ms 30000, max.request.size 1 MiB, enable.idempotence true,
//   transactional.id, transaction.timeout.ms 60000, partitioner.ignore.keys,
//   metadata.max.age.ms, reconnect.backoff.ms, reconnect.backoff.max.ms,
//   socket.connection.setup.timeout.ms, and the security keys of
//   client/client_security.h.
// Idempotence as Java 3.2+: on by default, and then silently off when acks
// is not all, retries is 0 or more than 5 requests may be in flight; set
// explicitly to true with such values it is an error, as is a
// transactional.id with idempotence off. delivery.timeout.ms must be at
// least linger.ms + request.timeout.ms. key.serializer and value.serializer
// are accepted and ignored (the native producer sends bytes);
// partitioner.class is refused (pass a Partitioner object instead). Other
// unknown keys come back as warnings, as Java logs them.
// Errors name the key and the value. Plain value; thread-safe to read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/client_security.h"
#include "config/properties.h"
#include "record/batch_header.h"
#include "util/status.h"

namespace spool::client {

struct ProducerConfig {
  std::vector<std::string> bootstrap_servers;
  std::string client_id;
  int16_t acks = -1;
  int32_t batch_size = 16384;
  int64_t linger_ms = 5;
  int64_t buffer_memory = 32 * 1024 * 1024;
  int64_t max_block_ms = 60000;
  record::Compression compression = record::Compression::kNone;
  int compression_level = -1;
  int32_t max_in_flight = 5;
  int32_t retries = INT32_MAX;
  int64_t retry_backoff_ms = 100;
  int64_t retry_backoff_max_ms = 1000;
  int64_t delivery_timeout_ms = 120000;
  int32_t request_timeout_ms = 30000;
  int32_t max_request_size = 1024 * 1024;
  bool idempotence = true;
  std::optional<std::string> transactional_id;
  int32_t transaction_timeout_ms = 60000;
  bool partitioner_ignore_keys = false;
  int64_t metadata_max_age_ms = 300000;
  int64_t reconnect_backoff_ms = 50;
  int64_t reconnect_backoff_max_ms = 1000;
  int32_t connect_timeout_ms = 10000;
  ClientSecurity security;

  // Parses and checks; unknown keys are appended to `warnings` when given.
  static Result<ProducerConfig> from_properties(const config::PropertyList& props,
                                                std::vector<std::string>* warnings = nullptr);
};

// "none" / "gzip" / ... to the codec; nullopt when unknown.
std::optional<record::Compression> parse_compression_type(const std::string& name);

}  // namespace spool::client
