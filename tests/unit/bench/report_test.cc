#include "bench/report.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/targets.h"
#include "common/temp_dir.h"
#include "xml_check.h"

namespace spool::bench {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("spool-report") {}
};

Report sample() {
  Report r;
  r.started_at = "2026-11-30T13:31:21Z";
  r.host = "testhost | 2 cores";
  r.spool_version = "v0.7";
  r.peer = "Apache Kafka 4.4.0";
  r.targets = {{"spool", "Spool, default configuration", "power loss"},
               {"kafka", "Kafka | default", "kill -9, not power loss"},
               {"kafka-flush1", "Kafka flush.messages=1", "power loss"}};
  r.repetitions = 2;
  auto add = [&](std::string w, std::string t, std::string m, std::vector<double> v) {
    r.measurements.push_back({std::move(w), std::move(t), std::move(m), std::move(v)});
  };
  add("produce/100B/acks=1/p1/x1", "spool", "msgs_per_s", {800000, 900000});
  add("produce/100B/acks=1/p1/x1", "kafka", "msgs_per_s", {1000000, 1000000});
  add("produce/100B/acks=1/p1/ProducerPerformance", "spool", "msgs_per_s", {700000});
  add("produce/100B/acks=1/p1/ProducerPerformance", "kafka", "msgs_per_s", {350000});
  add("produce/1KB/acks=all/p1/x1", "spool", "MB_per_s", {40, 40});
  add("produce/1KB/acks=all/p1/x1", "spool", "msgs_per_s", {40000, 40000});
  add("produce/1KB/acks=all/p1/x1", "kafka-flush1", "msgs_per_s", {10000});
  add("consume/1KB/cached", "spool", "MB_per_s", {1500, 1600});
  add("latency/100B/acks=1/in-flight=1", "spool", "p99_us", {500, 700});
  add("machine/disk-write-fdatasync", "machine", "MB_per_s", {100, 100});
  add("machine/loopback", "machine", "MB_per_s", {3000, 3000});
  r.profiles.push_back({"produce/100B/acks=1/p1/x1", "- 30% in `validate_batch`"});
  r.notes.push_back("consume/1KB/cold skipped: no root to drop caches");
  return r;
}

TEST(BenchReport, Stamp) {
  EXPECT_EQ(report_stamp("2026-11-30T13:31:21Z"), "20261130T133121Z");
  EXPECT_EQ(report_stamp("2026-11-30T13:31:21.123Z"), "20261130T133121");
  EXPECT_EQ(report_stamp("../x/2026-01-01T00:00:00Z").find_first_of("./"), std::string::npos);
  EXPECT_FALSE(report_stamp("").empty());
  EXPECT_FALSE(report_stamp("///").empty());
}

TEST(BenchReport, MarkdownHasSummaryTablesAndPlots) {
  Report r = sample();
  auto checks = check_targets(r);
  std::string md = render_markdown(r, checks, {{"Throughput", "x-throughput.svg"}});
  EXPECT_NE(md.find("| Target | Goal | Measured | Result |"), std::string::npos);
  for (const auto& c : checks) EXPECT_NE(md.find("| " + c.name + " |"), std::string::npos) << c.name;
  // 0.85x of Kafka: not met; flush.messages=1: 4x, met; RSS: not measured.
  EXPECT_NE(md.find("| produce 100 B, acks=1, 1 partition | >= 1.5x Kafka | 0.85x (850 k msg/s vs 1 M msg/s) | "
                    "**NOT met** |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| >= 3x Kafka with flush.messages=1 | 4.00x (40 k msg/s vs 10 k msg/s) | met |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| idle RSS | <= 0.1x Kafka | not measured"), std::string::npos);
  EXPECT_NE(md.find("### Produce throughput"), std::string::npos);
  EXPECT_NE(md.find("### Machine limits"), std::string::npos);
  // The family table: one column per broker, then the ratio; Kafka's tools beside librdkafka.
  EXPECT_NE(md.find("| Workload | Metric | spool | kafka | kafka-flush1 | Spool/Kafka |"), std::string::npos) << md;
  EXPECT_NE(md.find("| produce/100B/acks=1/p1/ProducerPerformance | msgs_per_s (msg/s) | 700 k | 350 k | – | 2.00x |"),
            std::string::npos)
      << md;
  // The configurations table: what each guarantees, cells escaped, Spool durable / this.
  EXPECT_NE(md.find("## Broker configurations and what they guarantee"), std::string::npos);
  EXPECT_NE(md.find("| kafka | Kafka \\| default | kill -9, not power loss |"), std::string::npos) << md;
  EXPECT_NE(md.find("| kafka-flush1 | Kafka flush.messages=1 | power loss | 10 k msg/s | – | – | 4.00x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("40.0%"), std::string::npos);  // acks=all 40 MB/s of 100 MB/s fdatasync
  EXPECT_NE(md.find("![Throughput](x-throughput.svg)"), std::string::npos);
  EXPECT_NE(md.find("validate_batch"), std::string::npos);
  EXPECT_NE(md.find("no root to drop caches"), std::string::npos);
  EXPECT_NE(md.find("- Host: testhost | 2 cores"), std::string::npos);
  EXPECT_NE(md.find("## Closing note"), std::string::npos);
}

TEST(BenchReport, OperabilityFiguresQuoteThePairedRatiosSpreadAndTheScrapeCost) {
  Report r;
  const std::string over = "operability/scrape/100B/acks=1/p1/x1/scraper=1Hz-over-no-scraper";
  r.measurements.push_back({over, "spool", "ratio", {0.9, 1.0, 0.98, 1.02, 0.99}});
  r.measurements.push_back({over, "spool", "cpu_per_MB_ratio", {1.0, 1.01, 1.02, 1.0, 1.01}});
  r.measurements.push_back({"operability/scrape/metrics", "spool", "cpu_ms_per_scrape", {0.2, 0.25, 0.3}});
  r.measurements.push_back({"operability/scrape/metrics", "spool", "cpu_pct_at_1Hz", {0.02, 0.025, 0.03}});
  r.measurements.push_back({"operability/console-1000-partitions/chromium", "spool", "table_ms", {300, 500, 400}});
  r.measurements.push_back({"operability/console-1000-partitions/chromium", "spool", "load_ms", {120, 130, 125}});
  std::string md = render_markdown(r, check_targets(r), {});
  EXPECT_NE(md.find("- produce 100 B acks=1 with a 1 Hz scraper over without, msg/s: 0.99x (middle half 0.98x – "
                    "1.00x, all 0.90x – 1.02x, 5 pairs)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- the same pairs, broker CPU per MB produced: 1.01x"), std::string::npos) << md;
  EXPECT_NE(md.find("- scrape cost = 0.25 ms CPU per scrape = 0.025 % of one core at 1 Hz"), std::string::npos) << md;
  EXPECT_NE(md.find("- operability/console-1000-partitions/chromium: topics table rendered 400 ms (300 – 500), load "
                    "125 ms (120 – 130), 3 loads"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| operability/scrape/metrics | cpu_ms_per_scrape (ms CPU) | 0.25 (0.2 – 0.3) |"),
            std::string::npos)
      << md;
}

TEST(BenchReport, WriteReportWritesAllFilesAndCsvRoundTrips) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  Report r = sample();
  std::string md_path;
  std::string dir = tmp.path() + "/results/nested";
  Status s = write_report(r, check_targets(r), dir, &md_path);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(md_path, dir + "/20261130T133121Z.md");
  std::string md = slurp(md_path);
  EXPECT_NE(md.find("## Targets"), std::string::npos);
  EXPECT_NE(md.find("](20261130T133121Z-throughput.svg)"), std::string::npos);
  EXPECT_NE(md.find("](20261130T133121Z-latency.svg)"), std::string::npos);
  EXPECT_NE(md.find("](20261130T133121Z-ratio.svg)"), std::string::npos);
  for (const char* f : {"-throughput.svg", "-latency.svg", "-ratio.svg"}) {
    std::string svg = slurp(dir + "/20261130T133121Z" + f);
    ASSERT_FALSE(svg.empty()) << f;
    EXPECT_EQ(testing::xml_problem(svg), "") << f;
  }
  auto back = read_csv(dir + "/20261130T133121Z.csv");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  ASSERT_EQ(back->measurements.size(), r.measurements.size());
  EXPECT_EQ(back->measurements[3].runs, r.measurements[3].runs);
  EXPECT_EQ(back->host, r.host);
  EXPECT_EQ(back->notes, r.notes);
  ASSERT_EQ(back->targets.size(), r.targets.size());
  for (size_t i = 0; i < r.targets.size(); ++i) {
    EXPECT_EQ(back->targets[i].name, r.targets[i].name);
    EXPECT_EQ(back->targets[i].description, r.targets[i].description);
    EXPECT_EQ(back->targets[i].guarantee, r.targets[i].guarantee);
  }
}

TEST(BenchReport, BadPathsAreErrors) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  std::string file = tmp.path() + "/plain-file";
  std::ofstream(file) << "x";
  Report r = sample();
  EXPECT_FALSE(write_report(r, {}, file, nullptr).is_ok());           // a file, not a directory
  EXPECT_FALSE(write_report(r, {}, file + "/sub", nullptr).is_ok());  // below a file
  EXPECT_FALSE(write_report(r, {}, "", nullptr).is_ok());
  EXPECT_FALSE(read_csv(tmp.path() + "/missing.csv").is_ok());
  EXPECT_FALSE(read_csv(file).is_ok());  // not a report CSV
}

}  // namespace
}  // namespace spool::bench
