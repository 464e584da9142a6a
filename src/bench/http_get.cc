#include "bench/http_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

int ms_left(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return ms > 0 ? static_cast<int>(ms) : 0;
}

// Waits for `events` on fd until the deadline; false on timeout or error.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int rc = poll(&p, 1, ms_left(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return false;
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Status malformed(std::string_view status_line) {
  return Status::error("malformed status line '" + std::string(status_line) + "'");
}

// Splits the raw answer into status and body, checking Content-Length.
Status parse_answer(const std::string& raw, HttpAnswer* a) {
  auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos)
    return Status::error("no end of headers in " + std::to_string(raw.size()) + " bytes");
  std::string_view head(raw.data(), head_end);
  auto line_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, line_end);
  // "HTTP/1.1 200 OK"
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12 || status_line[8] != ' ')
    return malformed(status_line);
  int status = 0;
  for (size_t i = 9; i < 12; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(status_line[i]))) return malformed(status_line);
    status = status * 10 + (status_line[i] - '0');
  }
  long long content_length = -1;
  size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    auto end = head.find("\r\n", pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    auto colon = line.find(':');
    if (colon != std::string_view::npos) {
      std::string name = lower(line.substr(0, colon));
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      if (name == "transfer-encoding") return Status::error("Transfer-Encoding is not supported");
      if (name == "content-length") {
        if (value.empty() || value.size() > 15) return Status::error("bad Content-Length");
        content_length = 0;
        for (char c : value) {
          if (!std::isdigit(static_cast<unsigned char>(c))) return Status::error("bad Content-Length");
          content_length = content_length * 10 + (c - '0');
        }
      }
    }
    pos = end + 2;
  }
  if (content_length < 0) return Status::error("no Content-Length");
  size_t body_size = raw.size() - head_end - 4;
  if (body_size != static_cast<size_t>(content_length))
    return Status::error("body of " + std::to_string(body_size) + " bytes, Content-Length " +
                         std::to_string(content_length));
  a->status = status;
  a->body = raw.substr(head_end + 4);
  a->wire_bytes = raw.size();
  return Status::ok();
}

}  // namespace

Result<HttpAnswer> http_get(int port, const std::string& path, double timeout_s) {
  auto t0 = Clock::now();
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  const std::string where = "GET 127.0.0.1:" + std::to_string(port) + path;
  Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return Status::error(where + ": socket: " + std::strerror(errno));
  int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS) return Status::error(where + ": connect: " + std::strerror(errno));
    if (!wait_for(fd.get(), POLLOUT, deadline)) return Status::error(where + ": connect timed out");
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Status::error(where + ": connect: " + std::strerror(err));
  }
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                              "\r\nUser-Agent: spool-bench\r\nAccept: */*\r\nConnection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(fd.get(), POLLOUT, deadline)) return Status::error(where + ": send timed out");
    } else {
      return Status::error(where + ": send: " + std::strerror(errno));
    }
  }
  std::string raw;
  char buf[65536];
  for (;;) {
    ssize_t n = recv(fd.get(), buf, sizeof buf, 0);
    if (n > 0) {
      raw.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      break;  // the server closed: the answer is complete
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!wait_for(fd.get(), POLLIN, deadline))
        return Status::error(where + ": no complete answer within " + std::to_string(timeout_s) + " s (" +
                             std::to_string(raw.size()) + " bytes received)");
    } else {
      return Status::error(where + ": recv: " + std::strerror(errno));
    }
  }
  HttpAnswer answer;
  answer.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (auto st = parse_answer(raw, &answer); !st) return Status::error(where + ": " + st.message());
  return answer;
}

}  // namespace spool::bench
