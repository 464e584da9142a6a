// render_markdown (declared in report.h): the human-readable report:
// metadata, target summary, the broker configurations with what each
// guarantees (durability rows), one table per workload family with the
// Spool/Kafka (and Spool/mock) ratio columns, machine-limit fractions,
// plots, profiles, notes and the closing note. The cluster family's table
// holds its failover seconds, RF=3 and RF=1 throughput, lag, transaction
// throughput and coordinator failover rows; the closing note repeats the
// last two (medians, Spool/Kafka), which have no target of their own
// besides the transaction ratio, the security family's ratios to
// plaintext, and the operability family's scrape cost (paired ratios with
// their spread, broker CPU per scrape) and console load time.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "bench/number_format.h"
#include "bench/report.h"
#include "bench/stats.h"

namespace spool::bench {
namespace {

struct Family {
  const char* prefix;
  const char* title;
};
constexpr Family kFamilies[] = {
    {"produce", "Produce throughput"},   {"consume", "Consume throughput"},
    {"latency", "End-to-end latency"},   {"rss", "Broker resident set (RSS)"},
    {"restart", "Restart after kill -9"},
    {"client", "Clients: Spool's native producer and consumer against librdkafka (same Spool broker, same phase)"},
    {"cluster", "Cluster: 3 nodes, failover, RF=3 throughput, replication lag, transactions, coordinator failover"},
    {"security", "Security: consume over TLS, produce over SASL_SSL, produce with the ACL authorizer (each against "
                 "plaintext on the same broker configuration)"},
    {"operability", "Operability: Spool's admin HTTP listener (a /metrics scraper's cost to produce and in broker CPU, "
                    "page times and the console in Chromium with 1,000 partitions; Spool only, Kafka has no such "
                    "listener)"},
    {"machine", "Machine limits"},
};
constexpr const char* kKnownTargets[] = {"spool", "spool-nodurable", "kafka", "kafka-flush1", "mock", "machine"};
// Ratio columns: Spool (durable default) over a reference broker.
struct RatioColumn {
  const char* reference;
  const char* title;
};
constexpr RatioColumn kRatios[] = {{"kafka", "Spool/Kafka"}, {"mock", "Spool/mock"}};

// Table cells may not hold '|' or line breaks.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string family_of(const std::string& workload) {
  for (const auto& f : kFamilies)
    if (workload.rfind(std::string(f.prefix) + "/", 0) == 0) return f.prefix;
  return "";
}

template <typename T>
void add_unique(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// "median (min - max)" when there are several runs.
std::string figure(const Measurement& m) {
  if (m.runs.empty()) return "no runs";
  std::string s = format_value(m.metric, m.median());
  if (m.runs.size() > 1) {
    auto [lo, hi] = std::minmax_element(m.runs.begin(), m.runs.end());
    s += fmt::format(" ({} – {})", format_value(m.metric, *lo), format_value(m.metric, *hi));
  }
  return s;
}

void family_table(std::string& out, const Report& r, const std::string& prefix, const std::string& title) {
  std::vector<const Measurement*> ms;
  for (const auto& m : r.measurements)
    if (family_of(m.workload) == prefix) ms.push_back(&m);
  if (ms.empty()) return;
  std::vector<std::string> targets;
  for (const char* t : kKnownTargets)
    for (const auto* m : ms)
      if (m->target == t) add_unique(targets, std::string(t));
  for (const auto* m : ms) add_unique(targets, m->target);
  auto has = [&](const std::string& t) { return std::find(targets.begin(), targets.end(), t) != targets.end(); };
  std::vector<const RatioColumn*> ratios;
  if (has("spool"))
    for (const auto& rc : kRatios)
      if (has(rc.reference)) ratios.push_back(&rc);

  out += fmt::format("### {}\n\n| Workload | Metric |", title);
  for (const auto& t : targets) out += fmt::format(" {} |", cell(t));
  for (const auto* rc : ratios) out += fmt::format(" {} |", rc->title);
  out += "\n|---|---|";
  for (size_t i = 0; i < targets.size() + ratios.size(); ++i) out += "---:|";
  out += "\n";

  std::vector<std::pair<std::string, std::string>> rows;  // (workload, metric), first-seen order
  for (const auto* m : ms) add_unique(rows, {m->workload, m->metric});
  for (const auto& [w, metric] : rows) {
    out += fmt::format("| {} | {} |", cell(w), cell(metric_unit(metric) == metric ? metric
                                                                                 : metric + " (" + metric_unit(metric) + ")"));
    for (const auto& t : targets) {
      const Measurement* m = r.find(w, t, metric);
      out += fmt::format(" {} |", m ? cell(figure(*m)) : "–");
    }
    for (const auto* rc : ratios) {
      const Measurement* s = r.find(w, "spool", metric);
      const Measurement* p = r.find(w, rc->reference, metric);
      bool ok = s && p && !s->runs.empty() && !p->runs.empty() && p->median() > 0;
      out += fmt::format(" {} |", ok ? format_ratio(s->median() / p->median()) : "–");
    }
    out += "\n";
  }
  out += "\n";
}

void machine_fractions(std::string& out, const Report& r) {
  struct Limit {
    const char* workload;
    const char* why;
  };
  const Limit fsync{"machine/disk-write-fdatasync", "durable produce is bounded by synced disk writes"};
  const Limit loop{"machine/loopback", "every byte crosses the loopback socket"};
  std::vector<std::string> lines;
  for (const auto& m : r.measurements) {
    if (m.target != "spool" || m.metric != "MB_per_s" || m.runs.empty()) continue;
    std::vector<const Limit*> limits;
    if (m.workload.rfind("produce/", 0) == 0 && m.workload.find("/acks=all/") != std::string::npos)
      limits = {&fsync};
    else if (m.workload.rfind("produce/", 0) == 0)
      limits = {&loop};
    else if (m.workload.rfind("consume/", 0) == 0)
      limits = {&loop};
    for (const Limit* l : limits) {
      const Measurement* lim = r.find(l->workload, "machine", "MB_per_s");
      std::string limit_text = "not measured", frac = "–";
      if (lim && !lim->runs.empty()) {
        limit_text = format_plain(lim->median());
        if (lim->median() > 0) frac = fmt::format("{:.1f}%", 100.0 * m.median() / lim->median());
      }
      lines.push_back(fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell(m.workload), format_plain(m.median()),
                                  l->workload, limit_text, frac, l->why));
    }
  }
  if (lines.empty()) return;
  out += "## Spool's fraction of the machine limits\n\n";
  out += "| Spool workload | Spool MB/s | Machine limit | Limit MB/s | Fraction | Why this limit |\n";
  out += "|---|---:|---|---:|---:|---|\n";
  for (const auto& l : lines) out += l;
  out += "\n";
}

// The broker configurations of the run and what each guarantees, with the
// figures the durability comparison rests on.
void configurations(std::string& out, const Report& r) {
  if (r.targets.empty()) return;
  struct Col {
    const char* workload;
    const char* metric;
    const char* title;
  };
  const Col cols[] = {{"produce/1KB/acks=all/p1/x1", "msgs_per_s", "produce 1 KB acks=all"},
                      {"produce/100B/acks=1/p1/x1", "msgs_per_s", "produce 100 B acks=1"},
                      {"latency/100B/acks=1/in-flight=1", "p99_us", "end-to-end p99"}};
  bool any = false;  // e.g. a --workloads cluster run has none of these figures
  for (const auto& t : r.targets)
    for (const auto& c : cols) any = any || r.find(c.workload, t.name, c.metric) != nullptr;
  if (!any) return;
  out += "## Broker configurations and what they guarantee\n\n"
         "Each broker configuration is a separate peer run with the same librdkafka client and workloads. "
         "The last column divides Spool's durable default by the row's produce 1 KB acks=all figure.\n\n"
         "| Target | Configuration | An acknowledged write survives |";
  for (const auto& c : cols) out += fmt::format(" {} |", c.title);
  out += " Spool durable / this (1 KB acks=all) |\n|---|---|---|";
  for (size_t i = 0; i <= std::size(cols); ++i) out += "---:|";
  out += "\n";
  const Measurement* spool = r.find(cols[0].workload, "spool", cols[0].metric);
  for (const auto& t : r.targets) {
    out += fmt::format("| {} | {} | {} |", cell(t.name), cell(t.description), cell(t.guarantee));
    for (const auto& c : cols) {
      const Measurement* m = r.find(c.workload, t.name, c.metric);
      out += fmt::format(" {} |", m && !m->runs.empty() ? format_with_unit(c.metric, m->median()) : "–");
    }
    const Measurement* m = r.find(cols[0].workload, t.name, cols[0].metric);
    bool ok = spool && m && !spool->runs.empty() && !m->runs.empty() && m->median() > 0;
    out += fmt::format(" {} |\n", ok ? format_ratio(spool->median() / m->median()) : "–");
  }
  out += "\n";
}

// "- cluster/txn/...: spool 812 txn/s, kafka 400 txn/s (2.03x)" for the
// transaction and coordinator failover rows.
void closing_figures(std::string& out, const Report& r) {
  std::vector<std::pair<std::string, std::string>> rows;  // (workload, metric)
  for (const auto& m : r.measurements) {
    bool txn = m.workload.rfind("cluster/txn/", 0) == 0 && m.metric == "txns_per_s";
    bool coord = m.workload.rfind("cluster/coordinator-failover/", 0) == 0 && m.metric == "seconds";
    if (txn || coord) add_unique(rows, {m.workload, m.metric});
  }
  if (rows.empty()) return;
  out += "\nTransactions and coordinator failover (medians):\n";
  for (const auto& [w, metric] : rows) {
    std::string line = "- " + w + ":";
    const Measurement* s = r.find(w, "spool", metric);
    const Measurement* k = r.find(w, "kafka", metric);
    for (const Measurement* m : {s, k})
      if (m != nullptr && !m->runs.empty())
        line += fmt::format(" {} {} ({} runs),", m->target, format_with_unit(metric, m->median()), m->runs.size());
    if (s && k && !s->runs.empty() && !k->runs.empty() && k->median() > 0)
      line += fmt::format(" Spool/Kafka {}", format_ratio(s->median() / k->median()));
    if (line.back() == ',') line.pop_back();
    out += line + "\n";
  }
}

// "- security/...ssl-over-plaintext: spool 0.87x, kafka 0.56x" for the
// security family's per-repetition ratios (secured / plaintext).
void security_figures(std::string& out, const Report& r) {
  std::vector<std::string> rows;
  for (const auto& m : r.measurements)
    if (m.workload.rfind("security/", 0) == 0 && m.metric == "ratio") add_unique(rows, m.workload);
  if (rows.empty()) return;
  out += "\nSecurity, each secured figure over its plaintext one (medians of the per-repetition ratios):\n";
  for (const auto& w : rows) {
    std::string line = "- " + w + ":";
    for (const char* t : {"spool", "kafka"})
      if (const Measurement* m = r.find(w, t, "ratio"); m != nullptr && !m->runs.empty())
        line += fmt::format(" {} {} ({} runs),", t, format_ratio(m->median()), m->runs.size());
    if (line.back() == ',') line.pop_back();
    out += line + "\n";
  }
}

// "median (p25 – p75 middle half, min – max, N runs)" of a ratio row.
std::string ratio_spread(const Measurement& m) {
  std::vector<double> v = m.runs;
  std::sort(v.begin(), v.end());
  return fmt::format("{} (middle half {} – {}, all {} – {}, {} pairs)", format_ratio(m.median()),
                     format_ratio(percentile_sorted(v, 0.25)), format_ratio(percentile_sorted(v, 0.75)),
                     format_ratio(v.front()), format_ratio(v.back()), v.size());
}

// The operability family's figures: the scraper's cost to produce (median
// and spread of the paired ratios), the broker's CPU per scrape, and the
// console's load time in Chromium.
void operability_figures(std::string& out, const Report& r) {
  const std::string over = "operability/scrape/100B/acks=1/p1/x1/scraper=1Hz-over-no-scraper";
  const std::string scrapes = "operability/scrape/metrics";
  std::vector<std::string> lines;
  const Measurement* q = r.find(over, "spool", "ratio");
  const Measurement* cq = r.find(over, "spool", "cpu_per_MB_ratio");
  if (q != nullptr && !q->runs.empty()) lines.push_back("produce 100 B acks=1 with a 1 Hz scraper over without, msg/s: " +
                                                        ratio_spread(*q));
  if (cq != nullptr && !cq->runs.empty())
    lines.push_back("the same pairs, broker CPU per MB produced: " + ratio_spread(*cq));
  const Measurement* cost = r.find(scrapes, "spool", "cpu_ms_per_scrape");
  const Measurement* pct = r.find(scrapes, "spool", "cpu_pct_at_1Hz");
  if (cost != nullptr && !cost->runs.empty() && pct != nullptr && !pct->runs.empty()) {
    std::string line = fmt::format("scrape cost = {} ms CPU per scrape = {} % of one core at 1 Hz",
                                   format_plain(cost->median()), format_plain(pct->median()));
    auto [lo, hi] = std::minmax_element(cost->runs.begin(), cost->runs.end());
    line += fmt::format(" (broker CPU over back-to-back GET /metrics with no load, idle subtracted; {} – {} ms over "
                        "{} runs)", format_plain(*lo), format_plain(*hi), cost->runs.size());
    lines.push_back(line);
  }
  std::vector<std::string> console;
  for (const auto& m : r.measurements)
    if (m.workload.rfind("operability/console-", 0) == 0 && m.target == "spool" && !m.runs.empty())
      add_unique(console, m.workload);
  for (const auto& w : console) {
    std::string line = w + ":";
    for (const auto& [metric, name] : {std::pair<const char*, const char*>{"table_ms", "topics table rendered"},
                                       {"dom_content_loaded_ms", "DOMContentLoaded"},
                                       {"load_ms", "load"}})
      if (const Measurement* m = r.find(w, "spool", metric); m != nullptr && !m->runs.empty())
        line += fmt::format(" {} {} ms ({} – {}),", name, format_plain(m->median()),
                            format_plain(*std::min_element(m->runs.begin(), m->runs.end())),
                            format_plain(*std::max_element(m->runs.begin(), m->runs.end())));
    if (const Measurement* m = r.find(w, "spool", "table_ms"); m != nullptr)
      line += fmt::format(" {} loads", m->runs.size());
    if (line.back() == ',') line.pop_back();
    lines.push_back(line);
  }
  if (lines.empty()) return;
  out += "\nOperability (medians; ratios are per A/B pair):\n";
  for (const auto& l : lines) out += "- " + l + "\n";
}

const char* verdict(const TargetCheck& c) {
  if (!c.measured_ok) return "not measured";
  return c.met ? "met" : "**NOT met**";
}

}  // namespace

std::string render_markdown(const Report& r, const std::vector<TargetCheck>& checks,
                            const std::vector<PlotLink>& plots) {
  std::string out;
  out += fmt::format("# Spool benchmark report — {}\n\n", r.started_at.empty() ? "unknown time" : r.started_at);
  out += fmt::format("- Started: {}\n", r.started_at.empty() ? "unknown" : r.started_at);
  out += fmt::format("- Host: {}\n", r.host.empty() ? "unknown" : r.host);
  out += fmt::format("- Spool version: {}\n", r.spool_version.empty() ? "unknown" : r.spool_version);
  out += fmt::format("- Peer: {}\n", r.peer.empty() ? "none" : r.peer);
  out += fmt::format("- Repetitions: {} (figures are medians of the runs; min – max in parentheses)\n\n",
                     r.repetitions);

  out += "## Targets\n\n| Target | Goal | Measured | Result |\n|---|---|---|---|\n";
  for (const auto& c : checks)
    out += fmt::format("| {} | {} | {} | {} |\n", cell(c.name), cell(c.goal), cell(c.measured), verdict(c));
  out += "\n";
  configurations(out, r);
  out += "## Workloads\n\nSpool/Kafka is the ratio of the medians of `spool` (Spool, durable default) and `kafka` "
         "(Kafka 4.4 as configured by default): above 1 is better for throughput, below 1 is better for latency, RSS "
         "and restart time. Rows ending in ProducerPerformance, ConsumerPerformance or EndToEndLatency are Kafka's "
         "own Java tools; the others use librdkafka.\n\n";
  for (const auto& f : kFamilies) family_table(out, r, f.prefix, f.title);
  family_table(out, r, "", "Other workloads");
  machine_fractions(out, r);

  if (!plots.empty()) {
    out += "## Plots\n\n";
    for (const auto& p : plots) out += fmt::format("![{}]({})\n\n", cell(p.title), p.file);
  }
  if (!r.profiles.empty()) {
    out += "## Where the time goes\n\n";
    for (const auto& p : r.profiles) out += fmt::format("### {}\n\n{}\n\n", p.workload, p.text);
  }
  if (!r.notes.empty()) {
    out += "## Notes\n\n";
    for (const auto& n : r.notes) out += fmt::format("- {}\n", n);
    out += "\n";
  }

  size_t met = 0, missed = 0, unmeasured = 0;
  for (const auto& c : checks) (c.measured_ok ? (c.met ? met : missed) : unmeasured)++;
  out += fmt::format("## Closing note\n\n{} of {} targets met, {} not met, {} not measured.\n", met, checks.size(),
                     missed, unmeasured);
  for (const auto& c : checks)
    if (c.measured_ok && !c.met) out += fmt::format("- NOT met: {} — {} (goal {})\n", c.name, c.measured, c.goal);
  for (const auto& c : checks)
    if (!c.measured_ok) out += fmt::format("- Not measured: {} — {}\n", c.name, c.measured);
  closing_figures(out, r);
  security_figures(out, r);
  operability_figures(out, r);
  return out;
}

}  // namespace spool::bench
