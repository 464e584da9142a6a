// Zero-copy answers: SendQueue over real loopback TCP sockets (sendfile and
// the copy path give the same bytes; partial writes to a slow reader; files
// unlinked or truncated while queued), buffer pooling, and the Server
// answering with file regions end to end.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "net/buffer_pool.h"
#include "net/send_queue.h"
#include "net/server.h"
#include "test_client.h"

namespace spool::net {
namespace {

// A connected loopback TCP pair: `writer` non-blocking (as a connection's
// socket), `reader` blocking with a receive timeout.
struct SocketPair {
  int writer = -1;
  int reader = -1;
  SocketPair(int sndbuf = 0, int rcvbuf = 0) {
    int lst = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(lst, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(lst, 1), 0);
    socklen_t len = sizeof addr;
    ::getsockname(lst, reinterpret_cast<sockaddr*>(&addr), &len);
    reader = ::socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf > 0) ::setsockopt(reader, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    EXPECT_EQ(::connect(reader, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    writer = ::accept(lst, nullptr, nullptr);
    ::close(lst);
    if (sndbuf > 0) ::setsockopt(writer, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    int one = 1;
    ::setsockopt(writer, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::fcntl(writer, F_SETFL, ::fcntl(writer, F_GETFL) | O_NONBLOCK);
    timeval tv{10, 0};
    ::setsockopt(reader, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~SocketPair() {
    if (writer >= 0) ::close(writer);
    if (reader >= 0) ::close(reader);
  }
  // Reads exactly n bytes (fewer on EOF/timeout).
  std::string read_exactly(size_t n) const {
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::recv(reader, out.data() + got, n - got, 0);
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    out.resize(got);
    return out;
  }
};

// A temp file with pseudo-random contents; removed on destruction.
class TempFile {
 public:
  explicit TempFile(size_t size, uint32_t seed = 1) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "spool-sendfile-XXXXXX").string();
    fd_ = ::mkstemp(tmpl.data());
    path_ = tmpl;
    std::mt19937 rng(seed);
    data_.resize(size);
    for (auto& c : data_) c = static_cast<uint8_t>(rng());
    size_t off = 0;
    while (off < size) {
      ssize_t w = ::write(fd_, data_.data() + off, size - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
  }
  ~TempFile() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  const Bytes& data() const { return data_; }
  // A region whose owner is a plain token (the test keeps the file open).
  FileRegion region(int64_t off, int64_t len) const {
    return FileRegion{std::make_shared<int>(0), fd_, off, len};
  }

 private:
  int fd_ = -1;
  std::string path_;
  Bytes data_;
};

Bytes to_bytes(std::string_view s) { return {s.begin(), s.end()}; }

// Whether s[from, from + n) holds bytes[off, off + n) (char is signed: compare as bytes).
bool same_bytes(const std::string& s, size_t from, const Bytes& bytes, size_t off, size_t n) {
  if (from + n > s.size() || off + n > bytes.size()) return false;
  return std::memcmp(s.data() + from, bytes.data() + off, n) == 0;
}

std::string framed(const Bytes& body) {
  const auto n = static_cast<uint32_t>(body.size());
  std::string out{static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                  static_cast<char>(n)};
  out.append(body.begin(), body.end());
  return out;
}

// "head" + region + "mid" + region + "tail"
Response sample_response(const TempFile& f, int64_t a_off, int64_t a_len, int64_t b_off, int64_t b_len) {
  Response r(to_bytes("head-mid-tail"));
  r.splices.push_back({4, f.region(a_off, a_len)});
  r.splices.push_back({9, f.region(b_off, b_len)});
  return r;
}

// Flushes until drained, waiting for writability in between (as the
// connection does with async_wait), while `reader_fn` consumes concurrently.
SendQueue::Flush drain(SendQueue& q, int fd) {
  for (;;) {
    auto f = q.flush(fd);
    if (f != SendQueue::Flush::kWouldBlock) return f;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 10000) <= 0) return SendQueue::Flush::kError;
  }
}

class SendQueueTest : public ::testing::TestWithParam<bool> {};

TEST_P(SendQueueTest, SplicedAnswersArriveByteForByte) {
  TempFile f(64 * 1024);
  SendQueue q(/*use_sendfile=*/GetParam());
  SocketPair sp;
  Response r = sample_response(f, 100, 5000, 40000, 20000);
  Bytes flat;
  ASSERT_TRUE(r.flatten(flat));
  ASSERT_EQ(flat.size(), 13u + 25000u);
  // The flattened form is the memory with the file bytes in the holes.
  EXPECT_EQ(std::string(flat.begin(), flat.begin() + 4), "head");
  EXPECT_TRUE(std::equal(flat.begin() + 4, flat.begin() + 5004, f.data().begin() + 100));
  q.push(std::move(r));
  q.push(Response(to_bytes("plain")));
  ASSERT_EQ(drain(q, sp.writer), SendQueue::Flush::kDrained) << q.error();
  EXPECT_EQ(q.take_completed(), 2u);
  EXPECT_TRUE(q.empty());
  std::string expect = framed(flat) + framed(to_bytes("plain"));
  EXPECT_EQ(sp.read_exactly(expect.size()), expect);
}

TEST_P(SendQueueTest, HugeAnswerToASlowReaderCompletesThroughPartialWrites) {
  // 8 MB through ~16 KB socket buffers: many partial sendfile/send calls.
  TempFile f(8 * 1024 * 1024, 7);
  SendQueue q(GetParam());
  SocketPair sp(/*sndbuf=*/8 * 1024, /*rcvbuf=*/8 * 1024);
  Response r(to_bytes("ab"));
  r.splices.push_back({1, f.region(0, static_cast<int64_t>(f.data().size()))});
  Bytes flat;
  ASSERT_TRUE(r.flatten(flat));
  const std::string expect = framed(flat);
  std::string got;
  std::thread reader([&] {
    // Slow: small reads with pauses now and then.
    std::string buf(4096, '\0');
    int n = 0;
    while (got.size() < expect.size()) {
      ssize_t k = ::recv(sp.reader, buf.data(), buf.size(), 0);
      if (k <= 0) break;
      got.append(buf.data(), static_cast<size_t>(k));
      if (++n % 256 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  q.push(std::move(r));
  int would_block = 0;
  SendQueue::Flush f2;
  for (;;) {
    f2 = q.flush(sp.writer);
    if (f2 != SendQueue::Flush::kWouldBlock) break;
    ++would_block;
    pollfd p{sp.writer, POLLOUT, 0};
    ASSERT_GT(::poll(&p, 1, 10000), 0);
  }
  reader.join();
  EXPECT_EQ(f2, SendQueue::Flush::kDrained) << q.error();
  EXPECT_GT(would_block, 0) << "the socket buffer should have filled up";
  EXPECT_EQ(q.take_completed(), 1u);
  ASSERT_EQ(got.size(), expect.size());
  EXPECT_TRUE(got == expect);
}

TEST_P(SendQueueTest, UnlinkedFileIsStillSentWhole) {
  auto f = std::make_unique<TempFile>(100000, 3);
  const Bytes data = f->data();
  // The region owns a second descriptor, as a segment does its file.
  int fd = ::open(f->path().c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto owner = std::shared_ptr<int>(new int(fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  Response r(Bytes{});
  r.splices.push_back({0, FileRegion{owner, fd, 1000, 90000}});
  owner.reset();
  f.reset();  // closes the test's descriptor and unlinks the file
  SendQueue q(GetParam());
  SocketPair sp;
  q.push(std::move(r));
  ASSERT_EQ(drain(q, sp.writer), SendQueue::Flush::kDrained) << q.error();
  std::string got = sp.read_exactly(4 + 90000);
  ASSERT_EQ(got.size(), 4u + 90000u);
  EXPECT_TRUE(same_bytes(got, 4, data, 1000, 90000));
}

TEST_P(SendQueueTest, TruncatedFileFailsInsteadOfSendingOtherBytes) {
  TempFile f(50000, 5);
  SendQueue q(GetParam());
  SocketPair sp;
  Response r(to_bytes("xy"));
  r.splices.push_back({1, f.region(10000, 30000)});
  q.push(std::move(r));
  ASSERT_EQ(::ftruncate(f.fd(), 20000), 0);  // the region now runs past the end
  EXPECT_EQ(drain(q, sp.writer), SendQueue::Flush::kError);
  EXPECT_NE(q.error().find("truncated"), std::string::npos) << q.error();
  EXPECT_EQ(q.take_completed(), 0u);
  // What did go out is the prefix, "x" and the file bytes that still exist;
  // nothing else (the connection is closed by its owner after this).
  ::shutdown(sp.writer, SHUT_WR);
  std::string got = sp.read_exactly(4 + 1 + 30000 + 1);
  ASSERT_LE(got.size(), 4u + 1u + 10000u);
  if (got.size() > 5) {
    EXPECT_TRUE(same_bytes(got, 5, f.data(), 10000, got.size() - 5));
  }
}

TEST_P(SendQueueTest, PipelinedAnswersLeaveTogetherAndInOrder) {
  TempFile f(4096, 9);
  SendQueue q(GetParam());
  SocketPair sp;
  std::string expect;
  for (int i = 0; i < 600; ++i) {  // more pieces than one sendmsg takes
    Response r(to_bytes("answer-" + std::to_string(i)));
    if (i % 50 == 0) r.splices.push_back({3, f.region(i, 100)});
    Bytes flat;
    ASSERT_TRUE(r.flatten(flat));
    expect += framed(flat);
    q.push(std::move(r));
  }
  std::string got;
  std::thread reader([&] { got = sp.read_exactly(expect.size()); });
  EXPECT_EQ(drain(q, sp.writer), SendQueue::Flush::kDrained) << q.error();
  reader.join();
  EXPECT_EQ(q.take_completed(), 600u);
  EXPECT_TRUE(got == expect);
}

INSTANTIATE_TEST_SUITE_P(SendfileOnOff, SendQueueTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Sendfile" : "Copy"; });

TEST(BufferPool, RecycledBuffersAreReusedAndBounded) {
  Bytes a = acquire_buffer(1000);
  EXPECT_TRUE(a.empty());
  EXPECT_GE(a.capacity(), 1000u);
  a.assign(500, 1);
  const uint8_t* p = a.data();
  recycle_buffer(std::move(a));
  Bytes b = acquire_buffer(10);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.data(), p);  // the same allocation came back
  Bytes huge;
  huge.reserve(kPoolMaxCapacity + 1);
  recycle_buffer(std::move(huge));  // too big to keep
  Bytes c = acquire_buffer(10);
  EXPECT_LT(c.capacity(), kPoolMaxCapacity + 1);
}

// --- through the Server ---

class RegionHandler : public RequestHandler {
 public:
  explicit RegionHandler(const TempFile& f) : file_(f) {}
  // Request "off len" -> answer "<" + file bytes + ">".
  void handle(const ConnectionInfo&, FrameBytes frame, Responder responder) override {
    std::string req(frame.begin(), frame.end());
    auto sp = req.find(' ');
    int64_t off = std::stoll(req.substr(0, sp));
    int64_t len = std::stoll(req.substr(sp + 1));
    Response r(to_bytes("<>"));
    r.splices.push_back({1, file_.region(off, len)});
    responder.send(std::move(r));
  }

 private:
  const TempFile& file_;
};

class ServerRegionTest : public ::testing::TestWithParam<bool> {};

TEST_P(ServerRegionTest, AnswersWithFileRegionsAreByteIdentical) {
  TempFile f(3 * 1024 * 1024, 11);
  RegionHandler handler(f);
  ServerOptions o;
  o.listeners[0].port = 0;
  o.threads = 1;
  o.sendfile = GetParam();
  Server server(o, handler);
  ASSERT_TRUE(server.start().is_ok());
  testing::TestClient client(server.port(), 10000);
  ASSERT_TRUE(client.connected());
  const std::vector<std::pair<int64_t, int64_t>> asks = {{0, 10}, {5, 3 * 1024 * 1024 - 5}, {1000, 0}, {77, 65536}};
  for (const auto& [off, len] : asks)
    ASSERT_TRUE(client.send_frame(std::to_string(off) + " " + std::to_string(len)));  // pipelined
  for (const auto& [off, len] : asks) {
    auto answer = client.read_frame();
    ASSERT_TRUE(answer.has_value());
    ASSERT_EQ(answer->size(), static_cast<size_t>(len) + 2);
    EXPECT_EQ(answer->front(), '<');
    EXPECT_EQ(answer->back(), '>');
    EXPECT_TRUE(same_bytes(*answer, 1, f.data(), static_cast<size_t>(off), static_cast<size_t>(len)));
  }
  server.stop();
}

TEST(ServerRegion, EnvironmentTurnsSendfileOff) {
  // Only observable through the bytes, which are the same either way: this
  // checks that the switch does not break answering.
  ::setenv("SPOOL_SENDFILE", "0", 1);
  TempFile f(100000, 13);
  RegionHandler handler(f);
  ServerOptions o;
  o.listeners[0].port = 0;
  o.threads = 1;
  Server server(o, handler);
  ::unsetenv("SPOOL_SENDFILE");
  ASSERT_TRUE(server.start().is_ok());
  testing::TestClient client(server.port(), 10000);
  ASSERT_TRUE(client.send_frame("10 90000"));
  auto answer = client.read_frame();
  ASSERT_TRUE(answer.has_value());
  ASSERT_EQ(answer->size(), 90002u);
  EXPECT_TRUE(same_bytes(*answer, 1, f.data(), 10, 90000));
  server.stop();
}

INSTANTIATE_TEST_SUITE_P(SendfileOnOff, ServerRegionTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Sendfile" : "Copy"; });

}  // namespace
}  // namespace spool::net
