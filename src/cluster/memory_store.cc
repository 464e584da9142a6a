// MemoryStore: forwards to the shared MemoryTree with this store's session.
#include "cluster/memory_store.h"

#include <mutex>

namespace spool::cluster {

MemoryStore::MemoryStore(std::shared_ptr<MemoryTree> tree) : tree_(std::move(tree)), session_(tree_->open_session()) {}

MemoryStore::~MemoryStore() { tree_->close_session(session_); }

int64_t MemoryStore::session_id() const {
  std::lock_guard<std::mutex> lock(tree_->mu_);
  return session_->id;
}

void MemoryStore::set_session_listener(SessionListener listener) { tree_->set_listener(session_, std::move(listener)); }

StoreResult<bool> MemoryStore::reconnect() {
  tree_->restore_session(session_);
  return true;
}

StoreResult<std::string> MemoryStore::create(const std::string& path, const std::string& data, CreateMode mode) {
  return tree_->create(session_, path, data, mode);
}

StoreResult<NodeData> MemoryStore::get(const std::string& path, Watcher watch) {
  return tree_->get(session_, path, std::move(watch));
}

StoreResult<Stat> MemoryStore::exists(const std::string& path, Watcher watch) {
  return tree_->exists(session_, path, std::move(watch));
}

StoreResult<Stat> MemoryStore::set(const std::string& path, const std::string& data, int32_t version) {
  return tree_->set(session_, path, data, version);
}

StoreResult<bool> MemoryStore::remove(const std::string& path, int32_t version) {
  return tree_->remove(session_, path, version);
}

StoreResult<std::vector<std::string>> MemoryStore::children(const std::string& path, Watcher watch) {
  return tree_->children(session_, path, std::move(watch));
}

StoreResult<std::vector<OpResult>> MemoryStore::multi(const std::vector<Op>& ops) { return tree_->multi(session_, ops); }

void MemoryStore::expire() { tree_->expire_session(session_); }
void MemoryStore::disconnect() { tree_->disconnect_session(session_); }
void MemoryStore::restore_connection() {
  std::unique_lock<std::mutex> lock(tree_->mu_);
  bool disconnected = session_->state == MemoryTree::Session::State::kDisconnected;
  lock.unlock();
  if (disconnected) tree_->restore_session(session_);
}

}  // namespace spool::cluster
