// NativeConsumer: the ConsumerDriver (consumer_driver.h) over Spool's native
// consumer (client/consumer/consumer.h), for the client family's
// native-vs-librdkafka consume comparison.
//
// Settings (native_consume_config): librdkafka's consumer defaults in the
// Java client's key names, so both clients ask the broker for the same
// fetches: fetch.min.bytes=1, fetch.max.wait.ms=500 (librdkafka's
// fetch.wait.max.ms), max.partition.fetch.bytes=1048576,
// fetch.max.bytes=52428800 (the Java defaults have the same values), and
// check.crcs=false (librdkafka's default; Java's is true), so both do the
// same work per batch. No group.id: assign() needs none, and auto-commit is
// then off. max.poll.records stays at Java's 500: it sizes the batches
// poll() hands to the application, not the fetches. librdkafka prefetches
// into a local queue of its own (queued.min.messages=100000); the native
// consumer, like Java's, fetches a partition again once its buffered
// records are handed out.
//
// Cost, honestly: a native ConsumerRecord owns copies of its topic name and
// its value (consumer_record.h); librdkafka's message points into the fetch
// buffer. That copy is part of what the comparison measures.
//
// Threading: one thread at a time (the consumer's own loop thread does the
// I/O). Failure: Status with the consumer's message.
#pragma once

#include <memory>
#include <string>

#include "bench/consumer_driver.h"
#include "client/consumer/consumer.h"
#include "config/properties.h"

namespace spool::bench {

// The settings above for `bootstrap`.
config::PropertyList native_consume_config(const std::string& bootstrap);

class NativeConsumer final : public ConsumerDriver {
 public:
  static Result<std::unique_ptr<NativeConsumer>> create(const config::PropertyList& properties);
  ~NativeConsumer() override;

  Status wait_ready(const std::string& topic, int timeout_ms) override;
  Status assign(const std::string& topic, int32_t partition, int64_t offset) override;
  Status poll(int timeout_ms, ReadCount* count) override;

 private:
  NativeConsumer() = default;

  std::unique_ptr<client::Consumer> c_;
};

}  // namespace spool::bench
