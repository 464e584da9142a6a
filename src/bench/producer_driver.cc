// make_producer_driver and the librdkafka driver (a thin adapter over
// rdk.h's Producer; payloads go to librdkafka without a copy).
#include "bench/producer_driver.h"

#include "bench/native_client.h"
#include "bench/workloads.h"

namespace spool::bench {
namespace {

class RdkDriver final : public ProducerDriver {
 public:
  explicit RdkDriver(std::unique_ptr<Producer> p) : p_(std::move(p)) {}
  Status wait_ready(const std::string& topic, int partitions, int timeout_ms) override {
    return wait_topic_ready(p_->rk(), topic, partitions, timeout_ms);
  }
  Status send(const std::string& topic, int32_t partition, const void* payload, size_t size) override {
    return p_->send(topic, partition, payload, size);
  }
  void poll() override { rd_kafka_poll(p_->rk(), 0); }
  Status flush(int timeout_ms) override { return p_->flush(timeout_ms); }
  int64_t delivered() const override { return p_->delivered(); }
  int64_t failed() const override { return p_->failed(); }
  void reset_counts() override { p_->reset_counts(); }

 private:
  std::unique_ptr<Producer> p_;
};

}  // namespace

Result<std::unique_ptr<ProducerDriver>> make_rdk_driver(const KafkaConfig& config) {
  auto p = Producer::create(config);
  if (!p) return p.status();
  return std::unique_ptr<ProducerDriver>(new RdkDriver(std::move(*p)));
}

Result<std::unique_ptr<ProducerDriver>> make_producer_driver(const std::string& client, const Target& t,
                                                             bool acks_all) {
  if (client == kClientLibrdkafka) {
    KafkaConfig config = throughput_producer_config(t.bootstrap, acks_all);
    config.insert(config.end(), t.client.begin(), t.client.end());
    return make_rdk_driver(config);
  }
  if (client == kClientNative) {
    if (!t.client.empty())
      return Status::error("--client native: the bench translates only PLAINTEXT settings for the native producer");
    auto p = NativeProducer::create(native_throughput_config(t.bootstrap, acks_all));
    if (!p) return p.status();
    return std::unique_ptr<ProducerDriver>(std::move(*p));
  }
  return Status::error("unknown client '" + client + "' (librdkafka or native)");
}

}  // namespace spool::bench
