#include "client/blocking_client.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>

#include <cerrno>
#include <cstring>

#include "client/wire_frame.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/sasl_authenticate_request.h"
#include "protocol/sasl_authenticate_response.h"
#include "protocol/sasl_handshake_request.h"
#include "protocol/sasl_handshake_response.h"
#include "security/sasl_client.h"

namespace spool::client {
namespace {

std::string errno_text() { return std::strerror(errno); }

// Waits for `events` on fd; false on timeout or error.
Status wait_fd(int fd, short events, int timeout_ms, const char* what) {
  pollfd p{fd, events, 0};
  while (true) {
    int rc = ::poll(&p, 1, timeout_ms);
    if (rc > 0) return Status::ok();
    if (rc == 0) return Status::error(std::string("timed out ") + what + " after " + std::to_string(timeout_ms) + " ms");
    if (errno != EINTR) return Status::error(std::string("poll failed ") + what + ": " + errno_text());
  }
}

Result<int> connect_one(const addrinfo* ai, int timeout_ms) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0) return Status::error("socket: " + errno_text());
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
    Status s = Status::error(errno_text());
    ::close(fd);
    return s;
  }
  Status w = wait_fd(fd, POLLOUT, timeout_ms, "connecting");
  if (!w) {
    ::close(fd);
    return w;
  }
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) {
    ::close(fd);
    return Status::error(std::strerror(err));
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

static std::shared_ptr<const ClientSecurity>& default_security() {
  static std::shared_ptr<const ClientSecurity> security;
  return security;
}

void BlockingClient::set_default_security(std::shared_ptr<const ClientSecurity> security) {
  default_security() = std::move(security);
}

Result<BlockingClient> BlockingClient::connect(const std::string& host, uint16_t port, int timeout_ms,
                                               std::string client_id, std::shared_ptr<const ClientSecurity> security) {
  if (!security) security = default_security();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string port_s = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), port_s.c_str(), &hints, &res);
  if (rc != 0) return Status::error("cannot resolve '" + host + "': " + gai_strerror(rc));
  std::string last = "no address";
  int fd = -1;
  for (addrinfo* ai = res; ai != nullptr && fd < 0; ai = ai->ai_next) {
    auto r = connect_one(ai, timeout_ms);
    if (r) fd = *r;
    else last = r.status().message();
  }
  ::freeaddrinfo(res);
  if (fd < 0) return Status::error("cannot connect to " + host + ":" + port_s + ": " + last);
  BlockingClient c(fd, timeout_ms, std::move(client_id));
  if (security && security->tls) {
    if (Status t = c.tls_handshake(*security, host); !t) {
      return Status::error("TLS with " + host + ":" + port_s + " failed: " + t.message());
    }
  }
  Status s = c.fetch_api_versions();
  if (!s) return Status::error("ApiVersions with " + host + ":" + port_s + " failed: " + s.message());
  if (security && security->sasl()) {
    if (Status a = c.authenticate(*security); !a) {
      return Status::error("SASL " + security->sasl_mechanism + " with " + host + ":" + port_s + " failed: " +
                           a.message());
    }
  }
  return c;
}

Status BlockingClient::tls_handshake(const ClientSecurity& security, const std::string& host) {
  ssl_ = security.tls->new_client_session(host);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) return Status::error(security::openssl_errors());
  while (true) {
    ERR_clear_error();
    const int r = SSL_do_handshake(ssl_);
    if (r == 1) return Status::ok();
    const int e = SSL_get_error(ssl_, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      Status w = wait_fd(fd_, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, timeout_ms_, "in the TLS handshake");
      if (!w) return w;
      continue;
    }
    std::string why = security::openssl_errors("the broker closed the connection");
    if (const long v = SSL_get_verify_result(ssl_); v != X509_V_OK) why += std::string(" (") + X509_verify_cert_error_string(v) + ")";
    return Status::error(why);
  }
}

Status BlockingClient::authenticate(const ClientSecurity& security) {
  auto sasl = security::new_sasl_client(security.sasl_mechanism, security.user, security.password);
  if (!sasl) return Status::error("mechanism not supported");
  protocol::SaslHandshakeRequest hs;
  hs.mechanism = security.sasl_mechanism;
  auto shake = call<protocol::SaslHandshakeRequest, protocol::SaslHandshakeResponse>(hs, 1);
  if (!shake) return shake.status();
  if (shake->error_code != protocol::ErrorCode::kNone) {
    std::string offered;
    for (const auto& m : shake->mechanisms) offered += (offered.empty() ? "" : ", ") + m;
    return Status::error("the broker does not enable it (it offers: " + offered + ")");
  }
  auto version = negotiate<protocol::SaslAuthenticateRequest>();
  if (!version) return version.status();
  Bytes out = sasl->first();
  while (true) {
    protocol::SaslAuthenticateRequest req;
    req.auth_bytes = std::move(out);
    auto resp = call<protocol::SaslAuthenticateRequest, protocol::SaslAuthenticateResponse>(req, *version);
    if (!resp) return resp.status();
    if (resp->error_code != protocol::ErrorCode::kNone) {
      return Status::error(resp->error_message.value_or("authentication failed"),
                           protocol::to_int(resp->error_code));
    }
    auto next = sasl->next(resp->auth_bytes);
    if (!next) return next.status();
    if (sasl->done()) return Status::ok();
    out = std::move(*next);
  }
}

BlockingClient::BlockingClient(BlockingClient&& o) noexcept
    : fd_(o.fd_),
      ssl_(o.ssl_),
      timeout_ms_(o.timeout_ms_),
      client_id_(std::move(o.client_id_)),
      next_correlation_id_(o.next_correlation_id_),
      broker_versions_(std::move(o.broker_versions_)) {
  o.fd_ = -1;
  o.ssl_ = nullptr;
}

BlockingClient& BlockingClient::operator=(BlockingClient&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    o.fd_ = -1;
    ssl_ = o.ssl_;
    o.ssl_ = nullptr;
    timeout_ms_ = o.timeout_ms_;
    client_id_ = std::move(o.client_id_);
    next_correlation_id_ = o.next_correlation_id_;
    broker_versions_ = std::move(o.broker_versions_);
  }
  return *this;
}

BlockingClient::~BlockingClient() { close(); }

void BlockingClient::close() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  ssl_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status BlockingClient::tls_io(bool write, uint8_t* p, size_t n) {
  while (n > 0) {
    ERR_clear_error();
    size_t done = 0;
    const int r = write ? SSL_write_ex(ssl_, p, n, &done) : SSL_read_ex(ssl_, p, n, &done);
    if (r == 1) {
      p += done;
      n -= done;
      continue;
    }
    const int e = SSL_get_error(ssl_, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      Status w = wait_fd(fd_, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, timeout_ms_,
                         write ? "sending" : "waiting for the response");
      if (!w) return w;
      continue;
    }
    if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)) {
      return Status::error("connection closed by the broker");
    }
    return Status::error(std::string(write ? "TLS send failed: " : "TLS receive failed: ") +
                         security::openssl_errors());
  }
  return Status::ok();
}

Status BlockingClient::write_all(const uint8_t* p, size_t n) {
  if (ssl_ != nullptr) return tls_io(true, const_cast<uint8_t*>(p), n);
  while (n > 0) {
    ssize_t w = ::send(fd_, p, n, MSG_NOSIGNAL);
    if (w > 0) {
      p += w;
      n -= static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Status s = wait_fd(fd_, POLLOUT, timeout_ms_, "sending");
      if (!s) return s;
      continue;
    }
    return Status::error("send failed: " + errno_text());
  }
  return Status::ok();
}

Status BlockingClient::read_all(uint8_t* p, size_t n) {
  if (ssl_ != nullptr) return tls_io(false, p, n);
  while (n > 0) {
    ssize_t r = ::recv(fd_, p, n, 0);
    if (r > 0) {
      p += r;
      n -= static_cast<size_t>(r);
      continue;
    }
    if (r == 0) return Status::error("connection closed by the broker");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      Status s = wait_fd(fd_, POLLIN, timeout_ms_, "waiting for the response");
      if (!s) return s;
      continue;
    }
    return Status::error("recv failed: " + errno_text());
  }
  return Status::ok();
}

Result<Bytes> BlockingClient::round_trip(int16_t api_key, int16_t version, const Bytes& body) {
  if (fd_ < 0) return Status::error("not connected");
  const int32_t correlation_id = next_correlation_id_++;
  ByteWriter w;
  append_request_frame(w, api_key, version, correlation_id, client_id_,
                       [&](ByteWriter& out) { out.bytes(ByteSpan(body.data(), body.size())); });
  Status s = write_all(w.buffer().data(), w.size());
  if (!s) { close(); return s; }

  uint8_t size_buf[4];
  s = read_all(size_buf, 4);
  if (!s) { close(); return s; }
  ByteReader sr(size_buf, 4);
  const int32_t size = sr.i32();
  s = check_response_size(size, kMaxResponseBytes);
  if (!s) { close(); return s; }
  Bytes frame(static_cast<size_t>(size));
  s = read_all(frame.data(), frame.size());
  if (!s) { close(); return s; }
  auto body_at = parse_response_header(frame, api_key, version, correlation_id);
  if (!body_at) {
    close();
    return body_at.status();
  }
  return Bytes(frame.begin() + static_cast<std::ptrdiff_t>(*body_at), frame.end());
}

Status BlockingClient::fetch_api_versions() {
  protocol::ApiVersionsRequest req;
  req.client_software_name = "spool-cli";
  req.client_software_version = "0.1";
  // Newest first; a broker that lacks v3 answers UNSUPPORTED_VERSION with a
  // v0-shaped body, so fall back to v0 (which every broker serves).
  for (int16_t v : {protocol::ApiVersionsRequest::kMaxVersion, int16_t{0}}) {
    auto resp = call<protocol::ApiVersionsRequest, protocol::ApiVersionsResponse>(req, v);
    if (!resp) {
      if (fd_ < 0) return resp.status();
      continue;
    }
    if (resp->error_code == protocol::ErrorCode::kUnsupportedVersion && v != 0) continue;
    if (resp->error_code != protocol::ErrorCode::kNone)
      return Status::error("ApiVersions error code " + std::to_string(protocol::to_int(resp->error_code)));
    broker_versions_ = ApiVersionTable(*resp);
    return Status::ok();
  }
  return Status::error("the broker did not answer ApiVersions");
}

Result<int16_t> BlockingClient::negotiate(int16_t api_key, int16_t our_min, int16_t our_max) const {
  return broker_versions_.negotiate(api_key, our_min, our_max);
}

}  // namespace spool::client
