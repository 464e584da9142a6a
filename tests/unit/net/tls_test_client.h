// TlsClient: a blocking TLS client on loopback for tests, with a 5 s
// receive time-out: connects and handshakes in the constructor (connected()
// says whether it worked), then sends and reads Kafka frames or raw bytes.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "security/tls_context.h"
#include "test_client.h"

namespace spool::net::testing {

class TlsClient {
 public:
  TlsClient(uint16_t port, const security::TlsContext& ctx) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
    ssl_ = ctx.new_client_session("localhost");
    SSL_set_fd(ssl_, fd_);
    connected_ = SSL_connect(ssl_) == 1;
  }
  ~TlsClient() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    ::close(fd_);
  }
  bool connected() const { return connected_; }
  bool send_frame(const std::string& body) {
    return write(TestClient::frame(body));
  }
  bool write(const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
      size_t n = 0;
      if (SSL_write_ex(ssl_, data.data() + off, data.size() - off, &n) != 1) return false;
      off += n;
    }
    return true;
  }
  // Everything until the peer closes (or 5 s pass without data).
  std::string read_until_closed() {
    std::string out;
    char buf[4096];
    size_t got = 0;
    while (SSL_read_ex(ssl_, buf, sizeof buf, &got) == 1) out.append(buf, got);
    return out;
  }
  std::optional<std::string> read_frame() {
    std::string hdr;
    if (!read_exact(4, hdr)) return std::nullopt;
    const uint32_t size = (uint32_t(uint8_t(hdr[0])) << 24) | (uint32_t(uint8_t(hdr[1])) << 16) |
                          (uint32_t(uint8_t(hdr[2])) << 8) | uint32_t(uint8_t(hdr[3]));
    std::string body;
    if (!read_exact(size, body)) return std::nullopt;
    return body;
  }

 private:
  bool read_exact(size_t n, std::string& out) {
    out.resize(n);
    size_t off = 0;
    while (off < n) {
      size_t got = 0;
      if (SSL_read_ex(ssl_, out.data() + off, n - off, &got) != 1) return false;
      off += got;
    }
    return true;
  }
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool connected_ = false;
};

}  // namespace spool::net::testing
