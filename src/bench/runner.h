// `spool bench`: runs the standard set of workloads against Spool (a broker
// it starts itself from this executable, or --bootstrap) and a peer in the
// same run with the same librdkafka client: Apache Kafka 4.4 (--peer kafka,
// the default when Java and scripts/kafka-peer are found; also Kafka's own
// ProducerPerformance, ConsumerPerformance and EndToEndLatency against both)
// or librdkafka's mock cluster (--peer mock). The durability comparison runs
// four broker configurations as separate peer runs: Spool durable (default),
// Spool durable.writes=false, Kafka default, Kafka flush.messages=1. It
// measures the machine's limits in the same run and writes the report
// (report.h: Markdown, CSV, SVG) with the target checks.
// Threading: run_bench blocks the caller for the whole run; workloads start
// and join their own threads. Failure: a failing workload becomes a note in
// the report and the run goes on; the outcome says whether anything was
// measured and whether the report was written. Nothing throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/measurement.h"
#include "util/status.h"

namespace spool::bench {

// Workload families selectable with --workloads. The default set (no
// --workloads) is all but "cluster", "security" and "operability", which
// are opt-in: cluster starts 3-node clusters of Spool and Kafka and waits
// out session timeouts (minutes); security starts brokers with TLS and SASL
// listeners and an authorizer holding 10,000 ACLs (security_plan.cc);
// operability measures Spool's admin HTTP listener (a /metrics scraper's
// cost to produce, page times with 1,000 partitions; operability_plan.cc).
// client: the native producer and consumer against librdkafka on the same
// Spool broker (client_plan.cc).
inline const std::vector<std::string> kWorkloadFamilies = {"machine", "produce", "consume", "latency",
                                                           "rss",     "restart", "kafka-tools", "client",
                                                           "cluster", "security", "operability"};
// The cluster family's workloads, each selectable alone as "cluster/<name>"
// (e.g. --workloads cluster/txn,cluster/coordinator-failover); "cluster" is all.
inline const std::vector<std::string> kClusterWorkloads = {"failover", "produce", "lag", "txn",
                                                           "coordinator-failover", "controlled-shutdown", "reassign"};
// The security family's workloads, each selectable alone as "security/<name>".
inline const std::vector<std::string> kSecurityWorkloads = {"tls-consume", "sasl-ssl-produce", "authorizer"};
// The operability family's workloads, each selectable alone as "operability/<name>".
inline const std::vector<std::string> kOperabilityWorkloads = {"scrape", "admin-1000-partitions",
                                                               "console-1000-partitions"};

struct BenchOptions {
  std::string bootstrap;                      // empty: start a private `spool broker`
  std::string data_dir;                       // parent of the temp dirs; empty: $TMPDIR or /tmp
  std::vector<std::string> broker_overrides;  // "key=value" for the private broker
  std::string output_dir = "bench/results";
  std::optional<int> repetitions;             // default 3 (quick: 1)
  std::optional<int64_t> messages;            // 100 B messages per produce run (1 KB: a quarter, consume: a third)
  std::optional<double> duration_s;           // cap on one produce run's sending time (default 5 s)
  std::optional<int64_t> restart_mb;          // log size for restart/kill9 (default 1024; quick: 8)
  std::optional<int> latency_messages;        // per latency run (default 2000)
  std::optional<int> latency_rate;            // msg/s of the fixed-rate latency run (default 1000)
  bool quick = false;                         // tiny sizes, few combinations: seconds, for the smoke test
  bool all_combos = false;                    // every produce combination (16) instead of the standard 8
  bool skip_peer = false;
  std::string peer;                           // "kafka" | "mock"; empty: kafka when available, else mock
  std::string kafka_peer;                     // path of scripts/kafka-peer (empty: $SPOOL_KAFKA_PEER, then found)
  bool profile = false;                       // perf-profile the broker on an extra run of each missed target
  std::vector<std::string> workloads;         // families (or cluster/<w>, security/<w>, operability/<w>) to run
                                              // (empty: all but cluster, security and operability)
  std::string client = "librdkafka";          // the produce family's client: "librdkafka" | "native"
  // Hidden: run as the client family's RSS probe child (client_memory.h)
  // for this client against bootstrap, then exit.
  std::string client_rss_probe;
  std::string client_rss_topic;
  int client_rss_partitions = 1000;
};

// Option values after defaults and --quick are applied.
struct Sizes {
  int repetitions = 3;
  int64_t messages = 3000000;
  double duration_s = 5;
  int64_t consume_messages = 1000000;  // 1 KB messages read per consume run
  int64_t restart_mb = 1024;
  int latency_messages = 2000;
  int latency_rate = 1000;
  int rss_topics = 10;
  int rss_partitions_per_topic = 100;
  int64_t tool_records_100B = 1000000;  // ProducerPerformance 100 B acks=1
  int64_t tool_records_1KB = 250000;    // ProducerPerformance 1 KB acks=all
  int client_rss_partitions = 1000;     // partitions of the client family's memory probe
  double loopback_seconds = 2;
  int64_t disk_bytes = 512LL << 20;
  int64_t disk_bytes_fdatasync = 256LL << 20;
};

// Range and name checks of every option (a usage error for the CLI).
Status validate_bench_options(const BenchOptions& o);

// Which peer a run uses: --peer, else kafka when `java_found` and the
// kafka-peer script is found (`script_found`), else mock. An explicit
// --peer kafka without them is an error (the run cannot be what was asked).
struct PeerChoice {
  std::string peer;  // "kafka" | "mock" | "none" (--skip-peer)
  std::string why;   // a note for the report when the default fell back
};
Result<PeerChoice> choose_peer(const BenchOptions& o, bool java_found, bool script_found,
                               const std::string& script_error);
// choose_peer with this machine's java ($PATH) and kafka-peer script.
Result<PeerChoice> resolve_peer(const BenchOptions& o);
Sizes resolve_sizes(const BenchOptions& o);

struct BenchOutcome {
  Report report;
  std::vector<TargetCheck> checks;
  int measured = 0;            // measurements with at least one value
  bool report_written = false;
  std::string markdown_path;   // when written
  std::string error;           // why the report was not written
};

// Runs the benchmark (options must be valid) and writes the report into
// o.output_dir. Progress goes to stderr.
BenchOutcome run_bench(const BenchOptions& o);

}  // namespace spool::bench
