// The operability family's workloads (operability_plan.cc plans them): what
// the broker's admin HTTP listener (admin.listener: /metrics, /v1/*, and the
// web console at /) costs and how fast it answers. Spool only: Kafka has no
// such listener. Both talk to a BrokerProcess started with
// enable_admin_listener() (its admin_port()), over http_get.h (one TCP
// connection per request).
//   MetricsScraper        a thread that GETs /metrics at a fixed interval
//                         (a Prometheus scraper at 1 Hz), timing each scrape
//   run_produce_scraped   the produce workload (workloads.h run_produce)
//                         with or without a MetricsScraper running alongside,
//                         and the broker's CPU time during it
//   measure_scrape_cost   the broker's CPU time per GET /metrics: N scrapes
//                         back to back with no other load, idle CPU subtracted
//   create_partitions     topics x partitions through CreateTopics, one
//                         message to each, until /v1/topics lists them all
//   time_admin_pages      N GETs of each page, round robin, timed
//   time_console_loads    the web console loaded in headless Chromium
//                         (tests/console/console_load_time.js under node),
//                         timed until its topics table shows every partition
// Broker CPU comes from process_cpu_seconds (broker_process.h).
// Threading: MetricsScraper owns one thread, joined by stop() or the
// destructor; the functions block their caller. Failure: Status with the
// reason (an HTTP failure, a /metrics answer other than 200, librdkafka's
// error, the browser script's error); nothing throws.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

#include "bench/workloads.h"
#include "util/status.h"

namespace spool::bench {

// One GET /metrics.
struct ScrapeSample {
  double seconds = 0;     // connect to the last byte of the answer
  size_t body_bytes = 0;  // the Prometheus text
};

class MetricsScraper {
 public:
  // Starts scraping 127.0.0.1:admin_port/metrics at once, then every
  // interval_s (on a fixed schedule: a slow scrape does not shift the next).
  MetricsScraper(int admin_port, double interval_s);
  ~MetricsScraper();
  MetricsScraper(const MetricsScraper&) = delete;
  MetricsScraper& operator=(const MetricsScraper&) = delete;

  // Stops the thread (an answer in flight is awaited) and returns every
  // scrape, or why one failed (the thread stops at the first failure).
  Result<std::vector<ScrapeSample>> stop();

 private:
  void loop();

  const int port_;
  const double interval_s_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<ScrapeSample> samples_;
  Status failure_;
  std::thread thread_;
};

struct ScrapedProduce {
  Throughput produce;
  std::vector<ScrapeSample> scrapes;  // empty without a scraper
  double broker_cpu_s = 0;            // the broker's CPU time over the same span
  // Broker CPU milliseconds per MB (10^6 payload bytes) produced.
  double cpu_ms_per_MB() const {
    return produce.bytes > 0 ? broker_cpu_s * 1e3 / (static_cast<double>(produce.bytes) / 1e6) : 0;
  }
};
// run_produce(t, topic, spec, messages, max_seconds) with a MetricsScraper
// on `admin_port` at `scrape_interval_s` from before the topic is created
// until the last delivery report (scrape_interval_s <= 0: no scraper);
// broker_cpu_s is `broker_pid`'s CPU time over that span.
Result<ScrapedProduce> run_produce_scraped(const Target& t, int admin_port, pid_t broker_pid,
                                           double scrape_interval_s, const std::string& topic,
                                           const ProduceSpec& spec, int64_t messages, double max_seconds,
                                           Progress* progress);

struct ScrapeCost {
  int scrapes = 0;
  double wall_s = 0;       // of the scrapes, back to back
  double cpu_s = 0;        // the broker's CPU time over wall_s
  double idle_cpu_s = 0;   // its CPU time over idle_s with no request
  double idle_s = 0;
  size_t body_bytes = 0;   // of the last answer
  // Broker CPU per scrape with its idle rate over wall_s taken out.
  double cpu_ms_per_scrape() const {
    const double idle = idle_s > 0 ? idle_cpu_s / idle_s * wall_s : 0;
    return scrapes > 0 ? std::max(0.0, cpu_s - idle) * 1e3 / scrapes : 0;
  }
};
// Measures `broker_pid`'s idle CPU over `idle_s`, then its CPU over
// `scrapes` GET /metrics on `admin_port`, back to back (one connection each,
// as a Prometheus scraper makes them). Call with no other load on the broker.
Result<ScrapeCost> measure_scrape_cost(int admin_port, pid_t broker_pid, int scrapes, double idle_s);

// Creates topics <prefix>0 .. <prefix><topics-1> with `per_topic` partitions
// each (one CreateTopics), sends one 100 B message to every partition
// (acks=1), and waits until GET /v1/topics lists every partition.
Status create_partitions(const Target& t, int admin_port, const std::string& prefix, int topics, int per_topic,
                         Progress* progress);

// The timings of one page.
struct PageTimes {
  std::string path;
  int status = 0;               // of the first answer; only 200 pages are timed further
  std::vector<double> seconds;  // one per request (all answered `status`)
  size_t body_bytes = 0;        // of the last answer
};
// GETs each of `paths` `requests` times, round robin (path 1, 2, 3, 1, ...),
// each on a fresh connection. A path whose first answer is not 200 is
// asked once only (PageTimes::status says what it answered); a later
// answer that differs from the first is an error.
Result<std::vector<PageTimes>> time_admin_pages(int admin_port, const std::vector<std::string>& paths, int requests);

// What the browser measurement runs: node and the script.
struct ConsoleTools {
  std::string node;    // the first executable `node` on $PATH
  std::string script;  // tests/console/console_load_time.js (locate_repo_script, kafka_peer.h)
};
// The tools, or why the browser measurement cannot run here: no node on
// $PATH, no script in the source tree of `exe` (the resolved spool
// executable, self_executable(); nor ./tests/console), no
// node_modules/playwright-core beside it (scripts/install-deps: npm ci), or
// no /usr/bin/chromium (Debian's chromium package).
Result<ConsoleTools> find_console_tools(const std::string& exe);
// One load of the console (console_load_time.js's "load" event), in ms from
// the navigation's start.
struct ConsoleLoad {
  double table_ms = 0;               // the topics table shows all `partitions` rows (next frame)
  double dom_content_loaded_ms = 0;  // domContentLoadedEventEnd
  double load_ms = 0;                // loadEventEnd
};
// Runs the script against http://127.0.0.1:admin_port: one untimed load,
// then `loads` timed ones, each until the topics table lists `partitions`
// rows of topics named `topic_prefix`*. The script's stderr goes to
// `log_path`. Error: the script's own (its "failed" event), a time-out, or
// a load with no positive time.
Result<std::vector<ConsoleLoad>> time_console_loads(const ConsoleTools& tools, int admin_port,
                                                    const std::string& topic_prefix, int partitions, int loads,
                                                    const std::string& log_path);

}  // namespace spool::bench
