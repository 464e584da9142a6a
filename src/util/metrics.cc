#include "util/metrics.h"

#include <cmath>
#include <cstdio>

namespace spool::util {

size_t metric_shard() {
  static std::atomic<size_t> next{0};
  thread_local const size_t slot = next.fetch_add(1, std::memory_order_relaxed) % kMetricShards;
  return slot;
}

int64_t Counter::value() const {
  int64_t sum = 0;
  for (const auto& s : shards_) sum += s.v.load(std::memory_order_relaxed);
  return sum;
}

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)) {
  for (auto& s : shards_) s.buckets = std::vector<std::atomic<int64_t>>(bounds_.size() + 1);
}

std::vector<double> Histogram::latency_ms_bounds() {
  return {0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000};
}

void Histogram::observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  auto& s = shards_[metric_shard()];
  s.buckets[i].fetch_add(1, std::memory_order_relaxed);
  s.sum.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot out;
  out.bounds = bounds_;
  std::vector<int64_t> per(bounds_.size() + 1, 0);
  for (const auto& s : shards_) {
    for (size_t i = 0; i < per.size(); ++i) per[i] += s.buckets[i].load(std::memory_order_relaxed);
    out.sum += s.sum.load(std::memory_order_relaxed);
  }
  int64_t run = 0;
  for (int64_t n : per) {
    run += n;
    out.cumulative.push_back(run);
  }
  out.count = run;
  return out;
}

void PromText::family(std::string_view name, std::string_view type, std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  for (char c : help) {  // HELP escapes backslash and newline
    if (c == '\\') out_ += "\\\\";
    else if (c == '\n') out_ += "\\n";
    else out_ += c;
  }
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

namespace {

void escape_label_value(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

}  // namespace

void PromText::labels_open(const std::pair<std::string_view, std::string_view>* begin,
                           const std::pair<std::string_view, std::string_view>* end, bool more) {
  if (begin == end && !more) return;
  out_ += '{';
  for (auto* l = begin; l != end; ++l) {
    if (l != begin) out_ += ',';
    out_ += l->first;
    out_ += "=\"";
    escape_label_value(out_, l->second);
    out_ += '"';
  }
  if (!more) out_ += '}';
}

void PromText::value(double v) {
  char buf[64];
  if (std::isinf(v)) {
    out_ += v > 0 ? " +Inf\n" : " -Inf\n";
    return;
  }
  if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, " %.0f\n", v);
  else std::snprintf(buf, sizeof buf, " %.17g\n", v);
  out_ += buf;
}

void PromText::sample(std::string_view name, Labels labels, double v) {
  out_ += name;
  labels_open(labels.begin(), labels.end(), false);
  value(v);
}

void PromText::histogram(std::string_view name, Labels labels, const Histogram::Snapshot& s) {
  const std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i <= s.bounds.size(); ++i) {
    out_ += bucket;
    labels_open(labels.begin(), labels.end(), true);
    if (labels.size() > 0) out_ += ',';
    out_ += "le=\"";
    if (i == s.bounds.size()) {
      out_ += "+Inf";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", s.bounds[i]);
      out_ += buf;
    }
    out_ += "\"}";
    value(static_cast<double>(s.cumulative[i]));
  }
  out_ += name;
  out_ += "_sum";
  labels_open(labels.begin(), labels.end(), false);
  value(s.sum);
  out_ += name;
  out_ += "_count";
  labels_open(labels.begin(), labels.end(), false);
  value(static_cast<double>(s.count));
}

}  // namespace spool::util
