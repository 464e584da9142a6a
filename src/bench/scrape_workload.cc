// MetricsScraper, run_produce_scraped and measure_scrape_cost
// (operability_workloads.h).
#include <chrono>
#include <thread>

#include "bench/broker_process.h"

#include "bench/http_get.h"
#include "bench/operability_workloads.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kScrapeTimeoutS = 10;  // Prometheus' default scrape_timeout

}  // namespace

MetricsScraper::MetricsScraper(int admin_port, double interval_s)
    : port_(admin_port), interval_s_(interval_s), thread_([this] { loop(); }) {}

MetricsScraper::~MetricsScraper() { (void)stop(); }

void MetricsScraper::loop() {
  const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s_));
  auto next = Clock::now();
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    auto got = http_get(port_, "/metrics", kScrapeTimeoutS);
    lock.lock();
    if (!got) {
      failure_ = got.status();
      return;
    }
    if (got->status != 200) {
      failure_ = Status::error("GET /metrics answered " + std::to_string(got->status));
      return;
    }
    samples_.push_back(ScrapeSample{got->seconds, got->body.size()});
    next += interval;
    cv_.wait_until(lock, next, [this] { return stopping_; });
  }
}

Result<std::vector<ScrapeSample>> MetricsScraper::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  if (!failure_) return failure_;
  return samples_;
}

Result<ScrapedProduce> run_produce_scraped(const Target& t, int admin_port, pid_t broker_pid,
                                           double scrape_interval_s, const std::string& topic,
                                           const ProduceSpec& spec, int64_t messages, double max_seconds,
                                           Progress* progress) {
  auto cpu0 = process_cpu_seconds(broker_pid);
  if (!cpu0) return cpu0.status();
  std::unique_ptr<MetricsScraper> scraper;
  if (scrape_interval_s > 0) scraper = std::make_unique<MetricsScraper>(admin_port, scrape_interval_s);
  auto produced = run_produce(t, topic, spec, messages, max_seconds, progress);
  auto cpu1 = process_cpu_seconds(broker_pid);
  ScrapedProduce out;
  if (scraper) {
    auto scrapes = scraper->stop();
    if (!scrapes) return Status::error("scraper: " + scrapes.status().message());
    out.scrapes = std::move(*scrapes);
  }
  if (!produced) return produced.status();
  if (!cpu1) return cpu1.status();
  out.produce = *produced;
  out.broker_cpu_s = *cpu1 - *cpu0;
  return out;
}

Result<ScrapeCost> measure_scrape_cost(int admin_port, pid_t broker_pid, int scrapes, double idle_s) {
  ScrapeCost c;
  auto idle0 = process_cpu_seconds(broker_pid);
  if (!idle0) return idle0.status();
  auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(idle_s));
  auto idle1 = process_cpu_seconds(broker_pid);
  if (!idle1) return idle1.status();
  c.idle_s = std::chrono::duration<double>(Clock::now() - t0).count();
  c.idle_cpu_s = *idle1 - *idle0;
  t0 = Clock::now();
  for (int i = 0; i < scrapes; ++i) {
    auto got = http_get(admin_port, "/metrics", kScrapeTimeoutS);
    if (!got) return got.status();
    if (got->status != 200) return Status::error("GET /metrics answered " + std::to_string(got->status));
    c.body_bytes = got->body.size();
  }
  auto cpu1 = process_cpu_seconds(broker_pid);
  if (!cpu1) return cpu1.status();
  c.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  c.cpu_s = *cpu1 - *idle1;
  c.scrapes = scrapes;
  return c;
}

}  // namespace spool::bench
