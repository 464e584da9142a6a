// The pure parts of the bench runner: option validation, size resolution,
// percentiles, workload ids.
#include <gtest/gtest.h>

#include "bench/runner.h"
#include "bench/stats.h"
#include "bench/workloads.h"

namespace spool::bench {
namespace {

TEST(BenchOptions, DefaultsAreValid) { EXPECT_TRUE(validate_bench_options(BenchOptions{}).is_ok()); }

TEST(BenchOptions, RejectsOutOfRangeCounts) {
  BenchOptions o;
  o.repetitions = 0;
  EXPECT_FALSE(validate_bench_options(o));
  o.repetitions = -3;
  EXPECT_NE(validate_bench_options(o).message().find("--repetitions"), std::string::npos);
  o = BenchOptions{};
  o.messages = -1;
  EXPECT_FALSE(validate_bench_options(o));
  o = BenchOptions{};
  o.duration_s = 0;
  EXPECT_FALSE(validate_bench_options(o));
  o = BenchOptions{};
  o.restart_mb = 0;
  EXPECT_FALSE(validate_bench_options(o));
  o = BenchOptions{};
  o.latency_rate = -5;
  EXPECT_FALSE(validate_bench_options(o));
}

TEST(BenchOptions, RejectsUnknownWorkloadByName) {
  BenchOptions o;
  o.workloads = {"produce", "produse"};
  Status st = validate_bench_options(o);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("'produse'"), std::string::npos);
  o.workloads = {"produce", "consume", "latency", "rss", "restart", "machine", "cluster"};
  EXPECT_TRUE(validate_bench_options(o).is_ok());
}

TEST(BenchOptions, OperabilityFamilyAndItsWorkloads) {
  BenchOptions o;
  o.workloads = {"operability"};
  EXPECT_TRUE(validate_bench_options(o).is_ok());
  o.workloads = {"operability/scrape", "operability/admin-1000-partitions", "operability/console-1000-partitions"};
  EXPECT_TRUE(validate_bench_options(o).is_ok());
  o.workloads = {"operability/console"};
  Status st = validate_bench_options(o);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("operability/<scrape|admin-1000-partitions|console-1000-partitions>"),
            std::string::npos)
      << st.message();
}

TEST(BenchOptions, AdminListenerIsTheBenchsOwn) {
  BenchOptions o;
  o.broker_overrides = {"admin.listener=http://127.0.0.1:9644"};
  Status st = validate_bench_options(o);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("admin.listener"), std::string::npos);
}

TEST(BenchOptions, BootstrapMustBeHostPort) {
  BenchOptions o;
  for (const char* bad : {"localhost", ":9092", "host:", "host:0", "host:70000", "host:9x92"}) {
    o.bootstrap = bad;
    EXPECT_FALSE(validate_bench_options(o)) << bad;
  }
  o.bootstrap = "127.0.0.1:9092";
  EXPECT_TRUE(validate_bench_options(o).is_ok());
  o.broker_overrides = {"num.io.threads=4"};
  EXPECT_FALSE(validate_bench_options(o)) << "overrides need the bench's own broker";
}

TEST(BenchOptions, OverridesAreKeyValue) {
  BenchOptions o;
  o.broker_overrides = {"a=b", "novalue"};
  EXPECT_FALSE(validate_bench_options(o));
  o.broker_overrides = {"=x"};
  EXPECT_FALSE(validate_bench_options(o));
  o.broker_overrides = {"log.segment.bytes=1048576"};
  EXPECT_TRUE(validate_bench_options(o).is_ok());
}

TEST(BenchSizes, QuickIsSmallAndExplicitValuesWin) {
  BenchOptions o;
  Sizes standard = resolve_sizes(o);
  EXPECT_EQ(standard.repetitions, 3);
  EXPECT_EQ(standard.restart_mb, 1024);
  o.quick = true;
  Sizes quick = resolve_sizes(o);
  EXPECT_EQ(quick.repetitions, 1);
  EXPECT_LT(quick.messages, standard.messages);
  EXPECT_LT(quick.restart_mb, standard.restart_mb);
  o.repetitions = 2;
  o.messages = 5000;
  Sizes mixed = resolve_sizes(o);
  EXPECT_EQ(mixed.repetitions, 2);
  EXPECT_EQ(mixed.messages, 5000);
  EXPECT_EQ(mixed.consume_messages, 1666);
}

TEST(Percentile, NearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i) v.push_back(i);
  EXPECT_EQ(percentile_sorted(v, 0.5), 500);
  EXPECT_EQ(percentile_sorted(v, 0.99), 990);
  EXPECT_EQ(percentile_sorted(v, 0.999), 999);
  EXPECT_EQ(percentile_sorted(v, 1.0), 1000);
  EXPECT_EQ(percentile_sorted(v, 0.0), 1);
  EXPECT_EQ(percentile_sorted({}, 0.5), 0);
  EXPECT_EQ(percentile_sorted({7}, 0.999), 7);
}

TEST(Percentile, SummaryOfUnsortedSamples) {
  LatencySummary s = summarize_latencies({300, 100, 200, 5000});
  EXPECT_EQ(s.samples, 4u);
  EXPECT_EQ(s.p50_us, 200);
  EXPECT_EQ(s.p99_us, 5000);
  EXPECT_EQ(s.max_us, 5000);
}

TEST(WorkloadIds, MatchTheMeasurementContract) {
  EXPECT_EQ(produce_workload_id({100, false, 1, 1}), "produce/100B/acks=1/p1/x1");
  EXPECT_EQ(produce_workload_id({1024, true, 16, 4}), "produce/1KB/acks=all/p16/x4");
}

TEST(HumanNumber, ThreeSignificantFigures) {
  EXPECT_EQ(human_number(1710000), "1.71 M");
  EXPECT_EQ(human_number(93.04), "93");
  EXPECT_EQ(human_number(812000), "812 k");
}

}  // namespace
}  // namespace spool::bench
