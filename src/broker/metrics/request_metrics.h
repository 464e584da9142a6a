// RequestMetrics: Kafka's per-API request metrics (kafka.network
// RequestMetrics), process-wide: requests, the request's time split as
// Kafka splits it (histograms in milliseconds), and errors per API and
// error code.
//
// Time, from net's and the Dispatcher's steady-clock stamps of one request
// (net/response.h ResponseTiming):
//   queue  (requestqueuetimems): the read that completed the frame to the
//          Dispatcher taking it (pipelined frames behind it, a muted,
//          paused or parked connection);
//   local  (localtimems): the Dispatcher taking it to its handler returning;
//   remote (remotetimems): the handler returning to the answer (a parked
//          request's wait: acks=all produce, fetch min bytes; 0 when
//          answered inside the handler);
//   send   (responsesendtimems): the later of the handler's return and the
//          answer to its last byte written (waiting behind earlier answers
//          of the connection included; acks=0: until its turn came);
//   total  (totaltimems): the read that completed the frame to the last
//          byte written. total = queue + local + remote + send, plus the
//          few instructions between the Dispatcher's and net's stamps of
//          the handler's return (so total >= the sum, never below).
// Recorded by the Dispatcher: requests, queue and local when a request's
// handler returns (requests that reach their API's handler); remote, send
// and total in Dispatcher::on_answered once the answer is written (every
// answer given through a RequestContext, SASL's exchange before
// authentication included; not requests closed instead of answered).
// Errors: the answer's top-level error_code and, for Produce and Fetch,
// every partition's (Kafka's errorCounts also lists NONE; Spool does not
// count successes as errors: requests_total holds them).
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

  // One request whose handler returned: counts it, with its queue and
  // local time.
  void record_handled(int16_t api_key, double queue_ms, double local_ms);
  // One answer written (or no_response settled).
  void record_answered(int16_t api_key, double remote_ms, double send_ms, double total_ms);
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
    util::Histogram queue{util::Histogram::latency_ms_bounds()};
    util::Histogram local{util::Histogram::latency_ms_bounds()};
    util::Histogram remote{util::Histogram::latency_ms_bounds()};
    util::Histogram send{util::Histogram::latency_ms_bounds()};
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
