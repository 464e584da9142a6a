#include "util/metrics.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace spool::util {
namespace {

TEST(Metrics, CounterSumsEveryThreadsAdds) {
  Counter c;
  std::vector<std::thread> threads;
  for (int t = 0; t < 24; ++t)  // more threads than shards: slots are shared
    threads.emplace_back([&c, t] {
      for (int i = 0; i < 10000; ++i) c.add(t + 1);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 10000LL * (24 * 25 / 2));
}

TEST(Metrics, HistogramBucketsAreCumulativeWithTheBoundInclusive) {
  Histogram h({1, 10});
  for (double v : {0.5, 1.0, 1.5, 10.0, 11.0, 100.0}) h.observe(v);
  auto s = h.snapshot();
  EXPECT_EQ(s.cumulative, (std::vector<int64_t>{2, 4, 6}));  // le=1: 0.5, 1; le=10: +1.5, 10; +Inf: all
  EXPECT_EQ(s.count, 6);
  EXPECT_DOUBLE_EQ(s.sum, 124.0);
}

TEST(Metrics, PromTextWritesTheExpositionFormat) {
  PromText out;
  out.family("x_total", "counter", "Things\ncounted \\ here");
  out.sample("x_total", {}, 3);
  out.sample("x_total", {{"topic", "a\"b\\c\nd"}}, 1.5);
  Histogram h({1});
  h.observe(0.5);
  h.observe(2);
  out.family("t_ms", "histogram", "Times");
  out.histogram("t_ms", {{"request", "Produce"}}, h.snapshot());
  out.histogram("t_ms", {}, h.snapshot());
  EXPECT_EQ(out.take(),
            "# HELP x_total Things\\ncounted \\\\ here\n"
            "# TYPE x_total counter\n"
            "x_total 3\n"
            "x_total{topic=\"a\\\"b\\\\c\\nd\"} 1.5\n"
            "# HELP t_ms Times\n"
            "# TYPE t_ms histogram\n"
            "t_ms_bucket{request=\"Produce\",le=\"1\"} 1\n"
            "t_ms_bucket{request=\"Produce\",le=\"+Inf\"} 2\n"
            "t_ms_sum{request=\"Produce\"} 2.5\n"
            "t_ms_count{request=\"Produce\"} 2\n"
            "t_ms_bucket{le=\"1\"} 1\n"
            "t_ms_bucket{le=\"+Inf\"} 2\n"
            "t_ms_sum 2.5\n"
            "t_ms_count 2\n");
}

}  // namespace
}  // namespace spool::util
