// Small pure helpers of the bench runner: percentiles of latency samples and
// human-readable rates. No state, no threads, no failure modes (an empty
// sample gives 0).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace spool::bench {

// Nearest-rank percentile (q in [0, 1]) of `sorted` (ascending): the smallest
// sample with at least q of the samples at or below it, so p99.9 of 2000
// samples is the 1998th, not an interpolation between two real samples.
inline double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  if (rank == 0) rank = 1;
  return sorted[std::min(rank, sorted.size()) - 1];
}

struct LatencySummary {
  double p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
  size_t samples = 0;
};

inline LatencySummary summarize_latencies(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  LatencySummary s;
  s.samples = us.size();
  s.p50_us = percentile_sorted(us, 0.50);
  s.p99_us = percentile_sorted(us, 0.99);
  s.p999_us = percentile_sorted(us, 0.999);
  s.max_us = us.empty() ? 0 : us.back();
  return s;
}

// "1.71 M", "812 k", "93.0": three significant figures for progress lines.
std::string human_number(double v);

}  // namespace spool::bench
