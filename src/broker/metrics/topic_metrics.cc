#include "broker/metrics/topic_metrics.h"

#include <unordered_map>
#include <vector>

namespace spool::broker {

TopicMetrics& TopicMetrics::instance() {
  static TopicMetrics* m = new TopicMetrics();  // never destroyed: threads may record during exit
  return *m;
}

TopicCounters& TopicMetrics::of(const std::string& topic) {
  thread_local std::unordered_map<std::string, TopicCounters*> cache;
  if (auto it = cache.find(topic); it != cache.end()) return *it->second;
  std::lock_guard lk(mu_);
  auto& slot = topics_[topic];
  if (!slot) slot = std::make_unique<TopicCounters>();
  cache.emplace(topic, slot.get());
  return *slot;
}

void TopicMetrics::render(util::PromText& out) const {
  std::vector<std::pair<std::string, const TopicCounters*>> topics;
  {
    std::lock_guard lk(mu_);
    for (const auto& [name, c] : topics_) topics.emplace_back(name, c.get());
  }
  struct Family {
    const char* name;
    const char* help;
    util::Counter TopicCounters::*counter;
  };
  static const Family kFamilies[] = {
      {"kafka_server_brokertopicmetrics_bytesin_total", "Bytes appended by producers", &TopicCounters::bytes_in},
      {"kafka_server_brokertopicmetrics_messagesin_total", "Records appended by producers",
       &TopicCounters::messages_in},
      {"kafka_server_brokertopicmetrics_bytesout_total", "Record bytes sent to consumers", &TopicCounters::bytes_out},
      {"kafka_server_brokertopicmetrics_totalproducerequests_total", "Produce partition entries",
       &TopicCounters::produce_requests},
      {"kafka_server_brokertopicmetrics_totalfetchrequests_total", "Fetch partition entries",
       &TopicCounters::fetch_requests},
      {"kafka_server_brokertopicmetrics_failedproducerequests_total", "Produce partition entries answered an error",
       &TopicCounters::failed_produce},
      {"kafka_server_brokertopicmetrics_failedfetchrequests_total", "Fetch partition entries answered an error",
       &TopicCounters::failed_fetch},
  };
  for (const auto& f : kFamilies) {
    std::vector<int64_t> values;
    int64_t all = 0;
    for (const auto& [name, c] : topics) all += values.emplace_back((c->*f.counter).value());
    out.family(f.name, "counter", std::string(f.help) + " (no topic label: all topics)");
    out.sample(f.name, {}, static_cast<double>(all));
    for (size_t i = 0; i < topics.size(); ++i)
      out.sample(f.name, {{"topic", topics[i].first}}, static_cast<double>(values[i]));
  }
  out.family("kafka_server_brokertopicmetrics_replicationbytesout_total", "counter",
             "Record bytes sent to follower replicas");
  out.sample("kafka_server_brokertopicmetrics_replicationbytesout_total", {},
             static_cast<double>(replication_bytes_out_.value()));
}

}  // namespace spool::broker
