// MemoryTree: the in-process node tree behind MemoryStore (and the embedded
// backend), shared by any number of sessions so one test can run a
// controller and three brokers on one tree.
//
// Semantics follow ZooKeeper 3.8: one global zxid, +1 per write transaction
// (a multi is one transaction, all its ops share the zxid); version +1 per
// set; a parent's cversion +1 per child create or delete; sequential names
// take the parent's cversion as a 10-digit suffix; ephemerals cannot have
// children; watches are one-shot per registration and fire for the writer's
// own session too.
//
// Delivery (the point of this class for tests): every watch event and
// session state change is queued, never run inside a store call.
// - Delivery::kManual (default): nothing runs until the test calls
//   deliver(), which runs the queue on the calling thread in order
//   (including events queued by the callbacks themselves). Deterministic.
// - Delivery::kThread: one delivery thread runs the queue in order (what a
//   real broker sees); drain() waits, bounded, until it is idle.
// Callbacks run without any tree lock held, so (unlike the real backend's
// rule) a callback here may call back into a store; production code must
// still not rely on that.
// Events for a disconnected session are held and queued when its
// connection is restored (ZooKeeper re-sends the watches on reconnect);
// an expired or closed session's held events are dropped.
//
// Threading: every public method is thread-safe (one mutex). Ownership:
// sessions (MemoryStore objects) hold the tree by shared_ptr.
// Failure: ops return StoreResult; the tree never throws or crashes on bad
// input (bad paths are kInvalidArgument).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/metadata_store.h"

namespace spool::cluster {

class MemoryTree {
 public:
  enum class Delivery { kManual, kThread };

  explicit MemoryTree(Delivery delivery = Delivery::kManual);
  // Stops the delivery thread; events still queued are dropped.
  ~MemoryTree();
  MemoryTree(const MemoryTree&) = delete;
  MemoryTree& operator=(const MemoryTree&) = delete;

  Delivery delivery() const { return delivery_; }
  // kManual: runs every queued callback on this thread; returns how many
  // ran. kThread: same as drain(5 s), returns 0.
  size_t deliver();
  // Waits until the queue is empty and no callback is running; false on
  // timeout. Works in both modes (kManual: true iff nothing is queued).
  bool drain(std::chrono::milliseconds timeout);
  size_t pending_events() const;
  int64_t last_zxid() const;
  // Number of live (connected or disconnected) sessions.
  size_t session_count() const;

  // A persistent node as the embedded backend saves it (num_children is
  // recomputed at load). Ordered parents first (sorted by path).
  struct SavedNode {
    std::string path;
    std::string data;
    Stat stat;
  };
  // Every persistent node, root included; ephemerals left out.
  std::vector<SavedNode> persistent_nodes() const;
  // Replaces the whole tree (no session may hold ephemerals): every node's
  // parent must come before it and be persistent; zxid continues from
  // max(last_zxid, every czxid/mzxid). Error text names the bad node.
  StoreResult<bool> load(const std::vector<SavedNode>& nodes, int64_t last_zxid);

 private:
  friend class MemoryStore;

  struct Session {
    enum class State { kConnected, kDisconnected, kExpired, kClosed };
    int64_t id = 0;
    State state = State::kConnected;
    SessionListener listener;
    std::vector<std::function<void()>> held;
  };
  using SessionPtr = std::shared_ptr<Session>;
  struct Node {
    std::string data;
    Stat stat;
    std::set<std::string> kids;
  };
  using Nodes = std::map<std::string, Node>;
  enum class Change { kCreated, kDeleted, kData };
  struct Trigger {
    Change change;
    std::string path;
  };
  struct Watch {
    SessionPtr session;
    Watcher fn;
  };

  // Session-facing operations (called by MemoryStore with its session).
  SessionPtr open_session();
  void close_session(const SessionPtr& s);
  void expire_session(const SessionPtr& s);
  void disconnect_session(const SessionPtr& s);
  void restore_session(const SessionPtr& s);
  void set_listener(const SessionPtr& s, SessionListener listener);

  StoreResult<std::string> create(const SessionPtr& s, const std::string& path, const std::string& data,
                                  CreateMode mode);
  StoreResult<NodeData> get(const SessionPtr& s, const std::string& path, Watcher watch);
  StoreResult<Stat> exists(const SessionPtr& s, const std::string& path, Watcher watch);
  StoreResult<Stat> set(const SessionPtr& s, const std::string& path, const std::string& data, int32_t version);
  StoreResult<bool> remove(const SessionPtr& s, const std::string& path, int32_t version);
  StoreResult<std::vector<std::string>> children(const SessionPtr& s, const std::string& path, Watcher watch);
  StoreResult<std::vector<OpResult>> multi(const SessionPtr& s, const std::vector<Op>& ops);

  // Helpers; all require mu_ held.
  StoreError usable(const Session& s) const;  // kOk code when the session may run ops
  StoreError apply(Nodes& nodes, const Op& op, int64_t zxid, int64_t owner, OpResult& out,
                   std::vector<Trigger>& triggers) const;
  void fire(const std::vector<Trigger>& triggers);
  void fire_watches(std::multimap<std::string, Watch>& table, const std::string& path, WatchEvent ev);
  void enqueue(const SessionPtr& s, std::function<void()> fn);
  void enqueue_state(const SessionPtr& s, SessionState state);
  void drop_watches(const SessionPtr& s, bool notify_lost);
  void delete_ephemerals(const SessionPtr& s);
  Stat stat_of(const Node& n) const;
  void delivery_loop();

  const Delivery delivery_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  Nodes nodes_;
  int64_t zxid_ = 0;
  int64_t next_session_ = 0x5f00000000000001LL;
  std::map<int64_t, SessionPtr> sessions_;
  std::multimap<std::string, Watch> data_watches_;   // get + exists
  std::multimap<std::string, Watch> child_watches_;  // children
  std::deque<std::function<void()>> queue_;
  int running_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace spool::cluster
