#include "client/node_connection.h"

#include <asio/connect.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <utility>

#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/error_code.h"
#include "protocol/sasl_authenticate_request.h"
#include "protocol/sasl_handshake_request.h"

namespace spool::client {

namespace {

constexpr int16_t kApiVersionsKey = protocol::ApiVersionsRequest::kApiKey;

int16_t code(protocol::ErrorCode c) { return protocol::to_int(c); }

int64_t ms_between(NodeConnection::Clock::time_point a, NodeConnection::Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

}  // namespace

NodeConnection::NodeConnection(asio::io_context& ctx, const NetworkClientOptions& options, Node node,
                               uint64_t seed)
    : ctx_(ctx),
      options_(options),
      node_(std::move(node)),
      resolver_(ctx),
      socket_(ctx),
      connect_timer_(ctx),
      deadline_timer_(ctx),
      backoff_(options.reconnect_backoff_ms, options.reconnect_backoff_max_ms, options.reconnect_backoff_jitter,
               seed) {}

std::string NodeConnection::describe() const {
  return "node " + std::to_string(node_.id) + " (" + node_.host + ":" + std::to_string(node_.port) + ")";
}

Status NodeConnection::network_error(const std::string& what) const {
  return Status::error(what, code(protocol::ErrorCode::kNetworkException));
}

void NodeConnection::complete(Call& call, Result<RawResponse> result) {
  if (!call.callback) return;  // the internal handshake
  RawCallback cb = std::move(call.callback);
  call.callback = nullptr;
  try {
    cb(std::move(result));
  } catch (const std::exception& e) {
    spdlog::error("client: callback of {} to {} threw: {}", api_label(call.request.api_key), describe(), e.what());
  } catch (...) {
    spdlog::error("client: callback of {} to {} threw", api_label(call.request.api_key), describe());
  }
}

// ----------------------------------------------------------------- submit

void NodeConnection::submit(RawRequest request, RawCallback callback) {
  Call call;
  const int32_t timeout = request.timeout_ms >= 0 ? request.timeout_ms : options_.request_timeout_ms;
  call.deadline = Clock::now() + std::chrono::milliseconds(timeout);
  call.request = std::move(request);
  call.callback = std::move(callback);
  if (state_ == State::kReady && inflight_.empty() && Clock::now() >= session_end_) {
    close(Status::error("the SASL session with " + describe() + " is ending; logging in again"), false);
  }
  if (state_ == State::kReady) {
    dispatch(std::move(call));
  } else {
    pending_.push_back(std::move(call));
    if (state_ == State::kIdle) start_connect();
  }
  arm_deadline();
}

void NodeConnection::dispatch(Call call) {
  auto v = versions_.negotiate(call.request.api_key, call.request.min_version, call.request.max_version);
  if (!v) {
    complete(call, Status::error(v.status().message() + " at " + describe(), v.status().kafka_code()));
    return;
  }
  write_call(std::move(call), *v);
}

void NodeConnection::write_call(Call call, int16_t version) {
  call.version = version;
  call.correlation_id = next_correlation_id_++;
  if (next_correlation_id_ == INT32_MAX) next_correlation_id_ = 1;
  ByteWriter w;
  append_request_frame(w, call.request.api_key, version, call.correlation_id, options_.client_id,
                       [&](ByteWriter& out) {
                         if (call.request.encode) call.request.encode(out, version);
                       });
  call.request.encode = nullptr;  // releases the request it captured
  outq_.push_back(w.take());
  if (call.request.expect_response) {
    inflight_.push_back(std::move(call));
  } else {
    RawResponse none;
    none.api_key = call.request.api_key;
    none.version = version;
    complete(call, std::move(none));
  }
  flush();
}

void NodeConnection::flush() {
  if (writing_ || outq_.empty()) return;
  if (tls_) {
    tls_flush();
    return;
  }
  writing_ = true;
  auto batch = std::make_shared<std::vector<Bytes>>(std::move(outq_));
  outq_.clear();
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(batch->size());
  for (const Bytes& b : *batch) buffers.emplace_back(b.data(), b.size());
  asio::async_write(socket_, buffers,
                    [self = shared_from_this(), gen = gen_, batch](const std::error_code& ec, size_t) {
                      if (gen != self->gen_) return;
                      self->writing_ = false;
                      if (ec) {
                        self->close(self->network_error("connection to " + self->describe() +
                                                        " lost: write failed: " + ec.message()),
                                    true);
                        return;
                      }
                      self->flush();
                    });
}

// ---------------------------------------------------------------- connect

void NodeConnection::start_connect() {
  const auto now = Clock::now();
  if (now >= next_attempt_) {
    begin_connect();
    return;
  }
  state_ = State::kWaiting;
  spdlog::debug("client: reconnecting to {} in {} ms (backoff)", describe(), ms_between(now, next_attempt_));
  connect_timer_.expires_at(next_attempt_);
  connect_timer_.async_wait([self = shared_from_this(), gen = gen_](const std::error_code& ec) {
    if (ec || gen != self->gen_ || self->state_ != State::kWaiting) return;
    self->begin_connect();
  });
}

void NodeConnection::begin_connect() {
  state_ = State::kConnecting;
  const uint64_t gen = gen_;
  connect_timer_.expires_after(std::chrono::milliseconds(options_.connect_timeout_ms));
  connect_timer_.async_wait([self = shared_from_this(), gen](const std::error_code& ec) {
    if (ec || gen != self->gen_ || self->state_ != State::kConnecting) return;
    self->close(self->network_error("cannot connect to " + self->describe() + ": timed out after " +
                                    std::to_string(self->options_.connect_timeout_ms) + " ms"),
                true);
  });
  resolver_.async_resolve(
      node_.host, std::to_string(node_.port),
      [self = shared_from_this(), gen](const std::error_code& ec, asio::ip::tcp::resolver::results_type results) {
        if (gen != self->gen_) return;
        if (ec) {
          self->close(self->network_error("cannot resolve " + self->describe() + ": " + ec.message()), true);
          return;
        }
        asio::async_connect(self->socket_, results,
                            [self, gen](const std::error_code& cec, const asio::ip::tcp::endpoint&) {
                              if (gen != self->gen_) return;
                              if (cec) {
                                self->close(self->network_error("cannot connect to " + self->describe() + ": " +
                                                                cec.message()),
                                            true);
                                return;
                              }
                              self->on_connected();
                            });
      });
}

void NodeConnection::on_connected() {
  std::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  if (options_.security && options_.security->tls) {
    start_tls();
    return;
  }
  after_connect();
}

void NodeConnection::after_connect() {
  connect_timer_.cancel();
  state_ = State::kHandshake;
  read_size();
  send_handshake(protocol::ApiVersionsRequest::kMaxVersion);
}

void NodeConnection::send_internal(Internal kind, int16_t version, std::function<void(ByteWriter&, int16_t)> encode) {
  Call call;
  call.deadline = Clock::now() + std::chrono::milliseconds(options_.request_timeout_ms);
  call.internal = kind;
  call.request.api_key = kind == Internal::kApiVersions     ? kApiVersionsKey
                         : kind == Internal::kSaslHandshake ? protocol::SaslHandshakeRequest::kApiKey
                                                            : protocol::SaslAuthenticateRequest::kApiKey;
  call.request.encode = std::move(encode);
  write_call(std::move(call), version);
  arm_deadline();
}

void NodeConnection::send_handshake(int16_t version) {
  auto req = std::make_shared<protocol::ApiVersionsRequest>();
  req->client_software_name = options_.software_name;
  req->client_software_version = options_.software_version;
  send_internal(Internal::kApiVersions, version, [req](ByteWriter& w, int16_t v) { req->encode(w, v); });
}

void NodeConnection::on_handshake(const RawResponse& resp) {
  const ByteSpan body = resp.body();
  ByteReader peek(body);
  const int16_t error = peek.i16();
  if (peek.ok() && error == code(protocol::ErrorCode::kUnsupportedVersion) && resp.version > 0) {
    // The broker answers with a v0 body listing its own range of
    // ApiVersions: retry once at the highest version both support.
    ByteReader r(body);
    protocol::ApiVersionsResponse v0;
    int16_t retry = 0;
    if (v0.decode(r, 0)) {
      auto v = ApiVersionTable(v0).negotiate(kApiVersionsKey, 0, static_cast<int16_t>(resp.version - 1));
      if (v) retry = *v;
    }
    spdlog::debug("client: {} does not support ApiVersions v{}, retrying at v{}", describe(), resp.version, retry);
    send_handshake(retry);
    return;
  }
  ByteReader r(body);
  protocol::ApiVersionsResponse decoded;
  if (!decoded.decode(r, resp.version)) {
    close(network_error("handshake with " + describe() + " failed: malformed ApiVersions v" +
                        std::to_string(resp.version) + " response"),
          true);
    return;
  }
  if (decoded.error_code != protocol::ErrorCode::kNone) {
    close(network_error("handshake with " + describe() + " failed: ApiVersions error code " +
                        std::to_string(protocol::to_int(decoded.error_code))),
          true);
    return;
  }
  versions_ = ApiVersionTable(decoded);
  if (options_.security && options_.security->sasl()) {
    start_sasl();
    return;
  }
  become_ready();
}

void NodeConnection::become_ready() {
  state_ = State::kReady;
  backoff_.on_success();
  spdlog::debug("client: connected to {} ({} APIs{})", describe(), versions_.ranges().size(),
                options_.security && options_.security->sasl() ? ", SASL " + options_.security->sasl_mechanism : "");
  std::deque<Call> waiting = std::move(pending_);
  pending_.clear();
  const uint64_t gen = gen_;
  for (Call& call : waiting) {
    if (gen != gen_) {
      // A write failed synchronously and closed the connection: the rest
      // fail with the same cause on the next connect's account.
      complete(call, network_error("connection to " + describe() + " closed before the request was sent"));
      continue;
    }
    dispatch(std::move(call));
  }
}

// ------------------------------------------------------------------- read

void NodeConnection::read_size() {
  ReadDone done = [self = shared_from_this(), gen = gen_](const std::error_code& ec, size_t) {
                     if (gen != self->gen_) return;
                     if (ec) {
                       const std::string why = ec == asio::error::eof ? "closed by the peer" : ec.message();
                       self->close(self->network_error("connection to " + self->describe() + " lost: " + why), true);
                       return;
                     }
                     ByteReader r(self->size_buf_, sizeof self->size_buf_);
                     const int32_t size = r.i32();
                     Status s = check_response_size(size, self->options_.max_response_bytes);
                     if (!s) {
                       self->close(self->network_error("closing the connection to " + self->describe() + ": " +
                                                       s.message()),
                                   true);
                       return;
                     }
                     self->read_frame(size);
                   };
  if (tls_) {
    tls_read_exact(size_buf_, sizeof size_buf_, 0, std::move(done));
  } else {
    asio::async_read(socket_, asio::buffer(size_buf_, sizeof size_buf_), std::move(done));
  }
}

void NodeConnection::read_frame(int32_t size) {
  auto frame = std::make_shared<FrameBytes>(static_cast<size_t>(size));
  ReadDone done = [self = shared_from_this(), gen = gen_, frame](const std::error_code& ec, size_t) {
                     if (gen != self->gen_) return;
                     if (ec) {
                       self->close(self->network_error("connection to " + self->describe() +
                                                       " lost while reading a response: " + ec.message()),
                                   true);
                       return;
                     }
                     self->on_frame(frame);
                   };
  if (tls_) {
    tls_read_exact(frame->data(), frame->size(), 0, std::move(done));
  } else {
    asio::async_read(socket_, asio::buffer(frame->data(), frame->size()), std::move(done));
  }
}

void NodeConnection::on_frame(std::shared_ptr<FrameBytes> frame) {
  if (inflight_.empty()) {
    close(network_error("closing the connection to " + describe() + ": a response arrived with no request in flight"),
          true);
    return;
  }
  Call& front = inflight_.front();
  auto body_at = parse_response_header(ByteSpan(frame->data(), frame->size()), front.request.api_key, front.version,
                                       front.correlation_id);
  if (!body_at) {
    close(network_error("closing the connection to " + describe() + ": " + body_at.status().message()), true);
    return;
  }
  Call call = std::move(front);
  inflight_.pop_front();
  RawResponse resp;
  resp.api_key = call.request.api_key;
  resp.version = call.version;
  resp.frame = std::move(frame);
  resp.body_offset = *body_at;
  const uint64_t gen = gen_;
  if (call.internal == Internal::kApiVersions) {
    on_handshake(resp);
  } else if (call.internal == Internal::kSaslHandshake) {
    on_sasl_handshake(resp);
  } else if (call.internal == Internal::kSaslAuthenticate) {
    on_sasl_authenticate(resp);
  } else {
    complete(call, std::move(resp));
  }
  if (gen == gen_) {
    read_size();
    arm_deadline();
  }
}

// -------------------------------------------------------------- deadlines

void NodeConnection::arm_deadline() {
  Clock::time_point earliest = Clock::time_point::max();
  for (const Call& c : pending_) earliest = std::min(earliest, c.deadline);
  for (const Call& c : inflight_) earliest = std::min(earliest, c.deadline);
  if (earliest == armed_deadline_) return;
  armed_deadline_ = earliest;
  if (earliest == Clock::time_point::max()) {
    deadline_timer_.cancel();
    return;
  }
  deadline_timer_.expires_at(earliest);
  deadline_timer_.async_wait([self = shared_from_this()](const std::error_code& ec) {
    if (ec) return;  // re-armed or cancelled
    self->on_deadline();
  });
}

void NodeConnection::on_deadline() {
  armed_deadline_ = Clock::time_point::max();
  const auto now = Clock::now();
  auto timed_out = [&](const Call& c) {
    const int32_t t = c.request.timeout_ms >= 0 ? c.request.timeout_ms : options_.request_timeout_ms;
    return Status::error(api_label(c.request.api_key) + " request to " + describe() + " timed out after " +
                             std::to_string(t) + " ms",
                         code(protocol::ErrorCode::kRequestTimedOut));
  };
  // Not written yet (waiting for a connection): only these fail.
  std::deque<Call> keep;
  std::vector<Call> expired;
  for (Call& c : pending_) {
    if (c.deadline <= now) expired.push_back(std::move(c));
    else keep.push_back(std::move(c));
  }
  pending_ = std::move(keep);
  // In flight: the broker is not answering; close the connection as Kafka does.
  std::string in_flight_cause;
  for (Call& c : inflight_) {
    if (c.deadline > now) continue;
    if (c.internal != Internal::kNone) {
      const char* what = c.internal == Internal::kApiVersions     ? "ApiVersions"
                         : c.internal == Internal::kSaslHandshake ? "SaslHandshake"
                                                                  : "SaslAuthenticate";
      in_flight_cause = std::string(what) + " handshake with " + describe() + " timed out";
    } else {
      in_flight_cause = timed_out(c).message();
      complete(c, timed_out(c));
    }
  }
  for (Call& c : expired) complete(c, timed_out(c));
  if (!in_flight_cause.empty()) {
    close(network_error("closing the connection to " + describe() + ": " + in_flight_cause), true);
    return;
  }
  if (pending_.empty() && inflight_.empty() && state_ != State::kReady && state_ != State::kIdle) {
    // Nobody waits for the connection any more; let the attempt finish (a
    // later send uses it) unless it is only a backoff wait.
    if (state_ == State::kWaiting) {
      connect_timer_.cancel();
      state_ = State::kIdle;
    }
  }
  arm_deadline();
}

// ------------------------------------------------------------------ close

void NodeConnection::close(const Status& why, bool backoff) {
  ++gen_;
  const bool was_open = state_ != State::kIdle && state_ != State::kWaiting;
  std::error_code ec;
  resolver_.cancel();
  socket_.close(ec);
  connect_timer_.cancel();
  writing_ = false;
  outq_.clear();
  sasl_.reset();
  tls_.reset();
  tls_out_.clear();
  tls_out_off_ = 0;
  session_end_ = Clock::time_point::max();
  state_ = State::kIdle;
  if (backoff) {
    const int64_t wait = backoff_.on_failure();
    next_attempt_ = Clock::now() + std::chrono::milliseconds(wait);
  } else {
    backoff_.on_success();
    next_attempt_ = Clock::time_point{};
  }
  const bool callers_fail = !pending_.empty() || !inflight_.empty();
  if (backoff || callers_fail) {
    spdlog::info("client: {}", why.message());
  } else if (was_open) {
    spdlog::debug("client: {}", why.message());
  }
  std::deque<Call> inflight = std::move(inflight_);
  std::deque<Call> pending = std::move(pending_);
  inflight_.clear();
  pending_.clear();
  armed_deadline_ = Clock::time_point::max();
  deadline_timer_.cancel();
  for (Call& c : inflight) complete(c, why);
  for (Call& c : pending) complete(c, why);
}

}  // namespace spool::client
