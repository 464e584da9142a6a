// ZooKeeperStore: the MetadataStore backend on a real ZooKeeper ensemble,
// through Debian's libzookeeper-mt (the C client's synchronous API; its IO
// and completion threads are the "backend threads").
//
// Options are Kafka's: zookeeper.connect ("host:port,host:port[/chroot]";
// the chroot is created when missing, as Kafka's KafkaZkClient does),
// zookeeper.session.timeout.ms (18000), zookeeper.connection.timeout.ms
// (default: the session timeout) and zookeeper.set.acl, which Spool refuses
// when true: secure ACLs need a SASL-authenticated session and Spool has
// no SASL or TLS for ZooKeeper, so it fails closed instead of writing
// world-writable nodes that the operator believes are protected.
//
// Waits are bounded: open() and reconnect() by the connection timeout;
// every op first waits (same bound) for a connected session, else fails
// with kConnectionLoss, then makes one round trip (the C client fails it
// with kConnectionLoss when the connection drops).
// Sessions: the C client reconnects by itself within a session
// (kDisconnected, then kConnected); when the server expires the session
// every pending watch gets kSessionLost, the listener kExpired, ops fail
// with kSessionExpired, and reconnect() opens a new session.
// Watches: one-shot, delivered on the C client's completion thread (never
// block in one, never call back into the store: the sync API would wait on
// the thread it runs on). The C client's own log goes to spdlog (warnings
// and errors only), prefixed "zookeeper:".
// Threading: every method is thread-safe. The destructor closes the session
// (its ephemerals vanish at once) and returns after the client's threads
// have stopped, so no callback runs afterwards.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "cluster/metadata_store.h"

typedef struct _zhandle zhandle_t;  // NOLINT: the C client's opaque handle

namespace spool::cluster {

struct ZooKeeperOptions {
  std::string connect;                // zookeeper.connect, required
  int32_t session_timeout_ms = 18000;  // zookeeper.session.timeout.ms
  int32_t connection_timeout_ms = 0;   // zookeeper.connection.timeout.ms; <= 0: the session timeout
  bool set_acl = false;                // zookeeper.set.acl; true is refused (see above)
};

// "h1:p1,h2:p2/chroot" split at the first '/'. chroot is "" when absent
// (or "/"); otherwise a valid node path. Errors: empty hosts, bad chroot.
struct ZkConnectString {
  std::string hosts;
  std::string chroot;
};
StoreResult<ZkConnectString> parse_zk_connect(const std::string& connect);

class ZooKeeperStore final : public MetadataStore {
 public:
  // Connects (bounded by the connection timeout) and creates the chroot
  // when missing. kInvalidArgument for bad options (set_acl=true, a bad
  // connect string), kConnectionLoss when no server answered in time.
  static StoreResult<std::unique_ptr<ZooKeeperStore>> open(const ZooKeeperOptions& options);
  ~ZooKeeperStore() override;
  ZooKeeperStore(const ZooKeeperStore&) = delete;
  ZooKeeperStore& operator=(const ZooKeeperStore&) = delete;

  int64_t session_id() const override;
  void set_session_listener(SessionListener listener) override;
  // Connected: nothing. Disconnected: waits for the client's own reconnect.
  // Expired: closes the dead handle and opens a new session.
  StoreResult<bool> reconnect() override;

  StoreResult<std::string> create(const std::string& path, const std::string& data,
                                  CreateMode mode = CreateMode::kPersistent) override;
  StoreResult<NodeData> get(const std::string& path, Watcher watch = {}) override;
  StoreResult<Stat> exists(const std::string& path, Watcher watch = {}) override;
  StoreResult<Stat> set(const std::string& path, const std::string& data, int32_t version = -1) override;
  StoreResult<bool> remove(const std::string& path, int32_t version = -1) override;
  StoreResult<std::vector<std::string>> children(const std::string& path, Watcher watch = {}) override;
  StoreResult<std::vector<OpResult>> multi(const std::vector<Op>& ops) override;

  // The session's password (16 bytes), with session_id() what a second
  // client needs to take the session over (tests expire a session so).
  std::string session_password() const;
  const ZooKeeperOptions& options() const { return opts_; }

 private:
  enum class State { kConnecting, kConnected, kExpired, kClosed };
  struct WatchEntry {
    Watcher fn;
    std::string path;
  };

  ZooKeeperStore(ZooKeeperOptions options, ZkConnectString parsed);
  // The server-side path of a store path: the chroot is applied here, not
  // by the client library, which connects without one (with a chroot, its
  // zoo_multi on an expired session frees each prefixed path twice, C
  // client 3.8; wait_handle_connected() for the rest of that bug).
  std::string server_path(const std::string& path) const;
  std::string store_path(const char* server) const;  // strips the chroot
  // Until the library's handle is connected (ok), expired, or the
  // connection timeout passed (multi() needs it, see there).
  StoreError wait_handle_connected() const;
  StoreResult<bool> connect_locked();  // new handle; needs handle_mu_ exclusively
  StoreError wait_connected(std::shared_lock<std::shared_mutex>& handle_lock);
  void* add_watch(Watcher fn, const std::string& path);
  void drop_watch(void* ctx);
  static void on_session_event(zhandle_t* zh, int type, int state, const char* path, void* ctx);
  static void on_watch_event(zhandle_t* zh, int type, int state, const char* path, void* ctx);
  void session_event(int state);

  const ZooKeeperOptions opts_;
  const ZkConnectString connect_;  // hosts (what the library connects to) and chroot
  int32_t connection_timeout_ms_;
  // Exclusive for replacing zh_ (connect, reconnect, close); shared for ops.
  mutable std::shared_mutex handle_mu_;
  zhandle_t* zh_ = nullptr;
  // state_, listener_, watches_: under mu_.
  mutable std::mutex mu_;
  std::condition_variable state_cv_;
  State state_ = State::kConnecting;
  int64_t session_id_ = 0;
  std::string password_;
  SessionListener listener_;
  uint64_t next_watch_ = 1;
  std::map<uint64_t, WatchEntry> watches_;
};

}  // namespace spool::cluster
