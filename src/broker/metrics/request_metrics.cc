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

void RequestMetrics::record_local(int16_t api_key, double local_ms) {
  if (auto* s = stats(api_key)) {
    s->requests.add();
    s->local.observe(local_ms);
  }
}

void RequestMetrics::record_total(int16_t api_key, double total_ms) {
  if (auto* s = stats(api_key)) s->total.observe(total_ms);
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
  out.family("kafka_network_requestmetrics_localtimems", "histogram",
             "Time the request's handler ran on its reactor thread, in milliseconds");
  for (const auto& a : apis)
    out.histogram("kafka_network_requestmetrics_localtimems", {{"request", a.name}}, a.stats->local.snapshot());
  out.family("kafka_network_requestmetrics_totaltimems", "histogram",
             "Time from the request's dispatch to its answer, waiting included, in milliseconds");
  for (const auto& a : apis)
    out.histogram("kafka_network_requestmetrics_totaltimems", {{"request", a.name}}, a.stats->total.snapshot());
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
