// Failover time and replication lag on a cluster (see cluster_workloads.h).
#include "bench/cluster_workloads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kSeqPayload = 16;  // int64 sequence number + padding
constexpr auto kSendInterval = std::chrono::milliseconds(2);
constexpr auto kLagSampleInterval = std::chrono::milliseconds(10);
constexpr double kWarmupSeconds = 60;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// Sequence number of one of our payloads, or -1.
int64_t seq_of(const void* payload, size_t len) {
  if (len != kSeqPayload || payload == nullptr) return -1;
  int64_t seq = 0;
  std::memcpy(&seq, payload, sizeof seq);
  return seq;
}

Result<int> partition_leader(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 5000);
  rd_kafka_topic_destroy(rkt);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR || md == nullptr)
    return Status::error(std::string("metadata: ") + rd_kafka_err2str(e));
  int leader = md->topic_cnt == 1 && md->topics[0].partition_cnt >= 1 ? md->topics[0].partitions[0].leader : -1;
  rd_kafka_metadata_destroy(md);
  if (leader < 0) return Status::error("partition 0 of " + topic + " has no leader");
  return leader;
}

}  // namespace

KafkaConfig failover_client(const std::string& bootstrap) {
  return {{"bootstrap.servers", bootstrap},
          {"reconnect.backoff.ms", "10"},
          {"reconnect.backoff.max.ms", "100"},
          {"retry.backoff.ms", "10"},
          {"topic.metadata.refresh.fast.interval.ms", "50"},
          {"socket.nagle.disable", "true"},
          {"log_level", "0"}};  // the dead broker's connection errors are expected
}

Target cluster_target(const std::string& name, const std::string& bootstrap, int replication_factor) {
  return Target{name, bootstrap, "",
                [bootstrap, replication_factor](const NewTopic& nt) {
                  NewTopic with_rf = nt;
                  with_rf.replication_factor = replication_factor;
                  return create_topics(bootstrap, {with_rf}, 60000);
                },
                [bootstrap](const std::string& topic) { (void)delete_topics(bootstrap, {topic}, 30000); }};
}

Status ensure_offsets_topic(const std::string& bootstrap, double timeout_s) {
  // A consumer with a group.id looks for its coordinator (FindCoordinator)
  // from librdkafka's own threads, which makes the broker create the topic.
  // (Only its existence and leaders are awaited: Spool's group coordinator
  // does not serve groups in cluster mode yet.)
  auto c = make_client(RD_KAFKA_CONSUMER, {{"bootstrap.servers", bootstrap},
                                           {"group.id", "spool-bench-prime"},
                                           {"enable.auto.commit", "false"},
                                           {"log_level", "0"}});
  if (!c) return c.status();
  return wait_topic_ready(c->get(), "__consumer_offsets", 1, static_cast<int>(timeout_s * 1000));
}

Result<FailoverResult> run_failover(ManagedCluster& c, const std::string& topic, double timeout_s,
                                    Progress* progress, int* killed) {
  if (killed != nullptr) *killed = -1;
  const std::string bs = c.bootstrap();
  if (auto st = create_topics(bs, {NewTopic{topic, 1, {}, c.size()}}, 60000); !st) return st;
  KafkaConfig pc = failover_client(bs);
  pc.insert(pc.end(), {{"acks", "all"}, {"linger.ms", "0"}, {"message.timeout.ms", "300000"}});
  auto producer = Producer::create(pc);
  if (!producer) return producer.status();
  Producer& p = **producer;
  if (auto st = wait_topic_ready(p.rk(), topic, 1, 30000); !st) return st;
  auto leader = partition_leader(p.rk(), topic);
  if (!leader) return leader.status();
  if (*leader >= c.size()) return Status::error("leader " + std::to_string(*leader) + " is not a node of the cluster");

  KafkaConfig cc = failover_client(bs);
  cc.insert(cc.end(), {{"group.id", "spool-bench-failover"},
                       {"enable.auto.commit", "false"},
                       {"fetch.wait.max.ms", "100"},
                       {"fetch.error.backoff.ms", "10"}});
  auto consumer = make_client(RD_KAFKA_CONSUMER, cc);
  if (!consumer) return consumer.status();
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_resp_err_t ae = rd_kafka_assign(consumer->get(), parts);
  rd_kafka_topic_partition_list_destroy(parts);
  if (ae != RD_KAFKA_RESP_ERR_NO_ERROR) return Status::error(std::string("assign: ") + rd_kafka_err2str(ae));

  std::atomic<bool> stop{false};
  std::atomic<int64_t> next_seq{0}, acked{0}, received{0};
  std::atomic<int64_t> after_kill{std::numeric_limits<int64_t>::max()};  // first seq sent after the kill
  std::atomic<int64_t> produced_ns{0}, consumed_ns{0};
  p.set_delivery_hook([&](const rd_kafka_message_t& m) {
    if (m.err != RD_KAFKA_RESP_ERR_NO_ERROR) return;
    acked.fetch_add(1);
    if (seq_of(m.payload, m.len) >= after_kill.load()) set_once(produced_ns, now_ns());
  });
  Status send_error;
  std::thread sender([&] {
    char buf[kSeqPayload] = {};
    while (!stop.load()) {
      int64_t seq = next_seq.fetch_add(1);
      std::memcpy(buf, &seq, sizeof seq);
      rd_kafka_resp_err_t e = rd_kafka_producev(p.rk(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                                RD_KAFKA_V_VALUE(buf, sizeof buf), RD_KAFKA_V_END);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        send_error = Status::error(std::string("produce: ") + rd_kafka_err2str(e));
        break;
      }
      rd_kafka_poll(p.rk(), 0);
      std::this_thread::sleep_for(kSendInterval);
    }
  });
  std::thread reader([&] {
    while (!stop.load()) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer->get(), 50);
      if (m == nullptr) continue;
      if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        received.fetch_add(1);
        if (seq_of(m->payload, m->len) >= after_kill.load()) set_once(consumed_ns, now_ns());
      }
      rd_kafka_message_destroy(m);
    }
  });
  auto finish = [&] {
    stop.store(true);
    sender.join();
    reader.join();
    rd_kafka_purge(p.rk(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_poll(p.rk(), 0);
    p.set_delivery_hook(nullptr);  // it refers to this frame
  };

  // Both clients are flowing before the kill.
  if (!wait_for([&] { return acked.load() >= 100 && received.load() >= 100; }, kWarmupSeconds, progress,
                "warming up")) {
    std::string why = p.first_error();
    finish();
    return Status::error("warm-up: " + std::to_string(acked.load()) + " acked, " + std::to_string(received.load()) +
                         " received in " + std::to_string(static_cast<int>(kWarmupSeconds)) +
                         " s (first delivery error: " + why + ")");
  }
  int64_t kill_ns = now_ns();
  c.kill9(*leader);
  if (killed != nullptr) *killed = *leader;
  after_kill.store(next_seq.load());
  bool done = wait_for([&] { return produced_ns.load() != 0 && consumed_ns.load() != 0; }, timeout_s, progress,
                       "node " + std::to_string(*leader) + " killed, waiting for the failover:");
  finish();
  if (!send_error) return send_error;
  if (!done)
    return Status::error("no failover within " + std::to_string(static_cast<int>(timeout_s)) + " s of killing node " +
                         std::to_string(*leader) + " (produce " + (produced_ns.load() ? "resumed" : "did not resume") +
                         ", consume " + (consumed_ns.load() ? "resumed" : "did not resume") + ")");
  FailoverResult r;
  r.killed = *leader;
  r.produce_s = static_cast<double>(produced_ns.load() - kill_ns) / 1e9;
  r.consume_s = static_cast<double>(consumed_ns.load() - kill_ns) / 1e9;
  return r;
}

Result<LagResult> run_replication_lag(const Target& t, const std::string& topic, int replication_factor,
                                      double MB_per_s, double seconds, Progress* progress) {
  if (!(MB_per_s > 0) || !(seconds > 0)) return Status::error("bad replication lag spec");
  if (auto st = create_topics(t.bootstrap, {NewTopic{topic, 1, {}, replication_factor}}, 60000); !st) return st;
  auto producer = Producer::create(throughput_producer_config(t.bootstrap, /*acks_all=*/false));
  if (!producer) return producer.status();
  Producer& p = **producer;
  if (auto st = wait_topic_ready(p.rk(), topic, 1, 30000); !st) return st;
  std::string payload(1024, 'l');
  if (auto st = p.send(topic, 0, payload.data(), payload.size()); !st) return st;
  if (auto st = p.flush(60000); !st) return Status::error("warm-up: " + st.message());
  p.reset_counts();

  auto sampler_client = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", t.bootstrap}});
  if (!sampler_client) return sampler_client.status();
  std::atomic<int64_t> max_acked{-1};
  p.set_delivery_hook([&](const rd_kafka_message_t& m) {
    if (m.err != RD_KAFKA_RESP_ERR_NO_ERROR) return;
    int64_t seen = max_acked.load();
    while (m.offset > seen && !max_acked.compare_exchange_weak(seen, m.offset)) {
    }
  });
  std::atomic<bool> stop{false};
  std::vector<double> lags;
  std::string sample_error;
  std::thread sampler([&] {
    while (!stop.load()) {
      int64_t lo = 0, hw = 0;
      rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(sampler_client->get(), topic.c_str(), 0, &lo, &hw, 2000);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        sample_error = rd_kafka_err2str(e);
      } else if (int64_t acked = max_acked.load(); acked >= 0) {
        lags.push_back(static_cast<double>(std::max<int64_t>(0, acked + 1 - hw)));
      }
      std::this_thread::sleep_for(kLagSampleInterval);
    }
  });

  const double rate = MB_per_s * 1e6 / static_cast<double>(payload.size());  // messages per second
  auto t0 = Clock::now();
  int64_t sent = 0, loops = 0;
  Status st = Status::ok();
  for (;;) {
    double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    if (elapsed >= seconds) break;
    auto due = static_cast<int64_t>(rate * elapsed);
    for (; sent < due && st; ++sent) st = p.send(topic, 0, payload.data(), payload.size());
    if (!st) break;
    rd_kafka_poll(p.rk(), 0);
    if (progress && ++loops % 100 == 0) progress->live(human_number(static_cast<double>(sent)) + " msgs sent");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (st) st = p.flush(120000);
  double took = std::chrono::duration<double>(Clock::now() - t0).count();
  stop.store(true);
  sampler.join();
  p.set_delivery_hook(nullptr);  // it refers to this frame
  if (!st) return st;
  if (lags.empty()) return Status::error("no ListOffsets sample" + (sample_error.empty() ? "" : ": " + sample_error));
  std::sort(lags.begin(), lags.end());
  LagResult r;
  r.MB_per_s = static_cast<double>(p.delivered()) * static_cast<double>(payload.size()) / took / 1e6;
  r.p50_msgs = percentile_sorted(lags, 0.50);
  r.p99_msgs = percentile_sorted(lags, 0.99);
  r.max_msgs = lags.back();
  r.samples = lags.size();
  return r;
}

}  // namespace spool::bench
