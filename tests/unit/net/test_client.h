// Blocking POSIX TCP client for the net unit tests. Every receive has a
// timeout, so a server bug fails a test instead of hanging it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace spool::net::testing {

class TestClient {
 public:
  explicit TestClient(uint16_t port, int recv_timeout_ms = 3000) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    timeval tv{recv_timeout_ms / 1000, (recv_timeout_ms % 1000) * 1000};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~TestClient() { close(); }
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Close with an RST instead of a FIN.
  void reset_connection() {
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close();
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

  bool send_raw(std::string_view data) {
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  static std::string encode_size(int32_t size) {
    auto u = static_cast<uint32_t>(size);
    return {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8),
            static_cast<char>(u)};
  }
  static std::string frame(std::string_view body) {
    return encode_size(static_cast<int32_t>(body.size())) + std::string(body);
  }
  bool send_frame(std::string_view body) { return send_raw(frame(body)); }

  // nullopt on EOF, error or timeout.
  std::optional<std::string> read_frame() {
    std::string hdr;
    if (!read_exact(4, hdr)) return std::nullopt;
    uint32_t size = (uint32_t(uint8_t(hdr[0])) << 24) | (uint32_t(uint8_t(hdr[1])) << 16) |
                    (uint32_t(uint8_t(hdr[2])) << 8) | uint32_t(uint8_t(hdr[3]));
    std::string body;
    if (!read_exact(size, body)) return std::nullopt;
    return body;
  }

  // True if the server closed the connection (EOF or reset) within timeout.
  bool closed_by_peer(int timeout_ms = 2000) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    char c;
    ssize_t n = ::recv(fd_, &c, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }
  // Everything received until the peer closes (or a receive times out).
  std::string read_until_closed() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<size_t>(n));
    return out;
  }
  // True if nothing arrives within timeout.
  bool quiet_for(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms) == 0;
  }

 private:
  bool read_exact(size_t n, std::string& out) {
    out.resize(n);
    size_t off = 0;
    while (off < n) {
      ssize_t r = ::recv(fd_, out.data() + off, n - off, 0);
      if (r <= 0) return false;
      off += static_cast<size_t>(r);
    }
    return true;
  }
  int fd_ = -1;
};

inline bool wait_until(const std::function<bool()>& pred, int timeout_ms = 2000) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return pred();
}

}  // namespace spool::net::testing
