// Shared helpers of the NetworkClient tests: a thread-safe Collector of
// callback results (bounded waits), raw-request and option builders, a port
// nothing listens on, byte formatting. Test-only; see fake_broker.h for the
// server side.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>

#include "client/network_client.h"
#include "fake_broker.h"

namespace spool::client::testing {

constexpr int16_t kMetadata = 3;
constexpr int16_t kNetworkException = 13;
constexpr int16_t kRequestTimedOut = 7;
constexpr int16_t kUnsupportedVersion = 35;

inline int64_t ms(Clock::duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

inline std::string text(ByteSpan b) { return std::string(b.begin(), b.end()); }

inline std::string hex(ByteSpan b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s += kDigits[c >> 4];
    s += kDigits[c & 15];
  }
  return s;
}

inline std::string hex32(int32_t v) {
  ByteWriter w;
  w.i32(v);
  return hex(w.buffer());
}

// Collects callback results from the client's thread.
template <class T>
class Collector {
 public:
  std::function<void(Result<T>)> callback() {
    return [this](Result<T> r) {
      std::lock_guard<std::mutex> l(mu_);
      results_.push_back(std::move(r));
      threads_.push_back(std::this_thread::get_id());
      times_.push_back(Clock::now());
      cv_.notify_all();
    };
  }
  // Waits (bounded) until n results arrived.
  bool wait(size_t n, int timeout_ms = 5000) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::milliseconds(timeout_ms), [&] { return results_.size() >= n; });
  }
  size_t size() {
    std::lock_guard<std::mutex> l(mu_);
    return results_.size();
  }
  // References stay valid while later results arrive (deque).
  Result<T>& at(size_t i) {
    std::lock_guard<std::mutex> l(mu_);
    return results_.at(i);
  }
  std::thread::id thread(size_t i) {
    std::lock_guard<std::mutex> l(mu_);
    return threads_.at(i);
  }
  Clock::time_point time(size_t i) {
    std::lock_guard<std::mutex> l(mu_);
    return times_.at(i);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Result<T>> results_;
  std::vector<std::thread::id> threads_;
  std::vector<Clock::time_point> times_;
};

inline RawRequest raw(int16_t key, int16_t lo, int16_t hi, std::string body, int32_t timeout_ms = -1) {
  RawRequest r;
  r.api_key = key;
  r.min_version = lo;
  r.max_version = hi;
  r.timeout_ms = timeout_ms;
  r.encode = [body](ByteWriter& w, int16_t) { w.bytes(as_span(body)); };
  return r;
}

inline NetworkClientOptions fast_options() {
  NetworkClientOptions o;
  o.request_timeout_ms = 3000;
  o.connect_timeout_ms = 2000;
  o.reconnect_backoff_ms = 20;
  o.reconnect_backoff_max_ms = 100;
  o.reconnect_backoff_jitter = 0.0;
  o.seed = 1;
  return o;
}

inline Node node_of(const FakeBroker& b) { return Node{1, "127.0.0.1", b.port()}; }

// A port nothing listens on (bound, then closed).
inline uint16_t dead_port() {
  asio::io_context ctx;
  asio::ip::tcp::acceptor a(ctx, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

}  // namespace spool::client::testing
