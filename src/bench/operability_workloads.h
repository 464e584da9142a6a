// The operability family's workloads (operability_plan.cc plans them): what
// the broker's admin HTTP listener (admin.listener: /metrics, /v1/*, and the
// web console at /) costs and how fast it answers. Spool only: Kafka has no
// such listener. Both talk to a BrokerProcess started with
// enable_admin_listener() (its admin_port()), over http_get.h (one TCP
// connection per request).
//   MetricsScraper        a thread that GETs /metrics at a fixed interval
//                         (a Prometheus scraper at 1 Hz), timing each scrape
//   run_produce_scraped   the produce workload (workloads.h run_produce)
//                         with or without a MetricsScraper running alongside
//   create_partitions     topics x partitions through CreateTopics, one
//                         message to each, until /v1/topics lists them all
//   time_admin_pages      N GETs of each page, round robin, timed
// Threading: MetricsScraper owns one thread, joined by stop() or the
// destructor; the functions block their caller. Failure: Status with the
// reason (an HTTP failure, a /metrics answer other than 200, librdkafka's
// error); nothing throws.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
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
};
// run_produce(t, topic, spec, messages, max_seconds) with a MetricsScraper
// on `admin_port` at `scrape_interval_s` from before the topic is created
// until the last delivery report (scrape_interval_s <= 0: no scraper).
Result<ScrapedProduce> run_produce_scraped(const Target& t, int admin_port, double scrape_interval_s,
                                           const std::string& topic, const ProduceSpec& spec, int64_t messages,
                                           double max_seconds, Progress* progress);

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

}  // namespace spool::bench
