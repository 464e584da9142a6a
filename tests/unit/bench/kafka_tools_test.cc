// The parsers of Kafka's Java tools' summaries (kafka_tools.cc), fed the
// exact lines kafka-tools 4.4.0 prints, and the peer choice of `spool bench`
// (runner.cc: --peer kafka|mock, the default and its fallback).
#include "bench/kafka_tools.h"

#include <gtest/gtest.h>

#include "bench/runner.h"

namespace spool::bench {
namespace {

TEST(KafkaTools, ProducerPerformanceSummaryIsTheLastLineWithPercentiles) {
  // A progress line first (no percentiles), then the final summary.
  const std::string out =
      "126992 records sent, 25398.4 records/sec (2.42 MB/sec), 768.5 ms avg latency, 1357.0 ms max latency.\n"
      "300000 records sent, 44937.088077 records/sec (4.29 MB/sec), 903.51 ms avg latency, 1440.00 ms max "
      "latency, 967 ms 50th, 1317 ms 95th, 1421 ms 99th, 1439 ms 99.9th.\n";
  auto t = parse_producer_performance(out, 100);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  EXPECT_EQ(t->messages, 300000);
  EXPECT_EQ(t->bytes, 30000000);
  EXPECT_NEAR(t->msgs_per_s(), 44937.088077, 1e-3);
  EXPECT_NEAR(t->MB_per_s(), 4.4937088077, 1e-6);  // 10^6 bytes, not the tool's 2^20
  EXPECT_FALSE(parse_producer_performance(out.substr(0, out.find('\n') + 1), 100).is_ok());
  EXPECT_FALSE(parse_producer_performance("", 100).is_ok());
  EXPECT_FALSE(parse_producer_performance("x records sent, y records/sec, 1 ms 99.9th.\n", 100).is_ok());
}

TEST(KafkaTools, ConsumerPerformanceUsesTheFetchRate) {
  const std::string out =
      "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, "
      "fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n"
      "2026-12-01 23:52:25:850, 2026-12-01 23:52:28:330, 28.6102, 11.5364, 300000, 120967.7419, 1273, 1207, "
      "23.7036, 248550.1243\n";
  auto t = parse_consumer_performance(out, 1024);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  EXPECT_EQ(t->messages, 300000);
  EXPECT_NEAR(t->msgs_per_s(), 248550.1243, 1e-3);
  EXPECT_NEAR(t->MB_per_s(), 248550.1243 * 1024 / 1e6, 1e-6);
  EXPECT_FALSE(parse_consumer_performance(out.substr(0, out.find('\n') + 1), 1024).is_ok());  // no values
  EXPECT_FALSE(parse_consumer_performance("start.time, end.time\n1, 2\n", 1024).is_ok());      // no rate column
}

TEST(KafkaTools, EndToEndLatencyMillisecondsBecomeMicroseconds) {
  const std::string out =
      "Topic \"e2e2\" does not exist. Will create topic with 1 partition(s) and replication factor = 1\n"
      "0\t101.690545\nAvg latency: 3.5547 ms\nPercentiles: 50th = 2, 99th = 19, 99.9th = 101\n";
  auto l = parse_end_to_end_latency(out);
  ASSERT_TRUE(l.is_ok()) << l.status().message();
  EXPECT_EQ(l->p50_us, 2000);
  EXPECT_EQ(l->p99_us, 19000);
  EXPECT_EQ(l->p999_us, 101000);
  EXPECT_FALSE(parse_end_to_end_latency("Avg latency: 3.5 ms\n").is_ok());
  EXPECT_FALSE(parse_end_to_end_latency("Percentiles: 50th = 2, 99th = x\n").is_ok());
}

TEST(BenchPeer, DefaultIsKafkaWhenAvailableElseMockWithAReason) {
  BenchOptions o;
  auto c = choose_peer(o, true, true, "");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->peer, "kafka");
  EXPECT_EQ(c->why, "");
  c = choose_peer(o, false, true, "");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->peer, "mock");
  EXPECT_NE(c->why.find("no java"), std::string::npos) << c->why;
  c = choose_peer(o, true, false, "scripts/kafka-peer not found");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->peer, "mock");
  EXPECT_NE(c->why.find("scripts/kafka-peer not found"), std::string::npos) << c->why;
}

TEST(BenchPeer, ExplicitChoicesAreHonouredOrFail) {
  BenchOptions o;
  o.peer = "kafka";
  EXPECT_FALSE(choose_peer(o, false, true, "").is_ok());  // --peer kafka without Java: an error, not a fallback
  auto e = choose_peer(o, true, false, "not found here");
  ASSERT_FALSE(e.is_ok());
  EXPECT_NE(e.status().message().find("not found here"), std::string::npos);
  EXPECT_EQ(choose_peer(o, true, true, "")->peer, "kafka");
  o.peer = "mock";
  EXPECT_EQ(choose_peer(o, true, true, "")->peer, "mock");
  o.peer = "";
  o.skip_peer = true;
  EXPECT_EQ(choose_peer(o, true, true, "")->peer, "none");
}

TEST(BenchPeer, OptionValidation) {
  BenchOptions o;
  o.peer = "zookeeper";
  auto st = validate_bench_options(o);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("--peer"), std::string::npos);
  o.peer = "mock";
  EXPECT_TRUE(validate_bench_options(o).is_ok());
  o.skip_peer = true;
  EXPECT_FALSE(validate_bench_options(o).is_ok());
  o = BenchOptions{};
  o.workloads = {"kafka-tools", "rss"};
  EXPECT_TRUE(validate_bench_options(o).is_ok());
}

}  // namespace
}  // namespace spool::bench
