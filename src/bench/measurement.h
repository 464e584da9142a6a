// What `spool bench` measures and reports: the contract between the workload
// runner (runner/workloads, which fills a Report) and the report writer
// (report.cc: Markdown, CSV, SVG) and the target checks (targets.cc).
//
// Naming (other parts key on these strings, keep them exact):
//   workload ids
//     produce/<100B|1KB>/acks=<1|all>/p<1|16>/x<1|4>   produce throughput (librdkafka)
//     consume/1KB/<cached|cold>                          consume from disk (librdkafka)
//     latency/100B/acks=1/in-flight=1                    one message in flight (librdkafka)
//     latency/100B/acks=1/rate=<N>                       fixed rate below saturation
//     produce/<100B|1KB>/acks=<1|all>/p1/ProducerPerformance   Kafka's Java tools (kafka_tools.h)
//     consume/1KB/cached/ConsumerPerformance
//     latency/100B/acks=1/in-flight=1/EndToEndLatency
//     rss/idle, rss/partitions=1000                      broker resident set
//     restart/kill9/<N>MB                                kill -9, restart, time to serving
//     client/produce/<100B|1KB>/acks=<1|all>/p1/<librdkafka|native>   native producer vs librdkafka (client_plan.cc)
//     client/consume/1KB/<librdkafka|native>             native consumer vs librdkafka (consumer_driver.h;
//                                                        also first_record_ms, its start-up)
//     client/rss/partitions=<N>/<librdkafka|native>      producer RSS growth (client_memory.h)
//     machine/loopback                                   socket pump over 127.0.0.1
//     machine/disk-write, machine/disk-write-fdatasync   sequential write of the data dir's disk
//     cluster/failover/<produce|consume>/session=<default|2s>   leader kill -9 to resumed (3 nodes)
//     cluster/produce/1KB/acks=all/p1/rf=<1|3>, .../rf=3-over-rf=1   RF=3 vs RF=1 on one cluster
//     cluster/lag/1KB/acks=1/rf=3/<N>MBps                 acked offset - high watermark under load
//     cluster/txn/100x1KB/rf=3/p<P>/x<X>                  transactions of 100 x 1 KB committed per second
//     cluster/coordinator-failover/<group|txn>/session=<default|2s>   coordinator kill -9 to stable / committing
//     cluster/controlled-shutdown/p100/rf=3               per-partition unavailability during a SIGTERM
//     cluster/reassign/<MB>MB/<unthrottled|throttle=<N>MBps>   a partition moved to another broker
//     security/tls-consume/1KB/<plaintext|ssl|ssl-over-plaintext>   consume over TLS vs plaintext
//     security/sasl-ssl-produce/1KB/acks=1/<plaintext|sasl_ssl|sasl_ssl-over-plaintext>
//     security/authorizer/1KB/acks=1/sasl_plaintext/<no-authorizer|acls=<N>|acls=<N>-over-no-authorizer>
//     security/authorizer/create-acls=<N>                 seconds to create N ACLs (security_plan.cc)
//     operability/scrape/100B/acks=1/p1/x1/<no-scraper|scraper=1Hz|scraper=1Hz-over-no-scraper>
//                                                        produce with/without GET /metrics at 1 Hz (operability_plan.cc):
//                                                        one value per run or pair (ratio, cpu_per_MB_ratio), not
//                                                        per repetition; cpu_ms_per_MB the broker's CPU per MB
//     operability/scrape/metrics                         latency_ms, body_bytes: one value per scrape;
//                                                        cpu_ms_per_scrape, cpu_pct_at_1Hz: one per repetition
//     operability/admin-<N>-partitions/<v1/topics|metrics|console>   p50_ms, max_ms, body_bytes (console:
//                                                        http_status when GET / does not answer 200)
//     operability/console-<N>-partitions/chromium        table_ms, dom_content_loaded_ms, load_ms: one per browser load
//   targets (brokers): "spool" (Spool, durable default), "spool-nodurable"
//   (durable.writes=false), "kafka" (Apache Kafka 4.4 as configured by
//   default), "kafka-flush1" (Kafka with flush.messages=1), "mock"
//   (librdkafka's mock cluster, --peer mock), and "machine" (the machine's
//   own limits)
//   metrics: msgs_per_s, MB_per_s (10^6 bytes), p50_us, p99_us, p999_us,
//   max_us, rss_MB, rss_KB (KiB), seconds, ratio, first_record_ms, lag_p50_msgs, lag_p99_msgs, lag_max_msgs,
//   txns_per_s, unavailable_p50_ms, unavailable_p99_ms, unavailable_max_ms,
//   shutdown_s (cluster_workloads.h and coordinator_workloads.h define the
//   cluster ones), latency_ms, p50_ms, max_ms, body_bytes, http_status,
//   cpu_ms_per_MB, cpu_per_MB_ratio, cpu_ms_per_scrape, cpu_pct_at_1Hz,
//   table_ms, dom_content_loaded_ms, load_ms (operability_plan.cc)
//
// Every Measurement holds one value per repetition (the rows named above
// as per run, pair, scrape or load hold more); the report quotes the median. Plain values, no threads, no failure modes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace spool::bench {

struct Measurement {
  std::string workload;  // e.g. "produce/100B/acks=1/p1/x1"
  std::string target;    // "spool" | "peer" | "machine"
  std::string metric;    // e.g. "msgs_per_s"
  std::vector<double> runs;  // one value per repetition, in run order

  double median() const {
    if (runs.empty()) return 0;
    std::vector<double> v = runs;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
};

// One "where the time goes" paragraph for the report (e.g. a perf summary),
// attached to a workload that misses its target.
struct Profile {
  std::string workload;
  std::string text;  // Markdown, a few lines
};

// One broker configuration of the run ("peer run"): what it is and what an
// acknowledged write is guaranteed to survive.
struct TargetInfo {
  std::string name;         // a measurement target, e.g. "kafka-flush1"
  std::string description;  // e.g. "Apache Kafka 4.4.0, log.flush.interval.messages=1"
  std::string guarantee;    // e.g. "fsync after every append before the ack: survives power loss"
};

struct Report {
  std::string started_at;     // ISO 8601 UTC
  std::string host;           // hostname, cores, kernel
  std::string spool_version;  // git describe or "unknown"
  std::string peer;           // e.g. "Apache Kafka 4.4.0 (scripts/kafka-peer)"
  int repetitions = 0;
  std::vector<Measurement> measurements;
  std::vector<Profile> profiles;
  std::vector<std::string> notes;  // free text lines (skipped workloads, errors)
  std::vector<TargetInfo> targets;  // the broker configurations of the run, in run order

  const TargetInfo* target_info(const std::string& name) const {
    for (const auto& t : targets)
      if (t.name == name) return &t;
    return nullptr;
  }

  const Measurement* find(const std::string& workload, const std::string& target, const std::string& metric) const {
    for (const auto& m : measurements)
      if (m.workload == workload && m.target == target && m.metric == metric) return &m;
    return nullptr;
  }
};

// One line of the summary table: a target of issue 12 against what was measured.
struct TargetCheck {
  std::string name;      // e.g. "produce 100 B, acks=1, 1 partition"
  std::string goal;      // e.g. ">= 1.5x Kafka"
  std::string measured;  // e.g. "0.84x (1.76 M vs 2.10 M msg/s)", or "not measured"
  bool measured_ok = false;  // false: the workload did not run
  bool met = false;
};

}  // namespace spool::bench
