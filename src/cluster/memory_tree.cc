// MemoryTree: node storage, the op interpreter shared by single ops and
// multi, watch tables and the event queue (see memory_tree.h).
#include "cluster/memory_tree.h"

#include <algorithm>
#include <cstdio>

#include "cluster/store_path.h"

namespace spool::cluster {
namespace {

StoreError ok_error() { return StoreError{StoreCode::kOk, ""}; }

StoreError err(StoreCode code, const std::string& what, const std::string& path, const std::string& why) {
  return StoreError{code, what + " " + path + ": " + why + " (" + store_code_name(code) + ")"};
}

bool is_ephemeral(CreateMode m) { return m == CreateMode::kEphemeral || m == CreateMode::kEphemeralSequential; }
bool is_sequential(CreateMode m) {
  return m == CreateMode::kPersistentSequential || m == CreateMode::kEphemeralSequential;
}

}  // namespace

MemoryTree::MemoryTree(Delivery delivery) : delivery_(delivery) {
  nodes_["/"] = Node{};
  if (delivery_ == Delivery::kThread) thread_ = std::thread([this] { delivery_loop(); });
}

MemoryTree::~MemoryTree() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  work_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MemoryTree::delivery_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    auto fn = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    fn();
    lock.lock();
    --running_;
    if (queue_.empty() && running_ == 0) idle_cv_.notify_all();
  }
}

size_t MemoryTree::deliver() {
  if (delivery_ == Delivery::kThread) {
    drain(std::chrono::seconds(5));
    return 0;
  }
  size_t ran = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (!queue_.empty()) {
    auto fn = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    fn();
    ++ran;
    lock.lock();
  }
  return ran;
}

bool MemoryTree::drain(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (delivery_ == Delivery::kManual) return queue_.empty();
  return idle_cv_.wait_for(lock, timeout, [this] { return queue_.empty() && running_ == 0; });
}

size_t MemoryTree::pending_events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

int64_t MemoryTree::last_zxid() const {
  std::lock_guard<std::mutex> lock(mu_);
  return zxid_;
}

size_t MemoryTree::session_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

// ---- sessions ----

MemoryTree::SessionPtr MemoryTree::open_session() {
  std::lock_guard<std::mutex> lock(mu_);
  auto s = std::make_shared<Session>();
  s->id = next_session_++;
  sessions_[s->id] = s;
  return s;
}

void MemoryTree::close_session(const SessionPtr& s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (s->state == Session::State::kClosed) return;
  bool live = s->state != Session::State::kExpired;
  s->state = Session::State::kClosed;
  s->listener = nullptr;
  s->held.clear();
  if (!live) return;
  drop_watches(s, false);
  delete_ephemerals(s);
  sessions_.erase(s->id);
}

void MemoryTree::expire_session(const SessionPtr& s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (s->state == Session::State::kExpired || s->state == Session::State::kClosed) return;
  s->state = Session::State::kExpired;
  s->held.clear();
  drop_watches(s, true);
  delete_ephemerals(s);
  sessions_.erase(s->id);
  enqueue_state(s, SessionState::kExpired);
}

void MemoryTree::disconnect_session(const SessionPtr& s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (s->state != Session::State::kConnected) return;
  enqueue_state(s, SessionState::kDisconnected);
  s->state = Session::State::kDisconnected;
}

void MemoryTree::restore_session(const SessionPtr& s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (s->state == Session::State::kExpired) {
    // A new session for the same store object (reconnect() after kExpired).
    s->id = next_session_++;
    sessions_[s->id] = s;
  } else if (s->state != Session::State::kDisconnected) {
    return;
  }
  s->state = Session::State::kConnected;
  enqueue_state(s, SessionState::kConnected);
  for (auto& fn : s->held) enqueue(s, std::move(fn));
  s->held.clear();
}

void MemoryTree::set_listener(const SessionPtr& s, SessionListener listener) {
  std::lock_guard<std::mutex> lock(mu_);
  s->listener = std::move(listener);
}

void MemoryTree::enqueue(const SessionPtr& s, std::function<void()> fn) {
  if (stop_) return;
  if (s->state == Session::State::kDisconnected) {
    s->held.push_back(std::move(fn));
    return;
  }
  // The closure re-checks at run time: a store destroyed meanwhile gets nothing.
  queue_.push_back([this, s, fn = std::move(fn)] {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (s->state == Session::State::kClosed) return;
    }
    fn();
  });
  work_cv_.notify_one();
}

void MemoryTree::enqueue_state(const SessionPtr& s, SessionState state) {
  // The listener is looked up when the event runs (set_session_listener replaces it).
  if (stop_) return;
  queue_.push_back([this, s, state] {
    SessionListener l;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (s->state == Session::State::kClosed) return;
      l = s->listener;
    }
    if (l) l(state);
  });
  work_cv_.notify_one();
}

void MemoryTree::drop_watches(const SessionPtr& s, bool notify_lost) {
  for (auto* table : {&data_watches_, &child_watches_}) {
    for (auto it = table->begin(); it != table->end();) {
      if (it->second.session != s) {
        ++it;
        continue;
      }
      if (notify_lost) {
        // Queued directly: the session is expired, not disconnected.
        Watcher fn = std::move(it->second.fn);
        std::string path = it->first;
        queue_.push_back([fn = std::move(fn), path] { fn(WatchEvent::kSessionLost, path); });
        work_cv_.notify_one();
      }
      it = table->erase(it);
    }
  }
}

void MemoryTree::delete_ephemerals(const SessionPtr& s) {
  std::vector<std::string> doomed;
  for (const auto& [path, node] : nodes_)
    if (node.stat.ephemeral_owner == s->id) doomed.push_back(path);
  if (doomed.empty()) return;
  std::vector<Trigger> triggers;
  for (const std::string& path : doomed) {
    int64_t zxid = ++zxid_;
    OpResult out;
    apply(nodes_, Op::remove(path), zxid, s->id, out, triggers);
  }
  fire(triggers);
}

StoreError MemoryTree::usable(const Session& s) const {
  switch (s.state) {
    case Session::State::kConnected: return ok_error();
    case Session::State::kDisconnected: return StoreError{StoreCode::kConnectionLoss, "disconnected (CONNECTION_LOSS)"};
    case Session::State::kExpired: return StoreError{StoreCode::kSessionExpired, "session expired (SESSION_EXPIRED)"};
    case Session::State::kClosed: return StoreError{StoreCode::kSessionExpired, "session closed (SESSION_EXPIRED)"};
  }
  return StoreError{StoreCode::kOther, "bad session state"};
}

// ---- the op interpreter ----

Stat MemoryTree::stat_of(const Node& n) const {
  Stat st = n.stat;
  st.num_children = static_cast<int32_t>(n.kids.size());
  return st;
}

StoreError MemoryTree::apply(Nodes& nodes, const Op& op, int64_t zxid, int64_t owner, OpResult& out,
                             std::vector<Trigger>& triggers) const {
  switch (op.kind) {
    case Op::Kind::kCreate: {
      std::string path = op.path;
      if (is_sequential(op.mode)) {
        // "/a/" (a trailing '/') is allowed for sequential names: "/a/0000000003".
        std::string parent = path.size() > 1 && path.back() == '/' ? path.substr(0, path.size() - 1) : parent_path(path);
        auto pit = nodes.find(parent.empty() ? "/" : parent);
        if (pit == nodes.end() || !path_error(parent.empty() ? "/" : parent).empty())
          return err(StoreCode::kNoNode, "create", op.path, "parent does not exist");
        char seq[16];
        std::snprintf(seq, sizeof seq, "%010d", pit->second.stat.cversion);
        path += seq;
      }
      if (std::string why = path_error(path); !why.empty())
        return err(StoreCode::kInvalidArgument, "create", path, why);
      if (path == "/") return err(StoreCode::kNodeExists, "create", path, "the root always exists");
      if (nodes.count(path)) return err(StoreCode::kNodeExists, "create", path, "node exists");
      std::string parent = parent_path(path);
      auto pit = nodes.find(parent);
      if (pit == nodes.end()) return err(StoreCode::kNoNode, "create", path, "parent " + parent + " does not exist");
      if (pit->second.stat.ephemeral_owner != 0)
        return err(StoreCode::kInvalidArgument, "create", path, "parent " + parent + " is ephemeral");
      Node n;
      n.data = op.data;
      n.stat.czxid = zxid;
      n.stat.mzxid = zxid;
      n.stat.ephemeral_owner = is_ephemeral(op.mode) ? owner : 0;
      pit->second.kids.insert(node_name(path));
      pit->second.stat.cversion++;
      nodes.emplace(path, std::move(n));
      out.created_path = path;
      triggers.push_back({Change::kCreated, path});
      return ok_error();
    }
    case Op::Kind::kDelete: {
      if (std::string why = path_error(op.path); !why.empty())
        return err(StoreCode::kInvalidArgument, "delete", op.path, why);
      if (op.path == "/") return err(StoreCode::kInvalidArgument, "delete", op.path, "the root cannot be deleted");
      auto it = nodes.find(op.path);
      if (it == nodes.end()) return err(StoreCode::kNoNode, "delete", op.path, "no node");
      if (op.version != -1 && op.version != it->second.stat.version)
        return err(StoreCode::kBadVersion, "delete", op.path,
                   "version " + std::to_string(it->second.stat.version) + ", expected " + std::to_string(op.version));
      if (!it->second.kids.empty()) return err(StoreCode::kNotEmpty, "delete", op.path, "node has children");
      auto& parent = nodes[parent_path(op.path)];
      parent.kids.erase(node_name(op.path));
      parent.stat.cversion++;
      nodes.erase(it);
      triggers.push_back({Change::kDeleted, op.path});
      return ok_error();
    }
    case Op::Kind::kSetData: {
      if (std::string why = path_error(op.path); !why.empty())
        return err(StoreCode::kInvalidArgument, "set", op.path, why);
      auto it = nodes.find(op.path);
      if (it == nodes.end()) return err(StoreCode::kNoNode, "set", op.path, "no node");
      if (op.version != -1 && op.version != it->second.stat.version)
        return err(StoreCode::kBadVersion, "set", op.path,
                   "version " + std::to_string(it->second.stat.version) + ", expected " + std::to_string(op.version));
      it->second.data = op.data;
      it->second.stat.version++;
      it->second.stat.mzxid = zxid;
      out.stat = stat_of(it->second);
      triggers.push_back({Change::kData, op.path});
      return ok_error();
    }
    case Op::Kind::kCheck: {
      if (std::string why = path_error(op.path); !why.empty())
        return err(StoreCode::kInvalidArgument, "check", op.path, why);
      auto it = nodes.find(op.path);
      if (it == nodes.end()) return err(StoreCode::kNoNode, "check", op.path, "no node");
      if (op.version != -1 && op.version != it->second.stat.version)
        return err(StoreCode::kBadVersion, "check", op.path,
                   "version " + std::to_string(it->second.stat.version) + ", expected " + std::to_string(op.version));
      return ok_error();
    }
  }
  return StoreError{StoreCode::kInvalidArgument, "unknown op kind"};
}

void MemoryTree::fire_watches(std::multimap<std::string, Watch>& table, const std::string& path, WatchEvent ev) {
  auto [lo, hi] = table.equal_range(path);
  std::vector<Watch> hits;
  for (auto it = lo; it != hi; ++it) hits.push_back(std::move(it->second));
  table.erase(lo, hi);
  for (auto& w : hits) enqueue(w.session, [fn = std::move(w.fn), ev, path] { fn(ev, path); });
}

void MemoryTree::fire(const std::vector<Trigger>& triggers) {
  for (const Trigger& t : triggers) {
    switch (t.change) {
      case Change::kCreated:
        fire_watches(data_watches_, t.path, WatchEvent::kCreated);
        fire_watches(child_watches_, parent_path(t.path), WatchEvent::kChildrenChanged);
        break;
      case Change::kDeleted:
        fire_watches(data_watches_, t.path, WatchEvent::kDeleted);
        fire_watches(child_watches_, t.path, WatchEvent::kDeleted);
        fire_watches(child_watches_, parent_path(t.path), WatchEvent::kChildrenChanged);
        break;
      case Change::kData:
        fire_watches(data_watches_, t.path, WatchEvent::kDataChanged);
        break;
    }
  }
}

// ---- operations ----

StoreResult<std::string> MemoryTree::create(const SessionPtr& s, const std::string& path, const std::string& data,
                                            CreateMode mode) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StoreError e = usable(*s); e.code != StoreCode::kOk) return e;
  OpResult out;
  std::vector<Trigger> triggers;
  StoreError e = apply(nodes_, Op::create(path, data, mode), zxid_ + 1, s->id, out, triggers);
  if (e.code != StoreCode::kOk) return e;
  ++zxid_;
  fire(triggers);
  return out.created_path;
}

StoreResult<NodeData> MemoryTree::get(const SessionPtr& s, const std::string& path, Watcher watch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StoreError e = usable(*s); e.code != StoreCode::kOk) return e;
  if (std::string why = path_error(path); !why.empty()) return err(StoreCode::kInvalidArgument, "get", path, why);
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return err(StoreCode::kNoNode, "get", path, "no node");  // no watch, as in ZooKeeper
  if (watch) data_watches_.emplace(path, Watch{s, std::move(watch)});
  return NodeData{it->second.data, stat_of(it->second)};
}

StoreResult<Stat> MemoryTree::exists(const SessionPtr& s, const std::string& path, Watcher watch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StoreError e = usable(*s); e.code != StoreCode::kOk) return e;
  if (std::string why = path_error(path); !why.empty()) return err(StoreCode::kInvalidArgument, "exists", path, why);
  if (watch) data_watches_.emplace(path, Watch{s, std::move(watch)});
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return err(StoreCode::kNoNode, "exists", path, "no node");
  return stat_of(it->second);
}

StoreResult<Stat> MemoryTree::set(const SessionPtr& s, const std::string& path, const std::string& data,
                                  int32_t version) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StoreError e = usable(*s); e.code != StoreCode::kOk) return e;
  OpResult out;
  std::vector<Trigger> triggers;
  StoreError e = apply(nodes_, Op::set_data(path, data, version), zxid_ + 1, s->id, out, triggers);
  if (e.code != StoreCode::kOk) return e;
  ++zxid_;
  fire(triggers);
  return out.stat;
}

StoreResult<bool> MemoryTree::remove(const SessionPtr& s, const std::string& path, int32_t version) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StoreError e = usable(*s); e.code != StoreCode::kOk) return e;
  OpResult out;
  std::vector<Trigger> triggers;
  StoreError e = apply(nodes_, Op::remove(path, version), zxid_ + 1, s->id, out, triggers);
  if (e.code != StoreCode::kOk) return e;
  ++zxid_;
  fire(triggers);
  return true;
}

StoreResult<std::vector<std::string>> MemoryTree::children(const SessionPtr& s, const std::string& path,
                                                           Watcher watch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StoreError e = usable(*s); e.code != StoreCode::kOk) return e;
  if (std::string why = path_error(path); !why.empty())
    return err(StoreCode::kInvalidArgument, "children", path, why);
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return err(StoreCode::kNoNode, "children", path, "no node");
  if (watch) child_watches_.emplace(path, Watch{s, std::move(watch)});
  return std::vector<std::string>(it->second.kids.begin(), it->second.kids.end());
}

StoreResult<std::vector<OpResult>> MemoryTree::multi(const SessionPtr& s, const std::vector<Op>& ops) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StoreError e = usable(*s); e.code != StoreCode::kOk) return e;
  if (ops.empty()) return std::vector<OpResult>{};
  // Run on a copy; commit only when every op succeeded (one zxid for all).
  Nodes scratch = nodes_;
  std::vector<OpResult> results(ops.size());
  std::vector<Trigger> triggers;
  int64_t zxid = zxid_ + 1;
  for (size_t i = 0; i < ops.size(); ++i) {
    StoreError e = apply(scratch, ops[i], zxid, s->id, results[i], triggers);
    if (e.code != StoreCode::kOk) {
      e.message = "multi op " + std::to_string(i) + ": " + e.message;
      return e;
    }
  }
  nodes_.swap(scratch);
  zxid_ = zxid;
  fire(triggers);
  return results;
}

// ---- persistence support ----

std::vector<MemoryTree::SavedNode> MemoryTree::persistent_nodes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<SavedNode> out;
  for (const auto& [path, node] : nodes_) {
    if (node.stat.ephemeral_owner != 0) continue;
    SavedNode n{path, node.data, node.stat};
    n.stat.num_children = 0;
    out.push_back(std::move(n));
  }
  return out;
}

StoreResult<bool> MemoryTree::load(const std::vector<SavedNode>& saved, int64_t last_zxid) {
  Nodes fresh;
  fresh["/"] = Node{};
  int64_t zxid = last_zxid;
  for (size_t i = 0; i < saved.size(); ++i) {
    const SavedNode& n = saved[i];
    auto bad = [&](const std::string& why) { return StoreError{StoreCode::kInvalidArgument, "node " + n.path + ": " + why}; };
    if (std::string why = path_error(n.path); !why.empty()) return bad(why);
    if (n.path == "/" && i != 0) return bad("the root must come first");
    if (n.path != "/" && fresh.count(n.path)) return bad("listed twice");
    if (n.stat.ephemeral_owner != 0) return bad("ephemeral");
    if (n.path != "/") {
      auto pit = fresh.find(parent_path(n.path));
      if (pit == fresh.end()) return bad("parent missing or listed after the node");
      pit->second.kids.insert(node_name(n.path));
    }
    Node node;
    node.data = n.data;
    node.stat = n.stat;
    node.stat.num_children = 0;
    zxid = std::max({zxid, n.stat.czxid, n.stat.mzxid});
    fresh[n.path] = std::move(node);
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [path, node] : nodes_)
    if (node.stat.ephemeral_owner != 0)
      return StoreError{StoreCode::kInvalidArgument, "load: live ephemeral " + path};
  nodes_.swap(fresh);
  zxid_ = zxid;
  return true;
}

}  // namespace spool::cluster
