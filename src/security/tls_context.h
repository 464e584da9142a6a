// TlsContext: an OpenSSL 3 SSL_CTX built from a TlsConfig, for the server
// side of a TLS listener or the client side of a connection to a broker.
//
// Server: presents the keystore's certificate chain; with ssl.client.auth
// requested or required it asks for a client certificate and checks it
// against the truststore (required: a client without one fails the
// handshake). Client: checks the server's chain against the truststore (the
// system's CAs when none is set) and, with verify_hostname, the name it
// dialled (TlsContext::new_client_session). Both: only the enabled protocols
// and cipher suites, no renegotiation, no compression, and kernel TLS
// (SSL_OP_ENABLE_KTLS) offered where the kernel takes it.
//
// Built once (files are read then), immutable afterwards and shared by every
// connection; thread-safe. Failures name the key and file and carry
// OpenSSL's reason, never a password.
#pragma once

#include <memory>
#include <string>

#include <openssl/ssl.h>

#include "security/tls_config.h"
#include "util/status.h"

namespace spool::security {

class TlsContext {
 public:
  enum class Side { kServer, kClient };

  static Result<std::shared_ptr<const TlsContext>> create(const TlsConfig& config, Side side);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // A new per-connection SSL in accept (server) state; nullptr when OpenSSL
  // is out of memory.
  SSL* new_server_session() const;
  // A new SSL in connect state for `host` (SNI, and the name checked when
  // verify_hostname); nullptr on failure.
  SSL* new_client_session(const std::string& host) const;

  const TlsConfig& config() const { return config_; }
  Side side() const { return side_; }

 private:
  TlsContext(TlsConfig config, Side side, SSL_CTX* ctx) : config_(std::move(config)), side_(side), ctx_(ctx) {}

  TlsConfig config_;
  Side side_;
  SSL_CTX* ctx_;
};

// ok, or the first TLS listener's error (its settings, or a store that
// cannot be read): what `spool broker` checks before it starts anything (a
// config error, exit 2). Reads the stores.
Status check_tls_listeners(const config::BrokerConfig& cfg);

// The peer certificate's subject as Java's X500Principal.getName() prints it
// (RFC 2253: most specific RDN first, "," between RDNs, "+" within one,
// keywords CN, C, L, ST, O, OU, STREET, DC and UID, other attributes as
// dotted OID=#hex), which is what ssl.principal.mapping.rules match. "" when
// the peer sent no certificate.
std::string peer_distinguished_name(const SSL* ssl);

// OpenSSL's queued errors as one line (and the queue cleared); `fallback`
// when the queue is empty.
std::string openssl_errors(std::string_view fallback = "unknown TLS error");

}  // namespace spool::security
