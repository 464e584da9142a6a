// NetworkClient: the broker's asynchronous client for talking to other
// brokers (replica fetching; the controller's LeaderAndIsr / UpdateMetadata
// / StopReplica; AlterPartition and ControlledShutdown to the controller;
// transaction markers).
//
// Connections: one per destination (host, port), opened on the first send
// to it, with a connect timeout (socket.connection.setup.timeout.ms), then
// an ApiVersions handshake; requests sent before the handshake completes
// wait for it. Requests are pipelined on the connection, each with its own
// correlation id; responses arrive in request order and are matched with
// the oldest request in flight: a mismatched correlation id, a malformed
// header or a response size below 4 or above max_response_bytes (checked
// before anything is allocated) closes the connection. Version negotiation:
// each request names the version range the caller can encode; the highest
// one the broker's ApiVersions answer also supports is used, and a request
// with none fails with UNSUPPORTED_VERSION (the connection stays up).
//
// Timeouts: every request has a deadline (request.timeout.ms, or its own
// timeout_ms), counted from send(), so it includes waiting for a
// connection. A request that times out before it was written fails alone;
// one that times out in flight also closes the connection, as Kafka does
// (the broker is not answering), failing everything else in flight on it.
//
// TLS (NetworkClientOptions::security with a TLS context, SSL and
// SASL_SSL): the handshake follows the TCP connect, within the connect
// timeout, checking the broker's certificate (and its host name when the
// context says so); a failed one fails the queued requests and backs off.
// SASL (SASL_PLAINTEXT and SASL_SSL): after ApiVersions the connection authenticates (SaslHandshake v1, then
// SaslAuthenticate with PLAIN or SCRAM, checking a SCRAM server's
// signature) before any request is written; a refusal fails the queued
// requests with NETWORK_EXCEPTION naming the broker's message, and backs
// off like a failed connect. When the broker gives the session a lifetime
// (KIP-368), a send after nine tenths of it, with nothing in flight, opens a
// new connection and logs in again.
//
// Failures and reconnects: a refused or timed-out connect, a failed
// handshake or a lost connection fails every request queued or in flight on
// that connection (no retries: the caller decides) and starts a backoff
// (client/reconnect_backoff.h: reconnect.backoff.ms doubling per
// consecutive failure up to reconnect.backoff.max.ms, with jitter). Nothing
// reconnects on its own: the next send to the node connects once the
// backoff has passed (it waits for it, within its own deadline).
//
// Status codes of failed requests (Status::kafka_code): REQUEST_TIMED_OUT
// for a timeout, NETWORK_EXCEPTION for connect failures, lost or closed
// connections, protocol violations and shutdown, UNSUPPORTED_VERSION when
// no version fits. The message names the API, the node and the cause.
//
// Threading: one I/O thread owned by the client runs every socket
// operation and every callback. send(), disconnect() and shutdown() may be
// called from any thread, including from a callback (except shutdown(),
// which then cannot join: see there). Callbacks run on the I/O thread and
// must not block (no waiting on other requests, no disk syncs): they hold
// up every connection. A callback that throws is logged and ignored. Each
// callback is called exactly once, except after shutdown() has returned a
// send is refused by calling its callback at once on the caller's thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "client/client_security.h"
#include "client/request_sender.h"
#include "client/wire_frame.h"
#include "protocol/error_code.h"
#include "util/bytes.h"
#include "util/frame_bytes.h"
#include "util/status.h"

namespace spool::client {

struct NetworkClientOptions {
  std::string client_id = "spool-broker";
  // ApiVersions v3+ client software name/version (KIP-511 charset).
  std::string software_name = "spool-broker";
  std::string software_version = "0.1";
  int32_t request_timeout_ms = 30000;      // request.timeout.ms
  int32_t connect_timeout_ms = 10000;      // socket.connection.setup.timeout.ms
  int64_t reconnect_backoff_ms = 50;       // reconnect.backoff.ms
  int64_t reconnect_backoff_max_ms = 1000; // reconnect.backoff.max.ms
  double reconnect_backoff_jitter = 0.2;   // Kafka's; 0 makes waits exact (tests)
  uint64_t seed = 0;                       // jitter seed; 0 = random (logged)
  int32_t max_response_bytes = 256 * 1024 * 1024;
  // How to reach the destinations: TLS and/or SASL (null: PLAINTEXT).
  std::shared_ptr<const ClientSecurity> security;
};

class NodeConnection;

class NetworkClient final : public RequestSender {
 public:
  // Starts the I/O thread.
  explicit NetworkClient(NetworkClientOptions options = {});
  // shutdown().
  ~NetworkClient();
  NetworkClient(const NetworkClient&) = delete;
  NetworkClient& operator=(const NetworkClient&) = delete;

  void send(const Node& node, RawRequest request, RawCallback callback) override;
  // Exactly `version`, with a body already encoded at it.
  void send(const Node& node, int16_t api_key, int16_t version, Bytes body, RawCallback callback,
            int32_t timeout_ms = -1);
  // Typed: client.send<protocol::FetchRequest, protocol::FetchResponse>(node, req, cb).
  // A response that does not decode at its version fails with
  // NETWORK_EXCEPTION ("malformed ... response"); the connection stays.
  template <class Req, class Resp>
  void send(const Node& node, Req request, std::function<void(Result<Reply<Resp>>)> callback,
            SendOptions options = {});

  // Closes the connection to the node, failing what is queued or in flight
  // on it (NETWORK_EXCEPTION); the next send reconnects without a backoff.
  void disconnect(const Node& node) override;
  // Fails all pending work (NETWORK_EXCEPTION, "shut down"), closes every
  // connection and joins the I/O thread. Idempotent. Called on the I/O
  // thread (from a callback) it cannot join: the destructor does.
  void shutdown();

  const NetworkClientOptions& options() const { return options_; }

 private:
  NodeConnection& connection_for(const Node& node);
  void post(std::function<void()> fn, const std::function<void()>& refused);

  struct Io;
  NetworkClientOptions options_;
  std::unique_ptr<Io> io_;  // io_context, work guard; connections
  std::mutex mu_;           // guards closed_ against the post of shutdown
  bool closed_ = false;
  std::thread thread_;
};

template <class Req, class Resp>
void NetworkClient::send(const Node& node, Req request, std::function<void(Result<Reply<Resp>>)> callback,
                         SendOptions options) {
  send_request<Req, Resp>(*this, node, std::move(request), std::move(callback), options);
}

}  // namespace spool::client
