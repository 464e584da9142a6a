// FindCoordinator on a socket, and waiting for whole internal topics (see
// coordinator_lookup.h).
#include "bench/coordinator_lookup.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "bench/rdk.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int16_t kFindCoordinatorApi = 10;
constexpr int16_t kFindCoordinatorVersion = 1;
constexpr const char* kInternalTopics[] = {"__consumer_offsets", "__transaction_state"};

void put16(std::string& b, int16_t v) {
  uint16_t n = htons(static_cast<uint16_t>(v));
  b.append(reinterpret_cast<const char*>(&n), 2);
}
void put32(std::string& b, int32_t v) {
  uint32_t n = htonl(static_cast<uint32_t>(v));
  b.append(reinterpret_cast<const char*>(&n), 4);
}
void put_string(std::string& b, const std::string& s) {
  put16(b, static_cast<int16_t>(s.size()));
  b += s;
}

// Big-endian reader of one response body; ok() false once it ran past the end.
class Reader {
 public:
  explicit Reader(const std::string& b) : b_(b) {}
  int32_t i32() { return static_cast<int32_t>(take(4)); }
  int16_t i16() { return static_cast<int16_t>(take(2)); }
  void skip_string() {  // a nullable string: length -1 is null
    int16_t n = i16();
    if (n > 0) pos_ += static_cast<size_t>(n);
  }
  bool ok() const { return pos_ <= b_.size(); }

 private:
  uint32_t take(size_t n) {
    uint32_t v = 0;
    for (size_t i = 0; i < n; ++i, ++pos_) v = (v << 8) | (pos_ < b_.size() ? static_cast<uint8_t>(b_[pos_]) : 0);
    return v;
  }
  const std::string& b_;
  size_t pos_ = 0;
};

bool send_all(int fd, const std::string& b) {
  for (size_t off = 0; off < b.size();) {
    ssize_t n = ::send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

bool recv_all(int fd, char* out, size_t n) {
  for (size_t off = 0; off < n;) {
    ssize_t got = ::recv(fd, out + off, n - off, 0);
    if (got <= 0) return false;
    off += static_cast<size_t>(got);
  }
  return true;
}

struct Answer {
  int16_t error = -1;
  int32_t node_id = -1;
};

// One FindCoordinator v1 round trip with `node` (host:port, numeric IPv4).
Result<Answer> ask(const std::string& node, const std::string& key, int8_t key_type, int32_t correlation) {
  auto colon = node.rfind(':');
  if (colon == std::string::npos) return Status::error("not host:port: " + node);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(std::stoi(node.substr(colon + 1))));
  if (inet_pton(AF_INET, node.substr(0, colon).c_str(), &addr.sin_addr) != 1)
    return Status::error("not an IPv4 address: " + node);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::error("socket failed");
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  Result<Answer> out = Status::error(node + " did not answer FindCoordinator");
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
    std::string body;
    put16(body, kFindCoordinatorApi);
    put16(body, kFindCoordinatorVersion);
    put32(body, correlation);
    put_string(body, "spool-bench");
    put_string(body, key);
    body += static_cast<char>(key_type);
    std::string frame;
    put32(frame, static_cast<int32_t>(body.size()));
    frame += body;
    char size_bytes[4];
    if (send_all(fd, frame) && recv_all(fd, size_bytes, 4)) {
      uint32_t size = 0;
      for (char c : size_bytes) size = (size << 8) | static_cast<uint8_t>(c);
      std::string resp(size < (1u << 20) ? size : 0, '\0');
      if (!resp.empty() && recv_all(fd, resp.data(), resp.size())) {
        Reader r(resp);
        int32_t corr = r.i32();
        (void)r.i32();  // throttle_time_ms
        Answer a;
        a.error = r.i16();
        r.skip_string();  // error_message
        a.node_id = r.i32();
        if (r.ok() && corr == correlation) out = a;
        else out = Status::error(node + ": malformed FindCoordinator answer");
      }
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

Result<int32_t> find_coordinator(const std::vector<std::string>& nodes, const std::string& key, int8_t key_type,
                                 double timeout_s) {
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  std::string last = "no node asked";
  for (int32_t corr = 1;; ++corr) {
    for (const auto& node : nodes) {
      auto a = ask(node, key, key_type, corr);
      if (!a) {
        last = a.status().message();
      } else if (a->error != 0) {
        last = node + " answered error " + std::to_string(a->error);
      } else {
        return a->node_id;
      }
    }
    if (Clock::now() > deadline)
      return Status::error(std::string("FindCoordinator ") + (key_type == kGroupCoordinator ? "group " : "txn ") + key +
                           ": " + last);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Status wait_full_isr(const std::string& bootstrap, const std::vector<std::string>& topics, int replicas,
                     double timeout_s) {
  auto client = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}, {"log_level", "0"}});
  if (!client) return client.status();
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  std::string last = "no metadata";
  for (;;) {
    bool whole = true;
    for (const auto& topic : topics) {
      rd_kafka_topic_t* rkt = rd_kafka_topic_new(client->get(), topic.c_str(), nullptr);
      const rd_kafka_metadata_t* md = nullptr;
      rd_kafka_resp_err_t e = rd_kafka_metadata(client->get(), 0, rkt, &md, 5000);
      rd_kafka_topic_destroy(rkt);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR || md == nullptr) {
        last = topic + ": metadata " + rd_kafka_err2str(e);
        whole = false;
        break;
      }
      if (md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR || md->topics[0].partition_cnt < 1) {
        last = topic + ": " + (md->topic_cnt == 1 ? rd_kafka_err2str(md->topics[0].err) : "not listed");
        whole = false;
      }
      for (int p = 0; whole && p < md->topics[0].partition_cnt; ++p) {
        const rd_kafka_metadata_partition_t& part = md->topics[0].partitions[p];
        if (part.leader < 0 || part.isr_cnt < replicas) {
          last = topic + " partition " + std::to_string(p) + ": leader " + std::to_string(part.leader) + ", ISR of " +
                 std::to_string(part.isr_cnt);
          whole = false;
        }
      }
      rd_kafka_metadata_destroy(md);
      if (!whole) break;
    }
    if (whole) return Status::ok();
    if (Clock::now() > deadline)
      return Status::error("not whole within " + std::to_string(static_cast<int>(timeout_s)) + " s: " + last);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Status wait_topics_on_every_node(const std::vector<std::string>& nodes, const std::vector<std::string>& topics,
                                 int partitions, double timeout_s) {
  for (const auto& node : nodes) {
    // One client per node with only that node to ask: its Metadata goes there.
    auto client = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", node}, {"log_level", "0"}});
    if (!client) return client.status();
    for (const auto& topic : topics)
      if (auto st = wait_topic_ready(client->get(), topic, partitions, static_cast<int>(timeout_s * 1000)); !st)
        return Status::error(node + ": " + st.message());
  }
  return Status::ok();
}

Status ensure_coordinator_topics(const std::vector<std::string>& nodes, int replicas, double timeout_s) {
  for (int8_t type : {kGroupCoordinator, kTransactionCoordinator})
    if (auto c = find_coordinator(nodes, "spool-bench-prime", type, timeout_s); !c) return c.status();
  std::string bootstrap;
  for (const auto& n : nodes) bootstrap += (bootstrap.empty() ? "" : ",") + n;
  return wait_full_isr(bootstrap, {std::begin(kInternalTopics), std::end(kInternalTopics)}, replicas, timeout_s);
}

}  // namespace spool::bench
