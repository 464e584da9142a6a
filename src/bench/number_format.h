// Number formatting shared by the Markdown report, the SVG plots and the
// target checks, so one figure reads the same everywhere. Pure functions.
#pragma once

#include <string>

namespace spool::bench {

// About three significant digits; "n/a" for NaN/inf.
std::string format_plain(double v);
// Like format_plain with a k/M/G suffix for large values ("1.76 M").
std::string format_si(double v);
// The median-style figure for a metric: msgs_per_s gets SI suffixes.
std::string format_value(const std::string& metric, double v);
// "msg/s", "MB/s", "us", "MB", "s", "ms CPU/MB", or the metric name itself.
std::string metric_unit(const std::string& metric);
// format_value followed by the unit ("1.76 M msg/s").
std::string format_with_unit(const std::string& metric, double v);
// "0.84x"
std::string format_ratio(double r);

}  // namespace spool::bench
