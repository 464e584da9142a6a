// MemoryStore: one session on a shared MemoryTree (memory_tree.h), the
// in-process MetadataStore backend for unit tests. Several MemoryStore
// objects on one tree are several ZooKeeper clients on one ensemble.
//
// Lifetime: the constructor opens a connected session; the destructor
// closes it like zookeeper_close (its ephemerals vanish at once, other
// sessions' watches fire, its own pending events are dropped).
// Delivery: watch events and session states are queued on the tree; in the
// tree's kManual mode the test runs them with tree->deliver() (see
// memory_tree.h), so nothing happens behind a test's back.
// Test hooks:
// - expire(): the session ends as when ZooKeeper expires it: ephemerals are
//   deleted (kDeleted / kChildrenChanged to the watchers of other
//   sessions), this session's watches get kSessionLost, its listener
//   kExpired, and every op fails with kSessionExpired until reconnect().
// - disconnect(): the listener gets kDisconnected, ops fail with
//   kConnectionLoss, events for it are held; restore_connection() (or
//   reconnect()) gives kConnected and releases the held events. The
//   session and its ephemerals survive.
// Threading: thread-safe; every call takes the tree's mutex briefly.
#pragma once

#include <memory>

#include "cluster/memory_tree.h"
#include "cluster/metadata_store.h"

namespace spool::cluster {

class MemoryStore final : public MetadataStore {
 public:
  explicit MemoryStore(std::shared_ptr<MemoryTree> tree);
  ~MemoryStore() override;
  MemoryStore(const MemoryStore&) = delete;
  MemoryStore& operator=(const MemoryStore&) = delete;

  int64_t session_id() const override;
  void set_session_listener(SessionListener listener) override;
  // Expired: a new session (new id). Disconnected: restore_connection().
  // Connected: nothing. Always succeeds.
  StoreResult<bool> reconnect() override;

  StoreResult<std::string> create(const std::string& path, const std::string& data,
                                  CreateMode mode = CreateMode::kPersistent) override;
  StoreResult<NodeData> get(const std::string& path, Watcher watch = {}) override;
  StoreResult<Stat> exists(const std::string& path, Watcher watch = {}) override;
  StoreResult<Stat> set(const std::string& path, const std::string& data, int32_t version = -1) override;
  StoreResult<bool> remove(const std::string& path, int32_t version = -1) override;
  StoreResult<std::vector<std::string>> children(const std::string& path, Watcher watch = {}) override;
  StoreResult<std::vector<OpResult>> multi(const std::vector<Op>& ops) override;

  // Test hooks (see above).
  void expire();
  void disconnect();
  void restore_connection();

  const std::shared_ptr<MemoryTree>& tree() const { return tree_; }

 private:
  std::shared_ptr<MemoryTree> tree_;
  MemoryTree::SessionPtr session_;
};

}  // namespace spool::cluster
