// ProducerDriver: the one shape every `spool bench` produce workload drives,
// whichever client library is under it: librdkafka (rdk.h, the default) or
// Spool's native producer (native_client.h, `--client native`). A driver
// counts its delivery reports (delivered/failed) and flushes; the workload
// times and sums them (produce_workload.cc, client_plan.cc).
// Both drivers are configured with the same throughput settings, each in its
// own library's key names: large batches (1,000,000 bytes), linger.ms=5, a
// deep local queue (1 GiB), no compression, a 120 s delivery timeout, no
// idempotence (librdkafka's default; see native_client.h).
// Ownership: a driver owns its client; destroying it waits for nothing more
// than the client's own destructor does (flush first).
// Threading: send()/poll()/flush() from one thread at a time; the counters
// are atomics, readable from any thread. Failure: Status with the client's
// error text; nothing throws.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bench/rdk.h"
#include "util/status.h"

namespace spool::bench {

struct Target;

// The client libraries `--client` accepts.
inline constexpr const char* kClientLibrdkafka = "librdkafka";
inline constexpr const char* kClientNative = "native";

class ProducerDriver {
 public:
  virtual ~ProducerDriver() = default;
  // Untimed warm-up: metadata of `topic` with a leader for each partition.
  virtual Status wait_ready(const std::string& topic, int partitions, int timeout_ms) = 0;
  // Enqueues one record for `partition`; blocks (or polls) while the
  // client's local queue is full. `payload` must outlive the call only.
  virtual Status send(const std::string& topic, int32_t partition, const void* payload, size_t size) = 0;
  // Serves delivery reports where the client needs the caller's thread for
  // that (librdkafka); a no-op for the native producer (its I/O thread).
  virtual void poll() {}
  // Waits for every outstanding record; error if some are left or failed.
  virtual Status flush(int timeout_ms) = 0;
  virtual int64_t delivered() const = 0;
  virtual int64_t failed() const = 0;
  virtual void reset_counts() = 0;
};

// A driver of `client` ("librdkafka" | "native") for `t` with the
// throughput settings, acks=all or acks=1.
Result<std::unique_ptr<ProducerDriver>> make_producer_driver(const std::string& client, const Target& t,
                                                             bool acks_all);
// A librdkafka driver with exactly `config` (no throughput settings).
Result<std::unique_ptr<ProducerDriver>> make_rdk_driver(const KafkaConfig& config);

}  // namespace spool::bench
