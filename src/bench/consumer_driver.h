// ConsumerDriver: the one shape the client family's consume comparison
// (client_plan.cc) drives, whichever client library is under it: librdkafka
// (consumer_driver.cc) or Spool's native consumer (native_consumer.h). A
// driver reads one partition from a given offset with assign() (no group
// protocol, no offset lookup) and counts what each poll returned;
// run_client_consume() times the read.
//
// Settings: each library's defaults for the fetch sizes and waits
// (librdkafka: fetch.min.bytes=1, fetch.wait.max.ms=500,
// max.partition.fetch.bytes=1048576, fetch.max.bytes=52428800); the native
// consumer is given the same values in the Java client's key names
// (native_consumer.h). librdkafka gets a group.id because its assign()
// needs one; it never joins the group nor commits.
//
// Files: the interface, the librdkafka driver and the timed read here; the
// native driver in native_consumer.{h,cc}.
// Ownership: a driver owns its client (closed when the driver is destroyed).
// Threading: one thread at a time. Failure: Status with the client's error
// text; a short read, a gap or a repeated offset is an error, not a number.
// Nothing throws.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bench/workloads.h"
#include "util/status.h"

namespace spool::bench {

// What the polls of one read returned so far. next_offset is the offset the
// next record must have: a log written once by one producer has no gaps.
struct ReadCount {
  int64_t records = 0;
  int64_t bytes = 0;  // value bytes
  int64_t next_offset = 0;

  // Counts one record, or fails when `offset` is not next_offset.
  Status add(int64_t offset, int64_t value_bytes);
};

class ConsumerDriver {
 public:
  virtual ~ConsumerDriver() = default;
  // Untimed warm-up: the connection and `topic`'s metadata (one partition).
  virtual Status wait_ready(const std::string& topic, int timeout_ms) = 0;
  // Reads `partition` of `topic` from `offset` on (assign, then position).
  virtual Status assign(const std::string& topic, int32_t partition, int64_t offset) = 0;
  // One poll of the library (librdkafka: one message; native: one batch of
  // up to max.poll.records), waiting up to `timeout_ms`; adds its records
  // to `count` (ReadCount::add, which checks each offset). A
  // consumer-side error is returned; librdkafka's per-message errors are
  // kept in first_error() and the read goes on, as an application would.
  virtual Status poll(int timeout_ms, ReadCount* count) = 0;
  virtual std::string first_error() const { return {}; }
};

// A driver of `client` ("librdkafka" | "native") for `t`.
Result<std::unique_ptr<ConsumerDriver>> make_consumer_driver(const std::string& client, const Target& t);

// The high watermark of partition 0 of `topic` once it reached `at_least`
// (a durable Spool shows acks=1 records to consumers after their fsync),
// asked with a short-lived librdkafka client; an error unless the log
// starts at 0, or when it stays short for `timeout_ms`.
Result<int64_t> wait_log_end(const Target& t, const std::string& topic, int64_t at_least, int timeout_ms);

struct ClientConsume {
  Throughput read;           // from assign() to the last record
  double first_record_s = 0;  // from assign() to the first record
};
// Reads exactly `messages` records of partition 0 of `topic` from offset 0
// with a fresh `client` consumer, timed from assign() (followed at once by
// the first poll) to the last record; fails when fewer or more arrived
// within `timeout_s`.
Result<ClientConsume> run_client_consume(const Target& t, const std::string& topic, const std::string& client,
                                         int64_t messages, double timeout_s, Progress* progress);

}  // namespace spool::bench
