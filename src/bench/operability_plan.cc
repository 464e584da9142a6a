// Session planning of the operability family (runner_session.h,
// operability_workloads.h), opt-in with --workloads operability or
// operability/<scrape|admin-1000-partitions|console-1000-partitions>. Spool
// only: Kafka has no admin HTTP listener, so there is no peer run and no
// Spool/Kafka ratio. Per repetition, each phase on a fresh Spool broker with
// the spool deployment's settings (durable default) and admin.listener on a
// free loopback port (BrokerProcess::enable_admin_listener):
//   scrape                   an untimed warm-up produce, then P pairs of short
//                            runs of the produce workload 100 B acks=1 p1 x1
//                            (the CPU-bound one, where a scraper's cost would
//                            show first; sending for a fixed time, not a
//                            count) on the same broker, without (A) and with
//                            (B) GET /metrics at 1 Hz (MetricsScraper), in
//                            the order ABBA ABBA ... over the whole run so
//                            that drift cancels; each run also takes the
//                            broker's CPU time. Then, with no load, the
//                            broker's CPU over N back-to-back scrapes
//                            (measure_scrape_cost)
//   admin-1000-partitions    10 topics x 100 partitions through CreateTopics,
//                            one message each, then N GETs of each of
//                            /v1/topics, /metrics and / (the web console)
//                            round robin, each on a fresh connection
//   console-1000-partitions  the same 1,000 partitions (on the same broker
//                            when both run), then the console loaded L times
//                            in headless Chromium (time_console_loads); when
//                            node, the script or chromium is missing it is a
//                            note, and under CI=true a failed step
// Workload ids (measurement.h); "per pair" rows hold one value per run or
// pair, not per repetition:
//   operability/scrape/100B/acks=1/p1/x1/<no-scraper|scraper=1Hz>   msgs_per_s, MB_per_s, cpu_ms_per_MB (per run)
//   operability/scrape/100B/acks=1/p1/x1/scraper=1Hz-over-no-scraper   ratio (msg/s), cpu_per_MB_ratio (per pair)
//   operability/scrape/metrics        latency_ms, body_bytes: one value per scrape during produce;
//                                     cpu_ms_per_scrape, cpu_pct_at_1Hz: one per repetition (N scrapes, no load)
//   operability/admin-1000-partitions/<v1/topics|metrics|console>   p50_ms, max_ms (of the N requests of a
//                                     repetition), body_bytes; console only when / answers 200, else its
//                                     http_status (404: the console is not served by this build)
//   operability/console-1000-partitions/chromium   table_ms, dom_content_loaded_ms, load_ms: one value per load
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "bench/number_format.h"
#include "bench/operability_workloads.h"
#include "bench/runner_session.h"

namespace spool::bench {
namespace {

constexpr double kScrapeIntervalS = 1;
constexpr double kWarmupSeconds = 3;  // cap on the warm-up produce
constexpr int64_t kScrapeMessageCap = 1000000000;
constexpr int kPairs = 6;              // A/B pairs per repetition (even: each repetition is ABBA ABBA ABBA)
constexpr int kQuickPairs = 1;
constexpr double kPairRunSeconds = 2;  // one run of a pair (capped by --duration)
constexpr int kCostScrapes = 200;      // back-to-back scrapes of the CPU-per-scrape measurement
constexpr int kQuickCostScrapes = 20;
constexpr double kIdleSeconds = 2;     // idle CPU taken before them
constexpr double kQuickIdleSeconds = 0.5;
constexpr int kTopics = 10;
constexpr int kPartitionsPerTopic = 100;
constexpr int kPageRequests = 20;      // per page and repetition
constexpr int kQuickPageRequests = 5;  // --quick
constexpr int kConsoleLoads = 5;       // timed browser loads per repetition
constexpr int kQuickConsoleLoads = 1;
const std::string kScrapeId = "operability/scrape/100B/acks=1/p1/x1/";
const std::string kScrapeRows = "operability/scrape/metrics";
const std::string kConsoleRow = "operability/console-1000-partitions/chromium";

struct Page {
  std::string path;
  std::string name;  // the last part of the workload id
};
const std::vector<Page> kPages = {{"/v1/topics", "v1/topics"}, {"/metrics", "metrics"}, {"/", "console"}};

// The broker of one phase.
struct OpPhase {
  std::unique_ptr<BrokerProcess> broker;
  std::string dir;
  std::string partitions_prefix;  // the 1,000 partitions' topics, once created
  Target target() const {
    std::string bs = broker->bootstrap();
    return Target{"spool", bs, dir + "/data", [bs](const NewTopic& nt) { return create_topics(bs, {nt}, 60000); },
                  [bs](const std::string& name) { (void)delete_topics(bs, {name}, 30000); }};
  }
};

std::string fmt_rate(const Throughput& t) {
  return human_number(t.msgs_per_s()) + " msg/s, " + human_number(t.MB_per_s()) + " MB/s";
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

void Session::plan_operability(std::vector<Step>* steps) {
  if (!o_.bootstrap.empty()) {
    add_note("operability: skipped with --bootstrap (the workloads start brokers with their own admin listener)");
    return;
  }
  if (work_dir_.empty() || exe_.empty()) {
    add_note("operability: skipped (no work dir or no spool executable)");
    return;
  }
  const bool scrape = wants_operability("scrape");
  const bool pages = wants_operability("admin-1000-partitions");
  bool console = wants_operability("console-1000-partitions");
  const int requests = o_.quick ? kQuickPageRequests : kPageRequests;
  const int pairs = o_.quick ? kQuickPairs : kPairs;
  const double run_s = std::min(z_.duration_s, kPairRunSeconds);
  const int cost_scrapes = o_.quick ? kQuickCostScrapes : kCostScrapes;
  const double idle_s = o_.quick ? kQuickIdleSeconds : kIdleSeconds;
  const int loads = o_.quick ? kQuickConsoleLoads : kConsoleLoads;
  // Bounded by time rather than a count (100 B acks=1 sends the default
  // count in under 2 s); --messages still caps it when given.
  const int64_t n = o_.messages ? *o_.messages : kScrapeMessageCap;
  std::vector<std::string> spool_base;
  for (const auto& d : deps_)
    if (d->name == "spool") spool_base = d->overrides;
  const int partitions = kTopics * kPartitionsPerTopic;
  const std::string pages_id = "operability/admin-" + std::to_string(partitions) + "-partitions/";

  // The browser measurement's tools: missing outside CI is a note, under
  // CI=true a failed step (a missing tool must not pass as a skip).
  auto real_exe = self_executable();  // exe_ may be /proc/self/exe, which names no source tree
  auto tools = std::make_shared<Result<ConsoleTools>>(find_console_tools(real_exe ? *real_exe : std::string()));
  const char* ci = std::getenv("CI");
  const bool ci_run = ci != nullptr && std::string(ci) == "true";
  if (console && !*tools && !ci_run) {
    add_note("operability/console-1000-partitions: not measured: " + tools->status().message());
    console = false;
  }

  add_note("operability: Spool only (Kafka has no admin HTTP listener: no peer runs, no Spool/Kafka ratios); every "
           "phase is a fresh Spool broker (durable default) with admin.listener=http://127.0.0.1:<free port>; the "
           "bench's other Spool brokers run with admin.listener= (off); HTTP is the bench's own blocking HTTP/1.1 "
           "client, one TCP connection per request (Connection: close), timed from connect() to the answer's last "
           "byte; broker CPU is user + system time of all its threads (its process CPU-time clock)");
  if (scrape)
    add_note("operability/scrape: after an untimed warm-up of up to " + human_number(kWarmupSeconds) + " s, " +
             std::to_string(pairs) + (pairs == 1 ? " pair" : " pairs") +
             " per repetition of produce runs 100 B acks=1 p1 x1 of " + human_number(run_s) + " s each" +
             (o_.messages ? " (or " + human_number(static_cast<double>(n)) + " messages, --messages)" : "") +
             " on the same broker, without (A) and with (B) a thread doing GET /metrics at 1 Hz (from before the "
             "topic is created until the last delivery report), ordered ABBA ABBA ... over the whole run so that "
             "drift cancels; the over row holds one ratio per pair (B/A msg/s, goal >= 0.99x; B/A broker CPU per "
             "MB produced) and the report quotes their median and spread; operability/scrape/metrics holds each "
             "scrape's latency and body size, and per repetition the broker's CPU per scrape: " +
             std::to_string(cost_scrapes) + " GET /metrics back to back with no other load, its idle CPU over " +
             human_number(idle_s) + " s (measured just before) subtracted pro rata; cpu_pct_at_1Hz is that in % "
             "of one core at one scrape per second");
  if (pages)
    add_note(pages_id.substr(0, pages_id.size() - 1) + ": " + std::to_string(kTopics) + " topics x " +
             std::to_string(kPartitionsPerTopic) + " partitions created with CreateTopics, one 100 B message to "
             "each, until GET /v1/topics lists them all; then " + std::to_string(requests) + " GETs of each of "
             "/v1/topics, /metrics and / (the web console's page) round robin; p50_ms and max_ms are of one "
             "repetition's requests, body_bytes the answer's body; / is timed only when it answers 200, otherwise "
             "its http_status row records what it answered (404: the console is not served by this build)");
  if (console)
    add_note("operability/console-1000-partitions: the same " + std::to_string(partitions) +
             " partitions (the same broker when admin-1000-partitions runs too), then the web console loaded in "
             "Debian's headless Chromium (tests/console/console_load_time.js, playwright-core): one untimed load, "
             "then " + std::to_string(loads) + " per repetition, each in a fresh browser context (empty cache); "
             "table_ms is from the navigation's start to the first frame after the topics table holds a row for "
             "each of the " + std::to_string(partitions) + " partitions, dom_content_loaded_ms and load_ms the "
             "navigation timing's domContentLoadedEventEnd and loadEventEnd; one value per load");

  auto start_step = [this, spool_base](std::shared_ptr<OpPhase> p, const std::string& phase, int rep) -> Step {
    return {"start operability spool " + phase + " (run " + std::to_string(rep) + ")",
            [this, spool_base, p, phase, rep]() -> Result<std::string> {
              p->broker.reset();
              p->partitions_prefix.clear();
              p->dir = work_dir_ + "/operability-" + phase + "-" + std::to_string(rep);
              std::error_code ec;
              std::filesystem::create_directories(p->dir + "/data", ec);
              auto b = std::make_unique<BrokerProcess>(exe_, p->dir + "/data", spool_base, p->dir + "/broker.log");
              b->enable_admin_listener();
              if (auto st = b->start(30); !st) return st;
              if (!port_accepts(b->admin_port(), 5000))
                return Status::error("the admin listener on port " + std::to_string(b->admin_port()) +
                                     " does not accept connections:\n" + b->log_tail());
              p->broker = std::move(b);
              return "serving on " + p->broker->bootstrap() + ", admin http://127.0.0.1:" +
                     std::to_string(p->broker->admin_port());
            }};
  };
  auto stop_step = [](std::shared_ptr<OpPhase> p, const std::string& phase, int rep) -> Step {
    return {"stop operability spool " + phase + " (run " + std::to_string(rep) + ")",
            [p]() -> Result<std::string> {
              if (!p->broker) return std::string("was not running");
              Status st = p->broker->stop(60);
              p->broker.reset();
              std::error_code ec;
              std::filesystem::remove_all(p->dir, ec);
              if (!st) return st;
              return std::string("stopped");
            }};
  };
  // The 1,000 partitions of the phase's broker, made by whichever step needs them first.
  auto ensure_partitions = [this](OpPhase& p) -> Status {
    if (!p.partitions_prefix.empty()) return Status::ok();
    std::string prefix = next_topic("operability-pages") + "-";
    if (auto st = create_partitions(p.target(), p.broker->admin_port(), prefix, kTopics, kPartitionsPerTopic,
                                    progress_.get());
        !st)
      return Status::error("creating the partitions: " + st.message());
    p.partitions_prefix = prefix;
    return Status::ok();
  };

  auto console_noted = std::make_shared<bool>(false);
  int pair_seq = 0;  // over the whole run: even pairs are AB, odd ones BA
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    if (scrape) {
      auto p = std::make_shared<OpPhase>();
      steps->push_back(start_step(p, "scrape", rep));
      steps->push_back({"operability/scrape warm-up spool run " + std::to_string(rep) + "/" +
                            std::to_string(z_.repetitions),
                        [this, p, n]() -> Result<std::string> {
                          if (!p->broker) return Status::error("spool is not running");
                          const Target t = p->target();
                          std::string topic = next_topic("operability-warmup");
                          auto warm = run_produce(t, topic, ProduceSpec{100, false, 1, 1}, n,
                                                  std::min(z_.duration_s, kWarmupSeconds), nullptr);
                          t.drop_topic(topic);
                          if (!warm) return warm.status();
                          return "untimed: " + fmt_rate(*warm);
                        }});
      for (int k = 1; k <= pairs; ++k, ++pair_seq) {
        const bool b_first = pair_seq % 2 == 1;
        steps->push_back(
            {run_label(kScrapeId + "<no-scraper|scraper=1Hz> pair " + std::to_string(k) + "/" +
                           std::to_string(pairs) + (b_first ? " (BA)" : " (AB)"),
                       "spool", rep),
             [this, p, n, run_s, b_first]() -> Result<std::string> {
               if (!p->broker) return Status::error("spool is not running");
               const Target t = p->target();
               const ProduceSpec spec{100, false, 1, 1};
               ScrapedProduce got[2];  // [0] no scraper (A), [1] scraper at 1 Hz (B)
               for (int i = 0; i < 2; ++i) {
                 const int which = b_first ? 1 - i : i;
                 std::string topic = next_topic("operability-scrape");
                 auto res = run_produce_scraped(t, p->broker->admin_port(), p->broker->pid(),
                                                which == 1 ? kScrapeIntervalS : 0, topic, spec, n, run_s,
                                                progress_.get());
                 t.drop_topic(topic);
                 if (!res)
                   return Status::error((which == 1 ? "with scraper: " : "no scraper: ") + res.status().message());
                 got[which] = std::move(*res);
               }
               if (got[1].scrapes.empty()) return Status::error("the scraper made no scrape");
               const char* names[2] = {"no-scraper", "scraper=1Hz"};
               for (int i = 0; i < 2; ++i) {
                 record(kScrapeId + names[i], "spool", "msgs_per_s", got[i].produce.msgs_per_s());
                 record(kScrapeId + names[i], "spool", "MB_per_s", got[i].produce.MB_per_s());
                 record(kScrapeId + names[i], "spool", "cpu_ms_per_MB", got[i].cpu_ms_per_MB());
               }
               const double q = got[1].produce.msgs_per_s() / got[0].produce.msgs_per_s();
               const double cq = got[1].cpu_ms_per_MB() / got[0].cpu_ms_per_MB();
               record(kScrapeId + "scraper=1Hz-over-no-scraper", "spool", "ratio", q);
               record(kScrapeId + "scraper=1Hz-over-no-scraper", "spool", "cpu_per_MB_ratio", cq);
               std::vector<double> ms;
               for (const auto& s : got[1].scrapes) {
                 record(kScrapeRows, "spool", "latency_ms", s.seconds * 1e3);
                 record(kScrapeRows, "spool", "body_bytes", static_cast<double>(s.body_bytes));
                 ms.push_back(s.seconds * 1e3);
               }
               return "no scraper " + fmt_rate(got[0].produce) + ", " + human_number(got[0].cpu_ms_per_MB()) +
                      " ms CPU/MB; scraper " + fmt_rate(got[1].produce) + ", " +
                      human_number(got[1].cpu_ms_per_MB()) + " ms CPU/MB (" + format_ratio(q) + " msg/s, " +
                      format_ratio(cq) + " CPU/MB); " + std::to_string(ms.size()) +
                      (ms.size() == 1 ? " scrape" : " scrapes") + ", p50 " + human_number(median_of(ms)) + " ms";
             }});
      }
      steps->push_back({run_label(kScrapeRows + " cpu per scrape", "spool", rep),
                        [this, p, cost_scrapes, idle_s]() -> Result<std::string> {
                          if (!p->broker) return Status::error("spool is not running");
                          auto c = measure_scrape_cost(p->broker->admin_port(), p->broker->pid(), cost_scrapes,
                                                       idle_s);
                          if (!c) return c.status();
                          const double ms = c->cpu_ms_per_scrape();
                          if (!(ms > 0))
                            return Status::error("no broker CPU measured over " + std::to_string(c->scrapes) +
                                                 " scrapes");
                          record(kScrapeRows, "spool", "cpu_ms_per_scrape", ms);
                          record(kScrapeRows, "spool", "cpu_pct_at_1Hz", ms / 10);
                          return human_number(ms) + " ms broker CPU per scrape = " + human_number(ms / 10) +
                                 " % of one core at 1 Hz (" + std::to_string(c->scrapes) + " scrapes in " +
                                 human_number(c->wall_s) + " s, " + human_number(c->cpu_s * 1e3) +
                                 " ms CPU, idle " + human_number(c->idle_cpu_s * 1e3) + " ms over " +
                                 human_number(c->idle_s) + " s; " +
                                 human_number(static_cast<double>(c->body_bytes)) + " B)";
                        }});
      steps->push_back(stop_step(p, "scrape", rep));
    }
    if (pages || console) {
      auto p = std::make_shared<OpPhase>();
      steps->push_back(start_step(p, "admin-partitions", rep));
      if (pages)
        steps->push_back({run_label(pages_id + "<v1/topics|metrics|console>", "spool", rep),
                          [this, p, pages_id, requests, console_noted, ensure_partitions]() -> Result<std::string> {
                            if (!p->broker) return Status::error("spool is not running");
                            if (auto st = ensure_partitions(*p); !st) return st;
                            std::vector<std::string> paths;
                            for (const auto& pg : kPages) paths.push_back(pg.path);
                            auto times = time_admin_pages(p->broker->admin_port(), paths, requests);
                            if (!times) return times.status();
                            std::string line;
                            for (size_t i = 0; i < kPages.size(); ++i) {
                              const PageTimes& pt = (*times)[i];
                              const std::string id = pages_id + kPages[i].name;
                              if (pt.status != 200) {
                                if (kPages[i].path != "/")
                                  return Status::error("GET " + pt.path + " answered " + std::to_string(pt.status));
                                record(id, "spool", "http_status", pt.status);
                                if (!*console_noted)
                                  add_note(pages_id + "console: GET / answered " + std::to_string(pt.status) +
                                           (pt.status == 404 ? ": not served (no web console in this build)" : "") +
                                           "; not timed");
                                *console_noted = true;
                                line += "; GET / answered " + std::to_string(pt.status);
                                continue;
                              }
                              std::vector<double> ms;
                              for (double s : pt.seconds) ms.push_back(s * 1e3);
                              const double p50 = median_of(ms), max = *std::max_element(ms.begin(), ms.end());
                              record(id, "spool", "p50_ms", p50);
                              record(id, "spool", "max_ms", max);
                              record(id, "spool", "body_bytes", static_cast<double>(pt.body_bytes));
                              line += (line.empty() ? "GET " : "; GET ") + pt.path + " p50 " + human_number(p50) +
                                      " ms, max " + human_number(max) + " ms, " +
                                      human_number(static_cast<double>(pt.body_bytes)) + " B";
                            }
                            return line;
                          }});
      if (console)
        steps->push_back({run_label(kConsoleRow, "spool", rep),
                          [this, p, tools, ci_run, partitions, loads, ensure_partitions]() -> Result<std::string> {
                            if (!*tools)
                              return Status::error(tools->status().message() +
                                                   (ci_run ? " (CI=true: a missing tool is a failure)" : ""));
                            if (!p->broker) return Status::error("spool is not running");
                            if (auto st = ensure_partitions(*p); !st) return st;
                            auto got = time_console_loads(**tools, p->broker->admin_port(), p->partitions_prefix,
                                                          partitions, loads, p->dir + "/console-load.log");
                            if (!got) return got.status();
                            std::vector<double> table;
                            for (const auto& l : *got) {
                              record(kConsoleRow, "spool", "table_ms", l.table_ms);
                              record(kConsoleRow, "spool", "dom_content_loaded_ms", l.dom_content_loaded_ms);
                              record(kConsoleRow, "spool", "load_ms", l.load_ms);
                              table.push_back(l.table_ms);
                            }
                            return std::to_string(got->size()) + (got->size() == 1 ? " load" : " loads") +
                                   ": table with " + std::to_string(partitions) + " partitions rendered after " +
                                   human_number(median_of(table)) + " ms (median), DOMContentLoaded " +
                                   human_number(got->back().dom_content_loaded_ms) + " ms, load " +
                                   human_number(got->back().load_ms) + " ms (last load)";
                          }});
      steps->push_back(stop_step(p, "admin-partitions", rep));
    }
  }
}

}  // namespace spool::bench
