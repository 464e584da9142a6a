#include "bench/csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "bench/measurement.h"

namespace spool::bench {
namespace {

Report sample() {
  Report r;
  r.started_at = "2026-11-30T13:31:21Z";
  r.host = "box, 2 cores, \"Linux\" 6.1";
  r.spool_version = "v0.7-3-gabc";
  r.peer = "librdkafka 2.0.2 mock cluster";
  r.repetitions = 3;
  r.measurements.push_back({"produce/100B/acks=1/p1/x1", "spool", "msgs_per_s", {1.5e6, 1234567.891, 0.1}});
  r.measurements.push_back({"produce/100B/acks=1/p1/x1", "peer", "msgs_per_s", {2e6}});
  r.measurements.push_back({"odd,workload \"q\"\nline2", "spool", "p99_us", {-1.25, 1e-300, 3}});
  r.measurements.push_back({"rss/idle", "spool", "rss_MB", {}});
  r.notes = {"plain", "with, comma", "with \"quotes\"", "multi\nline\r\nnote", ""};
  r.profiles = {{"consume/1KB/cached", "- 40% sendfile\n- 20% crc, \"x\""}};
  return r;
}

TEST(BenchCsv, FieldQuoting) {
  EXPECT_EQ(csv_field("abc"), "abc");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(BenchCsv, RoundTripKeepsEverything) {
  Report r = sample();
  std::string text = report_to_csv(r);
  EXPECT_EQ(text.substr(0, kCsvHeader.size()), kCsvHeader);
  auto back = report_from_csv(text);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back->started_at, r.started_at);
  EXPECT_EQ(back->host, r.host);
  EXPECT_EQ(back->spool_version, r.spool_version);
  EXPECT_EQ(back->peer, r.peer);
  EXPECT_EQ(back->repetitions, 3);
  ASSERT_EQ(back->measurements.size(), r.measurements.size());
  for (size_t i = 0; i < r.measurements.size(); ++i) {
    EXPECT_EQ(back->measurements[i].workload, r.measurements[i].workload);
    EXPECT_EQ(back->measurements[i].target, r.measurements[i].target);
    EXPECT_EQ(back->measurements[i].metric, r.measurements[i].metric);
    EXPECT_EQ(back->measurements[i].runs, r.measurements[i].runs);  // exact doubles
  }
  EXPECT_EQ(back->notes, r.notes);
  ASSERT_EQ(back->profiles.size(), 1u);
  EXPECT_EQ(back->profiles[0].workload, r.profiles[0].workload);
  EXPECT_EQ(back->profiles[0].text, r.profiles[0].text);
}

TEST(BenchCsv, CrlfAndReorderedRowsAreAccepted) {
  std::string text =
      "workload,target,metric,run,value\r\n"
      "rss/idle,spool,rss_MB,2,20\r\n"
      "rss/idle,spool,rss_MB,1,10\r\n";
  auto r = report_from_csv(text);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->measurements.size(), 1u);
  EXPECT_EQ(r->measurements[0].runs, (std::vector<double>{10, 20}));
}

TEST(BenchCsv, NonFiniteValuesRoundTrip) {
  Report r;
  r.measurements.push_back({"w/x", "spool", "seconds", {std::numeric_limits<double>::infinity(), NAN}});
  auto back = report_from_csv(report_to_csv(r));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  ASSERT_EQ(back->measurements[0].runs.size(), 2u);
  EXPECT_TRUE(std::isinf(back->measurements[0].runs[0]));
  EXPECT_TRUE(std::isnan(back->measurements[0].runs[1]));
}

TEST(BenchCsv, BadInputIsAnErrorNotACrash) {
  const char* bad[] = {
      "",
      "not,the,header\n",
      "workload,target,metric,run,value\nw,spool,m,1\n",                  // too few fields
      "workload,target,metric,run,value\nw,spool,m,1,abc\n",              // not a number
      "workload,target,metric,run,value\nw,spool,m,0,1\n",                // run 0
      "workload,target,metric,run,value\nw,spool,m,1,1\nw,spool,m,3,1\n",  // gap
      "workload,target,metric,run,value\nw,spool,m,1,1\nw,spool,m,1,2\n",  // duplicate
      "workload,target,metric,run,value\n\"w,spool,m,1,1\n",              // unterminated quote
      "workload,target,metric,run,value\n\"w\"x,spool,m,1,1\n",           // text after quote
      "workload,target,metric,run,value\nw\"x,spool,m,1,1\n",             // stray quote
      "workload,target,metric,run,value\n#meta,colour,,,red\n",
      "workload,target,metric,run,value\n#meta,repetitions,,,2.5\n",
      "workload,target,metric,run,value\n#note,,,x,hi\n",
  };
  for (const char* t : bad) EXPECT_FALSE(report_from_csv(t).is_ok()) << t;
}

// Bad input never crashes: random truncations and byte flips of a valid CSV
// either fail cleanly or parse to a report that itself round-trips.
TEST(BenchCsv, MutatedInputParsesOrFailsCleanly) {
  const std::string good = report_to_csv(sample());
  std::mt19937 rng(1234);
  const char alphabet[] = {',', '"', '\n', '\r', '#', '1', 'x', '\0', '-', '.'};
  int parsed = 0, failed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = good;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      size_t pos = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[pos] = alphabet[rng() % sizeof alphabet]; break;
        case 1: t.erase(pos, 1 + rng() % 8); break;
        default: t.resize(pos); break;
      }
    }
    auto r = report_from_csv(t);
    if (!r) {
      ++failed;
      EXPECT_FALSE(r.status().message().empty());
      continue;
    }
    ++parsed;
    auto again = report_from_csv(report_to_csv(*r));
    ASSERT_TRUE(again.is_ok()) << again.status().message();
    ASSERT_EQ(again->measurements.size(), r->measurements.size());
    EXPECT_EQ(again->notes, r->notes);
  }
  // Both outcomes must actually occur, or the test exercises nothing.
  EXPECT_GT(parsed, 0);
  EXPECT_GT(failed, 0);
}

TEST(BenchMeasurement, Median) {
  EXPECT_EQ((Measurement{"w", "t", "m", {}}).median(), 0);
  EXPECT_EQ((Measurement{"w", "t", "m", {7}}).median(), 7);
  EXPECT_EQ((Measurement{"w", "t", "m", {9, 1, 5}}).median(), 5);
  EXPECT_EQ((Measurement{"w", "t", "m", {4, 1, 3, 2}}).median(), 2.5);
}

}  // namespace
}  // namespace spool::bench
