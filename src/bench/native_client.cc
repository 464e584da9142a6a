#include "bench/native_client.h"

#include <chrono>
#include <thread>

namespace spool::bench {

config::PropertyList native_throughput_config(const std::string& bootstrap, bool acks_all) {
  return {{"bootstrap.servers", bootstrap},
          {"acks", acks_all ? "all" : "1"},
          {"linger.ms", "5"},
          {"batch.size", "1000000"},
          {"buffer.memory", "1073741824"},
          {"compression.type", "none"},
          {"delivery.timeout.ms", "120000"},
          {"enable.idempotence", "false"},
          {"max.in.flight.requests.per.connection", "1000"}};
}

Result<std::unique_ptr<NativeProducer>> NativeProducer::create(const config::PropertyList& properties) {
  std::vector<std::string> warnings;
  auto p = client::Producer::create(properties, {}, &warnings);
  if (!p) return Status::error("native producer: " + p.status().message());
  std::unique_ptr<NativeProducer> self(new NativeProducer());
  self->p_ = std::move(*p);
  return self;
}

NativeProducer::~NativeProducer() {
  if (p_) p_->close(0);
}

Status NativeProducer::wait_ready(const std::string& topic, int partitions, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string last = "no metadata";
  while (std::chrono::steady_clock::now() < deadline) {
    auto n = p_->partitions_for(topic);
    if (n && *n >= partitions) return Status::ok();
    last = n ? std::to_string(*n) + " partitions" : n.status().message();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::error("topic " + topic + " not ready for the native producer: " + last);
}

void NativeProducer::on_delivery(const Status& st) {
  if (st) {
    delivered_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (failed_.fetch_add(1, std::memory_order_relaxed) == 0) {
    std::lock_guard<std::mutex> lock(err_mu_);
    first_error_ = st.message();
  }
}

Status NativeProducer::send(const std::string& topic, int32_t partition, const void* payload, size_t size) {
  client::ProducerRecord r;
  r.topic = topic;
  r.partition = partition;
  const auto* b = static_cast<const uint8_t*>(payload);
  r.value.emplace(b, b + size);  // the record owns its bytes: one copy (see the header)
  Status st = p_->send(std::move(r), [this](const client::RecordMetadata&, const Status& s) { on_delivery(s); });
  if (!st) return Status::error("native produce: " + st.message());
  return Status::ok();
}

Status NativeProducer::flush(int timeout_ms) {
  if (!p_->flush(timeout_ms)) return Status::error("native flush: records still queued after " +
                                                   std::to_string(timeout_ms) + " ms");
  if (failed() > 0) {
    std::lock_guard<std::mutex> lock(err_mu_);
    return Status::error(std::to_string(failed()) + " native deliveries failed (first: " + first_error_ + ")");
  }
  return Status::ok();
}

void NativeProducer::reset_counts() {
  delivered_ = 0;
  failed_ = 0;
  std::lock_guard<std::mutex> lock(err_mu_);
  first_error_.clear();
}

}  // namespace spool::bench
