// TopicMetrics: Kafka's BrokerTopicMetrics (kafka.server), per topic and for
// all topics, process-wide: bytes and messages in, bytes out to consumers,
// replication bytes out, produce and fetch requests (per partition entry, as
// Kafka counts them) and the failed ones.
//
// Recorded by ReplicaManager::append_records (in) and the Fetch handler
// (out). A topic's counters are found through a per-thread cache, so the
// produce path takes the registry's lock only the first time a thread
// meets a topic. The all-topics series are the sums of the topics' counters,
// taken at scrape (a topic's counters are never freed, so the sums never go
// down). Series of a deleted topic stay until the process restarts
// (Kafka removes them; a counter that vanishes and returns looks like a
// reset to Prometheus either way).
//
// Threading: thread-safe; counters are util::Counter (sharded).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "util/metrics.h"

namespace spool::broker {

struct TopicCounters {
  util::Counter bytes_in;
  util::Counter messages_in;
  util::Counter bytes_out;
  util::Counter produce_requests;
  util::Counter fetch_requests;
  util::Counter failed_produce;
  util::Counter failed_fetch;
};

class TopicMetrics {
 public:
  static TopicMetrics& instance();

  // The counters of `topic` (created on first use; never freed).
  TopicCounters& of(const std::string& topic);
  util::Counter& replication_bytes_out() { return replication_bytes_out_; }

  void render(util::PromText& out) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<TopicCounters>> topics_;
  util::Counter replication_bytes_out_;
};

}  // namespace spool::broker
