// MetadataStore: the few operations of a ZooKeeper-like store that the
// cluster needs (Kafka's KafkaZkClient underneath its controller and brokers).
//
// Contract
// - Nodes form a tree of absolute '/'-separated paths, each with bytes and a
//   Stat. Parents must exist before children (create never makes parents;
//   ensure_path() does). Paths are relative to the backend's chroot.
// - Every write may name an expected version (-1 = any); a mismatch is
//   kBadVersion and changes nothing. multi() applies all its ops or none
//   (the controller's epoch-fenced writes are multi {check, op}).
// - Ephemeral nodes belong to this store's session and vanish when it ends;
//   Stat::ephemeral_owner is the owning session id (0 = persistent). A
//   node's czxid never changes while it lives (Kafka's broker epoch).
// - Watches are one-shot and fire at most once per registration, on a
//   backend thread: a Watcher must not block or call back into the store
//   (enqueue an event and return). Re-arm by reading again.
// - The session listener is told kConnected, kDisconnected (transient: ops
//   may fail with kConnectionLoss, the session and its ephemerals survive)
//   and kExpired (ephemerals are gone, every watch is dead; the owner must
//   re-register on a new session: reconnect()).
// Threading: every method may be called from any thread and blocks for a
// round trip; never call one on a reactor thread.
// Backends: memory_store.h (in-process, for unit tests: expiry and
// disconnects on demand; watch events run when the test calls
// MemoryTree::deliver(), or on a delivery thread), zookeeper_store.h
// (libzookeeper-mt) and embedded_store.h (single broker, saved to a file in
// the first log dir, one session that never expires).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <variant>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace spool::cluster {

enum class StoreCode {
  kOk = 0,
  kNoNode,          // the node (or for create: its parent) does not exist
  kNodeExists,
  kBadVersion,      // expected version did not match
  kNotEmpty,        // remove of a node with children
  kConnectionLoss,  // transient: outcome of a write unknown, retry after reading
  kSessionExpired,
  kInvalidArgument,  // bad path, ephemeral parent, ...
  kOther,
};
const char* store_code_name(StoreCode c);

// The error a failed store call returns: Status message plus its StoreCode.
struct StoreError {
  StoreCode code = StoreCode::kOther;
  std::string message;
};

// A value or a StoreError (Result<T> with the store's own code).
template <typename T>
class StoreResult {
 public:
  StoreResult(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  StoreResult(StoreError error) : v_(std::move(error)) {}  // NOLINT
  bool is_ok() const { return v_.index() == 0; }
  explicit operator bool() const { return is_ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  // kOk when is_ok().
  StoreCode code() const { return is_ok() ? StoreCode::kOk : std::get<1>(v_).code; }
  const StoreError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, StoreError> v_;
};

struct Stat {
  int64_t czxid = 0;            // zxid of the create: stable for the node's life
  int64_t mzxid = 0;            // zxid of the last data change
  int32_t version = 0;          // data version, +1 per set
  int32_t cversion = 0;         // children version
  int64_t ephemeral_owner = 0;  // session id for ephemerals, 0 otherwise
  int32_t num_children = 0;
};

enum class CreateMode { kPersistent, kEphemeral, kPersistentSequential, kEphemeralSequential };

enum class WatchEvent { kCreated, kDeleted, kDataChanged, kChildrenChanged, kSessionLost };
// path is the watched path. kSessionLost: the session expired; the watch
// will never fire otherwise.
using Watcher = std::function<void(WatchEvent event, const std::string& path)>;

enum class SessionState { kConnected, kDisconnected, kExpired };
using SessionListener = std::function<void(SessionState state)>;

struct Op {
  enum class Kind { kCreate, kDelete, kSetData, kCheck };
  Kind kind = Kind::kCheck;
  std::string path;
  std::string data;                         // kCreate, kSetData
  int32_t version = -1;                     // kDelete, kSetData, kCheck; -1 = any
  CreateMode mode = CreateMode::kPersistent;  // kCreate

  static Op create(std::string path, std::string data, CreateMode mode = CreateMode::kPersistent);
  static Op remove(std::string path, int32_t version = -1);
  static Op set_data(std::string path, std::string data, int32_t version = -1);
  static Op check(std::string path, int32_t version);
};

struct OpResult {
  StoreCode code = StoreCode::kOk;
  std::string created_path;  // kCreate (with the sequence suffix for sequential modes)
  Stat stat;                 // kSetData
};

struct NodeData {
  std::string data;
  Stat stat;
};

class MetadataStore {
 public:
  virtual ~MetadataStore() = default;

  // The current session's id (0 before the first connect).
  virtual int64_t session_id() const = 0;
  // Replaces the listener; called on a backend thread.
  virtual void set_session_listener(SessionListener listener) = 0;
  // After kExpired: opens a new session (blocks until connected or the
  // connection timeout). Ephemerals and watches of the old one are gone.
  virtual StoreResult<bool> reconnect() = 0;

  // Returns the created path (sequential modes append a 10-digit counter).
  virtual StoreResult<std::string> create(const std::string& path, const std::string& data,
                                          CreateMode mode = CreateMode::kPersistent) = 0;
  // watch (optional) fires on the node's kDataChanged or kDeleted.
  virtual StoreResult<NodeData> get(const std::string& path, Watcher watch = {}) = 0;
  // Stat when present, kNoNode when absent; watch (optional) fires on
  // kCreated, kDataChanged or kDeleted, and is set in both cases.
  virtual StoreResult<Stat> exists(const std::string& path, Watcher watch = {}) = 0;
  virtual StoreResult<Stat> set(const std::string& path, const std::string& data, int32_t version = -1) = 0;
  virtual StoreResult<bool> remove(const std::string& path, int32_t version = -1) = 0;
  // Child names (not paths), sorted; watch (optional) fires on
  // kChildrenChanged or kDeleted.
  virtual StoreResult<std::vector<std::string>> children(const std::string& path, Watcher watch = {}) = 0;
  // All or nothing. On failure the error's code is the first failing op's
  // (kBadVersion for a failed kCheck).
  virtual StoreResult<std::vector<OpResult>> multi(const std::vector<Op>& ops) = 0;
};

// Creates every missing node of `path` (persistent, empty data); an
// existing node is fine. For start-up layout (/brokers/ids, /config/...).
StoreResult<bool> ensure_path(MetadataStore& store, const std::string& path);
// Deletes `path` and everything under it (DeleteTopics' znodes, tests).
// true when something was deleted, false when `path` was already absent.
StoreResult<bool> remove_recursive(MetadataStore& store, const std::string& path);

}  // namespace spool::cluster
