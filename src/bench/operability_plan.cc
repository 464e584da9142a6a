// Session planning of the operability family (runner_session.h,
// operability_workloads.h), opt-in with --workloads operability or
// operability/<scrape|admin-1000-partitions>. Spool only: Kafka has no admin
// HTTP listener, so there is no peer run and no Spool/Kafka ratio. Per
// repetition, each phase on a fresh Spool broker with the spool
// deployment's settings (durable default) and admin.listener on a free
// loopback port (BrokerProcess::enable_admin_listener):
//   scrape                 an untimed warm-up produce, then the produce
//                          workload 100 B acks=1 p1 x1 (the CPU-bound one,
//                          where a scraper's cost would show first; sending
//                          for --duration, not a count) twice on
//                          the same broker, without and with GET /metrics at
//                          1 Hz (MetricsScraper), in an order that alternates
//                          with the repetition
//   admin-1000-partitions  10 topics x 100 partitions through CreateTopics,
//                          one message each, then N GETs of each of
//                          /v1/topics, /metrics and / (the web console)
//                          round robin, each on a fresh connection
// Workload ids (measurement.h):
//   operability/scrape/100B/acks=1/p1/x1/<no-scraper|scraper=1Hz>   msgs_per_s, MB_per_s
//   operability/scrape/100B/acks=1/p1/x1/scraper=1Hz-over-no-scraper   ratio (per repetition)
//   operability/scrape/metrics        latency_ms, body_bytes: one value per scrape (not per repetition)
//   operability/admin-1000-partitions/<v1/topics|metrics|console>   p50_ms, max_ms (of the N requests of a
//                                     repetition), body_bytes; console only when / answers 200, else its
//                                     http_status (404: the console is not served by this build)
#include <algorithm>
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
constexpr int kTopics = 10;
constexpr int kPartitionsPerTopic = 100;
constexpr int kPageRequests = 20;       // per page and repetition
constexpr int kQuickPageRequests = 5;   // --quick
const std::string kScrapeId = "operability/scrape/100B/acks=1/p1/x1/";
const std::string kScrapeRows = "operability/scrape/metrics";

struct Page {
  std::string path;
  std::string name;  // the last part of the workload id
};
const std::vector<Page> kPages = {{"/v1/topics", "v1/topics"}, {"/metrics", "metrics"}, {"/", "console"}};

// The broker of one phase.
struct OpPhase {
  std::unique_ptr<BrokerProcess> broker;
  std::string dir;
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
  const int requests = o_.quick ? kQuickPageRequests : kPageRequests;
  // Bounded by --duration rather than a count (100 B acks=1 sends the
  // default count in under 2 s), so every run sees several scrapes;
  // --messages still caps it when given.
  const int64_t n = o_.messages ? *o_.messages : kScrapeMessageCap;
  std::vector<std::string> spool_base;
  for (const auto& d : deps_)
    if (d->name == "spool") spool_base = d->overrides;
  const std::string pages_id = "operability/admin-" + std::to_string(kTopics * kPartitionsPerTopic) + "-partitions/";

  add_note("operability: Spool only (Kafka has no admin HTTP listener: no peer runs, no Spool/Kafka ratios); every "
           "phase is a fresh Spool broker (durable default) with admin.listener=http://127.0.0.1:<free port>; the "
           "bench's other Spool brokers run with admin.listener= (off); HTTP is the bench's own blocking HTTP/1.1 "
           "client, one TCP connection per request (Connection: close), timed from connect() to the answer's last "
           "byte");
  if (scrape)
    add_note("operability/scrape: the produce workload 100 B acks=1 p1 x1 (sending for " +
             human_number(z_.duration_s) + " s, --duration" +
             (o_.messages ? ", or until " + human_number(static_cast<double>(n)) + " messages (--messages)" : "") +
             "; the CPU-bound combination, where a scraper's cost would show first) twice per repetition on the "
             "same broker after an untimed warm-up of up to " + human_number(kWarmupSeconds) + " s, once with a thread doing GET /metrics at 1 Hz (from before the "
             "topic is created until the last delivery report) and once without; no-scraper first in odd "
             "repetitions, scraper first in even ones; the ratio is each repetition's msg/s with / without (goal "
             ">= 0.99x); operability/scrape/metrics holds one value per scrape: its latency and body size");
  if (pages)
    add_note(pages_id.substr(0, pages_id.size() - 1) + ": " + std::to_string(kTopics) + " topics x " +
             std::to_string(kPartitionsPerTopic) + " partitions created with CreateTopics, one 100 B message to "
             "each, until GET /v1/topics lists them all; then " + std::to_string(requests) + " GETs of each of "
             "/v1/topics, /metrics and / (the web console's page) round robin; p50_ms and max_ms are of one "
             "repetition's requests, body_bytes the answer's body; / is timed only when it answers 200, otherwise "
             "its http_status row records what it answered (404: the console is not served by this build)");

  auto start_step = [this, spool_base](std::shared_ptr<OpPhase> p, const std::string& phase, int rep) -> Step {
    return {"start operability spool " + phase + " (run " + std::to_string(rep) + ")",
            [this, spool_base, p, phase, rep]() -> Result<std::string> {
              p->broker.reset();
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

  auto console_noted = std::make_shared<bool>(false);
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    if (scrape) {
      auto p = std::make_shared<OpPhase>();
      steps->push_back(start_step(p, "scrape", rep));
      steps->push_back(
          {run_label(kScrapeId + "<no-scraper|scraper=1Hz>", "spool", rep), [this, p, n, rep]() -> Result<std::string> {
             if (!p->broker) return Status::error("spool is not running");
             const Target t = p->target();
             const ProduceSpec spec{100, false, 1, 1};
             {
               std::string topic = next_topic("operability-warmup");
               auto warm = run_produce(t, topic, spec, n, std::min(z_.duration_s, kWarmupSeconds), nullptr);
               t.drop_topic(topic);
               if (!warm) return Status::error("warm-up: " + warm.status().message());
             }
             ScrapedProduce got[2];  // [0] no scraper, [1] scraper at 1 Hz
             for (int k = 0; k < 2; ++k) {
               const int which = rep % 2 == 1 ? k : 1 - k;
               std::string topic = next_topic("operability-scrape");
               auto res = run_produce_scraped(t, p->broker->admin_port(), which == 1 ? kScrapeIntervalS : 0, topic,
                                              spec, n, z_.duration_s, progress_.get());
               t.drop_topic(topic);
               if (!res) return Status::error((which == 1 ? "with scraper: " : "no scraper: ") + res.status().message());
               got[which] = std::move(*res);
             }
             if (got[1].scrapes.empty()) return Status::error("the scraper made no scrape");
             const char* names[2] = {"no-scraper", "scraper=1Hz"};
             for (int k = 0; k < 2; ++k) {
               record(kScrapeId + names[k], "spool", "msgs_per_s", got[k].produce.msgs_per_s());
               record(kScrapeId + names[k], "spool", "MB_per_s", got[k].produce.MB_per_s());
             }
             const double q = got[1].produce.msgs_per_s() / got[0].produce.msgs_per_s();
             record(kScrapeId + "scraper=1Hz-over-no-scraper", "spool", "ratio", q);
             std::vector<double> ms;
             for (const auto& s : got[1].scrapes) {
               record(kScrapeRows, "spool", "latency_ms", s.seconds * 1e3);
               record(kScrapeRows, "spool", "body_bytes", static_cast<double>(s.body_bytes));
               ms.push_back(s.seconds * 1e3);
             }
             return "no scraper " + fmt_rate(got[0].produce) + "; scraper " + fmt_rate(got[1].produce) + " (" +
                    format_ratio(q) + "); " + std::to_string(ms.size()) + (ms.size() == 1 ? " scrape" : " scrapes") +
                    ", p50 " +
                    human_number(median_of(ms)) + " ms, max " + human_number(*std::max_element(ms.begin(), ms.end())) +
                    " ms, " + human_number(static_cast<double>(got[1].scrapes.back().body_bytes)) + " B";
           }});
      steps->push_back(stop_step(p, "scrape", rep));
    }
    if (pages) {
      auto p = std::make_shared<OpPhase>();
      steps->push_back(start_step(p, "admin-partitions", rep));
      steps->push_back({run_label(pages_id + "<v1/topics|metrics|console>", "spool", rep),
                        [this, p, pages_id, requests, console_noted]() -> Result<std::string> {
                          if (!p->broker) return Status::error("spool is not running");
                          const Target t = p->target();
                          const int port = p->broker->admin_port();
                          if (auto st = create_partitions(t, port, next_topic("operability-pages") + "-", kTopics,
                                                          kPartitionsPerTopic, progress_.get());
                              !st)
                            return Status::error("creating the partitions: " + st.message());
                          std::vector<std::string> paths;
                          for (const auto& pg : kPages) paths.push_back(pg.path);
                          auto times = time_admin_pages(port, paths, requests);
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
                              line += "; GET / " + std::string(pt.status == 404 ? "not served (404)"
                                                                                 : "answered " +
                                                                                       std::to_string(pt.status));
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
      steps->push_back(stop_step(p, "admin-partitions", rep));
    }
  }
}

}  // namespace spool::bench
