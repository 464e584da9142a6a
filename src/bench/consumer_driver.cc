// make_consumer_driver, the librdkafka driver (rd_kafka_consumer_poll, one
// message per call, librdkafka's defaults) and the timed read.
#include "bench/consumer_driver.h"

#include <chrono>
#include <thread>

#include "bench/native_consumer.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;

class RdkConsumer final : public ConsumerDriver {
 public:
  explicit RdkConsumer(RdkHandle rk) : rk_(std::move(rk)) {}

  Status wait_ready(const std::string& topic, int timeout_ms) override {
    return wait_topic_ready(rk_.get(), topic, 1, timeout_ms);
  }

  Status assign(const std::string& topic, int32_t partition, int64_t offset) override {
    return assign_partition(rk_.get(), topic, partition, offset);
  }

  Status poll(int timeout_ms, ReadCount* count) override {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_.get(), timeout_ms);
    if (m == nullptr) return Status::ok();
    Status st = Status::ok();
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      st = count->add(m->offset, static_cast<int64_t>(m->len));
    } else if (first_error_.empty() && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      first_error_ = rd_kafka_message_errstr(m);
    }
    rd_kafka_message_destroy(m);
    return st;
  }

  std::string first_error() const override { return first_error_; }

 private:
  RdkHandle rk_;
  std::string first_error_;
};

}  // namespace

Status ReadCount::add(int64_t offset, int64_t value_bytes) {
  if (offset != next_offset)
    return Status::error("record at offset " + std::to_string(offset) + " where " + std::to_string(next_offset) +
                         " was expected (a gap or a repeat)");
  ++records;
  bytes += value_bytes;
  next_offset = offset + 1;
  return Status::ok();
}

Result<std::unique_ptr<ConsumerDriver>> make_consumer_driver(const std::string& client, const Target& t) {
  if (client == kClientLibrdkafka) {
    // librdkafka's defaults, but for the group.id its assign() needs (never joined).
    KafkaConfig config = {{"bootstrap.servers", t.bootstrap},
                          {"group.id", "spool-bench-client"},
                          {"enable.auto.commit", "false"}};
    config.insert(config.end(), t.client.begin(), t.client.end());
    auto c = make_client(RD_KAFKA_CONSUMER, config);
    if (!c) return c.status();
    return std::unique_ptr<ConsumerDriver>(new RdkConsumer(std::move(*c)));
  }
  if (client == kClientNative) {
    if (!t.client.empty())
      return Status::error("the bench translates only PLAINTEXT settings for the native consumer");
    auto c = NativeConsumer::create(native_consume_config(t.bootstrap));
    if (!c) return c.status();
    return std::unique_ptr<ConsumerDriver>(std::move(*c));
  }
  return Status::error("unknown client '" + client + "' (librdkafka or native)");
}

Result<int64_t> wait_log_end(const Target& t, const std::string& topic, int64_t at_least, int timeout_ms) {
  KafkaConfig config = {{"bootstrap.servers", t.bootstrap}};
  config.insert(config.end(), t.client.begin(), t.client.end());
  auto c = make_client(RD_KAFKA_PRODUCER, config);
  if (!c) return c.status();
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  int64_t low = -1, high = -1;
  while (true) {
    rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(c->get(), topic.c_str(), 0, &low, &high, 10000);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
      return Status::error("watermarks of " + topic + ": " + rd_kafka_err2str(e));
    if (low != 0) return Status::error("the log of " + topic + " starts at " + std::to_string(low) + ", not 0");
    if (high >= at_least) return high;
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Status::error("the high watermark of " + topic + " stayed at " + std::to_string(high) + " (below " +
                       std::to_string(at_least) + ") for " + std::to_string(timeout_ms) + " ms");
}

Result<ClientConsume> run_client_consume(const Target& t, const std::string& topic, const std::string& client,
                                      int64_t messages, double timeout_s, Progress* progress) {
  auto c = make_consumer_driver(client, t);
  if (!c) return c.status();
  ConsumerDriver& driver = **c;
  if (auto st = driver.wait_ready(topic, 30000); !st) return st;

  const Clock::time_point t0 = Clock::now();
  const Clock::time_point deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  if (auto st = driver.assign(topic, 0, 0); !st) return st;
  ReadCount n;
  Clock::time_point first = t0, last = t0;
  int64_t shown = 0;
  while (n.records < messages && Clock::now() < deadline) {
    const int64_t before = n.records;
    if (auto st = driver.poll(100, &n); !st) return Status::error(client + " consumer: " + st.message());
    if (n.records == before) continue;
    last = Clock::now();
    if (before == 0) first = last;
    if (progress && n.records - shown >= 65536) {
      shown = n.records;
      progress->live(human_number(static_cast<double>(n.records)) + " msgs read");
    }
  }
  if (n.records != messages) {
    const std::string why = driver.first_error();
    return Status::error(client + " read " + std::to_string(n.records) + " of " + std::to_string(messages) +
                         " records in " + human_number(timeout_s) + " s" + (why.empty() ? "" : " (" + why + ")"));
  }
  ClientConsume r;
  r.read.messages = n.records;
  r.read.bytes = n.bytes;
  r.read.seconds = std::chrono::duration<double>(last - t0).count();
  r.first_record_s = std::chrono::duration<double>(first - t0).count();
  return r;
}

}  // namespace spool::bench
