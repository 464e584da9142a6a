#include "bench/targets.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "bench/number_format.h"

namespace spool::bench {
namespace {

const Measurement* usable(const Report& r, const std::string& w, const std::string& t, const std::string& m) {
  const Measurement* x = r.find(w, t, m);
  if (x == nullptr || x->runs.empty() || !std::isfinite(x->median())) return nullptr;
  return x;
}

std::string missing(const std::string& w, const std::string& t, const std::string& m) {
  return fmt::format("not measured ({} {} {})", w, t, m);
}

// "measured < limit" (less=true) or "measured >= limit" (less=false) on one metric.
TargetCheck absolute(const Report& r, std::string name, const std::string& w, const std::string& metric,
                     double limit, bool less) {
  TargetCheck c;
  c.name = std::move(name);
  c.goal = fmt::format("{} {}", less ? "<" : ">=", format_with_unit(metric, limit));
  const Measurement* m = usable(r, w, "spool", metric);
  if (m == nullptr) {
    c.measured = missing(w, "spool", metric);
    return c;
  }
  double v = m->median();
  c.measured_ok = true;
  c.met = less ? v < limit : v >= limit;
  c.measured = format_with_unit(metric, v);
  if (!c.met) c.measured += fmt::format(" ({} the goal)", format_ratio(v / limit));
  return c;
}

// spool(wa) / ref >= min_ratio on one metric.
TargetCheck ratio(std::string name, std::string goal, const Measurement* a, const Measurement* b,
                  const std::string& metric, double min_ratio, const std::string& missing_text) {
  TargetCheck c;
  c.name = std::move(name);
  c.goal = std::move(goal);
  if (a == nullptr || b == nullptr) {
    c.measured = missing_text;
    return c;
  }
  double va = a->median(), vb = b->median();
  if (!(vb > 0)) {
    c.measured = fmt::format("not measured (reference is {})", format_with_unit(metric, vb));
    return c;
  }
  double q = va / vb;
  c.measured_ok = true;
  c.met = q >= min_ratio;
  c.measured = fmt::format("{} ({} vs {})", format_ratio(q), format_with_unit(metric, va),
                           format_with_unit(metric, vb));
  return c;
}

TargetCheck restart(const Report& r) {
  TargetCheck c;
  c.name = "restart after kill -9 with a 1 GB log: serving";
  c.goal = "< 2 s (1024 MB log)";
  const Measurement* best = nullptr;
  long best_n = -1;
  const std::string prefix = "restart/kill9/";
  for (const auto& m : r.measurements) {
    if (m.target != "spool" || m.metric != "seconds" || m.runs.empty()) continue;
    if (m.workload.rfind(prefix, 0) != 0) continue;
    std::string rest = m.workload.substr(prefix.size());
    if (rest.size() < 3 || rest.compare(rest.size() - 2, 2, "MB") != 0) continue;
    long n = 0;
    bool digits = true;
    for (size_t i = 0; i + 2 < rest.size(); ++i) {
      if (rest[i] < '0' || rest[i] > '9' || n > 100000000) {
        digits = false;
        break;
      }
      n = n * 10 + (rest[i] - '0');
    }
    if (!digits) continue;
    // Prefer exactly the goal's size, else the largest log measured.
    bool better = best == nullptr || (best_n != 1024 && (n == 1024 || n > best_n));
    if (better) {
      best = &m;
      best_n = n;
    }
  }
  if (best == nullptr) {
    c.measured = "not measured (restart/kill9/<N>MB spool seconds)";
    return c;
  }
  double v = best->median();
  c.measured_ok = std::isfinite(v);
  c.met = c.measured_ok && v < 2.0;
  c.measured = fmt::format("{} s with a {} MB log", format_plain(v), best_n);
  if (best_n < 1024) c.measured += " (smaller than the 1024 MB goal)";
  if (c.measured_ok && !c.met) c.measured += fmt::format(" ({} the goal)", format_ratio(v / 2.0));
  return c;
}

}  // namespace

std::vector<TargetCheck> check_targets(const Report& r) {
  std::vector<TargetCheck> out;
  {
    const std::string w = "produce/100B/acks=1/p1/x1";
    out.push_back(ratio("produce 100 B acks=1, 1 partition vs peer", ">= 0.9x peer msg/s",
                        usable(r, w, "spool", "msgs_per_s"), usable(r, w, "peer", "msgs_per_s"), "msgs_per_s",
                        0.9, fmt::format("not measured ({} spool/peer msgs_per_s)", w)));
  }
  {
    const std::string all = "produce/1KB/acks=all/p1/x1";
    const std::string one = "produce/1KB/acks=1/p1/x1";
    const Measurement* a = usable(r, all, "spool", "msgs_per_s");
    const Measurement* b = usable(r, one, "spool", "msgs_per_s");
    out.push_back(ratio("produce 1 KB acks=all (durable) vs Spool acks=1", ">= 0.8x Spool's acks=1 msg/s", a, b,
                        "msgs_per_s", 0.8, fmt::format("not measured ({} / {} spool msgs_per_s)", all, one)));
    const Measurement* c = usable(r, all, "spool", "MB_per_s");
    const Measurement* d = usable(r, "machine/disk-write-fdatasync", "machine", "MB_per_s");
    out.push_back(ratio("produce 1 KB acks=all (durable) vs disk fdatasync bandwidth",
                        ">= 0.5x machine/disk-write-fdatasync MB/s", c, d, "MB_per_s", 0.5,
                        fmt::format("not measured ({} spool MB_per_s / machine/disk-write-fdatasync)", all)));
  }
  out.push_back(absolute(r, "consume 1 KB messages from page cache", "consume/1KB/cached", "MB_per_s", 1000, false));
  out.push_back(absolute(r, "end-to-end latency p99, one message in flight, acks=1",
                         "latency/100B/acks=1/in-flight=1", "p99_us", 1000, true));
  out.push_back(absolute(r, "idle RSS", "rss/idle", "rss_MB", 50, true));
  out.push_back(absolute(r, "RSS with 1,000 partitions", "rss/partitions=1000", "rss_MB", 300, true));
  out.push_back(restart(r));
  return out;
}

}  // namespace spool::bench
