// Session planning (runner_session.h): the steps of each workload family
// for one deployment and repetition, and the report's notes on how the
// workloads were run. Every broker gets the same librdkafka client settings
// and the same sizes; only the mock peer reads and waits less (see notes).
#include <filesystem>

#include "bench/machine_limits.h"
#include "bench/runner_session.h"

namespace spool::bench {
namespace {

constexpr int64_t kMockConsumeMessages = 4000;
constexpr int kMockLatencyMessages = 500;

std::string fmt_rate(const Throughput& t) {
  return human_number(t.msgs_per_s()) + " msg/s, " + human_number(t.MB_per_s()) + " MB/s";
}

std::string fmt_latency(const LatencySummary& l) {
  return "p50 " + human_number(l.p50_us) + " us, p99 " + human_number(l.p99_us) + " us, p99.9 " +
         human_number(l.p999_us) + " us";
}

// The standard produce set covers every target and each dimension (size,
// acks, partitions, producers) at least once; --all-combos runs all 16. The
// durability rows run the two combinations their comparison needs.
std::vector<ProduceSpec> produce_specs(bool quick, bool all, bool full) {
  if (!full) return {{100, false, 1, 1}, {1024, true, 1, 1}};
  if (quick) return {{100, false, 1, 1}, {1024, false, 1, 1}, {1024, true, 1, 1}};
  std::vector<ProduceSpec> v;
  if (all) {
    for (int size : {100, 1024})
      for (bool acks_all : {false, true})
        for (int p : {1, 16})
          for (int x : {1, 4}) v.push_back({size, acks_all, p, x});
    return v;
  }
  return {{100, false, 1, 1},  {100, true, 1, 1},  {1024, false, 1, 1}, {1024, true, 1, 1},
          {100, false, 16, 1}, {100, false, 1, 4}, {1024, false, 16, 4}, {1024, true, 16, 4}};
}

}  // namespace

void Session::plan_machine(std::vector<Step>* steps) {
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    steps->push_back({run_label("machine/loopback", "machine", rep), [this]() -> Result<std::string> {
                        auto v = loopback_MBps(z_.loopback_seconds);
                        if (!v) return v.status();
                        record("machine/loopback", "machine", "MB_per_s", *v);
                        return human_number(*v) + " MB/s";
                      }});
    if (work_dir_.empty()) continue;
    for (bool sync : {false, true}) {
      std::string id = sync ? "machine/disk-write-fdatasync" : "machine/disk-write";
      steps->push_back({run_label(id, "machine", rep), [this, id, sync]() -> Result<std::string> {
                          auto v = disk_write_MBps(work_dir_, sync ? z_.disk_bytes_fdatasync : z_.disk_bytes, sync);
                          if (!v) return v.status();
                          record(id, "machine", "MB_per_s", *v);
                          return human_number(*v) + " MB/s";
                        }});
    }
  }
}

void Session::plan_produce(Deployment& d, int rep, std::vector<Step>* steps) {
  for (ProduceSpec spec : produce_specs(o_.quick, o_.all_combos, d.full)) {
    spec.client = o_.client;
    std::string id = produce_workload_id(spec);
    int64_t n = spec.size >= 1024 ? std::max<int64_t>(z_.messages / 4, 100) : z_.messages;
    steps->push_back({run_label(id, d.name, rep),
                      [this, spec, id, n, &d]() -> Result<std::string> {
                        return on(d, [&](const Target& t) -> Result<std::string> {
                          std::string topic = next_topic("produce");
                          auto res = run_produce(t, topic, spec, n, z_.duration_s, progress_.get());
                          t.drop_topic(topic);
                          if (!res) return res.status();
                          record(id, d.name, "msgs_per_s", res->msgs_per_s());
                          record(id, d.name, "MB_per_s", res->MB_per_s());
                          return fmt_rate(*res);
                        });
                      },
                      &d});
  }
}

void Session::plan_consume(Deployment& d, int rep, std::vector<Step>* steps) {
  auto fill = [](const Target& t, const std::string& topic, int64_t n) -> Status {
    auto res = run_produce(t, topic, ProduceSpec{1024, false, 1, 1}, n, 1e9, nullptr);
    if (!res) return Status::error("prefill: " + res.status().message());
    if (res->messages < n) return Status::error("prefill delivered only " + std::to_string(res->messages));
    return Status::ok();
  };
  auto read = [this, &d](const Target& t, const std::string& topic, const std::string& id,
                         int64_t n) -> Result<std::string> {
    auto res = run_consume(t, topic, n, 300, progress_.get());
    if (!res) return res.status();
    record(id, d.name, "msgs_per_s", res->msgs_per_s());
    record(id, d.name, "MB_per_s", res->MB_per_s());
    return fmt_rate(*res);
  };
  if (d.kind == Kind::kMock) {
    // The mock cluster keeps only the last ~5 MB of a partition, so it reads a log that fits.
    const int64_t n = std::min<int64_t>(z_.consume_messages, kMockConsumeMessages);
    steps->push_back({run_label("consume/1KB/cached", d.name, rep), [this, &d, fill, read, n]() -> Result<std::string> {
                        return on(d, [&](const Target& t) -> Result<std::string> {
                          std::string topic = next_topic("consume");
                          if (auto st = fill(t, topic, n); !st) return st;
                          return read(t, topic, "consume/1KB/cached", n);
                        });
                      }});
    return;
  }
  // One log per phase: written once, read back cached, then read after its
  // pages were dropped (cold), which caches it again. The Java tools'
  // ConsumerPerformance reads it too.
  const int64_t n = z_.consume_messages;
  steps->push_back({"consume/1KB " + d.name + " prefill " + human_number(static_cast<double>(n)) + " x 1 KB",
                    [this, &d, fill, n]() -> Result<std::string> {
                      d.consume_topic = next_topic("consume");
                      if (auto st = fill(*d.target, d.consume_topic, n); !st) return st;
                      d.consume_filled = true;
                      return std::string("written");
                    },
                    &d});
  steps->push_back({run_label("consume/1KB/cached", d.name, rep),
                    [&d, read, n]() -> Result<std::string> {
                      if (!d.consume_filled) return Status::error("prefill failed");
                      return read(*d.target, d.consume_topic, "consume/1KB/cached", n);
                    },
                    &d});
  if (d.kind == Kind::kSpool && !o_.bootstrap.empty()) return;  // not our data dir
  steps->push_back({run_label("consume/1KB/cold", d.name, rep),
                    [&d, read, n]() -> Result<std::string> {
                      if (!d.consume_filled) return Status::error("prefill failed");
                      auto dropped = drop_page_cache(d.target->data_dir);
                      if (!dropped) return dropped.status();
                      return read(*d.target, d.consume_topic, "consume/1KB/cold", n);
                    },
                    &d});
}

void Session::plan_latency(Deployment& d, int rep, std::vector<Step>* steps) {
  struct Variant {
    std::string id;
    int rate;
  };
  std::vector<Variant> variants = {{"latency/100B/acks=1/in-flight=1", 0}};
  if (d.full) variants.push_back({"latency/100B/acks=1/rate=" + std::to_string(z_.latency_rate), z_.latency_rate});
  for (const auto& v : variants) {
    steps->push_back({run_label(v.id, d.name, rep),
                      [this, v, &d]() -> Result<std::string> {
                        return on(d, [&](const Target& t) -> Result<std::string> {
                          std::string topic = next_topic("latency");
                          // The mock answers an empty fetch only when fetch.wait.max.ms ran
                          // out (no wake-up on produce), so many mock round trips take 100 ms.
                          int n = d.kind == Kind::kMock ? std::min(z_.latency_messages, kMockLatencyMessages)
                                                        : z_.latency_messages;
                          auto res = run_latency(t, topic, n, v.rate, progress_.get());
                          t.drop_topic(topic);
                          if (!res) return res.status();
                          record(v.id, d.name, "p50_us", res->p50_us);
                          record(v.id, d.name, "p99_us", res->p99_us);
                          record(v.id, d.name, "p999_us", res->p999_us);
                          record(v.id, d.name, "max_us", res->max_us);
                          return fmt_latency(*res);
                        });
                      },
                      &d});
  }
}

void Session::plan_tools(Deployment& d, int rep, std::vector<Step>* steps) {
  if (!tools_) return;
  const double timeout = 600;
  struct Prod {
    int size;
    bool acks_all;
    int64_t records;
  };
  for (const Prod& p : {Prod{100, false, z_.tool_records_100B}, Prod{1024, true, z_.tool_records_1KB}}) {
    std::string id = std::string("produce/") + (p.size == 1024 ? "1KB" : "100B") + "/acks=" +
                     (p.acks_all ? "all" : "1") + "/p1/ProducerPerformance";
    steps->push_back({run_label(id, d.name, rep),
                      [this, p, id, timeout, &d]() -> Result<std::string> {
                        std::string topic = next_topic("perf");
                        auto res = run_producer_performance(*tools_, *d.target, topic, p.size, p.acks_all, p.records,
                                                            timeout);
                        d.target->drop_topic(topic);
                        if (!res) return res.status();
                        record(id, d.name, "msgs_per_s", res->msgs_per_s());
                        record(id, d.name, "MB_per_s", res->MB_per_s());
                        return fmt_rate(*res);
                      },
                      &d});
  }
  if (wants("consume")) {
    const std::string id = "consume/1KB/cached/ConsumerPerformance";
    steps->push_back({run_label(id, d.name, rep),
                      [this, id, timeout, &d]() -> Result<std::string> {
                        if (!d.consume_filled) return Status::error("no consume log (prefill failed)");
                        auto res = run_consumer_performance(*tools_, *d.target, d.consume_topic, 1024,
                                                            z_.consume_messages, timeout);
                        if (!res) return res.status();
                        record(id, d.name, "msgs_per_s", res->msgs_per_s());
                        record(id, d.name, "MB_per_s", res->MB_per_s());
                        return fmt_rate(*res);
                      },
                      &d});
  }
  const std::string id = "latency/100B/acks=1/in-flight=1/EndToEndLatency";
  steps->push_back({run_label(id, d.name, rep),
                    [this, id, timeout, &d]() -> Result<std::string> {
                      std::string topic = next_topic("e2e");
                      auto res = run_end_to_end_latency(*tools_, *d.target, topic, 100, e2e_records(), timeout);
                      d.target->drop_topic(topic);
                      if (!res) return res.status();
                      record(id, d.name, "p50_us", res->p50_us);
                      record(id, d.name, "p99_us", res->p99_us);
                      record(id, d.name, "p999_us", res->p999_us);
                      return fmt_latency(*res);
                    },
                    &d});
}

int Session::e2e_records() const { return std::max(z_.latency_messages / 2, 10); }

void Session::add_plan_notes() {
  // Notes on the single-broker families only when one of them runs (a
  // --workloads cluster run has its own notes, cluster_plan.cc).
  bool single = false;
  for (const char* f : {"machine", "produce", "consume", "latency", "rss", "restart", "kafka-tools", "client"})
    single = single || wants(f);
  if (single)
    add_note("order: the machine limits, then per repetition one phase per broker configuration (" +
           [&] {
             std::string s;
             for (const auto& d : deps_) s += (s.empty() ? "" : ", ") + d->name;
             return s;
           }() +
           "), each started on a fresh data dir and stopped after its workloads; RSS and restart run on brokers of "
           "their own with no other broker running");
  if (wants("produce"))
    add_note(o_.all_combos ? "produce: all 16 combinations (100B/1KB x acks 1/all x p1/p16 x x1/x4)"
             : o_.quick    ? "produce (--quick): 100B acks=1 p1 x1, 1KB acks=1 p1 x1, 1KB acks=all p1 x1"
                           : "produce: standard subset of 8 combinations (--all-combos runs all 16)");
  if (wants("produce") || wants("latency"))
    add_note("durability rows (spool-nodurable, kafka-flush1): produce 100B acks=1 p1 x1, produce 1KB acks=all p1 x1 "
           "and latency in-flight=1 only; every topic is created with the broker's defaults, so what acks=all waits "
           "for is the broker configuration's (see the configurations table)");
  if (wants("consume"))
    add_note("consume: timed from the first message to the last (as kbench.c), so librdkafka's consumer start-up "
           "(~0.5 s to the first message) is left out; 1 KB values, 1 partition");
  if (wants("consume"))
    add_note("consume/cold: before each run the bench fdatasyncs and posix_fadvise(DONTNEED)s every file of the "
           "broker's data dir (no root needed)");
  if (wants("latency"))
    add_note("latency: producer (linger.ms=0) and consumer (fetch.wait.max.ms=100) in the bench process; the payload "
           "carries the send time, latency = receipt - send");
  if (wants("restart"))
    add_note("restart: seconds from re-exec of the killed broker until its port accepted and a new librdkafka "
           "producer's Metadata + Produce round trip was acknowledged (client start-up included); the log was "
           "written with acks=all just before the kill -9");
  if (wants("rss"))
    add_note("rss: VmRSS of the broker process from /proc/<pid>/status (Kafka: the JVM), 1 s after it serves "
           "(idle) and after creating 10 x 100 partitions with one message each");
  if (peer_ == "kafka" && single) {
    add_note("Kafka peer: scripts/kafka-peer start (single-node KRaft, JVM heap -Xmx512m -Xms256m unless "
             "KAFKA_PEER_HEAP says otherwise; Kafka's own start script would use -Xmx1G -Xms1G), G1GC; the "
             "single-node overrides of the script (replication factors 1, group.initial.rebalance.delay.ms=0) and "
             "group.initial.rebalance.delay.ms=0 on Spool");
    if (tools_ && wants("kafka-tools"))
      add_note("Kafka's Java tools (kafka-tools 4.4.0, one JVM each, -Xmx512m, Java producer/consumer defaults): "
               "ProducerPerformance --throughput -1 (" + human_number(static_cast<double>(z_.tool_records_100B)) +
               " x 100 B acks=1, " + human_number(static_cast<double>(z_.tool_records_1KB)) +
               " x 1 KB acks=all), ConsumerPerformance on the consume log (fetch.nMsg.sec: the group join is left "
               "out), EndToEndLatency (" + std::to_string(e2e_records()) + " messages, one in flight, acks=1; whole milliseconds, so its percentiles are "
               "multiples of 1000 us); MB figures recomputed in 10^6 bytes");
    else if (wants("kafka-tools"))
      add_note("Kafka's Java tools skipped: " + tools_error_);
  }
  add_client_notes();
  if (peer_ == "mock")
    add_note("mock peer: consume reads " + std::to_string(kMockConsumeMessages) +
             " x 1 KB (the mock keeps ~5 MB per partition) and latency at most " +
             std::to_string(kMockLatencyMessages) +
             " messages (no long-poll wake-up); the targets need --peer kafka");
  if (peer_ == "none") add_note("--skip-peer: no peer runs, no Spool/Kafka ratios");
  if (!o_.bootstrap.empty())
    add_note("Spool at --bootstrap " + o_.bootstrap + " (not started by the bench): consume/cold, rss and restart "
             "of Spool skipped");
}

}  // namespace spool::bench
