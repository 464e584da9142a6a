#include "broker/metrics/request_metrics.h"

#include <string>

#include "protocol/api_table.h"

namespace spool::broker {

RequestMetrics& RequestMetrics::instance() {
  static RequestMetrics* m = new RequestMetrics();  // never destroyed: threads may record during exit
  return *m;
}

RequestMetrics::ApiStats* RequestMetrics::stats(int16_t api_key) {
  if (api_key < 0 || api_key >= kMaxApiKey) return nullptr;
  auto& slot = apis_[api_key];
  ApiStats* s = slot.load(std::memory_order_acquire);
  if (s != nullptr) return s;
  auto* fresh = new ApiStats();
  if (slot.compare_exchange_strong(s, fresh, std::memory_order_acq_rel)) return fresh;
  delete fresh;  // another thread won
  return s;
}

void RequestMetrics::record_handled(int16_t api_key, double queue_ms, double local_ms) {
  if (auto* s = stats(api_key)) {
    s->requests.add();
    s->queue.observe(queue_ms);
    s->local.observe(local_ms);
  }
}

void RequestMetrics::record_answered(int16_t api_key, double remote_ms, double send_ms, double total_ms) {
  if (auto* s = stats(api_key)) {
    s->remote.observe(remote_ms);
    s->send.observe(send_ms);
    s->total.observe(total_ms);
  }
}

void RequestMetrics::record_error(int16_t api_key, protocol::ErrorCode code) {
  auto& shard = errors_[util::metric_shard()];
  std::lock_guard lk(shard.mu);
  ++shard.counts[{api_key, protocol::to_int(code)}];
}

void RequestMetrics::render(util::PromText& out) const {
  struct Api {
    std::string name;
    ApiStats* stats;
  };
  std::vector<Api> apis;
  for (int k = 0; k < kMaxApiKey; ++k)
    if (auto* s = apis_[k].load(std::memory_order_acquire))
      apis.push_back({std::string(protocol::api_name(static_cast<int16_t>(k))), s});
  out.family("kafka_network_requestmetrics_requests_total", "counter", "Requests received, per API");
  for (const auto& a : apis)
    out.sample("kafka_network_requestmetrics_requests_total", {{"request", a.name}},
               static_cast<double>(a.stats->requests.value()));
  // The time split, in Kafka's order (request_metrics.h defines each part).
  struct TimeFamily {
    const char* name;
    const char* help;
    util::Histogram ApiStats::*histogram;
  };
  static constexpr TimeFamily kTimes[] = {
      {"kafka_network_requestmetrics_requestqueuetimems",
       "Time from the request's last byte read to its dispatch, in milliseconds", &ApiStats::queue},
      {"kafka_network_requestmetrics_localtimems",
       "Time the request's handler ran on its reactor thread, in milliseconds", &ApiStats::local},
      {"kafka_network_requestmetrics_remotetimems",
       "Time from the handler's return to the answer (a parked request's wait), in milliseconds",
       &ApiStats::remote},
      {"kafka_network_requestmetrics_responsesendtimems",
       "Time from the answer to its last byte written, in milliseconds", &ApiStats::send},
      {"kafka_network_requestmetrics_totaltimems",
       "Time from the request's last byte read to the answer's last byte written, in milliseconds",
       &ApiStats::total},
  };
  for (const auto& t : kTimes) {
    out.family(t.name, "histogram", t.help);
    for (const auto& a : apis) out.histogram(t.name, {{"request", a.name}}, (a.stats->*t.histogram).snapshot());
  }
  std::map<std::pair<int16_t, int16_t>, int64_t> errors;
  for (auto& shard : errors_) {
    std::lock_guard lk(shard.mu);
    for (const auto& [k, n] : shard.counts) errors[k] += n;
  }
  out.family("kafka_network_requestmetrics_errors_total", "counter",
             "Error codes in answers, per API and code (NONE not counted)");
  for (const auto& [k, n] : errors)
    out.sample("kafka_network_requestmetrics_errors_total",
               {{"request", protocol::api_name(k.first)},
                {"error", protocol::error_name(static_cast<protocol::ErrorCode>(k.second))}},
               static_cast<double>(n));
}

}  // namespace spool::broker
