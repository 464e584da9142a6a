// Metrics that cost the hot path almost nothing, and their Prometheus text.
//
// Counter and Histogram keep one cache-line-padded shard per thread slot
// (kMetricShards; a thread takes the next slot the first time it records,
// modulo the count), so recording is one relaxed atomic add on a line no
// other thread writes, in the common case. Reading (a scrape) sums the
// shards: it may miss adds in flight, never tears a value, and a counter
// never goes down.
//
// PromText writes the Prometheus text exposition format (version 0.0.4):
// `family()` once per metric family (HELP and TYPE), then its samples, all
// of one family together. Label values are escaped (backslash, quote,
// newline).
//
// Threading: all of Counter, Gauge and Histogram are thread-safe; PromText is
// a plain builder for one thread. Nothing here allocates on record.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spool::util {

inline constexpr size_t kMetricShards = 16;

// The calling thread's shard slot.
size_t metric_shard();

class Counter {
 public:
  void add(int64_t n = 1) { shards_[metric_shard()].v.fetch_add(n, std::memory_order_relaxed); }
  int64_t value() const;

 private:
  struct alignas(64) Shard {
    std::atomic<int64_t> v{0};
  };
  std::array<Shard, kMetricShards> shards_;
};

// Cumulative buckets with fixed upper bounds (ascending), plus +Inf.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double v);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<int64_t> cumulative;  // one per bound, then +Inf (= count)
    double sum = 0;
    int64_t count = 0;
  };
  Snapshot snapshot() const;

  // Bounds used for request and flush times in milliseconds.
  static std::vector<double> latency_ms_bounds();

 private:
  struct alignas(64) Shard {
    std::vector<std::atomic<int64_t>> buckets;  // per bound, then +Inf; not cumulative
    std::atomic<double> sum{0};
  };
  std::vector<double> bounds_;
  std::array<Shard, kMetricShards> shards_;
};

using Labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

class PromText {
 public:
  // type: "counter", "gauge" or "histogram".
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, Labels labels, double value);
  // name_bucket{..., le}, name_sum, name_count.
  void histogram(std::string_view name, Labels labels, const Histogram::Snapshot& s);
  std::string take() { return std::move(out_); }

 private:
  void labels_open(const std::pair<std::string_view, std::string_view>* begin,
                   const std::pair<std::string_view, std::string_view>* end, bool more);
  void value(double v);
  std::string out_;
};

}  // namespace spool::util
