// The end-to-end workloads of `spool bench`, each one run against one target
// (Spool or the peer) through librdkafka (the produce workload: or the
// native producer, ProduceSpec::client), returning what it measured. The
// runner (runner.cc) decides what runs, repeats it and records Measurements.
// Timing starts after warm-up (connections, metadata, topic creation) and
// stops after the last delivery report / the last message consumed.
// Threading: a workload may start its own threads and joins them before
// returning; workloads run one at a time. Failure: an error Status with the
// reason (librdkafka error, broker that did not start, timeout); the caller
// records it as a note and goes on. Nothing throws.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/broker_process.h"
#include "bench/producer_driver.h"
#include "bench/progress.h"
#include "bench/rdk.h"
#include "bench/stats.h"
#include "util/status.h"

namespace spool::bench {

// A broker to run workloads against.
struct Target {
  std::string name;       // the measurement target: "spool", "kafka", ... (measurement.h)
  std::string bootstrap;  // host:port
  std::string data_dir;   // the broker's log dir when the bench started it; else empty
  std::function<Status(const NewTopic&)> create_topic;
  std::function<void(const std::string&)> drop_topic;  // best effort, frees disk/memory
  // Settings added to every producer and consumer the workloads make on
  // `bootstrap` (security.protocol, ssl.*, sasl.*); empty: PLAINTEXT.
  // create_topic/drop_topic bring their own admin client.
  KafkaConfig client = {};
};

struct Throughput {
  int64_t messages = 0;
  int64_t bytes = 0;  // payload bytes
  double seconds = 0;
  double msgs_per_s() const { return seconds > 0 ? static_cast<double>(messages) / seconds : 0; }
  double MB_per_s() const { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0; }
};

struct ProduceSpec {
  int size = 100;          // payload bytes
  bool acks_all = false;   // acks=all; durability comes from the broker's configuration
  int partitions = 1;
  int producers = 1;       // producer instances, one thread each
  std::string client = kClientLibrdkafka;  // "librdkafka" | "native" (producer_driver.h)
};
// "produce/100B/acks=1/p1/x1"
std::string produce_workload_id(const ProduceSpec& s);
// The produce workload's librdkafka settings (large batches, linger.ms=5,
// no compression), for other workloads that produce at volume.
KafkaConfig throughput_producer_config(const std::string& bootstrap, bool acks_all);

// Creates `topic` (warm-up), then sends up to `messages` (split over the
// producers) until `max_seconds` have passed, and flushes. Throughput counts
// delivered messages over the time from the first send to the last report.
Result<Throughput> run_produce(const Target& t, const std::string& topic, const ProduceSpec& s, int64_t messages,
                               double max_seconds, Progress* progress);

// Reads `messages` messages of partition 0 of `topic` from the beginning
// with a fresh consumer (assign, no group protocol), timed from the first
// message received to the last.
Result<Throughput> run_consume(const Target& t, const std::string& topic, int64_t messages, double timeout_s,
                               Progress* progress);
// fdatasync + posix_fadvise(DONTNEED) on every file under `dir`, so the next
// read of those files comes from the disk. Returns how many files it dropped.
Result<int> drop_page_cache(const std::string& dir);

// End-to-end latency of 100 B messages, acks=1: the producer stamps each
// payload with its send time; a consumer of the same process takes the
// difference on receipt. rate == 0: one message in flight (the next is sent
// when the previous one arrived); rate > 0: sent at that many msg/s.
Result<LatencySummary> run_latency(const Target& t, const std::string& topic, int messages, int rate,
                                   Progress* progress);

// How to start a private broker (Spool or the Kafka peer) for the RSS and
// restart workloads: `make(dir)` returns a broker whose data lives under
// `dir`, a fresh subdir of work_dir made (and removed) per run.
struct SpawnSpec {
  std::string work_dir;
  std::function<std::unique_ptr<ManagedBroker>(const std::string& dir)> make;
};

struct RssResult {
  double idle_MB = 0;        // after start, no client
  double partitions_MB = 0;  // after creating the partitions and one message to each
};
// partitions_per_topic == 0: only the idle figure.
Result<RssResult> run_rss(const SpawnSpec& spawn, int topics, int partitions_per_topic, Progress* progress);

// Writes `mb` MB of 1 KB messages with acks=all, kill -9s the broker,
// restarts it on the same dir and port and returns the seconds from the
// restart until its port accepted and a new producer's Metadata + Produce
// round trip succeeded.
Result<double> run_restart(const SpawnSpec& spawn, int64_t mb, Progress* progress);

}  // namespace spool::bench
