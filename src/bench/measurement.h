// What `spool bench` measures and reports: the contract between the workload
// runner (runner/workloads, which fills a Report) and the report writer
// (report.cc: Markdown, CSV, SVG) and the target checks (targets.cc).
//
// Naming (other parts key on these strings, keep them exact):
//   workload ids
//     produce/<100B|1KB>/acks=<1|all>/p<1|16>/x<1|4>   produce throughput
//     consume/1KB/<cached|cold>                          consume from disk
//     latency/100B/acks=1/in-flight=1                    one message in flight
//     latency/100B/acks=1/rate=<N>                       fixed rate below saturation
//     rss/idle, rss/partitions=1000                      broker resident set
//     restart/kill9/<N>MB                                kill -9, restart, time to serving
//     machine/loopback                                   socket pump over 127.0.0.1
//     machine/disk-write, machine/disk-write-fdatasync   sequential write of the data dir's disk
//   targets: "spool" (the broker under test), "peer" (librdkafka's mock
//   cluster), "machine" (the machine's own limits)
//   metrics: msgs_per_s, MB_per_s (10^6 bytes), p50_us, p99_us, p999_us,
//   max_us, rss_MB, seconds
//
// Every Measurement holds one value per repetition; the report quotes the
// median. Plain values, no threads, no failure modes.
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

struct Report {
  std::string started_at;     // ISO 8601 UTC
  std::string host;           // hostname, cores, kernel
  std::string spool_version;  // git describe or "unknown"
  std::string peer;           // e.g. "librdkafka 2.0.2 mock cluster"
  int repetitions = 0;
  std::vector<Measurement> measurements;
  std::vector<Profile> profiles;
  std::vector<std::string> notes;  // free text lines (skipped workloads, errors)

  const Measurement* find(const std::string& workload, const std::string& target, const std::string& metric) const {
    for (const auto& m : measurements)
      if (m.workload == workload && m.target == target && m.metric == metric) return &m;
    return nullptr;
  }
};

// One line of the summary table: a target of issue 7 against what was measured.
struct TargetCheck {
  std::string name;      // e.g. "produce 100 B acks=1, 1 partition vs peer"
  std::string goal;      // e.g. ">= 0.9x peer"
  std::string measured;  // e.g. "0.84x (1.76 M vs 2.10 M msg/s)", or "not measured"
  bool measured_ok = false;  // false: the workload did not run
  bool met = false;
};

}  // namespace spool::bench
