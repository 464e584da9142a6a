// Writes the `spool bench` report: Markdown (metadata, target summary, one
// table per workload family with Spool/Kafka ratios, fractions of the machine
// limits, plots, profiles, notes, closing note), the CSV (see csv.h) and SVG
// plots (see svg_plot.h), all named after the run's start time.
// Plain functions; file-system failures come back as an error Status, with
// the message naming the path. Not thread-safe against concurrent writers
// of the same directory and stamp.
#pragma once

#include <string>
#include <vector>

#include "bench/measurement.h"
#include "util/status.h"

namespace spool::bench {

// Creates `dir` (and parents); writes <dir>/<stamp>.md, <stamp>.csv and
// <stamp>-ratio.svg / -throughput.svg / -latency.svg when there is something to
// plot. <stamp> comes from r.started_at (or the current UTC time when that
// is empty). On success *markdown_path (if not null) is the .md path.
Status write_report(const Report& r, const std::vector<TargetCheck>& checks, const std::string& dir,
                    std::string* markdown_path);

// Parses a CSV written by write_report back into a Report (measurements,
// metadata, notes and profiles).
Result<Report> read_csv(const std::string& path);

// The pieces of write_report, exposed for tests and other front-ends.
struct PlotLink {
  std::string title;
  std::string file;  // relative to the Markdown file
};
std::string render_markdown(const Report& r, const std::vector<TargetCheck>& checks,
                            const std::vector<PlotLink>& plots);
// A file-name-safe stamp from an ISO 8601 time: "2026-11-30T13:31:21Z" -> "20261130T133121Z".
std::string report_stamp(const std::string& started_at);

}  // namespace spool::bench
