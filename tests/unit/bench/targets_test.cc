// The issue-12 targets (targets.cc): each a Spool/Kafka ratio of one run,
// met or not met at its bound, "not measured" when either side is missing
// (a --peer mock run has no Kafka), the restart target at a log size both
// brokers have.
#include "bench/targets.h"

#include <gtest/gtest.h>

#include <string>

namespace spool::bench {
namespace {

void add(Report& r, const std::string& w, const std::string& t, const std::string& m, std::vector<double> runs) {
  r.measurements.push_back({w, t, m, std::move(runs)});
}

// A report in which every target is met.
Report all_met() {
  Report r;
  add(r, "produce/100B/acks=1/p1/x1", "spool", "msgs_per_s", {1500, 1600, 1550});
  add(r, "produce/100B/acks=1/p1/x1", "kafka", "msgs_per_s", {1000, 1000, 1000});
  add(r, "produce/1KB/acks=all/p1/x1", "spool", "msgs_per_s", {300});
  add(r, "produce/1KB/acks=all/p1/x1", "kafka", "msgs_per_s", {300});
  add(r, "produce/1KB/acks=all/p1/x1", "kafka-flush1", "msgs_per_s", {100});
  add(r, "consume/1KB/cached", "spool", "MB_per_s", {1500});
  add(r, "consume/1KB/cached", "kafka", "MB_per_s", {1000});
  add(r, "latency/100B/acks=1/in-flight=1", "spool", "p99_us", {500});
  add(r, "latency/100B/acks=1/in-flight=1", "kafka", "p99_us", {1000});
  add(r, "rss/idle", "spool", "rss_MB", {35});
  add(r, "rss/idle", "kafka", "rss_MB", {350});
  add(r, "restart/kill9/1024MB", "spool", "seconds", {5});
  add(r, "restart/kill9/1024MB", "kafka", "seconds", {10});
  return r;
}

const TargetCheck& find(const std::vector<TargetCheck>& cs, const std::string& needle) {
  for (const auto& c : cs)
    if (c.name.find(needle) != std::string::npos) return c;
  static TargetCheck none{"<none>", "", "", false, false};
  ADD_FAILURE() << "no check named like " << needle;
  return none;
}

void set(Report& r, const std::string& w, const std::string& t, const std::string& m, double v) {
  for (auto& x : r.measurements)
    if (x.workload == w && x.target == t && x.metric == m) x.runs = {v};
}

TEST(BenchTargets, AllMetAtTheirBounds) {
  auto cs = check_targets(all_met());
  ASSERT_EQ(cs.size(), 7u);
  for (const auto& c : cs) {
    EXPECT_TRUE(c.measured_ok) << c.name;
    EXPECT_TRUE(c.met) << c.name << ": " << c.measured;
    EXPECT_NE(c.goal.find("Kafka"), std::string::npos) << c.goal;
  }
  EXPECT_EQ(find(cs, "produce 100 B").measured, "1.55x (1550 msg/s vs 1000 msg/s)");
  EXPECT_EQ(find(cs, "produce 100 B").goal, ">= 1.5x Kafka");
  EXPECT_NE(find(cs, "(no fsync)").measured.find("1.00x"), std::string::npos);
  EXPECT_NE(find(cs, "flush.messages=1").measured.find("3.00x"), std::string::npos);
  EXPECT_NE(find(cs, "restart").measured.find("0.50x"), std::string::npos);
  EXPECT_NE(find(cs, "restart").measured.find("1024 MB log"), std::string::npos);
  EXPECT_EQ(find(cs, "idle RSS").goal, "<= 0.1x Kafka");
}

TEST(BenchTargets, EachCanBeMissedJustPastItsBound) {
  struct Case {
    const char* workload;
    const char* target;
    const char* metric;
    double value;
    const char* check;
  } cases[] = {
      {"produce/100B/acks=1/p1/x1", "spool", "msgs_per_s", 1499, "produce 100 B"},
      {"produce/1KB/acks=all/p1/x1", "kafka", "msgs_per_s", 301, "(no fsync)"},
      {"produce/1KB/acks=all/p1/x1", "kafka-flush1", "msgs_per_s", 101, "flush.messages=1"},
      {"consume/1KB/cached", "spool", "MB_per_s", 1499, "consume"},
      {"latency/100B/acks=1/in-flight=1", "spool", "p99_us", 501, "end-to-end"},
      {"rss/idle", "kafka", "rss_MB", 349, "idle RSS"},
      {"restart/kill9/1024MB", "kafka", "seconds", 9.9, "restart"},
  };
  for (const auto& k : cases) {
    Report r = all_met();
    set(r, k.workload, k.target, k.metric, k.value);
    auto cs = check_targets(r);
    size_t not_met = 0;
    for (const auto& c : cs) not_met += c.measured_ok && !c.met;
    EXPECT_EQ(not_met, 1u) << k.check;
    const auto& c = find(cs, k.check);
    EXPECT_TRUE(c.measured_ok) << k.check;
    EXPECT_FALSE(c.met) << k.check << ": " << c.measured;
  }
}

TEST(BenchTargets, MissingMeasurementsAreNotMeasured) {
  auto cs = check_targets(Report{});
  ASSERT_EQ(cs.size(), 7u);
  for (const auto& c : cs) {
    EXPECT_FALSE(c.measured_ok) << c.name;
    EXPECT_FALSE(c.met) << c.name;
    EXPECT_NE(c.measured.find("not measured"), std::string::npos) << c.measured;
  }
  // A mock run: no kafka targets, every check not measured, naming the side that is missing.
  Report r = all_met();
  std::erase_if(r.measurements, [](const Measurement& m) { return m.target.rfind("kafka", 0) == 0; });
  add(r, "produce/100B/acks=1/p1/x1", "mock", "msgs_per_s", {1});
  for (const auto& c : check_targets(r)) {
    EXPECT_FALSE(c.measured_ok) << c.name;
    EXPECT_NE(c.measured.find("kafka"), std::string::npos) << c.measured;
  }
  // Only kafka-flush1 missing: just that target is not measured.
  r = all_met();
  std::erase_if(r.measurements, [](const Measurement& m) { return m.target == "kafka-flush1"; });
  cs = check_targets(r);
  EXPECT_FALSE(find(cs, "flush.messages=1").measured_ok);
  EXPECT_TRUE(find(cs, "(no fsync)").measured_ok);
  // A zero reference cannot give a ratio; empty runs count as missing.
  r = all_met();
  set(r, "rss/idle", "kafka", "rss_MB", 0);
  EXPECT_FALSE(find(check_targets(r), "idle RSS").measured_ok);
  r = all_met();
  for (auto& m : r.measurements)
    if (m.workload == "consume/1KB/cached" && m.target == "spool") m.runs.clear();
  EXPECT_NE(find(check_targets(r), "consume").measured.find("of spool"), std::string::npos);
}

TEST(BenchTargets, ClusterChecksAppearOnlyWithClusterRows) {
  Report r = all_met();
  add(r, "cluster/failover/produce/session=2s", "spool", "seconds", {2.4, 2.6, 2.5});
  add(r, "cluster/failover/consume/session=2s", "spool", "seconds", {2.9, 2.8, 3.1});
  add(r, "cluster/failover/produce/session=2s", "kafka", "seconds", {4});
  add(r, "cluster/failover/consume/session=2s", "kafka", "seconds", {5});
  add(r, "cluster/produce/1KB/acks=all/p1/rf=3", "spool", "msgs_per_s", {150});
  add(r, "cluster/produce/1KB/acks=all/p1/rf=3", "kafka", "msgs_per_s", {100});
  auto cs = check_targets(r);
  ASSERT_EQ(cs.size(), 11u);
  EXPECT_FALSE(find(cs, "controlled shutdown").measured_ok);  // not run
  const TargetCheck& fast = find(cs, "session timeout 2s");
  EXPECT_TRUE(fast.measured_ok);
  EXPECT_TRUE(fast.met) << fast.measured;  // the later of the two (2.9 s) is within 2 s + 1 s
  EXPECT_EQ(fast.goal, "<= 3 s (session timeout + 1 s)");
  EXPECT_EQ(fast.measured, "produce 2.50 s, consume 2.90 s (Kafka: 4 s, 5 s; 0.58x of Kafka's)");
  EXPECT_FALSE(find(cs, "session timeout default").measured_ok);  // not run
  const TargetCheck& rf3 = find(cs, "RF=3");
  EXPECT_TRUE(rf3.met) << rf3.measured;
  EXPECT_EQ(rf3.goal, ">= 1.5x Kafka RF=3");
  // Consume later than session + 1 s: not met.
  set(r, "cluster/failover/consume/session=2s", "spool", "seconds", 3.2);
  EXPECT_FALSE(find(check_targets(r), "session timeout 2s").met);
}

TEST(BenchTargets, ClientChecksCompareNativeWithLibrdkafka) {
  Report r = all_met();
  ASSERT_EQ(check_targets(r).size(), 7u);  // no client rows: no client checks
  add(r, "client/consume/1KB/native", "spool", "msgs_per_s", {900, 1200, 1100});
  add(r, "client/consume/1KB/librdkafka", "spool", "msgs_per_s", {1000, 1000, 1000});
  auto cs = check_targets(r);
  ASSERT_EQ(cs.size(), 11u);
  const TargetCheck& consume = find(cs, "native consumer");
  EXPECT_TRUE(consume.measured_ok);
  EXPECT_TRUE(consume.met) << consume.measured;  // the medians: 1100 over 1000
  EXPECT_EQ(consume.goal, ">= 1.0x librdkafka");
  EXPECT_EQ(consume.measured, "1.10x (1100 msg/s vs 1000 msg/s)");
  EXPECT_FALSE(find(cs, "produce 100 B, acks=1 (same").measured_ok);  // the producer rows did not run
  set(r, "client/consume/1KB/native", "spool", "msgs_per_s", 990);
  EXPECT_FALSE(find(check_targets(r), "native consumer").met);
  set(r, "client/consume/1KB/librdkafka", "spool", "msgs_per_s", 0);
  EXPECT_FALSE(find(check_targets(r), "native consumer").measured_ok);
}

TEST(BenchTargets, ControlledShutdownGoalIsAP99Below100Ms) {
  Report r = all_met();
  const std::string id = "cluster/controlled-shutdown/p100/rf=3";
  add(r, id, "spool", "unavailable_p99_ms", {80, 95, 120});
  add(r, id, "kafka", "unavailable_p99_ms", {200});
  const auto cs = check_targets(r);
  const TargetCheck& c = find(cs, "controlled shutdown");
  EXPECT_TRUE(c.measured_ok);
  EXPECT_TRUE(c.met) << c.measured;  // the median, 95 ms
  EXPECT_EQ(c.goal, "p99 < 100 ms");
  EXPECT_EQ(c.measured, "p99 95 ms (Kafka: 200 ms; 0.47x of Kafka's)");
  set(r, id, "spool", "unavailable_p99_ms", 100);
  EXPECT_FALSE(find(check_targets(r), "controlled shutdown").met);
}

TEST(BenchTargets, RestartComparesTheSameLogSize) {
  Report r;
  add(r, "restart/kill9/256MB", "spool", "seconds", {1});
  add(r, "restart/kill9/256MB", "kafka", "seconds", {10});
  add(r, "restart/kill9/512MB", "spool", "seconds", {9});  // no Kafka figure at 512: not used
  add(r, "restart/kill9/junkMB", "spool", "seconds", {9});
  auto c = find(check_targets(r), "restart");
  EXPECT_TRUE(c.measured_ok);
  EXPECT_TRUE(c.met) << c.measured;
  EXPECT_NE(c.measured.find("256 MB log (smaller than the 1 GB"), std::string::npos) << c.measured;
  // 1024 wins over a larger log.
  add(r, "restart/kill9/2048MB", "spool", "seconds", {1});
  add(r, "restart/kill9/2048MB", "kafka", "seconds", {10});
  add(r, "restart/kill9/1024MB", "spool", "seconds", {6});
  add(r, "restart/kill9/1024MB", "kafka", "seconds", {10});
  c = find(check_targets(r), "restart");
  EXPECT_FALSE(c.met);
  EXPECT_EQ(c.measured, "0.60x (6 s vs 10 s), 1024 MB log");
}

TEST(BenchTargets, ScrapeRatioOnlyWhenTheOperabilityFamilyRan) {
  Report r = all_met();
  EXPECT_EQ(check_targets(r).size(), 7u) << "no operability rows, no scrape check";
  const std::string base = "operability/scrape/100B/acks=1/p1/x1/";
  add(r, base + "no-scraper", "spool", "msgs_per_s", {1000, 1000, 1000});
  add(r, base + "scraper=1Hz", "spool", "msgs_per_s", {990, 1000, 980});
  add(r, base + "scraper=1Hz-over-no-scraper", "spool", "ratio", {0.99, 1.0, 0.98});
  auto cs = check_targets(r);
  ASSERT_EQ(cs.size(), 8u);
  const TargetCheck& c = find(cs, "GET /metrics scraper at 1 Hz");
  EXPECT_TRUE(c.measured_ok);
  EXPECT_TRUE(c.met) << c.measured;
  EXPECT_EQ(c.measured, "0.99x (median of 3 paired ratios; medians 990 msg/s vs 1000 msg/s)");
  add(r, base + "scraper=1Hz-over-no-scraper", "spool", "cpu_per_MB_ratio", {1.01, 1.02, 1.0});
  EXPECT_EQ(find(check_targets(r), "GET /metrics scraper at 1 Hz").measured,
            "0.99x (median of 3 paired ratios; medians 990 msg/s vs 1000 msg/s; broker CPU per MB 1.01x)");
  set(r, base + "scraper=1Hz-over-no-scraper", "spool", "ratio", 0.97);
  EXPECT_FALSE(find(check_targets(r), "GET /metrics scraper at 1 Hz").met);
}

}  // namespace
}  // namespace spool::bench
