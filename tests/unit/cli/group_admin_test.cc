// `spool group` through GroupAdmin against a scripted in-process fake broker:
// coordinator retries, ListGroups before v4 (states from DescribeGroups),
// undecodable member assignments, the broker refusing an admin commit, and
// malformed responses. The real broker is covered by tests/compat.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli/group_command.h"
#include "cli/group_parse.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/describe_groups_request.h"
#include "protocol/describe_groups_response.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/header.h"
#include "protocol/list_groups_request.h"
#include "protocol/list_groups_response.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"

namespace spool::cli {
namespace {

namespace proto = spool::protocol;

bool read_n(int fd, uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// Answers ApiVersions itself and every other request through `handler`,
// which writes the body (or nothing, to send an empty, malformed body).
class FakeGroupBroker {
 public:
  using Handler = std::function<void(const proto::RequestHeader&, ByteReader&, ByteWriter&)>;

  explicit FakeGroupBroker(Handler handler, int16_t list_groups_max = 4) : handler_(std::move(handler)) {
    versions_ = {{2, 1, 5},  {3, 0, 8},  {8, 2, 7},  {9, 1, 7},  {10, 0, 2}, {15, 0, 4},
                 {16, 0, list_groups_max}, {18, 0, 3}, {42, 0, 1}, {47, 0, 0}};
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(listen_fd_, 4);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeGroupBroker() {
    ::shutdown(listen_fd_, SHUT_RDWR);
    ::close(listen_fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(port_); }
  int count(int16_t api_key) {
    std::lock_guard<std::mutex> lock(mu_);
    return counts_[api_key];
  }

 private:
  void serve() {
    while (true) {
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      handle(fd);
      ::close(fd);
    }
  }

  void handle(int fd) {
    while (true) {
      uint8_t sz[4];
      if (!read_n(fd, sz, 4)) return;
      ByteReader sr(sz, 4);
      Bytes frame(static_cast<size_t>(sr.i32()));
      if (!read_n(fd, frame.data(), frame.size())) return;
      ByteReader r(frame);
      proto::RequestHeader h;
      if (!proto::decode_request_header(r, h)) return;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++counts_[h.api_key];
      }
      ByteWriter w;
      w.i32(0);
      proto::encode_response_header(w, h.correlation_id, proto::response_header_flexible(h.api_key, h.api_version));
      if (h.api_key == proto::ApiVersionsRequest::kApiKey) {
        proto::ApiVersionsResponse resp;
        for (auto [k, lo, hi] : versions_) resp.api_keys.push_back({k, lo, hi});
        resp.encode(w, h.api_version);
      } else {
        handler_(h, r, w);
      }
      w.patch_i32(0, static_cast<int32_t>(w.size() - 4));
      ::send(fd, w.buffer().data(), w.size(), MSG_NOSIGNAL);
    }
  }

  Handler handler_;
  std::vector<std::tuple<int16_t, int16_t, int16_t>> versions_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::map<int16_t, int> counts_;
};

// Canned cluster: one broker (the fake itself), topic "t" with 2 partitions,
// group "g" coordinated by it. Tests override pieces through the hooks.
struct Script {
  uint16_t port = 0;
  int coordinator_loading = 0;  // FindCoordinator answers COORDINATOR_LOAD_IN_PROGRESS this many times
  std::string state = "Stable";
  Bytes assignment_a = encode_consumer_assignment({{"t", {0}}});
  Bytes assignment_b = encode_consumer_assignment({{"t", {1}}});
  proto::ErrorCode commit_error = proto::ErrorCode::kNone;
  bool malformed_describe = false;

  void answer(const proto::RequestHeader& h, ByteReader& r, ByteWriter& w) {
    int16_t v = h.api_version;
    switch (h.api_key) {
      case proto::MetadataRequest::kApiKey: {
        proto::MetadataResponse resp;
        resp.brokers = {{0, "127.0.0.1", port, std::nullopt}};
        proto::MetadataResponse::MetadataResponseTopic t;
        t.name = "t";
        t.partitions.push_back({proto::ErrorCode::kNone, 0, 0, 0, {0}, {0}, {}});
        t.partitions.push_back({proto::ErrorCode::kNone, 1, 0, 0, {0}, {0}, {}});
        resp.topics.push_back(t);
        resp.encode(w, v);
        break;
      }
      case proto::FindCoordinatorRequest::kApiKey: {
        proto::FindCoordinatorResponse resp;
        if (coordinator_loading-- > 0) {
          resp.error_code = protocol::ErrorCode::kCoordinatorLoadInProgress;
        } else {
          resp.node_id = 0;
          resp.host = "127.0.0.1";
          resp.port = port;
        }
        resp.encode(w, v);
        break;
      }
      case proto::ListGroupsRequest::kApiKey: {
        proto::ListGroupsResponse resp;
        resp.groups.push_back({"g", "consumer", state, "classic"});
        resp.groups.push_back({"offsets-only", "", "Empty", "classic"});
        resp.encode(w, v);
        break;
      }
      case proto::DescribeGroupsRequest::kApiKey: {
        if (malformed_describe) {
          w.i32(7);  // a group count with nothing behind it
          break;
        }
        proto::DescribeGroupsRequest req;
        req.decode(r, v);
        proto::DescribeGroupsResponse resp;
        for (const auto& id : req.groups) {
          proto::DescribeGroupsResponse::DescribedGroup g;
          g.group_id = id;
          if (id == "g") {
            g.group_state = state;
            g.protocol_type = "consumer";
            g.protocol_data = "range";
            proto::DescribeGroupsResponse::DescribedGroupMember m;
            m.member_id = "a";
            m.client_id = "ca";
            m.client_host = "/h";
            m.member_assignment = assignment_a;
            g.members.push_back(m);
            m.member_id = "b";
            m.member_assignment = assignment_b;
            g.members.push_back(m);
          } else {
            g.group_state = "Empty";
          }
          resp.groups.push_back(g);
        }
        resp.encode(w, v);
        break;
      }
      case proto::OffsetFetchRequest::kApiKey: {
        proto::OffsetFetchResponse resp;
        proto::OffsetFetchResponse::OffsetFetchResponseTopic t;
        t.name = "t";
        t.partitions.push_back({0, 4, -1, "", proto::ErrorCode::kNone});
        resp.topics.push_back(t);
        resp.encode(w, v);
        break;
      }
      case proto::ListOffsetsRequest::kApiKey: {
        proto::ListOffsetsRequest req;
        req.decode(r, v);
        proto::ListOffsetsResponse resp;
        for (const auto& t : req.topics) {
          auto& rt = resp.topics.emplace_back();
          rt.name = t.name;
          for (const auto& p : t.partitions) {
            auto& rp = rt.partitions.emplace_back();
            rp.partition_index = p.partition_index;
            rp.offset = p.timestamp == -2 ? 2 : 10;
          }
        }
        resp.encode(w, v);
        break;
      }
      case proto::OffsetCommitRequest::kApiKey: {
        proto::OffsetCommitRequest req;
        req.decode(r, v);
        proto::OffsetCommitResponse resp;
        for (const auto& t : req.topics) {
          auto& rt = resp.topics.emplace_back();
          rt.name = t.name;
          for (const auto& p : t.partitions) rt.partitions.push_back({p.partition_index, commit_error});
        }
        resp.encode(w, v);
        break;
      }
      default:
        break;  // empty body: malformed for the client
    }
  }
};

struct Harness {
  Script script;
  FakeGroupBroker broker;
  explicit Harness(int16_t list_groups_max = 4)
      : broker([this](const proto::RequestHeader& h, ByteReader& r, ByteWriter& w) { script.answer(h, r, w); },
               list_groups_max) {
    script.port = broker.port();
  }
  int run(GroupArgs a, std::string& out, std::string& err) {
    a.bootstrap_server = broker.bootstrap();
    a.timeout_ms = 5000;
    std::ostringstream o, e;
    int rc = run_group_command(a, o, e);
    out = o.str();
    err = e.str();
    return rc;
  }
};

// Whether some line of a table has exactly these cells (or starts with them).
bool has_row(const std::string& text, const std::vector<std::string>& want, bool prefix = false) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<std::string> row;
    std::string cell;
    while (ls >> cell) row.push_back(cell);
    if (prefix && row.size() > want.size()) row.resize(want.size());
    if (row == want) return true;
  }
  return false;
}

GroupArgs args(const std::string& action, std::vector<std::string> groups = {}) {
  GroupArgs a;
  a.action = action;
  a.groups = std::move(groups);
  return a;
}

TEST(GroupAdminFake, DescribeRetriesALoadingCoordinatorAndJoinsRows) {
  Harness h;
  h.script.coordinator_loading = 2;
  std::string out, err;
  GroupArgs a = args("describe", {"g"});
  a.output = OutputFormat::kJson;
  ASSERT_EQ(h.run(a, out, err), kExitOk) << err;
  EXPECT_EQ(h.broker.count(proto::FindCoordinatorRequest::kApiKey), 3);
  auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["state"], "Stable");
  ASSERT_EQ(j[0]["offsets"].size(), 2u);
  EXPECT_EQ(j[0]["offsets"][0]["consumer_id"], "a");
  EXPECT_EQ(j[0]["offsets"][0]["lag"], 6);  // 10 - 4
  EXPECT_EQ(j[0]["offsets"][1]["consumer_id"], "b");
  EXPECT_TRUE(j[0]["offsets"][1]["current_offset"].is_null());  // assigned, never committed
}

TEST(GroupAdminFake, UndecodableAssignmentIsShownAsNone) {
  Harness h;
  h.script.assignment_b = Bytes{0, 0, 0x7f, 0, 0, 0, 1};
  std::string out, err;
  GroupArgs a = args("describe", {"g"});
  a.members = true;
  ASSERT_EQ(h.run(a, out, err), kExitOk) << err;
  EXPECT_TRUE(has_row(out, {"g", "b", "/h", "ca", "0"})) << out;
  EXPECT_TRUE(has_row(out, {"g", "a", "/h", "ca", "1"})) << out;
}

TEST(GroupAdminFake, ListBeforeV4TakesStatesFromDescribeGroups) {
  Harness h(/*list_groups_max=*/3);
  h.script.state = "CompletingRebalance";
  std::string out, err;
  GroupArgs a = args("list");
  a.output = OutputFormat::kJson;
  ASSERT_EQ(h.run(a, out, err), kExitOk) << err;
  EXPECT_EQ(nlohmann::json::parse(out),
            nlohmann::json::parse(R"([{"group":"g","state":"CompletingRebalance","protocol_type":"consumer"},
                                      {"group":"offsets-only","state":"Empty","protocol_type":""}])"));
  a.states = {"Empty"};
  ASSERT_EQ(h.run(a, out, err), kExitOk) << err;
  EXPECT_EQ(nlohmann::json::parse(out).size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(out)[0]["group"], "offsets-only");
}

TEST(GroupAdminFake, ResetRefusesAnActiveGroupBeforeCommitting) {
  Harness h;
  std::string out, err;
  GroupArgs a = args("reset-offsets", {"g"});
  a.topics = {"t"};
  a.to_earliest = true;
  a.execute = true;
  EXPECT_EQ(h.run(a, out, err), kExitFailure);
  EXPECT_NE(err.find("inactive, but the current state is Stable"), std::string::npos) << err;
  EXPECT_EQ(h.broker.count(proto::OffsetCommitRequest::kApiKey), 0);
}

TEST(GroupAdminFake, ResetShowsTheBrokersRefusal) {
  Harness h;
  h.script.state = "Empty";
  h.script.commit_error = proto::ErrorCode::kUnknownMemberId;  // UNKNOWN_MEMBER_ID: a consumer joined meanwhile
  std::string out, err;
  GroupArgs a = args("reset-offsets", {"g"});
  a.topics = {"t:1"};
  a.to_offset = 99;
  a.execute = true;
  EXPECT_EQ(h.run(a, out, err), kExitFailure);
  EXPECT_NE(err.find("UNKNOWN_MEMBER_ID (the group is active"), std::string::npos) << err;
  // 99 is clamped to the log end.
  EXPECT_TRUE(has_row(out, {"g", "t", "1", "10", "UNKNOWN_MEMBER_ID"}, /*prefix=*/true)) << out;

  h.script.commit_error = proto::ErrorCode::kNone;
  a.to_offset.reset();
  a.shift_by = -100;  // partition 1 has no committed offset
  EXPECT_EQ(h.run(a, out, err), kExitFailure);
  EXPECT_NE(out.find("no committed offset to shift from"), std::string::npos) << out;
  EXPECT_NE(err.find("nothing was committed"), std::string::npos) << err;
  EXPECT_EQ(h.broker.count(proto::OffsetCommitRequest::kApiKey), 1);

  a.topics = {"t:0"};
  EXPECT_EQ(h.run(a, out, err), kExitOk) << err;
  EXPECT_TRUE(has_row(out, {"g", "t", "0", "2"})) << out;  // 4 - 100, clamped to log start 2
  EXPECT_EQ(h.broker.count(proto::OffsetCommitRequest::kApiKey), 2);

  a.topics = {"t:5"};
  EXPECT_EQ(h.run(a, out, err), kExitFailure);
  EXPECT_NE(err.find("has no partition 5"), std::string::npos) << err;
}

TEST(GroupAdminFake, MalformedAndMissingResponsesAreErrors) {
  Harness h;
  h.script.malformed_describe = true;
  std::string out, err;
  EXPECT_EQ(h.run(args("describe", {"g"}), out, err), kExitFailure);
  EXPECT_NE(err.find("malformed DescribeGroups"), std::string::npos) << err;
  // DeleteGroups is answered with an empty body by the fake.
  EXPECT_EQ(h.run(args("delete", {"g"}), out, err), kExitFailure);
  EXPECT_FALSE(err.empty());
}

}  // namespace
}  // namespace spool::cli
