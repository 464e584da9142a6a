// BlockingClient: a small synchronous Kafka protocol client over one TCP
// connection, for the `spool` CLI and tests (the broker's own asynchronous
// client is client/network_client.h).
//
// connect() opens the socket (with a timeout) and negotiates versions with
// ApiVersions; call() sends one request and waits for its response,
// checking the correlation id (framing and negotiation: client/wire_frame.h,
// shared with NetworkClient). Every socket operation is bounded by the
// timeout given at connect. Responses are bounded in size before
// allocation. Failures come back as Status, never exceptions. One object per
// thread; movable, not copyable; the destructor closes the socket.
//
// Secured listeners (client/client_security.h): on SSL and SASL_SSL the TLS
// handshake runs right after the TCP connect (the broker's certificate is
// checked, and its name when ssl.endpoint.identification.algorithm=https);
// on SASL_* the SASL exchange (SaslHandshake v1, SaslAuthenticate) follows
// ApiVersions, and a refusal fails connect() with the broker's message.
// connect() uses the security given, else the process default that the
// `spool` CLI sets once from --command-config (set_default_security).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <memory>

#include <openssl/ssl.h>

#include "client/client_security.h"
#include "client/host_port.h"
#include "client/wire_frame.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::client {

class BlockingClient {
 public:
  static constexpr int32_t kMaxResponseBytes = 256 * 1024 * 1024;

  // Connects and runs ApiVersions. `timeout_ms` bounds each later call too.
  static Result<BlockingClient> connect(const std::string& host, uint16_t port, int timeout_ms,
                                        std::string client_id = "spool-cli",
                                        std::shared_ptr<const ClientSecurity> security = nullptr);
  // What connect() uses when given no security (null: PLAINTEXT). Set once,
  // before any connect, from the main thread.
  static void set_default_security(std::shared_ptr<const ClientSecurity> security);

  BlockingClient(BlockingClient&& other) noexcept;
  BlockingClient& operator=(BlockingClient&& other) noexcept;
  BlockingClient(const BlockingClient&) = delete;
  BlockingClient& operator=(const BlockingClient&) = delete;
  ~BlockingClient();

  // Highest version of `api_key` both sides support within [our_min, our_max],
  // or an error naming the API when there is none.
  Result<int16_t> negotiate(int16_t api_key, int16_t our_min, int16_t our_max) const;
  template <class Req>
  Result<int16_t> negotiate() const {
    return negotiate(Req::kApiKey, Req::kMinVersion, Req::kMaxVersion);
  }

  // Sends `req` at `version` and decodes the response as Resp.
  template <class Req, class Resp>
  Result<Resp> call(const Req& req, int16_t version) {
    ByteWriter body;
    req.encode(body, version);
    auto raw = round_trip(Req::kApiKey, version, body.buffer());
    if (!raw) return raw.status();
    ByteReader r(*raw);
    Resp resp;
    if (!resp.decode(r, version)) {
      return Status::error("malformed response to api key " + std::to_string(Req::kApiKey) + " v" +
                           std::to_string(version));
    }
    return resp;
  }
  // Same, at the negotiated version.
  template <class Req, class Resp>
  Result<Resp> call(const Req& req) {
    auto v = negotiate<Req>();
    if (!v) return v.status();
    return call<Req, Resp>(req, *v);
  }

  // Sends a request body and returns the response body (header stripped).
  Result<Bytes> round_trip(int16_t api_key, int16_t version, const Bytes& body);

  // Broker's advertised ranges: api key -> (min, max).
  const std::map<int16_t, std::pair<int16_t, int16_t>>& broker_versions() const { return broker_versions_.ranges(); }

 private:
  BlockingClient(int fd, int timeout_ms, std::string client_id)
      : fd_(fd), timeout_ms_(timeout_ms), client_id_(std::move(client_id)) {}
  Status fetch_api_versions();
  Status tls_handshake(const ClientSecurity& security, const std::string& host);
  Status authenticate(const ClientSecurity& security);
  Status write_all(const uint8_t* p, size_t n);
  Status read_all(uint8_t* p, size_t n);
  // write_all / read_all through ssl_.
  Status tls_io(bool write, uint8_t* p, size_t n);
  void close();

  int fd_ = -1;
  SSL* ssl_ = nullptr;  // set on a TLS connection, freed by close()
  int timeout_ms_ = 0;
  std::string client_id_;
  int32_t next_correlation_id_ = 1;
  ApiVersionTable broker_versions_;
};

}  // namespace spool::client
