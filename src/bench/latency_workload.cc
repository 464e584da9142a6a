// End-to-end latency: producer and consumer in this process, the payload
// carries the send time (steady clock), so latency = receipt - stamp.
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "bench/workloads.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kPayload = 100;
constexpr int kWarmupMessages = 50;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// Latency in us of a received message, or -1 if it is not one of ours.
double latency_us(const rd_kafka_message_t* m) {
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR || m->len != kPayload) return -1;
  int64_t sent = 0;
  std::memcpy(&sent, m->payload, sizeof sent);
  return static_cast<double>(now_ns() - sent) / 1e3;
}

void stamp(char* buf) {
  int64_t t = now_ns();
  std::memcpy(buf, &t, sizeof t);
}

// Sends one message and waits for it on the consumer; -1 on timeout.
double one_in_flight(Producer& p, rd_kafka_t* c, const std::string& topic, char* buf, Status* st) {
  stamp(buf);
  // The payload is copied here: `buf` is rewritten for the next message.
  rd_kafka_resp_err_t e = rd_kafka_producev(p.rk(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                            RD_KAFKA_V_VALUE(buf, kPayload), RD_KAFKA_V_END);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    *st = Status::error(std::string("produce: ") + rd_kafka_err2str(e));
    return -1;
  }
  rd_kafka_poll(p.rk(), 0);
  auto deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c, 100);
    if (m == nullptr) continue;
    double us = latency_us(m);
    rd_kafka_message_destroy(m);
    if (us >= 0) {
      rd_kafka_poll(p.rk(), 0);
      return us;
    }
  }
  return -1;
}

}  // namespace

Result<LatencySummary> run_latency(const Target& t, const std::string& topic, int messages, int rate,
                                   Progress* progress) {
  if (messages < 1 || rate < 0) return Status::error("bad latency spec");
  if (auto st = t.create_topic(NewTopic{topic, 1, {}}); !st) return st;
  // Latency-minded clients: no linger, Nagle off, a long poll that the
  // broker ends as soon as data arrives.
  auto p = Producer::create({{"bootstrap.servers", t.bootstrap},
                             {"acks", "1"},
                             {"linger.ms", "0"},
                             {"socket.nagle.disable", "true"},
                             {"message.timeout.ms", "30000"}});
  if (!p) return p.status();
  auto c = make_client(RD_KAFKA_CONSUMER, {{"bootstrap.servers", t.bootstrap},
                                           {"group.id", "spool-bench-latency"},
                                           {"enable.auto.commit", "false"},
                                           {"fetch.wait.max.ms", "100"},
                                           {"fetch.min.bytes", "1"},
                                           {"fetch.error.backoff.ms", "1"},
                                           {"socket.nagle.disable", "true"}});
  if (!c) return c.status();
  Producer& prod = **p;
  rd_kafka_t* cons = c->get();
  if (auto st = wait_topic_ready(prod.rk(), topic, 1, 30000); !st) return st;
  if (auto st = wait_topic_ready(cons, topic, 1, 30000); !st) return st;
  // Start at the current end, resolved now, so no message sent from here on
  // is skipped (OFFSET_END would be resolved later, after the first sends).
  int64_t low = 0, high = 0;
  rd_kafka_resp_err_t we = rd_kafka_query_watermark_offsets(cons, topic.c_str(), 0, &low, &high, 10000);
  if (we != RD_KAFKA_RESP_ERR_NO_ERROR) return Status::error(std::string("watermarks: ") + rd_kafka_err2str(we));
  if (auto st = assign_partition(cons, topic, 0, high); !st) return st;

  char buf[kPayload];
  std::memset(buf, 'x', sizeof buf);
  Status st;
  // Warm-up: until the consumer's fetch position is established and a few
  // round trips went through.
  int warm_ok = 0;
  for (int i = 0; i < kWarmupMessages * 4 && warm_ok < kWarmupMessages && st; ++i)
    if (one_in_flight(prod, cons, topic, buf, &st) >= 0) ++warm_ok;
  if (!st) return st;
  if (warm_ok == 0) return Status::error("warm-up: no message came back within 5 s");

  std::vector<double> lat;
  lat.reserve(static_cast<size_t>(messages));
  int lost = 0;
  if (rate == 0) {
    for (int i = 0; i < messages && st; ++i) {
      double us = one_in_flight(prod, cons, topic, buf, &st);
      if (us >= 0) lat.push_back(us);
      else ++lost;
      if (progress && (i & 127) == 0) progress->live(std::to_string(i) + "/" + std::to_string(messages) + " msgs");
    }
  } else {
    std::atomic<bool> producing{true};
    std::thread sender([&] {
      char out[kPayload];
      std::memset(out, 'x', sizeof out);
      auto next = Clock::now();
      auto gap = std::chrono::nanoseconds(1000000000LL / rate);
      for (int i = 0; i < messages; ++i) {
        std::this_thread::sleep_until(next);
        next += gap;
        stamp(out);
        while (rd_kafka_producev(prod.rk(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_VALUE(out, kPayload),
                                 RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
          rd_kafka_poll(prod.rk(), 1);
        rd_kafka_poll(prod.rk(), 0);
      }
      producing = false;
    });
    auto deadline = Clock::now() + std::chrono::seconds(messages / rate + 30);
    while (static_cast<int>(lat.size()) < messages && Clock::now() < deadline) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(cons, 100);
      if (m == nullptr) continue;
      double us = latency_us(m);
      rd_kafka_message_destroy(m);
      if (us >= 0) lat.push_back(us);
      if (progress && (lat.size() & 255) == 0)
        progress->live(std::to_string(lat.size()) + "/" + std::to_string(messages) + " msgs");
    }
    sender.join();
    lost = messages - static_cast<int>(lat.size());
  }
  if (!st) return st;
  if (auto fst = prod.flush(30000); !fst) return fst;
  if (lost > 0)
    return Status::error(std::to_string(lost) + " of " + std::to_string(messages) + " messages did not come back");
  return summarize_latencies(std::move(lat));
}

}  // namespace spool::bench
