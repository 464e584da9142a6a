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
  add(r, "produce/100B/acks=1/p1/x1", "spool", "msgs_per_s", {950, 1000, 990});
  add(r, "produce/100B/acks=1/p1/x1", "peer", "msgs_per_s", {1000, 1000, 1000});
  add(r, "produce/1KB/acks=1/p1/x1", "spool", "msgs_per_s", {100});
  add(r, "produce/1KB/acks=all/p1/x1", "spool", "msgs_per_s", {85});
  add(r, "produce/1KB/acks=all/p1/x1", "spool", "MB_per_s", {60});
  add(r, "machine/disk-write-fdatasync", "machine", "MB_per_s", {100});
  add(r, "consume/1KB/cached", "spool", "MB_per_s", {1500});
  add(r, "latency/100B/acks=1/in-flight=1", "spool", "p99_us", {400});
  add(r, "rss/idle", "spool", "rss_MB", {20});
  add(r, "rss/partitions=1000", "spool", "rss_MB", {120});
  add(r, "restart/kill9/1024MB", "spool", "seconds", {0.5});
  return r;
}

const TargetCheck& find(const std::vector<TargetCheck>& cs, const std::string& needle) {
  for (const auto& c : cs)
    if (c.name.find(needle) != std::string::npos) return c;
  static TargetCheck none{"<none>", "", "", false, false};
  ADD_FAILURE() << "no check named like " << needle;
  return none;
}

TEST(BenchTargets, AllMet) {
  auto cs = check_targets(all_met());
  ASSERT_EQ(cs.size(), 8u);
  for (const auto& c : cs) {
    EXPECT_TRUE(c.measured_ok) << c.name;
    EXPECT_TRUE(c.met) << c.name << ": " << c.measured;
    EXPECT_FALSE(c.goal.empty());
  }
  EXPECT_NE(find(cs, "vs peer").measured.find("0.99x"), std::string::npos) << find(cs, "vs peer").measured;
  EXPECT_NE(find(cs, "restart").measured.find("1024 MB"), std::string::npos);
}

TEST(BenchTargets, EachCanBeMissed) {
  struct Case {
    const char* workload;
    const char* target;
    const char* metric;
    double value;
    const char* check;
  } cases[] = {
      {"produce/100B/acks=1/p1/x1", "spool", "msgs_per_s", 899, "vs peer"},
      {"produce/1KB/acks=all/p1/x1", "spool", "msgs_per_s", 79, "vs Spool acks=1"},
      {"produce/1KB/acks=all/p1/x1", "spool", "MB_per_s", 49, "fdatasync"},
      {"consume/1KB/cached", "spool", "MB_per_s", 999, "consume"},
      {"latency/100B/acks=1/in-flight=1", "spool", "p99_us", 1000, "latency"},
      {"rss/idle", "spool", "rss_MB", 50, "idle RSS"},
      {"rss/partitions=1000", "spool", "rss_MB", 300, "1,000 partitions"},
      {"restart/kill9/1024MB", "spool", "seconds", 2.0, "restart"},
  };
  for (const auto& k : cases) {
    Report r = all_met();
    for (auto& m : r.measurements)
      if (m.workload == k.workload && m.target == k.target && m.metric == k.metric) m.runs = {k.value};
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
  ASSERT_EQ(cs.size(), 8u);
  for (const auto& c : cs) {
    EXPECT_FALSE(c.measured_ok) << c.name;
    EXPECT_FALSE(c.met) << c.name;
    EXPECT_NE(c.measured.find("not measured"), std::string::npos) << c.measured;
  }
  // Only the peer missing: the ratio target is not measured, the others still are.
  Report r = all_met();
  std::erase_if(r.measurements, [](const Measurement& m) { return m.target == "peer"; });
  cs = check_targets(r);
  EXPECT_FALSE(find(cs, "vs peer").measured_ok);
  EXPECT_TRUE(find(cs, "consume").measured_ok);
  // A zero reference cannot give a ratio.
  r = all_met();
  for (auto& m : r.measurements)
    if (m.workload == "machine/disk-write-fdatasync") m.runs = {0};
  EXPECT_FALSE(find(check_targets(r), "fdatasync").measured_ok);
  // Empty runs count as missing.
  r = all_met();
  for (auto& m : r.measurements)
    if (m.workload == "rss/idle") m.runs.clear();
  EXPECT_FALSE(find(check_targets(r), "idle RSS").measured_ok);
}

TEST(BenchTargets, RestartUsesTheLogSizeItHas) {
  Report r = all_met();
  for (auto& m : r.measurements)
    if (m.workload == "restart/kill9/1024MB") m.workload = "restart/kill9/256MB";
  add(r, "restart/kill9/64MB", "spool", "seconds", {5});
  add(r, "restart/kill9/junkMB", "spool", "seconds", {9});
  auto c = find(check_targets(r), "restart");
  EXPECT_TRUE(c.measured_ok);
  EXPECT_TRUE(c.met) << c.measured;
  EXPECT_NE(c.measured.find("256 MB"), std::string::npos) << c.measured;
  // 1024 wins over a larger log.
  add(r, "restart/kill9/2048MB", "spool", "seconds", {3});
  add(r, "restart/kill9/1024MB", "spool", "seconds", {2.5});
  c = find(check_targets(r), "restart");
  EXPECT_FALSE(c.met);
  EXPECT_NE(c.measured.find("1024 MB"), std::string::npos) << c.measured;
}

}  // namespace
}  // namespace spool::bench
