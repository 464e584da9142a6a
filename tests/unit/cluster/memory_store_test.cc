// MemoryStore / MemoryTree: ZooKeeper semantics (versions, zxids, cversion,
// sequential names, ephemerals, one-shot watches, multi), the session test
// hooks (expire, disconnect), both delivery modes and the two helpers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cluster/memory_store.h"
#include "cluster/store_path.h"

namespace spool::cluster {
namespace {

// Records watch events as "EVENT path" strings.
struct Events {
  std::vector<std::string> seen;
  Watcher watcher(const std::string& tag = "") {
    return [this, tag](WatchEvent ev, const std::string& path) {
      static const char* names[] = {"created", "deleted", "data", "children", "lost"};
      seen.push_back(tag + names[static_cast<int>(ev)] + " " + path);
    };
  }
};

class MemoryStoreTest : public ::testing::Test {
 protected:
  std::shared_ptr<MemoryTree> tree = std::make_shared<MemoryTree>();
  MemoryStore a{tree};
  MemoryStore b{tree};
};

TEST_F(MemoryStoreTest, CreateGetSetRemoveWithVersionsAndZxids) {
  EXPECT_EQ(tree->last_zxid(), 0);
  auto c = a.create("/x", "one");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(*c, "/x");
  auto g = b.get("/x");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->data, "one");
  EXPECT_EQ(g->stat.czxid, 1);
  EXPECT_EQ(g->stat.mzxid, 1);
  EXPECT_EQ(g->stat.version, 0);
  EXPECT_EQ(g->stat.ephemeral_owner, 0);

  auto s = b.set("/x", "two", 0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->version, 1);
  EXPECT_EQ(s->czxid, 1);
  EXPECT_EQ(s->mzxid, 2);
  auto stale = a.set("/x", "three", 0);
  EXPECT_EQ(stale.code(), StoreCode::kBadVersion);
  EXPECT_EQ(a.get("/x")->data, "two");
  EXPECT_EQ(tree->last_zxid(), 2);  // a failed write takes no zxid
  EXPECT_TRUE(a.set("/x", "any", -1));
  EXPECT_EQ(a.get("/x")->stat.version, 2);

  EXPECT_EQ(a.create("/x", "").code(), StoreCode::kNodeExists);
  EXPECT_EQ(a.create("/no/parent", "").code(), StoreCode::kNoNode);
  EXPECT_EQ(a.get("/nope").code(), StoreCode::kNoNode);
  EXPECT_EQ(a.set("/nope", "").code(), StoreCode::kNoNode);
  EXPECT_EQ(a.remove("/nope").code(), StoreCode::kNoNode);
  EXPECT_EQ(a.remove("/x", 1).code(), StoreCode::kBadVersion);
  ASSERT_TRUE(a.create("/x/kid", ""));
  EXPECT_EQ(a.remove("/x").code(), StoreCode::kNotEmpty);
  EXPECT_TRUE(a.remove("/x/kid"));
  EXPECT_TRUE(a.remove("/x", 2));
  EXPECT_EQ(a.exists("/x").code(), StoreCode::kNoNode);
}

TEST_F(MemoryStoreTest, BadPathsAreInvalidArgument) {
  for (const char* p : {"", "x", "/x/", "//x", "/x//y", "/./x", "/x/..", "/a/./b"}) {
    EXPECT_EQ(a.create(p, "").code(), StoreCode::kInvalidArgument) << p;
    EXPECT_EQ(a.get(p).code(), StoreCode::kInvalidArgument) << p;
    EXPECT_FALSE(path_error(p).empty()) << p;
  }
  std::string nul("/a\0b", 4);
  EXPECT_EQ(a.create(nul, "").code(), StoreCode::kInvalidArgument);
  EXPECT_EQ(a.remove("/").code(), StoreCode::kInvalidArgument);
  EXPECT_EQ(a.create("/", "").code(), StoreCode::kNodeExists);
  EXPECT_TRUE(a.exists("/"));
  EXPECT_EQ(parent_path("/a/b"), "/a");
  EXPECT_EQ(parent_path("/a"), "/");
  EXPECT_EQ(node_name("/a/b"), "b");
  EXPECT_EQ(join_path("/", "a"), "/a");
  EXPECT_EQ(join_path("/a", "b"), "/a/b");
}

TEST_F(MemoryStoreTest, ChildrenSortedWithCversionAndNumChildren) {
  ASSERT_TRUE(a.create("/p", ""));
  for (const char* n : {"c", "a", "b"}) ASSERT_TRUE(a.create(std::string("/p/") + n, ""));
  auto kids = b.children("/p");
  ASSERT_TRUE(kids);
  EXPECT_EQ(*kids, (std::vector<std::string>{"a", "b", "c"}));
  auto st = b.exists("/p");
  EXPECT_EQ(st->num_children, 3);
  EXPECT_EQ(st->cversion, 3);
  EXPECT_EQ(st->version, 0);  // children do not touch the data version
  ASSERT_TRUE(a.remove("/p/b"));
  EXPECT_EQ(b.exists("/p")->cversion, 4);
  EXPECT_EQ(b.exists("/p")->num_children, 2);
  EXPECT_EQ(b.children("/none").code(), StoreCode::kNoNode);
}

TEST_F(MemoryStoreTest, SequentialNamesTakeTheParentCversion) {
  ASSERT_TRUE(a.create("/q", ""));
  ASSERT_TRUE(a.create("/q/other", ""));  // cversion 1
  auto s1 = a.create("/q/item-", "", CreateMode::kPersistentSequential);
  ASSERT_TRUE(s1);
  EXPECT_EQ(*s1, "/q/item-0000000001");
  auto s2 = b.create("/q/item-", "", CreateMode::kEphemeralSequential);
  ASSERT_TRUE(s2);
  EXPECT_EQ(*s2, "/q/item-0000000002");
  auto s3 = a.create("/q/", "", CreateMode::kPersistentSequential);
  ASSERT_TRUE(s3);
  EXPECT_EQ(*s3, "/q/0000000003");
  EXPECT_EQ(b.get(*s2)->stat.ephemeral_owner, b.session_id());
  EXPECT_EQ(a.create("/none/x-", "", CreateMode::kPersistentSequential).code(), StoreCode::kNoNode);
}

TEST_F(MemoryStoreTest, EphemeralsBelongToTheSessionAndCannotHaveChildren) {
  EXPECT_NE(a.session_id(), 0);
  EXPECT_NE(a.session_id(), b.session_id());
  ASSERT_TRUE(a.create("/e", "x", CreateMode::kEphemeral));
  EXPECT_EQ(b.get("/e")->stat.ephemeral_owner, a.session_id());
  EXPECT_EQ(a.create("/e/kid", "").code(), StoreCode::kInvalidArgument);
  // Another session may delete it (ZooKeeper allows it).
  EXPECT_TRUE(b.remove("/e"));
}

TEST_F(MemoryStoreTest, WatchesAreOneShotAndQueuedUntilDelivered) {
  Events ev;
  ASSERT_TRUE(a.create("/w", "0"));
  ASSERT_TRUE(b.get("/w", ev.watcher("get:")));
  ASSERT_TRUE(b.exists("/w", ev.watcher("exists:")));
  ASSERT_TRUE(b.children("/w", ev.watcher("kids:")));
  EXPECT_EQ(b.exists("/later", ev.watcher("exists:")).code(), StoreCode::kNoNode);  // set while absent
  EXPECT_EQ(b.get("/absent", ev.watcher("never:")).code(), StoreCode::kNoNode);     // get sets none

  ASSERT_TRUE(a.set("/w", "1"));
  EXPECT_TRUE(ev.seen.empty());  // nothing before deliver()
  EXPECT_EQ(tree->pending_events(), 2u);
  EXPECT_EQ(tree->deliver(), 2u);
  EXPECT_EQ(ev.seen, (std::vector<std::string>{"get:data /w", "exists:data /w"}));

  ev.seen.clear();
  ASSERT_TRUE(a.set("/w", "2"));  // one-shot: the data watches are gone
  ASSERT_TRUE(a.create("/w/k", ""));
  ASSERT_TRUE(a.create("/later", ""));
  tree->deliver();
  EXPECT_EQ(ev.seen, (std::vector<std::string>{"kids:children /w", "exists:created /later"}));

  ev.seen.clear();
  ASSERT_TRUE(b.get("/w/k", ev.watcher("get:")));
  ASSERT_TRUE(b.children("/w/k", ev.watcher("kids:")));
  ASSERT_TRUE(b.children("/w", ev.watcher("parent:")));
  ASSERT_TRUE(a.remove("/w/k"));
  tree->deliver();
  EXPECT_EQ(ev.seen, (std::vector<std::string>{"get:deleted /w/k", "kids:deleted /w/k", "parent:children /w"}));
  EXPECT_EQ(tree->deliver(), 0u);
}

TEST_F(MemoryStoreTest, TheWritersOwnWatchesFireToo) {
  Events ev;
  ASSERT_TRUE(a.create("/own", ""));
  ASSERT_TRUE(a.get("/own", ev.watcher()));
  ASSERT_TRUE(a.set("/own", "x"));
  tree->deliver();
  EXPECT_EQ(ev.seen, (std::vector<std::string>{"data /own"}));
}

TEST_F(MemoryStoreTest, MultiIsAllOrNothingWithOneZxid) {
  ASSERT_TRUE(a.create("/epoch", "1"));
  ASSERT_TRUE(a.create("/t", ""));
  int64_t before = tree->last_zxid();
  auto fail = b.multi({Op::create("/t/a", "x"), Op::check("/epoch", 5), Op::set_data("/t", "y")});
  ASSERT_FALSE(fail);
  EXPECT_EQ(fail.code(), StoreCode::kBadVersion);
  EXPECT_NE(fail.error().message.find("multi op 1"), std::string::npos) << fail.error().message;
  EXPECT_EQ(a.exists("/t/a").code(), StoreCode::kNoNode);
  EXPECT_EQ(a.get("/t")->data, "");
  EXPECT_EQ(tree->last_zxid(), before);

  Events ev;
  ASSERT_TRUE(a.children("/t", ev.watcher()));
  auto ok = b.multi({Op::check("/epoch", 0), Op::create("/t/a", "x"), Op::create("/t/s-", "", CreateMode::kPersistentSequential),
                     Op::set_data("/t", "y", 0), Op::remove("/t/a")});
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_EQ(ok->size(), 5u);
  EXPECT_EQ((*ok)[1].created_path, "/t/a");
  EXPECT_EQ((*ok)[2].created_path, "/t/s-0000000001");  // sees the create before it
  EXPECT_EQ((*ok)[3].stat.version, 1);
  EXPECT_EQ(tree->last_zxid(), before + 1);
  EXPECT_EQ(a.get("/t/s-0000000001")->stat.czxid, before + 1);
  EXPECT_EQ(a.get("/t")->stat.mzxid, before + 1);
  EXPECT_EQ(a.exists("/t/a").code(), StoreCode::kNoNode);
  tree->deliver();
  EXPECT_EQ(ev.seen, (std::vector<std::string>{"children /t"}));  // once

  EXPECT_EQ(b.multi({Op::remove("/none")}).code(), StoreCode::kNoNode);
  EXPECT_EQ(b.multi({Op::create("/t", "")}).code(), StoreCode::kNodeExists);
  EXPECT_EQ(b.multi({Op::check("/none", -1)}).code(), StoreCode::kNoNode);
  EXPECT_TRUE(b.multi({}));
}

TEST_F(MemoryStoreTest, ExpireDeletesEphemeralsNotifiesOthersAndFailsOps) {
  std::vector<SessionState> a_states;
  a.set_session_listener([&](SessionState s) { a_states.push_back(s); });
  ASSERT_TRUE(a.create("/brokers", ""));
  ASSERT_TRUE(a.create("/brokers/1", "a", CreateMode::kEphemeral));
  ASSERT_TRUE(a.create("/keep", ""));
  Events mine, others;
  ASSERT_TRUE(a.get("/keep", mine.watcher()));
  ASSERT_TRUE(b.exists("/brokers/1", others.watcher("node:")));
  ASSERT_TRUE(b.children("/brokers", others.watcher("ids:")));
  int64_t old_id = a.session_id();
  a.expire();
  tree->deliver();
  EXPECT_EQ(mine.seen, (std::vector<std::string>{"lost /keep"}));
  EXPECT_EQ(others.seen, (std::vector<std::string>{"node:deleted /brokers/1", "ids:children /brokers"}));
  EXPECT_EQ(a_states, (std::vector<SessionState>{SessionState::kExpired}));
  EXPECT_EQ(b.exists("/brokers/1").code(), StoreCode::kNoNode);
  EXPECT_EQ(a.get("/keep").code(), StoreCode::kSessionExpired);
  EXPECT_EQ(a.create("/x", "").code(), StoreCode::kSessionExpired);
  EXPECT_EQ(a.multi({Op::check("/keep", -1)}).code(), StoreCode::kSessionExpired);
  // A later write does not reach the dead watch again.
  ASSERT_TRUE(b.set("/keep", "z"));
  tree->deliver();
  EXPECT_EQ(mine.seen.size(), 1u);

  ASSERT_TRUE(a.reconnect());
  tree->deliver();
  EXPECT_NE(a.session_id(), old_id);
  EXPECT_EQ(a_states.back(), SessionState::kConnected);
  auto again = a.create("/brokers/1", "a", CreateMode::kEphemeral);
  ASSERT_TRUE(again);
  EXPECT_EQ(b.get("/brokers/1")->stat.ephemeral_owner, a.session_id());
  EXPECT_GT(b.get("/brokers/1")->stat.czxid, 2);  // a new broker epoch
}

TEST_F(MemoryStoreTest, DisconnectHoldsEventsAndKeepsTheSession) {
  std::vector<SessionState> states;
  a.set_session_listener([&](SessionState s) { states.push_back(s); });
  ASSERT_TRUE(a.create("/d", "", CreateMode::kEphemeral));
  Events ev;
  ASSERT_TRUE(a.get("/d", ev.watcher()));
  int64_t id = a.session_id();
  a.disconnect();
  EXPECT_EQ(a.get("/d").code(), StoreCode::kConnectionLoss);
  EXPECT_EQ(a.set("/d", "").code(), StoreCode::kConnectionLoss);
  EXPECT_EQ(a.multi({Op::check("/d", -1)}).code(), StoreCode::kConnectionLoss);
  ASSERT_TRUE(b.set("/d", "changed"));
  tree->deliver();
  EXPECT_EQ(states, (std::vector<SessionState>{SessionState::kDisconnected}));
  EXPECT_TRUE(ev.seen.empty());  // held
  EXPECT_TRUE(b.exists("/d"));   // the ephemeral survives
  a.restore_connection();
  tree->deliver();
  EXPECT_EQ(states, (std::vector<SessionState>{SessionState::kDisconnected, SessionState::kConnected}));
  EXPECT_EQ(ev.seen, (std::vector<std::string>{"data /d"}));
  EXPECT_EQ(a.session_id(), id);
  EXPECT_EQ(a.get("/d")->data, "changed");
  // reconnect() from a disconnect keeps the session as well.
  a.disconnect();
  ASSERT_TRUE(a.reconnect());
  EXPECT_EQ(a.session_id(), id);
  EXPECT_TRUE(a.get("/d"));
}

TEST_F(MemoryStoreTest, ExpiryWhileDisconnectedDropsHeldEvents) {
  Events ev;
  ASSERT_TRUE(a.create("/h", ""));
  ASSERT_TRUE(a.get("/h", ev.watcher()));
  a.disconnect();
  ASSERT_TRUE(b.set("/h", "x"));  // held for a
  a.expire();
  tree->deliver();
  EXPECT_TRUE(ev.seen.empty());  // its watch already fired (held); dropped with the session
}

TEST(MemoryStoreLifetime, DestroyingAStoreClosesItsSession) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore watcher(tree);
  Events ev;
  {
    MemoryStore broker(tree);
    ASSERT_TRUE(broker.create("/b", "", CreateMode::kEphemeral));
    ASSERT_TRUE(broker.create("/p", ""));
    ASSERT_TRUE(broker.get("/p", ev.watcher("dead:")));
    ASSERT_TRUE(watcher.exists("/b", ev.watcher()));
    EXPECT_EQ(tree->session_count(), 2u);
    ASSERT_TRUE(watcher.set("/p", "queued"));  // queues an event for broker's watch
  }
  EXPECT_EQ(tree->session_count(), 1u);
  tree->deliver();
  EXPECT_EQ(ev.seen, (std::vector<std::string>{"deleted /b"}));  // the closed store gets nothing
  EXPECT_EQ(watcher.exists("/b").code(), StoreCode::kNoNode);
  EXPECT_TRUE(watcher.exists("/p"));
}

TEST(MemoryStoreDelivery, ThreadModeDeliversInOrderOnItsThread) {
  auto tree = std::make_shared<MemoryTree>(MemoryTree::Delivery::kThread);
  MemoryStore s(tree);
  std::mutex mu;
  std::vector<int> order;
  std::thread::id where;
  ASSERT_TRUE(s.create("/n", ""));
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(s.get("/n", [&, i](WatchEvent, const std::string&) {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
      where = std::this_thread::get_id();
    }));
  }
  ASSERT_TRUE(s.set("/n", "x"));
  ASSERT_TRUE(tree->drain(std::chrono::seconds(5)));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_NE(where, std::this_thread::get_id());
}

TEST(MemoryStoreDelivery, CallbacksMayReadTheStoreAndReArm) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s(tree);
  ASSERT_TRUE(s.create("/r", "0"));
  std::vector<std::string> values;
  std::function<void(WatchEvent, const std::string&)> rearm = [&](WatchEvent, const std::string& p) {
    auto g = s.get(p, rearm);
    if (g) values.push_back(g->data);
  };
  ASSERT_TRUE(s.get("/r", rearm));
  ASSERT_TRUE(s.set("/r", "1"));
  tree->deliver();
  ASSERT_TRUE(s.set("/r", "2"));
  tree->deliver();
  EXPECT_EQ(values, (std::vector<std::string>{"1", "2"}));
}

TEST(MemoryStoreConcurrency, ParallelVersionedIncrementsLoseNothing) {
  auto tree = std::make_shared<MemoryTree>(MemoryTree::Delivery::kThread);
  MemoryStore setup(tree);
  ASSERT_TRUE(setup.create("/counter", "0"));
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      MemoryStore s(tree);
      for (int done = 0; done < 50;) {
        auto g = s.get("/counter");
        if (!g) { ++bad; return; }
        auto r = s.set("/counter", std::to_string(std::stoi(g->data) + 1), g->stat.version);
        if (r) ++done;
        else if (r.code() != StoreCode::kBadVersion) { ++bad; return; }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(setup.get("/counter")->data, "200");
  EXPECT_EQ(setup.get("/counter")->stat.version, 200);
}

TEST_F(MemoryStoreTest, EnsurePathAndRemoveRecursive) {
  ASSERT_TRUE(ensure_path(a, "/config/topics/t"));
  ASSERT_TRUE(ensure_path(a, "/config/topics/t"));  // idempotent
  EXPECT_TRUE(ensure_path(a, "/"));
  EXPECT_EQ(ensure_path(a, "bad").code(), StoreCode::kInvalidArgument);
  EXPECT_EQ(*a.children("/config"), (std::vector<std::string>{"topics"}));
  ASSERT_TRUE(a.create("/config/topics/u", ""));
  ASSERT_TRUE(a.create("/config/topics/u/x", ""));
  auto r = remove_recursive(a, "/config");
  ASSERT_TRUE(r);
  EXPECT_TRUE(*r);
  EXPECT_EQ(a.exists("/config").code(), StoreCode::kNoNode);
  auto gone = remove_recursive(a, "/config");
  ASSERT_TRUE(gone);
  EXPECT_FALSE(*gone);
  EXPECT_EQ(remove_recursive(a, "/").code(), StoreCode::kInvalidArgument);
  a.disconnect();
  EXPECT_EQ(ensure_path(a, "/z").code(), StoreCode::kConnectionLoss);
  EXPECT_EQ(remove_recursive(a, "/z").code(), StoreCode::kConnectionLoss);
}

TEST(MemoryTreePersistence, SavedNodesRoundTripWithoutEphemerals) {
  auto tree = std::make_shared<MemoryTree>();
  {
    MemoryStore s(tree);
    ASSERT_TRUE(ensure_path(s, "/brokers/ids"));
    ASSERT_TRUE(s.create("/brokers/ids/0", "e", CreateMode::kEphemeral));
    ASSERT_TRUE(s.set("/brokers", "v1"));
    auto saved = tree->persistent_nodes();
    ASSERT_EQ(saved.size(), 3u);
    EXPECT_EQ(saved[0].path, "/");
    EXPECT_EQ(saved[1].path, "/brokers");
    EXPECT_EQ(saved[1].stat.version, 1);
    EXPECT_EQ(saved[2].path, "/brokers/ids");
    EXPECT_EQ(saved[2].stat.cversion, 1);
    auto other = std::make_shared<MemoryTree>();
    ASSERT_TRUE(other->load(saved, tree->last_zxid()));
    MemoryStore t(other);
    EXPECT_EQ(t.get("/brokers")->data, "v1");
    EXPECT_EQ(t.exists("/brokers")->num_children, 1);
    EXPECT_EQ(t.exists("/brokers/ids/0").code(), StoreCode::kNoNode);
    auto c = t.create("/n", "");
    ASSERT_TRUE(c);
    EXPECT_EQ(t.get("/n")->stat.czxid, tree->last_zxid() + 1);  // zxids keep growing
    EXPECT_EQ(tree->load(saved, 0).code(), StoreCode::kInvalidArgument);  // a live ephemeral
  }
  MemoryTree fresh;
  using N = MemoryTree::SavedNode;
  EXPECT_EQ(fresh.load({N{"/a/b", "", {}}}, 0).code(), StoreCode::kInvalidArgument);  // orphan
  EXPECT_EQ(fresh.load({N{"/a", "", {}}, N{"/a", "", {}}}, 0).code(), StoreCode::kInvalidArgument);
  EXPECT_EQ(fresh.load({N{"bad", "", {}}}, 0).code(), StoreCode::kInvalidArgument);
  Stat eph;
  eph.ephemeral_owner = 7;
  EXPECT_EQ(fresh.load({N{"/e", "", eph}}, 0).code(), StoreCode::kInvalidArgument);
  EXPECT_TRUE(fresh.load({N{"/a", "x", {}}}, 9));
  EXPECT_EQ(fresh.last_zxid(), 9);
}

TEST(StoreCodes, NamesAreStable) {
  EXPECT_STREQ(store_code_name(StoreCode::kOk), "OK");
  EXPECT_STREQ(store_code_name(StoreCode::kNoNode), "NO_NODE");
  EXPECT_STREQ(store_code_name(StoreCode::kBadVersion), "BAD_VERSION");
  EXPECT_STREQ(store_code_name(StoreCode::kSessionExpired), "SESSION_EXPIRED");
  EXPECT_STREQ(store_code_name(static_cast<StoreCode>(99)), "UNKNOWN");
  Op c = Op::create("/a", "d", CreateMode::kEphemeral);
  EXPECT_EQ(c.kind, Op::Kind::kCreate);
  EXPECT_EQ(c.mode, CreateMode::kEphemeral);
  EXPECT_EQ(Op::remove("/a", 3).version, 3);
  EXPECT_EQ(Op::set_data("/a", "x").version, -1);
  EXPECT_EQ(Op::check("/a", 2).kind, Op::Kind::kCheck);
}

}  // namespace
}  // namespace spool::cluster
