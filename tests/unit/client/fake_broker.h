// FakeBroker: an in-test Asio server on a free loopback port for the
// NetworkClient tests. It reads size-prefixed request frames, records them
// (with the time of each accept) and asks the test's Script what to do with
// each: write bytes back (after an optional delay; writes keep request order
// per connection), cut the connection, or ignore the request. The default
// script answers ApiVersions with `ranges` and echoes every other request's
// body. Helpers build well-formed answers.
//
// Threading: one I/O thread of its own; requests()/accepts() and the
// setters may be called from the test thread (a mutex guards them); the
// script runs on the server thread. The destructor stops and joins.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

// Standard headers first: asio's config picks aligned_alloc from them, and
// every translation unit must pick the same (ODR; ASan reports a mismatch).
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>

#include "protocol/api_versions_response.h"
#include "protocol/header.h"
#include "util/bytes.h"

namespace spool::client::testing {

using Clock = std::chrono::steady_clock;

struct ReceivedRequest {
  int connection = 0;  // 1, 2, ... in accept order
  protocol::RequestHeader header;
  Bytes frame;  // after the size field
  Bytes body;   // after the request header
  Clock::time_point at;
};

struct Action {
  enum Kind { kWrite, kClose, kIgnore } kind = kIgnore;
  Bytes bytes;  // written as is (size prefix included)
  int delay_ms = 0;
  static Action write(Bytes b, int delay_ms = 0) { return {kWrite, std::move(b), delay_ms}; }
  static Action close() { return {kClose, {}, 0}; }
  static Action ignore() { return {kIgnore, {}, 0}; }
};

// A size-prefixed response frame: header v0 or v1 per (key, version), then body.
inline Bytes response_frame(int16_t api_key, int16_t version, int32_t correlation_id, ByteSpan body) {
  ByteWriter w;
  w.i32(0);
  protocol::encode_response_header(w, correlation_id, protocol::response_header_flexible(api_key, version));
  w.bytes(body);
  w.patch_i32(0, static_cast<int32_t>(w.size() - 4));
  return w.take();
}

template <class Resp>
Bytes answer(const ReceivedRequest& req, const Resp& resp) {
  ByteWriter body;
  resp.encode(body, req.header.api_version);
  return response_frame(req.header.api_key, req.header.api_version, req.header.correlation_id, body.buffer());
}

using Ranges = std::map<int16_t, std::pair<int16_t, int16_t>>;

inline Bytes api_versions_answer(const ReceivedRequest& req, const Ranges& ranges) {
  protocol::ApiVersionsResponse resp;
  for (const auto& [key, r] : ranges) resp.api_keys.push_back({key, r.first, r.second});
  return answer(req, resp);
}

class FakeBroker {
 public:
  using Script = std::function<Action(const ReceivedRequest&)>;

  explicit FakeBroker(Ranges ranges = {{3, {0, 12}}, {18, {0, 5}}})
      : ranges_(std::move(ranges)), acceptor_(ctx_, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    port_ = acceptor_.local_endpoint().port();
    accept();
    thread_ = std::thread([this] { ctx_.run(); });
  }
  ~FakeBroker() {
    asio::post(ctx_, [this] {
      std::error_code ec;
      acceptor_.close(ec);
      for (auto& [id, c] : conns_) {
        c->socket.close(ec);
        c->timer.cancel();
      }
      conns_.clear();
    });
    work_.reset();
    thread_.join();
  }

  uint16_t port() const { return port_; }
  const Ranges& ranges() const { return ranges_; }

  // Replaces the script for requests other than ApiVersions (which keep the
  // default answer unless `api_versions_too`).
  void set_script(Script s, bool api_versions_too = false) {
    std::lock_guard<std::mutex> l(mu_);
    script_ = std::move(s);
    script_api_versions_ = api_versions_too;
  }
  // Cuts every open connection now.
  void close_all() {
    asio::post(ctx_, [this] {
      std::error_code ec;
      for (auto& [id, c] : conns_) c->socket.close(ec);
      conns_.clear();
    });
  }

  std::vector<ReceivedRequest> requests() const {
    std::lock_guard<std::mutex> l(mu_);
    return requests_;
  }
  // Requests other than ApiVersions.
  std::vector<ReceivedRequest> user_requests() const {
    std::vector<ReceivedRequest> out;
    for (auto& r : requests()) {
      if (r.header.api_key != 18) out.push_back(r);
    }
    return out;
  }
  std::vector<Clock::time_point> accepts() const {
    std::lock_guard<std::mutex> l(mu_);
    return accepts_;
  }
  // Number of connections the peer closed (EOF seen by the server).
  int peer_closes() const {
    std::lock_guard<std::mutex> l(mu_);
    return peer_closes_;
  }
  // Waits until `pred()` holds (re-checked after each request/accept/close),
  // at most `timeout_ms`. `pred` takes `mu_` itself through the accessors, so
  // it runs unlocked; `changes_` catches a change made while it ran, which a
  // bare condition-variable wait would miss until the timeout.
  bool wait_for(const std::function<bool()>& pred, int timeout_ms = 5000) const {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      const uint64_t seen = changes_;
      l.unlock();
      const bool ok = pred();
      l.lock();
      if (ok) return true;
      if (!cv_.wait_until(l, deadline, [&] { return changes_ != seen; })) {
        l.unlock();
        return pred();
      }
    }
  }

 private:
  struct Conn {
    explicit Conn(asio::io_context& ctx) : socket(ctx), timer(ctx) {}
    int id = 0;
    asio::ip::tcp::socket socket;
    asio::steady_timer timer;
    uint8_t size[4] = {};
    Bytes frame;
    std::deque<std::pair<Clock::time_point, Bytes>> outq;
    bool writing = false;
  };

  void accept() {
    acceptor_.async_accept([this](const std::error_code& ec, asio::ip::tcp::socket s) {
      if (ec) return;
      auto c = std::make_shared<Conn>(ctx_);
      c->socket = std::move(s);
      {
        std::lock_guard<std::mutex> l(mu_);
        accepts_.push_back(Clock::now());
        c->id = static_cast<int>(accepts_.size());
        ++changes_;
      }
      cv_.notify_all();
      conns_[c->id] = c;
      read(c);
      accept();
    });
  }

  void read(std::shared_ptr<Conn> c) {
    asio::async_read(c->socket, asio::buffer(c->size, 4), [this, c](const std::error_code& ec, size_t) {
      if (ec) {
        if (ec != asio::error::operation_aborted) peer_closed(c);
        return;
      }
      ByteReader r(c->size, 4);
      const int32_t n = r.i32();
      if (n < 0 || n > (1 << 24)) {
        peer_closed(c);
        return;
      }
      c->frame.assign(static_cast<size_t>(n), 0);
      asio::async_read(c->socket, asio::buffer(c->frame), [this, c](const std::error_code& ec2, size_t) {
        if (ec2) {
          if (ec2 != asio::error::operation_aborted) peer_closed(c);
          return;
        }
        on_request(c);
      });
    });
  }

  void peer_closed(const std::shared_ptr<Conn>& c) {
    std::error_code ec;
    c->socket.close(ec);
    conns_.erase(c->id);
    {
      std::lock_guard<std::mutex> l(mu_);
      ++peer_closes_;
      ++changes_;
    }
    cv_.notify_all();
  }

  void on_request(const std::shared_ptr<Conn>& c) {
    ReceivedRequest req;
    req.connection = c->id;
    req.frame = c->frame;
    req.at = Clock::now();
    ByteReader r(req.frame);
    protocol::decode_request_header(r, req.header);
    req.body.assign(req.frame.begin() + static_cast<std::ptrdiff_t>(r.position()), req.frame.end());
    Script script;
    bool all = false;
    {
      std::lock_guard<std::mutex> l(mu_);
      requests_.push_back(req);
      ++changes_;
      script = script_;
      all = script_api_versions_;
    }
    cv_.notify_all();
    Action a;
    if (req.header.api_key == 18 && !all) {
      a = Action::write(api_versions_answer(req, ranges_));
    } else if (script) {
      a = script(req);
    } else {
      a = Action::write(response_frame(req.header.api_key, req.header.api_version, req.header.correlation_id, req.body));
    }
    if (a.kind == Action::kClose) {
      std::error_code ec;
      c->socket.close(ec);
      conns_.erase(c->id);
      return;
    }
    if (a.kind == Action::kWrite) {
      c->outq.emplace_back(Clock::now() + std::chrono::milliseconds(a.delay_ms), std::move(a.bytes));
      pump(c);
    }
    read(c);
  }

  // Writes queued answers in order, each not before its time.
  void pump(const std::shared_ptr<Conn>& c) {
    if (c->writing || c->outq.empty()) return;
    if (c->outq.front().first > Clock::now()) {
      c->writing = true;
      c->timer.expires_at(c->outq.front().first);
      c->timer.async_wait([this, c](const std::error_code& ec) {
        c->writing = false;
        if (!ec) pump(c);
      });
      return;
    }
    c->writing = true;
    auto bytes = std::make_shared<Bytes>(std::move(c->outq.front().second));
    c->outq.pop_front();
    asio::async_write(c->socket, asio::buffer(*bytes), [this, c, bytes](const std::error_code& ec, size_t) {
      c->writing = false;
      if (!ec) pump(c);
    });
  }

  Ranges ranges_;
  asio::io_context ctx_;
  asio::executor_work_guard<asio::io_context::executor_type> work_{ctx_.get_executor()};
  asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::map<int, std::shared_ptr<Conn>> conns_;  // server thread only
  std::thread thread_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  Script script_;
  bool script_api_versions_ = false;
  std::vector<ReceivedRequest> requests_;
  std::vector<Clock::time_point> accepts_;
  int peer_closes_ = 0;
  uint64_t changes_ = 0;  // bumped with every notify, under mu_
};

}  // namespace spool::client::testing
