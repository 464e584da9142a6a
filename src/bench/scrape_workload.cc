// MetricsScraper and run_produce_scraped (operability_workloads.h).
#include <chrono>

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

Result<ScrapedProduce> run_produce_scraped(const Target& t, int admin_port, double scrape_interval_s,
                                           const std::string& topic, const ProduceSpec& spec, int64_t messages,
                                           double max_seconds, Progress* progress) {
  std::unique_ptr<MetricsScraper> scraper;
  if (scrape_interval_s > 0) scraper = std::make_unique<MetricsScraper>(admin_port, scrape_interval_s);
  auto produced = run_produce(t, topic, spec, messages, max_seconds, progress);
  ScrapedProduce out;
  if (scraper) {
    auto scrapes = scraper->stop();
    if (!scrapes) return Status::error("scraper: " + scrapes.status().message());
    out.scrapes = std::move(*scrapes);
  }
  if (!produced) return produced.status();
  out.produce = *produced;
  return out;
}

}  // namespace spool::bench
