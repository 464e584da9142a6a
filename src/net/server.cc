#include "net/server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <asio/ip/tcp.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

#include "net/connection.h"
#include "net/reactor.h"
#include "net/reject_log.h"

namespace spool::net {

using asio::ip::tcp;

namespace {
// SPOOL_SENDFILE=0 forces the copy path everywhere (A/B checks, and a way
// out should some file system not support sendfile well).
ServerOptions apply_environment(ServerOptions o) {
  if (const char* v = std::getenv("SPOOL_SENDFILE"); v && std::string_view(v) == "0") o.sendfile = false;
  return o;
}

LogRateLimiterOptions reject_log_options(const ServerOptions& o) {
  LogRateLimiterOptions r = o.reject_log;
  if (!r.clock) r.clock = o.clock;
  return r;
}
}  // namespace

class Server::Impl {
 public:
  Impl(ServerOptions options, RequestHandler& handler)
      : options_(apply_environment(std::move(options))), handler_(handler), reject_log_(reject_log_options(options_)) {
    spdlog::debug("net: zero-copy (sendfile) answers {}", options_.sendfile ? "on" : "off");
  }
  ~Impl() { stop(); }

  Status start();
  void start_accepting();
  void stop();
  uint16_t port(size_t listener) const {
    return listener < ports_.size() ? ports_[listener].load(std::memory_order_acquire) : 0;
  }
  size_t connection_count() const { return quotas_.open(); }
  size_t connection_count(size_t listener) const { return quotas_.open_on(static_cast<uint32_t>(listener)); }
  void set_connection_limits(const ConnectionLimits& limits) { quotas_.set_limits(limits); }

 private:
  // One listener's acceptor and its retry timer, on reactors_[0].
  struct Acceptor {
    Acceptor(asio::io_context& ctx, uint32_t index) : acceptor(ctx), retry(ctx), index(index) {}
    tcp::acceptor acceptor;
    asio::steady_timer retry;
    uint32_t index;  // into options_.listeners
  };

  Result<tcp::endpoint> resolve_listen_endpoint(const ListenAddress& where);
  Status open_acceptor(uint32_t index);
  void do_accept(Acceptor& a);
  void on_accept(Acceptor& a, const std::error_code& ec, tcp::socket socket, Reactor& target);
  // Logs, every reject_log interval, the counts of rejection lines
  // suppressed in windows that ended (reactors_[0]).
  void arm_reject_log_timer();
  void teardown();

  const ServerOptions options_;
  RequestHandler& handler_;
  LogRateLimiter reject_log_;
  std::mutex lifecycle_mu_;
  bool running_ = false;
  bool accepting_ = false;  // under lifecycle_mu_

  std::vector<std::unique_ptr<Reactor>> reactors_;
  std::vector<std::unique_ptr<Acceptor>> acceptors_;  // one per listener, in options_.listeners order
  std::optional<asio::steady_timer> reject_log_timer_;
  size_t next_reactor_ = 0;  // accept handler only

  std::atomic<uint64_t> next_id_{1};

  std::vector<std::atomic<uint16_t>> ports_ = std::vector<std::atomic<uint16_t>>(options_.listeners.size());
  ConnectionQuotas quotas_{options_.connection_limits};  // dynamic
  const std::shared_ptr<Clock> clock_ = clock_or_system(options_.clock);  // connection creation rates
};

Result<tcp::endpoint> Server::Impl::resolve_listen_endpoint(const ListenAddress& where) {
  std::error_code ec;
  if (where.host.empty()) return tcp::endpoint(asio::ip::address_v4::any(), where.port);
  auto addr = asio::ip::make_address(where.host, ec);
  if (!ec) return tcp::endpoint(addr, where.port);
  tcp::resolver resolver(reactors_[0]->ctx);
  auto results = resolver.resolve(where.host, std::to_string(where.port),
                                  tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return Status::error("cannot resolve listen host '" + where.host + "' of listener " + where.name + ": " +
                         (ec ? ec.message() : std::string("no address")));
  }
  return results.begin()->endpoint();
}

Status Server::Impl::open_acceptor(uint32_t index) {
  const ListenAddress& where = options_.listeners[index];
  auto endpoint = resolve_listen_endpoint(where);
  if (!endpoint) return endpoint.status();
  auto a = std::make_unique<Acceptor>(reactors_[0]->ctx, index);
  std::error_code ec;
  a->acceptor.open(endpoint->protocol(), ec);
  if (!ec) a->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) a->acceptor.bind(*endpoint, ec);
  if (!ec) a->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::error("cannot listen on " + where.host + ":" + std::to_string(where.port) + " (listener " +
                         where.name + "): " + ec.message());
  }
  ports_[index].store(a->acceptor.local_endpoint(ec).port(), std::memory_order_release);
  spdlog::info("net: listener {} on {}:{}", where.name, endpoint->address().to_string(), port(index));
  acceptors_.push_back(std::move(a));
  return Status::ok();
}

Status Server::Impl::start() {
  std::lock_guard lock(lifecycle_mu_);
  if (running_) return Status::error("server already started");
  if (options_.max_request_bytes <= 0) {
    return Status::error("socket.request.max.bytes must be positive, got " +
                         std::to_string(options_.max_request_bytes));
  }
  int threads = options_.threads > 0 ? options_.threads
                                     : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(threads, 1);
  if (options_.listeners.empty()) return Status::error("no listener to accept connections on");
  for (int i = 0; i < threads; ++i) reactors_.push_back(std::make_unique<Reactor>());

  for (uint32_t i = 0; i < options_.listeners.size(); ++i) {
    if (Status s = open_acceptor(i); !s) {
      teardown();
      return s;
    }
  }
  reject_log_timer_.emplace(reactors_[0]->ctx);
  arm_reject_log_timer();
  if (options_.accept_on_start) {
    accepting_ = true;
    for (auto& a : acceptors_) do_accept(*a);
  }

  try {
    for (auto& r : reactors_) {
      Reactor* reactor = r.get();
      r->thread = std::thread([reactor] {
        // A handler that throws must not kill the reactor and every
        // connection pinned to it; log and keep running.
        for (;;) {
          try {
            reactor->ctx.run();
            return;
          } catch (const std::exception& e) {
            spdlog::error("net: reactor: uncaught exception: {}", e.what());
          } catch (...) {
            spdlog::error("net: reactor: uncaught exception");
          }
        }
      });
    }
  } catch (const std::system_error& e) {
    for (auto& r : reactors_) {
      r->ctx.stop();
      if (r->thread.joinable()) r->thread.join();
    }
    teardown();
    return Status::error(std::string("cannot start reactor threads: ") + e.what());
  }
  running_ = true;
  spdlog::info("net: serving {} listener(s) ({} reactor threads, max request {} bytes, max {} connections, {} per IP)",
               acceptors_.size(), threads, options_.max_request_bytes, options_.connection_limits.max_connections,
               options_.connection_limits.max_per_ip);
  return Status::ok();
}

void Server::Impl::start_accepting() {
  std::lock_guard lock(lifecycle_mu_);
  if (!running_ || accepting_) return;
  accepting_ = true;
  asio::post(reactors_[0]->ctx, [this] {
    for (auto& a : acceptors_) {
      if (a->acceptor.is_open()) do_accept(*a);
    }
  });
  spdlog::info("net: accepting connections on {} listener(s)", acceptors_.size());
}

void Server::Impl::arm_reject_log_timer() {
  reject_log_timer_->expires_after(std::chrono::milliseconds(std::max<int64_t>(1, options_.reject_log.interval_ms)));
  reject_log_timer_->async_wait([this](const std::error_code& ec) {
    if (ec || !reject_log_timer_) return;
    for (const auto& s : reject_log_.take_suppressed()) spdlog::warn("net: {}", LogRateLimiter::describe(s));
    arm_reject_log_timer();
  });
}

void Server::Impl::do_accept(Acceptor& a) {
  Reactor& target = *reactors_[next_reactor_];
  next_reactor_ = (next_reactor_ + 1) % reactors_.size();
  // The socket is created on the target reactor, so the connection is pinned
  // there from the first byte.
  a.acceptor.async_accept(target.ctx, [this, &a, &target](const std::error_code& ec, tcp::socket socket) {
    on_accept(a, ec, std::move(socket), target);
  });
}

void Server::Impl::on_accept(Acceptor& a, const std::error_code& ec, tcp::socket socket, Reactor& target) {
  if (!a.acceptor.is_open() || ec == asio::error::operation_aborted) return;
  if (ec) {
    // Typically EMFILE/ENFILE: retrying at once would spin the reactor.
    spdlog::warn("net: accept failed on listener {}: {}; retrying in 100 ms", options_.listeners[a.index].name,
                 ec.message());
    a.retry.expires_after(std::chrono::milliseconds(100));
    a.retry.async_wait([this, &a](const std::error_code& wait_ec) {
      if (!wait_ec && a.acceptor.is_open()) do_accept(a);
    });
    return;
  }
  std::error_code ep_ec;
  auto ep = socket.remote_endpoint(ep_ec);
  const std::string address = ep_ec ? std::string("unknown") : ep.address().to_string();
  if (auto refused = quotas_.admit(address, a.index)) {
    log_rejected(reject_log_, address, spdlog::level::warn, "net: {}; closing new connection from {}:{}", *refused,
                 address, ep.port());
    std::error_code ignored;
    socket.close(ignored);
    do_accept(a);
    return;
  }
  const uint64_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
  auto start = [this, &target, id, listener = a.index, address, socket = std::move(socket)]() mutable {
    auto conn = std::make_shared<Connection>(target, std::move(socket), id, listener, options_, handler_, quotas_,
                                             address, reject_log_);
    conn->start();
  };
  // max.connection.creation.rate: over the rate, this connection and the
  // listener's next accept wait (Kafka's acceptor blocks the same way);
  // meanwhile new connections queue in the kernel's backlog.
  const int64_t wait = quotas_.record_creation(a.index, clock_->monotonic_ms());
  if (wait <= 0) {
    asio::post(target.ctx, std::move(start));
    do_accept(a);
    return;
  }
  log_rejected(reject_log_, address, spdlog::level::info,
               "net: listener {} over its connection creation rate; holding the connection from {} and the next "
               "accept for {} ms (max.connection.creation.rate)",
               options_.listeners[a.index].name, address, wait);
  auto hold = std::make_shared<asio::steady_timer>(target.ctx, std::chrono::milliseconds(wait));
  hold->async_wait([hold, start = std::move(start)](const std::error_code& ec) mutable {
    if (!ec) start();
  });
  a.retry.expires_after(std::chrono::milliseconds(wait));
  a.retry.async_wait([this, &a](const std::error_code& wait_ec) {
    if (!wait_ec && a.acceptor.is_open()) do_accept(a);
  });
}

void Server::Impl::stop() {
  std::lock_guard lock(lifecycle_mu_);
  if (!running_) return;
  for (auto& r : reactors_) {
    if (r->ctx.get_executor().running_in_this_thread()) {
      spdlog::error("net: Server::stop() called from a reactor thread; ignored (it would deadlock)");
      return;
    }
  }
  running_ = false;

  // Phase 1: close the acceptors, so no accept handler posts a new
  // connection after phase 2 has swept a reactor.
  std::promise<void> acceptor_closed;
  asio::post(reactors_[0]->ctx, [this, &acceptor_closed] {
    std::error_code ignored;
    for (auto& a : acceptors_) {
      a->acceptor.close(ignored);
      a->retry.cancel();
    }
    reject_log_timer_.reset();
    acceptor_closed.set_value();
  });
  acceptor_closed.get_future().wait();

  // Phase 2: close every connection on its own thread, then stop the loop
  // without waiting for timers the layers above may have parked there.
  for (auto& r : reactors_) {
    Reactor* reactor = r.get();
    asio::post(reactor->ctx, [reactor] {
      auto conns = reactor->conns;  // close() erases from the map
      for (auto& [id, conn] : conns) conn->close("server stopping", spdlog::level::debug);
      reactor->ctx.stop();
    });
    reactor->work.reset();
  }
  for (auto& r : reactors_) {
    if (r->thread.joinable()) r->thread.join();
  }
  const uint16_t first_port = port(0);
  teardown();
  spdlog::info("net: server on port {} stopped", first_port);
}

void Server::Impl::teardown() {
  // Responders still held elsewhere must not post into a dead io_context.
  for (auto& r : reactors_) r->gate->close();
  reject_log_timer_.reset();
  acceptors_.clear();
  for (auto& p : ports_) p.store(0, std::memory_order_release);
  reactors_.clear();  // destroys pending handlers with their io_context
}

Server::Server(ServerOptions options, RequestHandler& handler)
    : impl_(std::make_unique<Impl>(std::move(options), handler)) {}
Server::~Server() = default;
Status Server::start() { return impl_->start(); }
void Server::start_accepting() { impl_->start_accepting(); }
uint16_t Server::port(size_t listener) const { return impl_->port(listener); }
void Server::stop() { impl_->stop(); }
size_t Server::connection_count() const { return impl_->connection_count(); }

size_t Server::connection_count(size_t listener) const { return impl_->connection_count(listener); }
void Server::set_connection_limits(const ConnectionLimits& limits) { impl_->set_connection_limits(limits); }

}  // namespace spool::net
