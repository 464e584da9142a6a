// Produce throughput: N producers (librdkafka or the native producer, see
// producer_driver.h) on their own threads, each sending its share
// round-robin over the partitions.
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "bench/workloads.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Worker {
  std::unique_ptr<ProducerDriver> producer;
  int64_t share = 0;
  int64_t sent = 0;
  Status status;
};

}  // namespace

KafkaConfig throughput_producer_config(const std::string& bootstrap, bool acks_all) {
  // Throughput settings a user tuning librdkafka would pick (the same as
  // /work/shared/tools/kbench.c): large batches, a short linger, no compression.
  return {{"bootstrap.servers", bootstrap},
          {"acks", acks_all ? "all" : "1"},
          {"linger.ms", "5"},
          {"batch.size", "1000000"},
          {"queue.buffering.max.messages", "1000000"},
          {"queue.buffering.max.kbytes", "1048576"},
          {"compression.codec", "none"},
          {"message.timeout.ms", "120000"}};
}

std::string produce_workload_id(const ProduceSpec& s) {
  return std::string("produce/") + (s.size == 1024 ? "1KB" : std::to_string(s.size) + "B") +
         "/acks=" + (s.acks_all ? "all" : "1") + "/p" + std::to_string(s.partitions) + "/x" +
         std::to_string(s.producers);
}

Result<Throughput> run_produce(const Target& t, const std::string& topic, const ProduceSpec& s, int64_t messages,
                               double max_seconds, Progress* progress) {
  if (s.size < 8 || s.partitions < 1 || s.producers < 1 || messages < s.producers)
    return Status::error("bad produce spec");
  NewTopic nt{topic, s.partitions, {}};
  if (auto st = t.create_topic(nt); !st) return st;

  std::string payload(static_cast<size_t>(s.size), 'x');
  std::vector<Worker> workers(static_cast<size_t>(s.producers));
  for (size_t w = 0; w < workers.size(); ++w) {
    auto p = make_producer_driver(s.client, t, s.acks_all);
    if (!p) return p.status();
    workers[w].producer = std::move(*p);
    workers[w].share = messages / s.producers + (static_cast<int64_t>(w) < messages % s.producers ? 1 : 0);
    // Warm-up, untimed: metadata, connections and one message per partition.
    ProducerDriver& pr = *workers[w].producer;
    if (auto st = pr.wait_ready(topic, s.partitions, 30000); !st) return st;
    for (int part = 0; part < s.partitions; ++part)
      if (auto st = pr.send(topic, part, payload.data(), payload.size()); !st) return st;
    if (auto st = pr.flush(60000); !st) return Status::error("warm-up: " + st.message());
    pr.reset_counts();
  }

  std::atomic<bool> go{false};
  std::atomic<int64_t> total_sent{0};
  auto deadline_after = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_seconds));
  std::vector<std::thread> threads;
  Clock::time_point t0;
  for (size_t w = 0; w < workers.size(); ++w) {
    threads.emplace_back([&, w] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      Worker& me = workers[w];
      auto deadline = t0 + deadline_after;
      auto part = static_cast<int32_t>(w % static_cast<size_t>(s.partitions));
      for (int64_t i = 0; i < me.share; ++i) {
        if (auto st = me.producer->send(topic, part, payload.data(), payload.size()); !st) {
          me.status = st;
          break;
        }
        ++me.sent;
        if (++part == s.partitions) part = 0;
        if ((i & 1023) == 1023) {
          me.producer->poll();
          int64_t all = total_sent.fetch_add(1024, std::memory_order_relaxed) + 1024;
          if (w == 0 && progress) progress->live(human_number(static_cast<double>(all)) + " msgs sent");
          if (Clock::now() >= deadline) break;
        }
      }
      if (me.status) me.status = me.producer->flush(180000);
    });
  }
  t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  double seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  Throughput r;
  r.seconds = seconds;
  for (auto& w : workers) {
    if (!w.status) return w.status;
    r.messages += w.producer->delivered();
  }
  r.bytes = r.messages * s.size;
  if (r.messages == 0) return Status::error("nothing was delivered");
  return r;
}

}  // namespace spool::bench
