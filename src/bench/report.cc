#include "bench/report.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/csv.h"
#include "bench/svg_plot.h"

namespace spool::bench {
namespace {

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return Status::error(fmt::format("cannot write {}", path));
  return Status::ok();
}

std::string utc_now_iso() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string report_stamp(const std::string& started_at) {
  std::string src = started_at.empty() ? utc_now_iso() : started_at;
  std::string out;
  for (char c : src) {
    if (c == '.' || c == '+') break;  // fractional seconds / offset: not needed in a name
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) out += c;
    if (out.size() >= 40) break;
  }
  if (out.empty()) out = report_stamp(utc_now_iso());
  return out;
}

Status write_report(const Report& r, const std::vector<TargetCheck>& checks, const std::string& dir,
                    std::string* markdown_path) {
  if (dir.empty()) return Status::error("report: empty output directory");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::error(fmt::format("report: cannot create {}: {}", dir, ec.message()));
  const std::string stamp = report_stamp(r.started_at);
  const std::string base = dir + "/" + stamp;

  if (Status s = write_file(base + ".csv", report_to_csv(r)); !s) return s;
  std::vector<PlotLink> plots;
  const std::pair<std::string, std::string> svgs[] = {
      {"Spool/Kafka ratio per workload", ratio_svg(r)},
      {"Throughput per workload", throughput_svg(r)},
      {"Latency percentiles", latency_svg(r)},
  };
  const char* suffix[] = {"-ratio.svg", "-throughput.svg", "-latency.svg"};
  for (size_t i = 0; i < 3; ++i) {
    if (svgs[i].second.empty()) continue;
    std::string file = stamp + suffix[i];
    if (Status s = write_file(dir + "/" + file, svgs[i].second); !s) return s;
    plots.push_back(PlotLink{svgs[i].first, file});
  }
  const std::string md = base + ".md";
  if (Status s = write_file(md, render_markdown(r, checks, plots)); !s) return s;
  if (markdown_path != nullptr) *markdown_path = md;
  return Status::ok();
}

Result<Report> read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::error(fmt::format("cannot read {}", path));
  auto r = report_from_csv(text.str());
  if (!r) return Status::error(fmt::format("{}: {}", path, r.status().message()));
  return r;
}

}  // namespace spool::bench
