// The report's CSV form: one row per (workload, target, metric, run) so a
// spreadsheet can pivot it directly, plus a few rows whose workload starts
// with '#' carrying the run metadata, notes and profiles, so that the whole
// Report round-trips. RFC 4180 quoting (fields with , " CR or LF are quoted).
//
//   workload,target,metric,run,value
//   produce/100B/acks=1/p1/x1,spool,msgs_per_s,1,1763204.5
//   #meta,started_at,,,2026-11-30T13:00:00Z      (also host, spool_version, peer, repetitions)
//   #target,<name>,<guarantee>,1,<description>   (one per broker configuration)
//   #note,,,1,<text>
//   #profile,<workload>,,1,<markdown text>
//
// A Measurement without runs is one row with empty run and value. Values are
// written in shortest round-trip form. Pure functions, no I/O; parse errors
// come back as a Status naming the line.
#pragma once

#include <string>
#include <string_view>

#include "bench/measurement.h"
#include "util/status.h"

namespace spool::bench {

inline constexpr std::string_view kCsvHeader = "workload,target,metric,run,value";

std::string csv_field(std::string_view s);
std::string report_to_csv(const Report& r);
Result<Report> report_from_csv(std::string_view text);

}  // namespace spool::bench
