// EmbeddedStore: a MemoryStore session plus a save after every write
// (embedded_store.h).
#include "cluster/embedded_store.h"

#include <spdlog/spdlog.h>

#include "cluster/embedded_format.h"
#include "storage/file_util.h"

namespace spool::cluster {

StoreResult<std::unique_ptr<EmbeddedStore>> EmbeddedStore::open(const std::string& log_dir) {
  if (Status s = storage::make_dirs(log_dir); !s) return StoreError{StoreCode::kOther, s.message()};
  std::string file = log_dir + "/" + embedded::kFileName;
  auto tree = std::make_shared<MemoryTree>(MemoryTree::Delivery::kThread);
  if (storage::path_exists(file + ".tmp")) {
    // A save that did not reach its rename: the main file is the last good state.
    spdlog::warn("{}.tmp: an interrupted save of the metadata store; ignoring it", file);
    (void)storage::remove_all(file + ".tmp");
  }
  if (storage::path_exists(file)) {
    auto bytes = storage::read_small_file(file, embedded::kMaxFileBytes);
    if (!bytes) return StoreError{StoreCode::kOther, file + ": " + bytes.status().message()};
    auto snap = embedded::decode(*bytes);
    if (!snap)
      return StoreError{StoreCode::kOther, file + ": " + snap.status().message() +
                                               " (the embedded metadata store; restore it from a backup or move it away "
                                               "to start with an empty store)"};
    auto loaded = tree->load(snap->nodes, snap->last_zxid);
    if (!loaded) return StoreError{StoreCode::kOther, file + ": " + loaded.error().message};
    spdlog::info("{}: loaded {} metadata nodes (last zxid {})", file, snap->nodes.size(), tree->last_zxid());
  }
  return std::unique_ptr<EmbeddedStore>(new EmbeddedStore(std::move(file), std::move(tree)));
}

EmbeddedStore::EmbeddedStore(std::string file, std::shared_ptr<MemoryTree> tree)
    : file_(std::move(file)), tree_(std::move(tree)), session_(tree_) {}

StoreError EmbeddedStore::save() {
  std::lock_guard<std::mutex> lock(save_mu_);
  // Taken under save_mu_: a later snapshot is never overwritten by an earlier one.
  embedded::Snapshot snap;
  snap.nodes = tree_->persistent_nodes();
  snap.last_zxid = tree_->last_zxid();
  Status s = storage::write_file_atomic(file_, embedded::encode(snap));
  if (!s) {
    spdlog::error("{}: saving the metadata store failed: {}", file_, s.message());
    return StoreError{StoreCode::kOther, file_ + ": applied in memory but not saved: " + s.message()};
  }
  return StoreError{StoreCode::kOk, ""};
}

template <typename T>
StoreResult<T> EmbeddedStore::saved(StoreResult<T> r) {
  if (!r) return r;
  // Every write is saved, ephemeral ones too: the saved last zxid must
  // cover every czxid handed out (broker epochs grow across restarts).
  StoreError e = save();
  if (e.code != StoreCode::kOk) return e;
  return r;
}

int64_t EmbeddedStore::session_id() const { return session_.session_id(); }
void EmbeddedStore::set_session_listener(SessionListener listener) { session_.set_session_listener(std::move(listener)); }
StoreResult<bool> EmbeddedStore::reconnect() { return true; }

StoreResult<std::string> EmbeddedStore::create(const std::string& path, const std::string& data, CreateMode mode) {
  return saved(session_.create(path, data, mode));
}
StoreResult<NodeData> EmbeddedStore::get(const std::string& path, Watcher watch) {
  return session_.get(path, std::move(watch));
}
StoreResult<Stat> EmbeddedStore::exists(const std::string& path, Watcher watch) {
  return session_.exists(path, std::move(watch));
}
StoreResult<Stat> EmbeddedStore::set(const std::string& path, const std::string& data, int32_t version) {
  return saved(session_.set(path, data, version));
}
StoreResult<bool> EmbeddedStore::remove(const std::string& path, int32_t version) {
  return saved(session_.remove(path, version));
}
StoreResult<std::vector<std::string>> EmbeddedStore::children(const std::string& path, Watcher watch) {
  return session_.children(path, std::move(watch));
}
StoreResult<std::vector<OpResult>> EmbeddedStore::multi(const std::vector<Op>& ops) {
  if (ops.empty()) return std::vector<OpResult>{};
  return saved(session_.multi(ops));
}

}  // namespace spool::cluster
