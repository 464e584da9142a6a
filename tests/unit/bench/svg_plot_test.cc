#include "bench/svg_plot.h"

#include <gtest/gtest.h>

#include "xml_check.h"

namespace spool::bench {
namespace {

using testing::xml_problem;

Report sample() {
  Report r;
  auto add = [&](std::string w, std::string t, std::string m, double v) {
    r.measurements.push_back({std::move(w), std::move(t), std::move(m), {v, v * 1.1, v * 0.9}});
  };
  add("produce/100B/acks=1/p1/x1", "spool", "msgs_per_s", 1.7e6);
  add("produce/100B/acks=1/p1/x1", "kafka", "msgs_per_s", 2.1e6);
  add("produce/1KB/acks=all/p16/x4", "spool", "MB_per_s", 80);
  add("consume/1KB/cached", "spool", "MB_per_s", 1200);
  add("machine/loopback", "machine", "MB_per_s", 4000);
  add("weird<&>\"'/workload", "spool", "msgs_per_s", 5);
  add("latency/100B/acks=1/in-flight=1", "spool", "p50_us", 80);
  add("latency/100B/acks=1/in-flight=1", "spool", "p99_us", 400);
  add("latency/100B/acks=1/in-flight=1", "spool", "p999_us", 900);
  add("latency/100B/acks=1/in-flight=1", "spool", "max_us", 15000);
  add("latency/100B/acks=1/in-flight=1", "kafka", "p99_us", 300);
  add("latency/100B/acks=1/rate=1000", "spool", "p50_us", 0);  // not plottable on a log axis, must not break
  add("rss/idle", "spool", "rss_MB", 20);
  add("rss/idle", "kafka", "rss_MB", 400);
  add("produce/1KB/acks=all/p1/x1", "kafka-flush1", "msgs_per_s", 9000);  // no kafka figure: no ratio row
  return r;
}

TEST(BenchSvg, Escape) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape(std::string("x\x01y", 3)), "x?y");
}

TEST(BenchSvg, CheckerRejectsBrokenXml) {
  // The checker itself must be able to fail.
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg>a & b</svg>"), "");
  EXPECT_NE(xml_problem("<svg>a < b</svg>"), "");
  EXPECT_NE(xml_problem("<svg/><svg/>"), "");
  EXPECT_EQ(xml_problem("<?xml version=\"1.0\"?>\n<svg a=\"1\"><g/>&amp;</svg>\n"), "");
}

TEST(BenchSvg, ThroughputIsWellFormedAndNamesWorkloads) {
  std::string svg = throughput_svg(sample());
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("produce/100B/acks=1/p1/x1"), std::string::npos);
  EXPECT_NE(svg.find("produce/1KB/acks=all/p16/x4"), std::string::npos);
  EXPECT_NE(svg.find("consume/1KB/cached"), std::string::npos);
  EXPECT_NE(svg.find("machine/loopback"), std::string::npos);
  EXPECT_NE(svg.find("weird&lt;&amp;&gt;&quot;&apos;/workload"), std::string::npos);
  EXPECT_EQ(svg.find("latency/"), std::string::npos);  // not a throughput workload
  EXPECT_NE(svg.find("<rect"), std::string::npos);
}

TEST(BenchSvg, LatencyIsWellFormedAndNamesWorkloads) {
  std::string svg = latency_svg(sample());
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_NE(svg.find("latency/100B/acks=1/in-flight=1"), std::string::npos);
  EXPECT_NE(svg.find("latency/100B/acks=1/rate=1000"), std::string::npos);
  for (const char* p : {">p50<", ">p99<", ">p99.9<", ">max<"}) EXPECT_NE(svg.find(p), std::string::npos) << p;
  EXPECT_EQ(svg.find("produce/"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(BenchSvg, RatioPlotsSpoolOverKafkaWithItsDirection) {
  std::string svg = ratio_svg(sample());
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(xml_problem(svg), "") << svg;
  // produce 1.7 M / 2.1 M = 0.81x (worse: red); latency p99 400/300 = 1.33x (worse);
  // RSS 20/400 = 0.05x (lower is better: green).
  EXPECT_NE(svg.find(">0.81x<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">1.33x<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">0.05x<"), std::string::npos) << svg;
  EXPECT_NE(svg.find("rss/idle MB"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("acks=all/p1/x1"), std::string::npos);  // only kafka-flush1 there
  EXPECT_NE(svg.find("fill=\"#2ca02c\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#d62728\""), std::string::npos);
  EXPECT_NE(svg.find(">1x<"), std::string::npos);  // the 1x gridline is labelled
  // Legend of the throughput plot names only the brokers it has.
  std::string tp = throughput_svg(sample());
  EXPECT_NE(tp.find(">kafka-flush1<"), std::string::npos);
  EXPECT_EQ(tp.find(">spool-nodurable<"), std::string::npos);
}

TEST(BenchSvg, NothingToPlotGivesEmpty) {
  Report r;
  EXPECT_EQ(throughput_svg(r), "");
  EXPECT_EQ(latency_svg(r), "");
  EXPECT_EQ(ratio_svg(r), "");
  r.measurements.push_back({"rss/idle", "spool", "rss_MB", {20}});
  EXPECT_EQ(throughput_svg(r), "");
  EXPECT_EQ(latency_svg(r), "");
}

}  // namespace
}  // namespace spool::bench
