// NativeProducer: the ProducerDriver (producer_driver.h) over Spool's native
// producer (client/producer/producer.h), for `spool bench --client native`
// and the client family's native-vs-librdkafka comparison.
//
// Settings (native_throughput_config): the librdkafka workload's throughput
// settings in the Java client's key names: acks, linger.ms=5,
// batch.size=1000000, buffer.memory=1 GiB (librdkafka's
// queue.buffering.max.kbytes=1048576), compression.type=none,
// delivery.timeout.ms=120000 (message.timeout.ms), and
// enable.idempotence=false. Idempotence is off because that is librdkafka's
// default, so both clients do the same work (no InitProducerId, no
// sequence numbers) and the ratio compares clients, not features; Java's
// default (true) would also be switched off silently for acks=1.
// max.in.flight.requests.per.connection=1000 (librdkafka's default is
// 1,000,000; Java's 5 held acks=all to 0.38x of librdkafka on a durable
// broker, where each request waits for its fsync: 0.65x with 1000).
//
// Cost, honestly: the native ProducerRecord owns its value (Bytes, a
// std::vector), so every send() allocates and copies the payload once
// before the accumulator copies it into the batch; librdkafka's driver
// passes the caller's buffer without a copy (RD_KAFKA_MSG_F_COPY unset).
// That copy is part of what the comparison measures.
//
// Threading: delivery callbacks run on the producer's I/O thread and only
// touch atomics (and the first error under a mutex); send()/flush() from
// one thread at a time. Failure: Status with the producer's message.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "bench/producer_driver.h"
#include "client/producer/producer.h"
#include "config/properties.h"

namespace spool::bench {

// The throughput settings above for `bootstrap`, acks=all or acks=1.
config::PropertyList native_throughput_config(const std::string& bootstrap, bool acks_all);

class NativeProducer final : public ProducerDriver {
 public:
  static Result<std::unique_ptr<NativeProducer>> create(const config::PropertyList& properties);
  ~NativeProducer() override;

  Status wait_ready(const std::string& topic, int partitions, int timeout_ms) override;
  Status send(const std::string& topic, int32_t partition, const void* payload, size_t size) override;
  Status flush(int timeout_ms) override;
  int64_t delivered() const override { return delivered_.load(std::memory_order_relaxed); }
  int64_t failed() const override { return failed_.load(std::memory_order_relaxed); }
  void reset_counts() override;

 private:
  NativeProducer() = default;
  void on_delivery(const Status& st);

  std::unique_ptr<client::Producer> p_;
  std::atomic<int64_t> delivered_{0};
  std::atomic<int64_t> failed_{0};
  std::mutex err_mu_;
  std::string first_error_;
};

}  // namespace spool::bench
