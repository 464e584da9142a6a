// EmbeddedStore: the MetadataStore of a single broker without ZooKeeper
// (the default when zookeeper.connect is empty). One in-process tree, one
// session that never expires or disconnects, and the tree's persistent
// nodes saved in one file in the broker's first log dir after every write.
//
// File: <log dir>/spool-metadata-store (format: embedded_format.h and
// docs/embedded-metadata-format.md), replaced atomically (temp file, fsync,
// rename, fsync of the dir). Ephemerals are not saved (they belong to the
// session, which ends with the process); the last zxid is, so czxids (the
// broker epoch) keep growing across restarts. A leftover temp file is a torn
// write and is ignored; a main file that fails validation stops open() with
// an error naming the file (never a crash, never an empty tree instead).
// A write whose save fails is applied in memory but reported as kOther
// ("not saved"), logged; the next successful save writes it too.
//
// Watches are delivered on the tree's delivery thread (MemoryTree
// Delivery::kThread). Threading: thread-safe; saves are serialized.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "cluster/memory_store.h"
#include "cluster/metadata_store.h"

namespace spool::cluster {

class EmbeddedStore final : public MetadataStore {
 public:
  // Creates `log_dir` when missing; loads its file when present.
  static StoreResult<std::unique_ptr<EmbeddedStore>> open(const std::string& log_dir);

  int64_t session_id() const override;
  void set_session_listener(SessionListener listener) override;
  // The session never ends: always ok.
  StoreResult<bool> reconnect() override;

  StoreResult<std::string> create(const std::string& path, const std::string& data,
                                  CreateMode mode = CreateMode::kPersistent) override;
  StoreResult<NodeData> get(const std::string& path, Watcher watch = {}) override;
  StoreResult<Stat> exists(const std::string& path, Watcher watch = {}) override;
  StoreResult<Stat> set(const std::string& path, const std::string& data, int32_t version = -1) override;
  StoreResult<bool> remove(const std::string& path, int32_t version = -1) override;
  StoreResult<std::vector<std::string>> children(const std::string& path, Watcher watch = {}) override;
  StoreResult<std::vector<OpResult>> multi(const std::vector<Op>& ops) override;

  const std::string& file_path() const { return file_; }
  // Waits (bounded) until every queued watch event has run (tests).
  bool drain_watches(std::chrono::milliseconds timeout) { return tree_->drain(timeout); }

 private:
  EmbeddedStore(std::string file, std::shared_ptr<MemoryTree> tree);
  StoreError save();  // kOk or kOther naming the file
  template <typename T>
  StoreResult<T> saved(StoreResult<T> r);

  const std::string file_;
  std::shared_ptr<MemoryTree> tree_;
  MemoryStore session_;
  std::mutex save_mu_;
};

}  // namespace spool::cluster
