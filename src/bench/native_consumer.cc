#include "bench/native_consumer.h"

#include <chrono>
#include <thread>

namespace spool::bench {

config::PropertyList native_consume_config(const std::string& bootstrap) {
  return {{"bootstrap.servers", bootstrap},
          {"fetch.min.bytes", "1"},
          {"fetch.max.wait.ms", "500"},
          {"max.partition.fetch.bytes", "1048576"},
          {"fetch.max.bytes", "52428800"},
          {"check.crcs", "false"},
          {"auto.offset.reset", "earliest"}};
}

Result<std::unique_ptr<NativeConsumer>> NativeConsumer::create(const config::PropertyList& properties) {
  std::vector<std::string> warnings;
  auto c = client::Consumer::create(properties, {}, &warnings);
  if (!c) return Status::error("native consumer: " + c.status().message());
  std::unique_ptr<NativeConsumer> self(new NativeConsumer());
  self->c_ = std::move(*c);
  return self;
}

NativeConsumer::~NativeConsumer() {
  if (c_) c_->close(0);
}

Status NativeConsumer::wait_ready(const std::string& topic, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string last = "no metadata";
  while (std::chrono::steady_clock::now() < deadline) {
    auto n = c_->partitions_for(topic, 1000);
    if (n && *n >= 1) return Status::ok();
    last = n ? std::to_string(*n) + " partitions" : n.status().message();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::error("topic " + topic + " not ready for the native consumer: " + last);
}

Status NativeConsumer::assign(const std::string& topic, int32_t partition, int64_t offset) {
  const TopicPartition tp(topic, partition);
  if (auto st = c_->assign({tp}); !st) return Status::error("assign: " + st.message());
  if (auto st = c_->seek(tp, offset); !st) return Status::error("seek: " + st.message());
  return Status::ok();
}

Status NativeConsumer::poll(int timeout_ms, ReadCount* count) {
  auto records = c_->poll(timeout_ms);
  if (!records) return records.status();
  for (const client::ConsumerRecord& r : *records) {
    if (auto st = count->add(r.offset, r.value ? static_cast<int64_t>(r.value->size()) : 0); !st) return st;
  }
  return Status::ok();
}

}  // namespace spool::bench
