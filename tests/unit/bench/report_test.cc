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
  r.peer = "librdkafka mock";
  r.repetitions = 2;
  auto add = [&](std::string w, std::string t, std::string m, std::vector<double> v) {
    r.measurements.push_back({std::move(w), std::move(t), std::move(m), std::move(v)});
  };
  add("produce/100B/acks=1/p1/x1", "spool", "msgs_per_s", {800000, 900000});
  add("produce/100B/acks=1/p1/x1", "peer", "msgs_per_s", {1000000, 1000000});
  add("produce/1KB/acks=all/p1/x1", "spool", "MB_per_s", {40, 40});
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
  // 0.85x of the peer: not met; consume 1550 MB/s: met; RSS: not measured.
  EXPECT_NE(md.find("| produce 100 B acks=1, 1 partition vs peer | >= 0.9x peer msg/s | 0.85x"), std::string::npos)
      << md;
  EXPECT_NE(md.find("**NOT met**"), std::string::npos);
  EXPECT_NE(md.find("| consume 1 KB messages from page cache | >= 1000 MB/s | 1550 MB/s | met |"),
            std::string::npos);
  EXPECT_NE(md.find("| idle RSS | < 50 MB | not measured"), std::string::npos);
  EXPECT_NE(md.find("### Produce throughput"), std::string::npos);
  EXPECT_NE(md.find("### Machine limits"), std::string::npos);
  EXPECT_NE(md.find("| Spool/peer |"), std::string::npos);
  EXPECT_NE(md.find("0.85x"), std::string::npos);
  EXPECT_NE(md.find("40.0%"), std::string::npos);  // acks=all 40 MB/s of 100 MB/s fdatasync
  EXPECT_NE(md.find("![Throughput](x-throughput.svg)"), std::string::npos);
  EXPECT_NE(md.find("validate_batch"), std::string::npos);
  EXPECT_NE(md.find("no root to drop caches"), std::string::npos);
  EXPECT_NE(md.find("- Host: testhost | 2 cores"), std::string::npos);
  EXPECT_NE(md.find("## Closing note"), std::string::npos);
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
  for (const char* f : {"-throughput.svg", "-latency.svg"}) {
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
