// Apache Kafka's own performance tools from the kafka-tools 4.4.0 jar, run
// by `spool bench` against every broker beside the librdkafka workloads:
//   org.apache.kafka.tools.ProducerPerformance  (kafka-producer-perf-test)
//   org.apache.kafka.tools.ConsumerPerformance  (kafka-consumer-perf-test)
//   org.apache.kafka.tools.EndToEndLatency      (kafka-e2e-latency)
// Each runs in its own JVM (-Xmx512m, as Kafka's perf-test scripts) with a
// log4j2 configuration that sends only warnings to stderr, so the tools'
// summary lines are all that reaches stdout, which the parse_* functions
// read. Tools' own units are converted: MB figures are recomputed in 10^6
// bytes from the message rate and size; EndToEndLatency's whole
// milliseconds become microseconds.
// Threading: blocking calls, one JVM at a time. Failure: Status with the
// exit code and the tail of the tool's output; parse_* return an error when
// the expected summary is missing. Nothing throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/stats.h"
#include "bench/workloads.h"
#include "util/status.h"

namespace spool::bench {

struct JavaTools {
  std::string java;        // the java executable
  std::string classpath;   // kafka-peer classpath
  std::string log4j_file;  // written by write_log4j_config
  std::string log_path;    // the tools' stderr is appended here
};
// Writes the quiet log4j2 configuration to `path`.
Status write_log4j_config(const std::string& path);

// ProducerPerformance: --num-records N --record-size S --throughput -1,
// acks=1|all, the Java producer's defaults otherwise.
Result<Throughput> run_producer_performance(const JavaTools& j, const Target& t, const std::string& topic, int size,
                                            bool acks_all, int64_t records, double timeout_s);
// ConsumerPerformance on an existing topic: reads `records` messages of
// `size` bytes from the beginning (its own group); the fetch phase's rate
// (group join left out, as the librdkafka consume workload leaves out start-up).
Result<Throughput> run_consumer_performance(const JavaTools& j, const Target& t, const std::string& topic,
                                            int size, int64_t records, double timeout_s);
// EndToEndLatency: one message in flight, acks=1, `size` bytes.
Result<LatencySummary> run_end_to_end_latency(const JavaTools& j, const Target& t, const std::string& topic,
                                              int size, int records, double timeout_s);

// The summary parsers (exposed for tests). `size` is the record size.
// "N records sent, R records/sec (M MB/sec), ..., X ms 99th, Y ms 99.9th."
Result<Throughput> parse_producer_performance(const std::string& out, int size);
// The header line "start.time, end.time, ..., fetch.nMsg.sec" and the line after it.
Result<Throughput> parse_consumer_performance(const std::string& out, int size);
// "Avg latency: A ms" and "Percentiles: 50th = P, 99th = Q, 99.9th = R" (ms).
Result<LatencySummary> parse_end_to_end_latency(const std::string& out);

}  // namespace spool::bench
