#include "bench/number_format.h"

#include <fmt/format.h>

#include <cmath>

namespace spool::bench {

std::string format_plain(double v) {
  if (!std::isfinite(v)) return "n/a";
  double a = std::fabs(v);
  // Integral values (typically goals: "50 MB", "2 s") print without decimals.
  if (a >= 100 || (v == std::floor(v) && a < 1e15)) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1 || a == 0) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

std::string format_si(double v) {
  if (!std::isfinite(v)) return "n/a";
  double a = std::fabs(v);
  if (a >= 1e9) return format_plain(v / 1e9) + " G";
  if (a >= 1e6) return format_plain(v / 1e6) + " M";
  if (a >= 1e4) return format_plain(v / 1e3) + " k";
  return format_plain(v);
}

std::string format_value(const std::string& metric, double v) {
  return metric == "msgs_per_s" ? format_si(v) : format_plain(v);
}

std::string metric_unit(const std::string& metric) {
  if (metric == "msgs_per_s") return "msg/s";
  if (metric == "cpu_ms_per_MB") return "ms CPU/MB";
  if (metric == "cpu_ms_per_scrape") return "ms CPU";
  if (metric == "cpu_pct_at_1Hz") return "% of a core";
  if (metric == "MB_per_s") return "MB/s";
  if (metric == "txns_per_s") return "txn/s";
  if (metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_us") == 0) return "us";
  if (metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_ms") == 0) return "ms";
  if (metric == "shutdown_s") return "s";
  if (metric == "rss_MB") return "MB";
  if (metric == "rss_KB") return "KB";
  if (metric == "seconds") return "s";
  if (metric.size() > 6 && metric.compare(metric.size() - 6, 6, "_bytes") == 0) return "B";
  if (metric.size() > 5 && metric.compare(metric.size() - 5, 5, "_msgs") == 0) return "messages";
  return metric;
}

std::string format_with_unit(const std::string& metric, double v) {
  return format_value(metric, v) + " " + metric_unit(metric);
}

std::string format_ratio(double r) {
  if (!std::isfinite(r)) return "n/a";
  return fmt::format("{:.2f}x", r);
}

}  // namespace spool::bench
