// Per-partition unavailability during a controlled shutdown (see
// cluster_workloads.h, run_controlled_shutdown).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "bench/cluster_workloads.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kSendInterval = std::chrono::microseconds(1000);
constexpr double kSteadySeconds = 3.0;
constexpr double kAfterExitSeconds = 2.0;
constexpr int64_t kBeforeSigtermNs = 500'000'000;
constexpr size_t kMaxMessages = 1'000'000;  // 1000 s at one per ms: far past any run

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

}  // namespace

Result<ShutdownResult> run_controlled_shutdown(ManagedCluster& c, const std::string& topic, int partitions, int victim,
                                               Progress* progress, bool* stopped) {
  if (stopped != nullptr) *stopped = false;
  if (partitions < 1 || victim < 0 || victim >= c.size()) return Status::error("bad controlled shutdown spec");
  const std::string bs = c.bootstrap();
  NewTopic nt{topic, partitions, {}, c.size()};
  for (int p = 0; p < partitions; ++p) {
    std::vector<int32_t> replicas{victim};
    for (int k = 1; k < c.size(); ++k) replicas.push_back((victim + (p % 2 ? k : c.size() - k)) % c.size());
    nt.replica_assignment.push_back(replicas);
  }
  if (auto st = create_topics(bs, {nt}, 60000); !st) return st;
  // Every node knows the topic before the producer starts (Kafka's brokers
  // learn of a new topic one by one; a lagging one's answer would leave the
  // producer without the partitions).
  for (int i = 0; i < c.size(); ++i) {
    auto probe = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", c.node_bootstrap(i)}, {"log_level", "0"}});
    if (!probe) return probe.status();
    if (auto st = wait_topic_ready(probe->get(), topic, partitions, 60000); !st)
      return Status::error("node " + std::to_string(i) + ": " + st.message());
  }
  KafkaConfig pc = failover_client(bs);
  pc.insert(pc.end(), {{"acks", "all"}, {"enable.idempotence", "true"}, {"linger.ms", "0"},
                       {"message.timeout.ms", "300000"}});
  auto producer = Producer::create(pc);
  if (!producer) return producer.status();
  Producer& p = **producer;
  if (auto st = wait_topic_ready(p.rk(), topic, partitions, 30000); !st) return st;

  // Per message: its partition, when it was sent and when acknowledged.
  auto sent = std::make_unique<std::atomic<int64_t>[]>(kMaxMessages);
  auto acked = std::make_unique<std::atomic<int64_t>[]>(kMaxMessages);
  std::atomic<int64_t> next{0}, acks{0};
  p.set_delivery_hook([&](const rd_kafka_message_t& m) {
    if (m.err != RD_KAFKA_RESP_ERR_NO_ERROR) return;  // counted below: never acknowledged
    int64_t seq = -1;
    if (m.len == sizeof seq) std::memcpy(&seq, m.payload, sizeof seq);
    if (seq >= 0 && static_cast<size_t>(seq) < kMaxMessages) acked[static_cast<size_t>(seq)].store(now_ns());
    acks.fetch_add(1);
  });
  std::atomic<bool> stop{false};
  Status send_error = Status::ok();
  std::thread sender([&] {
    auto due = Clock::now();
    while (!stop.load()) {
      const int64_t seq = next.load();
      if (static_cast<size_t>(seq) >= kMaxMessages) break;
      sent[static_cast<size_t>(seq)].store(now_ns());
      rd_kafka_resp_err_t e = rd_kafka_producev(
          p.rk(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(static_cast<int32_t>(seq % partitions)),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_VALUE(const_cast<int64_t*>(&seq), sizeof seq),
          RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(p.rk(), 1);
        continue;
      }
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        send_error = Status::error(std::string("produce: ") + rd_kafka_err2str(e));
        break;
      }
      next.store(seq + 1);
      rd_kafka_poll(p.rk(), 0);
      due += kSendInterval;
      std::this_thread::sleep_until(due);
    }
  });
  auto finish = [&] {
    stop.store(true);
    sender.join();
    (void)p.flush(60000);
    p.set_delivery_hook(nullptr);  // it refers to this frame
  };
  if (!wait_for([&] { return acks.load() >= 1000; }, 60, progress, "warming up")) {
    finish();
    return Status::error("warm-up: " + std::to_string(acks.load()) + " acknowledged in 60 s (" + p.first_error() + ")");
  }
  const int64_t warm_from = next.load();  // the baseline leaves the start-up out
  std::this_thread::sleep_for(std::chrono::duration<double>(kSteadySeconds));
  const int64_t steady_until = next.load();
  const int64_t sigterm_ns = now_ns();
  if (progress) progress->live("SIGTERM to node " + std::to_string(victim));
  if (stopped != nullptr) *stopped = true;
  Status terminated = c.terminate(victim, 120);
  const int64_t exited_ns = now_ns();
  std::this_thread::sleep_for(std::chrono::duration<double>(kAfterExitSeconds));
  finish();
  if (!send_error) return send_error;
  if (!terminated) return Status::error("node " + std::to_string(victim) + " did not stop cleanly: " + terminated.message());

  ShutdownResult r;
  r.shutdown_s = static_cast<double>(exited_ns - sigterm_ns) / 1e9;
  r.unavailable_ms.assign(static_cast<size_t>(partitions), 0.0);
  std::vector<double> before;
  const int64_t end = next.load();
  for (int64_t seq = 0; seq < end; ++seq) {
    const int64_t s = sent[static_cast<size_t>(seq)].load();
    const int64_t a = acked[static_cast<size_t>(seq)].load();
    if (a == 0) {
      ++r.errors;  // never acknowledged
      continue;
    }
    const double ms = static_cast<double>(a - s) / 1e6;
    if (seq < steady_until && s < sigterm_ns - kBeforeSigtermNs) {
      if (seq >= warm_from) before.push_back(ms);
      continue;
    }
    double& worst = r.unavailable_ms[static_cast<size_t>(seq % partitions)];
    worst = std::max(worst, ms);
  }
  std::sort(before.begin(), before.end());
  r.baseline_p99_ms = percentile_sorted(before, 0.99);
  return r;
}

}  // namespace spool::bench
