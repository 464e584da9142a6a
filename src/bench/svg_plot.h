// Hand-written SVG bar charts for the report: throughput per workload
// (spool / peer / machine bars, one linearly scaled panel per metric) and
// latency percentiles per latency workload (log scale). Pure functions that
// return a standalone SVG document (well-formed XML, all text escaped), or
// an empty string when the report holds nothing to plot.
#pragma once

#include <string>
#include <string_view>

#include "bench/measurement.h"

namespace spool::bench {

std::string xml_escape(std::string_view s);
std::string throughput_svg(const Report& r);
std::string latency_svg(const Report& r);

}  // namespace spool::bench
