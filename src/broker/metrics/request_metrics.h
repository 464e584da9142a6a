// RequestMetrics: Kafka's per-API request metrics (kafka.network
// RequestMetrics), process-wide: requests, local and total time in
// milliseconds, and errors per API and error code.
//
// Recorded by the Dispatcher (requests, local time: the handler's call on
// the reactor) and by RequestContext when the answer is sent (total time,
// from the frame's dispatch to the answer; a parked request's wait
// included). Errors: the answer's top-level error_code and, for Produce and
// Fetch, every partition's (Kafka's errorCounts also lists NONE; Spool does
// not count successes as errors: requests_total holds them).
//
// Threading: all members are thread-safe and allocation-free on record
// after an API's first request (its stats are created once, lock-free).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "protocol/error_code.h"
#include "util/metrics.h"

namespace spool::broker {

class RequestMetrics {
 public:
  static RequestMetrics& instance();

  void record_local(int16_t api_key, double local_ms);
  void record_total(int16_t api_key, double total_ms);
  void record_error(int16_t api_key, protocol::ErrorCode code);
  void render(util::PromText& out) const;

  template <typename Response>
  void record_errors(int16_t api_key, const Response& resp) {
    using protocol::ErrorCode;
    if constexpr (requires { resp.error_code == ErrorCode::kNone; }) {
      if (resp.error_code != ErrorCode::kNone) record_error(api_key, resp.error_code);
    }
    if constexpr (requires { resp.responses.front().partition_responses.front().error_code; }) {
      for (const auto& t : resp.responses)
        for (const auto& p : t.partition_responses)
          if (p.error_code != ErrorCode::kNone) record_error(api_key, p.error_code);
    } else if constexpr (requires { resp.responses.front().partitions.front().error_code; }) {
      for (const auto& t : resp.responses)
        for (const auto& p : t.partitions)
          if (p.error_code != ErrorCode::kNone) record_error(api_key, p.error_code);
    }
  }

  static constexpr int kMaxApiKey = 128;

 private:
  struct ApiStats {
    util::Counter requests;
    util::Histogram local{util::Histogram::latency_ms_bounds()};
    util::Histogram total{util::Histogram::latency_ms_bounds()};
  };
  ApiStats* stats(int16_t api_key);
  struct alignas(64) ErrorShard {
    std::mutex mu;
    std::map<std::pair<int16_t, int16_t>, int64_t> counts;  // (api, code) -> count
  };
  std::array<std::atomic<ApiStats*>, kMaxApiKey> apis_{};
  mutable std::array<ErrorShard, util::kMetricShards> errors_;
};

}  // namespace spool::broker
