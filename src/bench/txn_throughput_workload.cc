// Transaction throughput on a cluster (see coordinator_workloads.h).
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "bench/coordinator_workloads.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kWarmupSeconds = 2;  // every producer looping, untimed (a JVM broker's JIT warms up too)
constexpr int kTxnCallTimeoutMs = 60000;  // = transaction.timeout.ms (librdkafka's default)

Status txn_error(rd_kafka_error_t* e, const std::string& what) {
  std::string msg = what + ": " + rd_kafka_error_string(e) + (rd_kafka_error_is_fatal(e) ? " (fatal)" : "") +
                    (rd_kafka_error_txn_requires_abort(e) ? " (abortable)" : "") +
                    (rd_kafka_error_is_retriable(e) ? " (retriable)" : "");
  rd_kafka_error_destroy(e);
  return Status::error(msg);
}

struct Worker {
  std::unique_ptr<Producer> producer;
  int32_t partition = 0;
  int64_t committed = 0;
  Clock::time_point last_commit{};
  Status status;
};

// begin -> n produce -> commit_transaction; any error fails the run (the
// client retries what is retriable itself).
Status one_transaction(Worker& w, const std::string& topic, const std::string& payload, int n) {
  rd_kafka_t* rk = w.producer->rk();
  if (rd_kafka_error_t* e = rd_kafka_begin_transaction(rk)) return txn_error(e, "begin_transaction");
  for (int i = 0; i < n; ++i)
    if (auto st = w.producer->send(topic, w.partition, payload.data(), payload.size()); !st) return st;
  if (rd_kafka_error_t* e = rd_kafka_commit_transaction(rk, kTxnCallTimeoutMs))
    return txn_error(e, "commit_transaction");
  if (w.producer->failed() > 0)
    return Status::error("a committed transaction had a failed delivery: " + w.producer->first_error());
  return Status::ok();
}

KafkaConfig txn_producer_config(const std::string& bootstrap, const std::string& transactional_id) {
  KafkaConfig c = throughput_producer_config(bootstrap, /*acks_all=*/true);
  for (auto& [k, v] : c)
    if (k == "message.timeout.ms") v = std::to_string(kTxnCallTimeoutMs);  // <= transaction.timeout.ms
  c.emplace_back("transactional.id", transactional_id);
  return c;
}

}  // namespace

std::string txn_workload_id(const TxnSpec& s, int replication_factor) {
  std::string size = s.message_bytes % 1024 == 0 ? std::to_string(s.message_bytes / 1024) + "KB"
                                                  : std::to_string(s.message_bytes) + "B";
  return "cluster/txn/" + std::to_string(s.messages_per_txn) + "x" + size + "/rf=" +
         std::to_string(replication_factor) + "/p" + std::to_string(s.partitions) + "/x" + std::to_string(s.producers);
}

Result<TxnThroughput> run_txn_throughput(const Target& t, const std::string& topic, const TxnSpec& s, double seconds,
                                         Progress* progress) {
  if (s.partitions < 1 || s.producers < 1 || s.messages_per_txn < 1 || s.message_bytes < 1 || !(seconds > 0))
    return Status::error("bad transaction spec");
  if (auto st = t.create_topic(NewTopic{topic, s.partitions, {}}); !st) return st;
  const std::string payload(static_cast<size_t>(s.message_bytes), 't');
  std::vector<Worker> workers(static_cast<size_t>(s.producers));
  // Untimed: clients, metadata, InitProducerId and one whole transaction each.
  for (size_t i = 0; i < workers.size(); ++i) {
    Worker& w = workers[i];
    auto p = Producer::create(txn_producer_config(t.bootstrap, topic + "-txn-" + std::to_string(i)));
    if (!p) return p.status();
    w.producer = std::move(*p);
    w.partition = static_cast<int32_t>(i % static_cast<size_t>(s.partitions));
    if (auto st = wait_topic_ready(w.producer->rk(), topic, s.partitions, 30000); !st) return st;
    if (rd_kafka_error_t* e = rd_kafka_init_transactions(w.producer->rk(), kTxnCallTimeoutMs))
      return txn_error(e, "init_transactions");
    if (auto st = one_transaction(w, topic, payload, s.messages_per_txn); !st)
      return Status::error("first transaction: " + st.message());
  }

  // All producers loop from `warm`; transactions begun from t0 on are timed.
  std::atomic<int64_t> total{0};
  auto after = [](Clock::time_point from, double sec) {
    return from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(sec));
  };
  const auto warm = Clock::now();
  const auto t0 = after(warm, kWarmupSeconds);
  const auto end = after(t0, seconds);
  std::vector<std::thread> threads;
  for (auto& w : workers)
    threads.emplace_back([&w, &topic, &payload, &s, &total, t0, end] {
      for (;;) {
        const auto begun = Clock::now();
        if (begun >= end) return;
        w.status = one_transaction(w, topic, payload, s.messages_per_txn);
        if (!w.status) return;
        if (begun < t0) continue;
        ++w.committed;
        total.fetch_add(1, std::memory_order_relaxed);
        w.last_commit = Clock::now();
      }
    });
  while (Clock::now() < end) {
    if (progress) progress->live(human_number(static_cast<double>(total.load())) + " transactions committed");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (auto& th : threads) th.join();

  TxnThroughput r;
  r.payload_bytes_per_txn = static_cast<int64_t>(s.messages_per_txn) * s.message_bytes;
  auto last = t0;
  for (const auto& w : workers) {
    if (!w.status) return Status::error("producer " + std::to_string(&w - workers.data()) + ": " + w.status.message());
    r.transactions += w.committed;
    if (w.committed > 0 && w.last_commit > last) last = w.last_commit;
  }
  r.seconds = std::chrono::duration<double>(last - t0).count();
  if (r.transactions == 0) return Status::error("no transaction committed in " + human_number(seconds) + " s");
  return r;
}

}  // namespace spool::bench
