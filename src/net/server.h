// Server: the TCP listeners and their shared reactor threads (docs/ARCHITECTURE.md sections 3 and 4).
//
// Protocol-agnostic: it reads size-prefixed frames, hands each to the
// RequestHandler and writes the answers back, size-prefixed, in request order.
// One asio::io_context per reactor thread; a connection is pinned to one
// reactor (round-robin) for its whole life. Limits: frame size, connection
// count, idle time, in-flight requests per connection (back-pressure: reading
// stops while that many answers are outstanding).
//
// Threading: start/stop/port/connection_count may be called from any thread
// except a reactor thread (stop joins them). Failure: a bad frame, a socket
// error or an idle timeout closes only that connection, with a log line
// rate-limited per client address (ServerOptions::reject_log); start() reports bind
// failures as a Status. stop() is idempotent and also run by the destructor.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/backpressure.h"
#include "net/connection_quotas.h"
#include "net/request_handler.h"
#include "net/responder.h"
#include "security/tls_context.h"
#include "util/clock.h"
#include "util/log_rate_limiter.h"
#include "util/status.h"

namespace spool::net {

// One address the server accepts connections on (a broker listener). Every
// connection carries the index of the address it came in on
// (ConnectionInfo::listener), so the handler can tell listeners apart.
struct ListenAddress {
  std::string name = "PLAINTEXT";  // the listener's name, for log lines
  std::string host = "127.0.0.1";  // "" or "0.0.0.0" = all IPv4 interfaces; names are resolved
  uint16_t port = 9092;            // 0 = ephemeral (see Server::port())
  // > 0 on a listener whose clients must authenticate first: frames above
  // it close the connection until an answer sent with
  // Responder::send_authenticated lifts the bound to max_request_bytes
  // (sasl.server.max.receive.size), so an unauthenticated client cannot make
  // the broker allocate much.
  int32_t max_unauthenticated_request_bytes = 0;
  // Set on an SSL or SASL_SSL listener: connections handshake TLS first.
  std::shared_ptr<const security::TlsContext> tls = nullptr;
};

struct ServerOptions {
  // At least one. All share the reactor threads and the limits below
  // (max.connections counts every listener's connections).
  std::vector<ListenAddress> listeners{ListenAddress{}};
  int threads = 0;                 // 0 = std::thread::hardware_concurrency()
  // socket.request.max.bytes: a frame size above it (or <= 0) closes the
  // connection with a log line, before anything is allocated.
  int32_t max_request_bytes = 104857600;
  // max.connections, max.connections.per.ip and its overrides: a connection
  // beyond them is closed right after accept (net/connection_quotas.h).
  ConnectionLimits connection_limits;
  // connections.max.idle.ms: close connections without traffic and without
  // outstanding requests for this long (<= 0 disables).
  int64_t idle_timeout_ms = 600000;
  // Time source of the idle decision (its monotonic scale): the timer wakes
  // on real time, the clock says whether the connection was idle long enough.
  // null: system_clock().
  std::shared_ptr<Clock> clock;
  // Back-pressure: stop reading a connection while this many of its requests
  // await their response (values < 1 act as 1).
  int max_inflight_per_connection = 32;
  // queued.max.request.bytes across all connections: a connection whose
  // next frame finds the pool exhausted stops reading until requests are
  // answered. Null = unbounded (Kafka's default -1).
  std::shared_ptr<RequestMemoryPool> request_pool;
  // Zero-copy Fetch: file regions of answers go out with sendfile(2). Off:
  // they are read into memory and written (same bytes; for tests, and for
  // transports that must see the bytes). The environment variable
  // SPOOL_SENDFILE=0 turns it off for a whole process (Server::start).
  bool sendfile = true;
  // Accept connections as soon as start() returns. Off (a cluster member,
  // Kafka's startup(startProcessingRequests = false)): start() binds and
  // listens, so the port is known and connections wait in the kernel's
  // backlog, and nothing is read or answered until start_accepting().
  bool accept_on_start = true;
  // Lines about rejected input (bad frames, requests refused by closing,
  // connections over max.connections): at most `burst` per client address
  // per interval, then one count of the rest (net/reject_log.h). Its clock
  // defaults to `clock` above.
  LogRateLimiterOptions reject_log;
};

class Server {
 public:
  Server(ServerOptions options, RequestHandler& handler);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // bind + listen (SO_REUSEADDR) on every listener and start the reactor
  // threads. Fails on no listener, a bad host, a bind/listen error (naming
  // the listener), or if called twice; then nothing is left listening.
  Status start();
  // Begins accepting when ServerOptions::accept_on_start was off (Kafka's
  // enableRequestProcessing); a no-op when already accepting or not started.
  void start_accepting();
  // Actual bound port of listener `listener` (useful with port 0); 0 before
  // start() or for an index past the listeners.
  uint16_t port(size_t listener = 0) const;
  // Stop accepting, close every connection (on_disconnect is called for
  // each), join the reactor threads. Pending answers are dropped.
  void stop();
  // Open connections right now (approximate while connections come and go).
  size_t connection_count() const;
  size_t connection_count(size_t listener) const;  // on ServerOptions::listeners[listener]
  // Changes ServerOptions::connection_limits while running (dynamic
  // max.connections and per-IP limits): new connections beyond them are
  // closed at accept; open ones stay. Any thread (resolves override hosts).
  void set_connection_limits(const ConnectionLimits& limits);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace spool::net
