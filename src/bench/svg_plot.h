// Hand-written SVG bar charts for the report: throughput per workload (one
// bar per broker configuration and the machine, one linearly scaled panel per
// metric), latency percentiles per latency workload (log scale), and the
// Spool/Kafka ratio of each workload's main metric (log scale around 1x). Pure functions that
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
std::string ratio_svg(const Report& r);

}  // namespace spool::bench
