// ZooKeeperStore against a real ZooKeeper 3.8 (ctest starts one with
// tests/support/zk-server and passes it by SPOOL_TEST_ZK_DIR; SPOOL_TEST_ZK
// =host:port points at another). Not a unit test (label zk): it needs java.
// The restart test runs its own server with the same script
// (SPOOL_ZK_SERVER overrides its path). Every test works under its own random chroot so tests and reruns never
// see each other's nodes.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <zookeeper/zookeeper.h>

#include <chrono>
#include <condition_variable>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cluster/zookeeper_store.h"
#include "common/temp_dir.h"

namespace spool::cluster {
namespace {

using namespace std::chrono_literals;

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The server's "host:port"; a failure (never a skip) when none is configured.
std::string zk_hosts() {
  if (const char* env = std::getenv("SPOOL_TEST_ZK"); env && *env) return env;
  if (const char* dir = std::getenv("SPOOL_TEST_ZK_DIR"); dir && *dir) {
    std::string hosts = read_line(std::string(dir) + "/zk.connect");
    if (!hosts.empty()) return hosts;
    ADD_FAILURE() << dir << "/zk.connect is missing: the zk_server_start fixture did not run";
    return "127.0.0.1:1";
  }
  ADD_FAILURE() << "no ZooKeeper: run through ctest (-L zk), or set SPOOL_TEST_ZK=host:port";
  return "127.0.0.1:1";
}

std::string unique_chroot() {
  static std::mt19937_64 rng(std::random_device{}());
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return std::string("/spool-test/") + info->name() + "-" + buf;
}

// Thread-safe event log with a bounded wait.
struct Events {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> seen;
  void add(std::string s) {
    std::lock_guard<std::mutex> g(mu);
    seen.push_back(std::move(s));
    cv.notify_all();
  }
  Watcher watcher(const std::string& tag = "") {
    return [this, tag](WatchEvent ev, const std::string& path) {
      static const char* names[] = {"created", "deleted", "data", "children", "lost"};
      add(tag + names[static_cast<int>(ev)] + " " + path);
    };
  }
  SessionListener listener() {
    return [this](SessionState s) {
      static const char* names[] = {"connected", "disconnected", "expired"};
      add(std::string("session ") + names[static_cast<int>(s)]);
    };
  }
  bool wait_for(size_t n, std::chrono::milliseconds timeout = 15s) {
    std::unique_lock<std::mutex> g(mu);
    return cv.wait_for(g, timeout, [&] { return seen.size() >= n; });
  }
  bool wait_contains(const std::string& s, std::chrono::milliseconds timeout = 15s) {
    std::unique_lock<std::mutex> g(mu);
    return cv.wait_for(g, timeout, [&] { return std::find(seen.begin(), seen.end(), s) != seen.end(); });
  }
  std::vector<std::string> snapshot() {
    std::lock_guard<std::mutex> g(mu);
    return seen;
  }
};

std::unique_ptr<ZooKeeperStore> open_store(const std::string& connect, int32_t session_ms = 6000,
                                           int32_t connection_ms = 10000) {
  ZooKeeperOptions o;
  o.connect = connect;
  o.session_timeout_ms = session_ms;
  o.connection_timeout_ms = connection_ms;
  auto s = ZooKeeperStore::open(o);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return s ? std::move(s.value()) : nullptr;
}

class ZooKeeperStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hosts = zk_hosts();
    chroot = unique_chroot();
    store = open_store(hosts + chroot);
    ASSERT_NE(store, nullptr);
  }
  std::string hosts;
  std::string chroot;
  std::unique_ptr<ZooKeeperStore> store;
};

TEST(ZooKeeperOptions, ConnectStringsAndRefusals) {
  auto p = parse_zk_connect("h1:2181,h2:2182/kafka/a");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->hosts, "h1:2181,h2:2182");
  EXPECT_EQ(p->chroot, "/kafka/a");
  EXPECT_EQ(parse_zk_connect("h:1/")->chroot, "");
  EXPECT_EQ(parse_zk_connect("h")->chroot, "");
  for (const char* bad : {"", "/chroot", "h:1,,h:2", "h:x", "h:99999", "h:1/a/", "h:1//a", ":1"})
    EXPECT_EQ(parse_zk_connect(bad).code(), StoreCode::kInvalidArgument) << bad;

  ZooKeeperOptions acl;
  acl.connect = "127.0.0.1:1";
  acl.set_acl = true;
  auto refused = ZooKeeperStore::open(acl);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.code(), StoreCode::kInvalidArgument);
  EXPECT_NE(refused.error().message.find("zookeeper.set.acl"), std::string::npos);

  // Nobody listens on port 1: kConnectionLoss after the connection timeout, not a hang.
  ZooKeeperOptions none;
  none.connect = "127.0.0.1:1";
  none.connection_timeout_ms = 700;
  auto t0 = std::chrono::steady_clock::now();
  auto down = ZooKeeperStore::open(none);
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(down);
  EXPECT_EQ(down.code(), StoreCode::kConnectionLoss);
  EXPECT_NE(down.error().message.find("zookeeper.connection.timeout.ms"), std::string::npos) << down.error().message;
  EXPECT_GE(took, 600ms);
  EXPECT_LT(took, 5s);
}

TEST_F(ZooKeeperStoreTest, ChrootIsCreatedAndPathsAreRelativeToIt) {
  ASSERT_TRUE(store->create("/x", "in-chroot"));
  auto top = open_store(hosts);
  ASSERT_NE(top, nullptr);
  auto g = top->get(chroot + "/x");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->data, "in-chroot");
  auto kids = store->children("/");
  ASSERT_TRUE(kids);
  EXPECT_EQ(*kids, (std::vector<std::string>{"x"}));
}

TEST_F(ZooKeeperStoreTest, CreateGetSetRemoveWithVersions) {
  auto c = store->create("/n", "one");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(*c, "/n");
  auto g = store->get("/n");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->data, "one");
  EXPECT_EQ(g->stat.version, 0);
  EXPECT_EQ(g->stat.ephemeral_owner, 0);
  EXPECT_GT(g->stat.czxid, 0);
  EXPECT_EQ(g->stat.czxid, g->stat.mzxid);
  auto s = store->set("/n", "two", 0);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->version, 1);
  EXPECT_EQ(s->czxid, g->stat.czxid);
  EXPECT_GT(s->mzxid, g->stat.mzxid);
  EXPECT_EQ(store->set("/n", "x", 0).code(), StoreCode::kBadVersion);
  EXPECT_EQ(store->get("/n")->data, "two");
  EXPECT_EQ(store->create("/n", "").code(), StoreCode::kNodeExists);
  EXPECT_EQ(store->create("/a/b", "").code(), StoreCode::kNoNode);
  EXPECT_EQ(store->get("/none").code(), StoreCode::kNoNode);
  EXPECT_EQ(store->exists("/none").code(), StoreCode::kNoNode);
  EXPECT_EQ(store->get("bad").code(), StoreCode::kInvalidArgument);
  ASSERT_TRUE(store->create("/n/k", ""));
  EXPECT_EQ(store->remove("/n").code(), StoreCode::kNotEmpty);
  EXPECT_EQ(store->remove("/n/k", 3).code(), StoreCode::kBadVersion);
  EXPECT_TRUE(store->remove("/n/k", 0));
  EXPECT_TRUE(store->remove("/n"));
  EXPECT_EQ(store->remove("/n").code(), StoreCode::kNoNode);
  // Empty data and binary data survive the round trip.
  ASSERT_TRUE(store->create("/bin", std::string("a\0b", 3)));
  EXPECT_EQ(store->get("/bin")->data, std::string("a\0b", 3));
  ASSERT_TRUE(store->set("/bin", ""));
  EXPECT_EQ(store->get("/bin")->data, "");
}

TEST_F(ZooKeeperStoreTest, ChildrenSequentialAndEphemerals) {
  ASSERT_TRUE(store->create("/p", ""));
  for (const char* n : {"c", "a", "b"}) ASSERT_TRUE(store->create(std::string("/p/") + n, ""));
  EXPECT_EQ(*store->children("/p"), (std::vector<std::string>{"a", "b", "c"}));
  auto st = store->exists("/p");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->num_children, 3);
  EXPECT_EQ(st->cversion, 3);
  auto seq = store->create("/p/s-", "", CreateMode::kPersistentSequential);
  ASSERT_TRUE(seq);
  EXPECT_EQ(*seq, "/p/s-0000000003");
  auto eph = store->create("/p/e-", "", CreateMode::kEphemeralSequential);
  ASSERT_TRUE(eph);
  EXPECT_EQ(*eph, "/p/e-0000000004");
  auto e = store->create("/eph", "broker", CreateMode::kEphemeral);
  ASSERT_TRUE(e);
  auto g = store->get("/eph");
  EXPECT_EQ(g->stat.ephemeral_owner, store->session_id());
  EXPECT_NE(store->session_id(), 0);
  EXPECT_EQ(store->create("/eph/kid", "").code(), StoreCode::kInvalidArgument);
  EXPECT_EQ(store->children("/none").code(), StoreCode::kNoNode);
}

TEST_F(ZooKeeperStoreTest, MultiIsAllOrNothing) {
  ASSERT_TRUE(store->create("/epoch", "1"));
  ASSERT_TRUE(store->create("/t", ""));
  auto fail = store->multi({Op::create("/t/a", "x"), Op::check("/epoch", 5), Op::set_data("/t", "y")});
  ASSERT_FALSE(fail);
  EXPECT_EQ(fail.code(), StoreCode::kBadVersion);
  EXPECT_NE(fail.error().message.find("op 1"), std::string::npos) << fail.error().message;
  EXPECT_EQ(store->exists("/t/a").code(), StoreCode::kNoNode);
  EXPECT_EQ(store->get("/t")->data, "");
  auto ok = store->multi({Op::check("/epoch", 0), Op::create("/t/a", "x"),
                          Op::create("/t/s-", "", CreateMode::kPersistentSequential), Op::set_data("/t", "y", 0),
                          Op::remove("/t/a")});
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_EQ(ok->size(), 5u);
  EXPECT_EQ((*ok)[1].created_path, "/t/a");
  EXPECT_EQ((*ok)[2].created_path, "/t/s-0000000001");
  EXPECT_EQ((*ok)[3].stat.version, 1);
  auto s = store->get("/t/s-0000000001");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->stat.czxid, store->get("/t")->stat.mzxid);  // one transaction, one zxid
  EXPECT_EQ(store->multi({Op::remove("/none")}).code(), StoreCode::kNoNode);
  EXPECT_EQ(store->multi({Op::create("/t", "")}).code(), StoreCode::kNodeExists);
  EXPECT_EQ(store->multi({Op::check("bad", 0)}).code(), StoreCode::kInvalidArgument);
  EXPECT_TRUE(store->multi({}));
}

TEST_F(ZooKeeperStoreTest, WatchesAreOneShot) {
  Events ev;
  ASSERT_TRUE(store->create("/w", "0"));
  ASSERT_TRUE(store->get("/w", ev.watcher("get:")));
  ASSERT_TRUE(store->children("/w", ev.watcher("kids:")));
  EXPECT_EQ(store->exists("/later", ev.watcher("exists:")).code(), StoreCode::kNoNode);
  EXPECT_EQ(store->get("/absent", ev.watcher("never:")).code(), StoreCode::kNoNode);
  ASSERT_TRUE(store->set("/w", "1"));
  ASSERT_TRUE(ev.wait_contains("get:data /w"));
  ASSERT_TRUE(store->set("/w", "2"));  // fired already: nothing more for get:
  ASSERT_TRUE(store->create("/w/k", ""));
  ASSERT_TRUE(ev.wait_contains("kids:children /w"));
  ASSERT_TRUE(store->create("/later", ""));
  ASSERT_TRUE(ev.wait_contains("exists:created /later"));
  ASSERT_TRUE(store->create("/absent", ""));
  ASSERT_TRUE(store->exists("/w/k", ev.watcher("node:")));
  ASSERT_TRUE(store->remove("/w/k"));
  ASSERT_TRUE(ev.wait_contains("node:deleted /w/k"));
  EXPECT_EQ(ev.snapshot(), (std::vector<std::string>{"get:data /w", "kids:children /w", "exists:created /later",
                                                       "node:deleted /w/k"}));
}

// The classic trick: a second client takes the session over with its id and
// password and closes it; the server expires it for the first client. The
// victim's client reconnects at once when the takeover cuts its connection,
// and if it wins the session back before the close arrives, the close is
// dropped with the takeover's connection: so the trick is repeated (bounded)
// until `expired` (which waits a little) reports the expiry. The victim may
// learn of an expiry late (its client backs off before reconnecting), so a
// later takeover can find the session already gone: the server refuses it
// with an expired-session state, which ends the loop too.
enum class Takeover { kClosed, kAlreadyExpired };
Takeover take_over_and_close(const std::string& connect, ZooKeeperStore& victim);

void expire_for_real(const std::string& connect, ZooKeeperStore& victim, const std::function<bool()>& expired) {
  for (int attempt = 1; attempt <= 10; ++attempt) {
    if (take_over_and_close(connect, victim) == Takeover::kAlreadyExpired) {
      std::fprintf(stderr, "session takeover attempt %d found the session expired already\n", attempt);
      return;
    }
    if (expired()) return;
    std::fprintf(stderr, "session takeover attempt %d lost the race; again\n", attempt);
  }
  ADD_FAILURE() << "the session did not expire after 10 takeovers";
}

Takeover take_over_and_close(const std::string& connect, ZooKeeperStore& victim) {
  clientid_t id{};
  id.client_id = victim.session_id();
  std::string pw = victim.session_password();
  EXPECT_EQ(pw.size(), sizeof id.passwd);
  if (pw.size() != sizeof id.passwd) return Takeover::kClosed;
  std::memcpy(id.passwd, pw.data(), sizeof id.passwd);
  struct Ctx {
    std::mutex mu;
    std::condition_variable cv;
    bool connected = false;
    bool expired = false;
  } ctx;
  zhandle_t* zh = zookeeper_init(
      connect.c_str(),
      [](zhandle_t* h, int type, int state, const char*, void*) {
        auto* c = static_cast<Ctx*>(const_cast<void*>(zoo_get_context(h)));
        if (type != ZOO_SESSION_EVENT) return;
        std::lock_guard<std::mutex> g(c->mu);
        if (state == ZOO_CONNECTED_STATE) c->connected = true;
        if (state == ZOO_EXPIRED_SESSION_STATE) c->expired = true;
        c->cv.notify_all();
      },
      6000, &id, &ctx, 0);
  EXPECT_NE(zh, nullptr);
  if (zh == nullptr) return Takeover::kClosed;
  bool expired = false;
  {
    std::unique_lock<std::mutex> g(ctx.mu);
    EXPECT_TRUE(ctx.cv.wait_for(g, 15s, [&] { return ctx.connected || ctx.expired; }));
    expired = ctx.expired && !ctx.connected;
  }
  if (!expired) {
    EXPECT_EQ(zoo_client_id(zh)->client_id, victim.session_id());
  }
  zookeeper_close(zh);
  return expired ? Takeover::kAlreadyExpired : Takeover::kClosed;
}

TEST_F(ZooKeeperStoreTest, SessionExpiryAndReconnect) {
  Events mine, others;
  store->set_session_listener(mine.listener());
  auto peer = open_store(hosts + chroot);
  ASSERT_NE(peer, nullptr);
  ASSERT_TRUE(store->create("/ids", ""));
  ASSERT_TRUE(store->create("/ids/1", "a", CreateMode::kEphemeral));
  int64_t czxid = store->get("/ids/1")->stat.czxid;
  ASSERT_TRUE(store->get("/ids", mine.watcher()));
  ASSERT_TRUE(peer->exists("/ids/1", others.watcher("node:")));
  ASSERT_TRUE(peer->children("/ids", others.watcher("ids:")));
  int64_t old_session = store->session_id();

  expire_for_real(hosts, *store, [&] { return mine.wait_contains("session expired", 3s); });
  ASSERT_TRUE(mine.wait_contains("session expired")) << ::testing::PrintToString(mine.snapshot());
  ASSERT_TRUE(mine.wait_contains("lost /ids"));
  ASSERT_TRUE(others.wait_for(2));
  EXPECT_EQ(others.snapshot(), (std::vector<std::string>{"node:deleted /ids/1", "ids:children /ids"}));
  EXPECT_EQ(peer->exists("/ids/1").code(), StoreCode::kNoNode);
  EXPECT_EQ(store->get("/ids").code(), StoreCode::kSessionExpired);
  EXPECT_EQ(store->create("/x", "").code(), StoreCode::kSessionExpired);

  auto r = store->reconnect();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(store->session_id(), old_session);
  EXPECT_TRUE(mine.wait_contains("session connected"));
  ASSERT_TRUE(store->create("/ids/1", "a", CreateMode::kEphemeral));
  auto again = peer->get("/ids/1");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->stat.ephemeral_owner, store->session_id());
  EXPECT_GT(again->stat.czxid, czxid);  // the broker epoch moves on
  EXPECT_TRUE(store->reconnect());      // connected: nothing to do
}

TEST_F(ZooKeeperStoreTest, ClosingTheStoreRemovesItsEphemerals) {
  auto peer = open_store(hosts + chroot);
  ASSERT_NE(peer, nullptr);
  ASSERT_TRUE(store->create("/e", "", CreateMode::kEphemeral));
  Events ev;
  ASSERT_TRUE(peer->exists("/e", ev.watcher()));
  store.reset();
  ASSERT_TRUE(ev.wait_for(1));
  EXPECT_EQ(ev.snapshot(), (std::vector<std::string>{"deleted /e"}));
}

// A private server: killed -9 and restarted on the same port and data, so
// the session survives (standalone ZooKeeper keeps sessions in its log).
TEST(ZooKeeperStoreServerRestart, DisconnectKeepsTheSession) {
  const char* script = std::getenv("SPOOL_ZK_SERVER");
  if (!script || !*script) script = SPOOL_ZK_SERVER_SCRIPT;
  test_support::TempDir dir("spool-zk-restart");
  std::string start = std::string(script) + " start " + dir.path() + " 0 >/dev/null";
  ASSERT_EQ(std::system(start.c_str()), 0);
  std::string hosts = read_line(dir.sub("zk.connect"));
  struct Stop {
    std::string cmd;
    ~Stop() { (void)std::system(cmd.c_str()); }
  } stop{std::string(script) + " stop " + dir.path()};

  auto store = open_store(hosts, 10000, 1500);
  ASSERT_NE(store, nullptr);
  Events ev;
  store->set_session_listener(ev.listener());
  ASSERT_TRUE(store->create("/e", "", CreateMode::kEphemeral));
  int64_t session = store->session_id();

  ASSERT_EQ(std::system((std::string(script) + " kill9 " + dir.path()).c_str()), 0);
  ASSERT_TRUE(ev.wait_contains("session disconnected"));
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(store->get("/e").code(), StoreCode::kConnectionLoss);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // bounded by the connection timeout

  std::string port = hosts.substr(hosts.rfind(':') + 1);
  ASSERT_EQ(std::system((std::string(script) + " start " + dir.path() + " " + port + " >/dev/null").c_str()), 0);
  ASSERT_TRUE(ev.wait_contains("session connected", 20s)) << ::testing::PrintToString(ev.snapshot());
  auto g = store->get("/e");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->stat.ephemeral_owner, session);
  EXPECT_EQ(store->session_id(), session);
}

}  // namespace
}  // namespace spool::cluster
