// ZooKeeperStore on libzookeeper-mt's synchronous API (zookeeper_store.h).
#include "cluster/zookeeper_store.h"

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cstring>
#include <mutex>
#include <vector>

#include <spdlog/spdlog.h>

#include "cluster/store_path.h"

namespace spool::cluster {
namespace {

// ZooKeeper's jute.maxbuffer default (1 MiB - 1): no znode is larger.
constexpr size_t kMaxNodeBytes = 1 << 20;
constexpr size_t kMaxPathBytes = 4096;

StoreCode map_rc(int rc) {
  switch (rc) {
    case ZOK: return StoreCode::kOk;
    case ZNONODE: return StoreCode::kNoNode;
    case ZNODEEXISTS: return StoreCode::kNodeExists;
    case ZBADVERSION: return StoreCode::kBadVersion;
    case ZNOTEMPTY: return StoreCode::kNotEmpty;
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT: return StoreCode::kConnectionLoss;
    case ZSESSIONEXPIRED:
    case ZINVALIDSTATE:
    case ZSESSIONMOVED: return StoreCode::kSessionExpired;
    case ZBADARGUMENTS:
    case ZNOCHILDRENFOREPHEMERALS:
    case ZINVALIDACL: return StoreCode::kInvalidArgument;
    default: return StoreCode::kOther;
  }
}

StoreError zk_error(int rc, const std::string& what, const std::string& path) {
  StoreCode code = map_rc(rc);
  return StoreError{code, what + " " + path + ": " + zerror(rc) + " (" + store_code_name(code) + ")"};
}

Stat from_zk(const ::Stat& s) {
  Stat out;
  out.czxid = s.czxid;
  out.mzxid = s.mzxid;
  out.version = s.version;
  out.cversion = s.cversion;
  out.ephemeral_owner = s.ephemeralOwner;
  out.num_children = s.numChildren;
  return out;
}

int zk_flags(CreateMode mode) {
  switch (mode) {
    case CreateMode::kPersistent: return 0;
    case CreateMode::kEphemeral: return ZOO_EPHEMERAL;
    case CreateMode::kPersistentSequential: return ZOO_SEQUENCE;
    case CreateMode::kEphemeralSequential: return ZOO_EPHEMERAL | ZOO_SEQUENCE;
  }
  return 0;
}

// The C client's messages look like
// "<time>:<pid>(0x<tid>):ZOO_WARN@<func>@<line>: text". Its own prefix is
// dropped (spdlog stamps the line) and each call site speaks at most once
// per 10 s: with the server down it would otherwise log ~12 lines a second.
void log_from_zk(const char* message) {
  std::string_view m(message ? message : "");
  while (!m.empty() && (m.back() == '\n' || m.back() == '\r')) m.remove_suffix(1);
  spdlog::level::level_enum level = spdlog::level::debug;
  size_t at = std::string_view::npos;
  for (auto [tag, lvl] : {std::pair{":ZOO_ERROR@", spdlog::level::err}, std::pair{":ZOO_WARN@", spdlog::level::warn},
                          std::pair{":ZOO_INFO@", spdlog::level::info}, std::pair{":ZOO_DEBUG@", spdlog::level::debug}}) {
    at = m.find(tag);
    if (at != std::string_view::npos) {
      level = lvl;
      m.remove_prefix(at + std::strlen(tag));
      break;
    }
  }
  if (!spdlog::should_log(level)) return;
  size_t colon = m.find(": ");
  std::string site(m.substr(0, colon == std::string_view::npos ? 0 : colon));
  std::string_view text = colon == std::string_view::npos ? m : m.substr(colon + 2);
  static std::mutex mu;
  static std::map<std::string, std::pair<std::chrono::steady_clock::time_point, int>> last;
  uint64_t suppressed = 0;
  {
    std::lock_guard<std::mutex> g(mu);
    auto now = std::chrono::steady_clock::now();
    auto it = last.find(site);
    if (it != last.end() && now - it->second.first < std::chrono::seconds(10)) {
      it->second.second++;
      return;
    }
    if (it != last.end()) suppressed = static_cast<uint64_t>(it->second.second);
    last[site] = {now, 0};
  }
  if (suppressed > 0) spdlog::log(level, "zookeeper client: {} ({} similar in the last 10 s)", text, suppressed);
  else spdlog::log(level, "zookeeper client: {}", text);
}

std::once_flag g_log_once;

// Pure: validates the argument of a create before the C client sees it.
std::string create_path_error(const std::string& path, CreateMode mode) {
  bool seq = mode == CreateMode::kPersistentSequential || mode == CreateMode::kEphemeralSequential;
  // "/q/" is a valid sequential prefix (the server appends the counter).
  if (seq && path.size() > 1 && path.back() == '/') return path_error(path.substr(0, path.size() - 1));
  return path_error(path);
}

}  // namespace

StoreResult<ZkConnectString> parse_zk_connect(const std::string& connect) {
  ZkConnectString out;
  size_t slash = connect.find('/');
  out.hosts = connect.substr(0, slash);
  if (slash != std::string::npos) out.chroot = connect.substr(slash);
  if (out.chroot == "/") out.chroot.clear();
  auto bad = [&](const std::string& why) {
    return StoreError{StoreCode::kInvalidArgument, "zookeeper.connect '" + connect + "': " + why};
  };
  if (out.hosts.empty()) return bad("no host:port");
  size_t start = 0;
  while (start <= out.hosts.size()) {
    size_t end = out.hosts.find(',', start);
    if (end == std::string::npos) end = out.hosts.size();
    std::string hp = out.hosts.substr(start, end - start);
    size_t colon = hp.rfind(':');
    if (hp.empty() || colon == 0) return bad("empty host in '" + out.hosts + "'");
    if (colon != std::string::npos) {
      std::string port = hp.substr(colon + 1);
      if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), ::isdigit) || std::stoi(port) > 65535)
        return bad("bad port in '" + hp + "'");
    }
    start = end + 1;
  }
  if (!out.chroot.empty()) {
    if (std::string why = path_error(out.chroot); !why.empty()) return bad("chroot " + out.chroot + ": " + why);
  }
  return out;
}

StoreResult<std::unique_ptr<ZooKeeperStore>> ZooKeeperStore::open(const ZooKeeperOptions& options) {
  if (options.set_acl)
    return StoreError{StoreCode::kInvalidArgument,
                      "zookeeper.set.acl=true needs a SASL-authenticated ZooKeeper session; Spool has no SASL or TLS "
                      "client for ZooKeeper and refuses to start rather than create unprotected znodes"};
  if (options.session_timeout_ms <= 0)
    return StoreError{StoreCode::kInvalidArgument, "zookeeper.session.timeout.ms must be positive"};
  auto parsed = parse_zk_connect(options.connect);
  if (!parsed) return parsed.error();
  std::call_once(g_log_once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_WARN); });

  if (!parsed->chroot.empty()) {
    // Kafka creates a missing chroot through a client without it.
    ZooKeeperOptions root = options;
    root.connect = parsed->hosts;
    auto top = open(root);
    if (!top) return top.error();
    auto made = ensure_path(**top, parsed->chroot);
    if (!made) return StoreError{made.code(), "creating chroot " + parsed->chroot + ": " + made.error().message};
  }
  std::unique_ptr<ZooKeeperStore> store(new ZooKeeperStore(options, *parsed));
  std::unique_lock<std::shared_mutex> lock(store->handle_mu_);
  auto r = store->connect_locked();
  if (!r) return r.error();
  lock.unlock();
  return store;
}

ZooKeeperStore::ZooKeeperStore(ZooKeeperOptions options, ZkConnectString parsed)
    : opts_(std::move(options)),
      connect_(std::move(parsed)),
      connection_timeout_ms_(opts_.connection_timeout_ms > 0 ? opts_.connection_timeout_ms : opts_.session_timeout_ms) {}

ZooKeeperStore::~ZooKeeperStore() {
  std::unique_lock<std::shared_mutex> lock(handle_mu_);
  {
    std::lock_guard<std::mutex> g(mu_);
    state_ = State::kClosed;
    listener_ = nullptr;
  }
  if (zh_) zookeeper_close(zh_);  // joins the client's threads
  zh_ = nullptr;
  std::lock_guard<std::mutex> g(mu_);
  watches_.clear();
}

StoreResult<bool> ZooKeeperStore::connect_locked() {
  if (zh_) {
    zookeeper_close(zh_);
    zh_ = nullptr;
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    state_ = State::kConnecting;
    session_id_ = 0;
    password_.clear();
  }
  zh_ = zookeeper_init2(connect_.hosts.c_str(), &ZooKeeperStore::on_session_event, opts_.session_timeout_ms, nullptr,
                        this, 0, &log_from_zk);
  if (!zh_)
    return StoreError{StoreCode::kInvalidArgument,
                      "zookeeper_init(" + opts_.connect + ") failed: " + std::strerror(errno)};
  std::unique_lock<std::mutex> g(mu_);
  bool up = state_cv_.wait_for(g, std::chrono::milliseconds(connection_timeout_ms_),
                               [this] { return state_ != State::kConnecting; });
  if (!up || state_ != State::kConnected) {
    bool expired = state_ == State::kExpired;
    g.unlock();
    zookeeper_close(zh_);
    zh_ = nullptr;
    std::lock_guard<std::mutex> g2(mu_);
    state_ = State::kExpired;  // no handle: reconnect() makes a new one
    if (expired) return StoreError{StoreCode::kSessionExpired, "zookeeper " + opts_.connect + ": session expired while connecting"};
    return StoreError{StoreCode::kConnectionLoss, "zookeeper " + opts_.connect + ": not connected within " +
                                                      std::to_string(connection_timeout_ms_) +
                                                      " ms (zookeeper.connection.timeout.ms)"};
  }
  const clientid_t* id = zoo_client_id(zh_);
  session_id_ = id->client_id;
  password_.assign(id->passwd, sizeof id->passwd);
  spdlog::info("zookeeper: connected to {} (session 0x{:x}, timeout {} ms)", opts_.connect, session_id_,
               zoo_recv_timeout(zh_));
  return true;
}

StoreError ZooKeeperStore::wait_handle_connected() const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(connection_timeout_ms_);
  for (;;) {
    const int st = zoo_state(zh_);
    if (st == ZOO_CONNECTED_STATE) return StoreError{StoreCode::kOk, ""};
    if (st == ZOO_EXPIRED_SESSION_STATE || st == ZOO_AUTH_FAILED_STATE)
      return StoreError{StoreCode::kSessionExpired, "the zookeeper session expired"};
    if (std::chrono::steady_clock::now() >= deadline)
      return StoreError{StoreCode::kConnectionLoss, "zookeeper: not reconnected within " +
                                                        std::to_string(connection_timeout_ms_) + " ms"};
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string ZooKeeperStore::server_path(const std::string& path) const {
  if (connect_.chroot.empty()) return path;
  return path == "/" ? connect_.chroot : connect_.chroot + path;
}

std::string ZooKeeperStore::store_path(const char* server) const {
  std::string p(server);
  const std::string& root = connect_.chroot;
  if (root.empty() || p.compare(0, root.size(), root) != 0) return p;
  return p.size() == root.size() ? "/" : p.substr(root.size());
}

void ZooKeeperStore::on_session_event(zhandle_t* zh, int type, int state, const char* path, void* ctx) {
  if (type != ZOO_SESSION_EVENT) return;  // node events come through their own watcher
  auto* self = static_cast<ZooKeeperStore*>(const_cast<void*>(zoo_get_context(zh)));
  if (self) self->session_event(state);
}

void ZooKeeperStore::session_event(int state) {
  SessionListener listener;
  SessionState told;
  int64_t session = 0;
  std::map<uint64_t, WatchEntry> lost;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (state_ == State::kClosed) return;
    if (state == ZOO_CONNECTED_STATE) {
      state_ = State::kConnected;
      told = SessionState::kConnected;
    } else if (state == ZOO_CONNECTING_STATE || state == ZOO_ASSOCIATING_STATE) {
      if (state_ != State::kConnected) return;
      state_ = State::kConnecting;
      told = SessionState::kDisconnected;
    } else if (state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE) {
      if (state_ == State::kExpired) return;
      if (state == ZOO_AUTH_FAILED_STATE) spdlog::error("zookeeper: authentication failed; the session is unusable");
      state_ = State::kExpired;
      told = SessionState::kExpired;
      lost.swap(watches_);
    } else {
      return;
    }
    listener = listener_;
    session = session_id_;
    state_cv_.notify_all();
  }
  if (told == SessionState::kExpired) spdlog::warn("zookeeper: session 0x{:x} expired", session);
  if (told == SessionState::kDisconnected)
    spdlog::warn("zookeeper: disconnected from {} (session 0x{:x}); the client reconnects", opts_.connect, session);
  for (auto& [id, w] : lost) w.fn(WatchEvent::kSessionLost, w.path);
  if (listener) listener(told);
}

void ZooKeeperStore::on_watch_event(zhandle_t* zh, int type, int state, const char* path, void* ctx) {
  if (type == ZOO_SESSION_EVENT) return;  // session_event() handles expiry for every watch
  auto* self = static_cast<ZooKeeperStore*>(const_cast<void*>(zoo_get_context(zh)));
  if (!self) return;
  WatchEntry entry;
  {
    std::lock_guard<std::mutex> g(self->mu_);
    auto it = self->watches_.find(reinterpret_cast<uintptr_t>(ctx));
    if (it == self->watches_.end()) return;
    entry = std::move(it->second);
    self->watches_.erase(it);
  }
  WatchEvent ev;
  if (type == ZOO_CREATED_EVENT) ev = WatchEvent::kCreated;
  else if (type == ZOO_DELETED_EVENT) ev = WatchEvent::kDeleted;
  else if (type == ZOO_CHANGED_EVENT) ev = WatchEvent::kDataChanged;
  else if (type == ZOO_CHILD_EVENT) ev = WatchEvent::kChildrenChanged;
  else return;  // ZOO_NOTWATCHING_EVENT: the watch was removed
  entry.fn(ev, entry.path);
}

void* ZooKeeperStore::add_watch(Watcher fn, const std::string& path) {
  std::lock_guard<std::mutex> g(mu_);
  uint64_t id = next_watch_++;
  watches_.emplace(id, WatchEntry{std::move(fn), path});
  return reinterpret_cast<void*>(static_cast<uintptr_t>(id));
}

void ZooKeeperStore::drop_watch(void* ctx) {
  if (!ctx) return;
  std::lock_guard<std::mutex> g(mu_);
  watches_.erase(reinterpret_cast<uintptr_t>(ctx));
}

StoreError ZooKeeperStore::wait_connected(std::shared_lock<std::shared_mutex>& handle_lock) {
  std::unique_lock<std::mutex> g(mu_);
  state_cv_.wait_for(g, std::chrono::milliseconds(connection_timeout_ms_),
                     [this] { return state_ != State::kConnecting; });
  switch (state_) {
    case State::kConnected: return StoreError{StoreCode::kOk, ""};
    case State::kConnecting:
      return StoreError{StoreCode::kConnectionLoss, "zookeeper " + opts_.connect + ": not connected within " +
                                                        std::to_string(connection_timeout_ms_) + " ms (CONNECTION_LOSS)"};
    case State::kExpired:
    case State::kClosed: break;
  }
  return StoreError{StoreCode::kSessionExpired, "zookeeper " + opts_.connect + ": session expired (SESSION_EXPIRED)"};
}

int64_t ZooKeeperStore::session_id() const {
  std::lock_guard<std::mutex> g(mu_);
  return session_id_;
}

std::string ZooKeeperStore::session_password() const {
  std::lock_guard<std::mutex> g(mu_);
  return password_;
}

void ZooKeeperStore::set_session_listener(SessionListener listener) {
  std::lock_guard<std::mutex> g(mu_);
  listener_ = std::move(listener);
}

StoreResult<bool> ZooKeeperStore::reconnect() {
  {
    std::shared_lock<std::shared_mutex> lock(handle_mu_);
    StoreError e = wait_connected(lock);
    if (e.code == StoreCode::kOk) return true;
    if (e.code == StoreCode::kConnectionLoss) return e;
  }
  std::unique_lock<std::shared_mutex> lock(handle_mu_);
  {
    std::lock_guard<std::mutex> g(mu_);
    if (state_ == State::kConnected) return true;  // another thread reconnected
    if (state_ == State::kClosed) return StoreError{StoreCode::kSessionExpired, "store closed"};
  }
  // The new handle's kConnected reaches the listener through session_event().
  return connect_locked();
}

#define SPOOL_ZK_PRELUDE(what, path_check)                                     \
  if (std::string why = (path_check); !why.empty())                            \
    return StoreError{StoreCode::kInvalidArgument, std::string(what) + " " + path + ": " + why}; \
  std::shared_lock<std::shared_mutex> lock(handle_mu_);                        \
  if (StoreError e = wait_connected(lock); e.code != StoreCode::kOk) return e

StoreResult<std::string> ZooKeeperStore::create(const std::string& path, const std::string& data, CreateMode mode) {
  SPOOL_ZK_PRELUDE("create", create_path_error(path, mode));
  std::vector<char> created(kMaxPathBytes);
  int rc = zoo_create(zh_, server_path(path).c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE,
                      zk_flags(mode), created.data(), static_cast<int>(created.size()));
  if (rc != ZOK) return zk_error(rc, "create", path);
  return store_path(created.data());
}

StoreResult<NodeData> ZooKeeperStore::get(const std::string& path, Watcher watch) {
  SPOOL_ZK_PRELUDE("get", path_error(path));
  void* ctx = watch ? add_watch(std::move(watch), path) : nullptr;
  thread_local std::vector<char> buf(kMaxNodeBytes);
  int len = static_cast<int>(buf.size());
  ::Stat st{};
  int rc = ctx ? zoo_wget(zh_, server_path(path).c_str(), &ZooKeeperStore::on_watch_event, ctx, buf.data(), &len, &st)
               : zoo_get(zh_, server_path(path).c_str(), 0, buf.data(), &len, &st);
  if (rc != ZOK) {
    drop_watch(ctx);  // a failed getData registers no watch
    return zk_error(rc, "get", path);
  }
  if (st.dataLength > static_cast<int32_t>(buf.size()))
    return StoreError{StoreCode::kOther, "get " + path + ": " + std::to_string(st.dataLength) + " bytes exceed " +
                                             std::to_string(buf.size())};
  NodeData out;
  if (len > 0) out.data.assign(buf.data(), static_cast<size_t>(len));
  out.stat = from_zk(st);
  return out;
}

StoreResult<Stat> ZooKeeperStore::exists(const std::string& path, Watcher watch) {
  SPOOL_ZK_PRELUDE("exists", path_error(path));
  void* ctx = watch ? add_watch(std::move(watch), path) : nullptr;
  ::Stat st{};
  int rc = ctx ? zoo_wexists(zh_, server_path(path).c_str(), &ZooKeeperStore::on_watch_event, ctx, &st)
               : zoo_exists(zh_, server_path(path).c_str(), 0, &st);
  if (rc == ZNONODE) return zk_error(rc, "exists", path);  // the watch stays: it fires on kCreated
  if (rc != ZOK) {
    drop_watch(ctx);
    return zk_error(rc, "exists", path);
  }
  return from_zk(st);
}

StoreResult<Stat> ZooKeeperStore::set(const std::string& path, const std::string& data, int32_t version) {
  SPOOL_ZK_PRELUDE("set", path_error(path));
  ::Stat st{};
  int rc = zoo_set2(zh_, server_path(path).c_str(), data.data(), static_cast<int>(data.size()), version, &st);
  if (rc != ZOK) return zk_error(rc, "set", path);
  return from_zk(st);
}

StoreResult<bool> ZooKeeperStore::remove(const std::string& path, int32_t version) {
  SPOOL_ZK_PRELUDE("delete", path == "/" ? std::string("the root cannot be deleted") : path_error(path));
  int rc = zoo_delete(zh_, server_path(path).c_str(), version);
  if (rc != ZOK) return zk_error(rc, "delete", path);
  return true;
}

StoreResult<std::vector<std::string>> ZooKeeperStore::children(const std::string& path, Watcher watch) {
  SPOOL_ZK_PRELUDE("children", path_error(path));
  void* ctx = watch ? add_watch(std::move(watch), path) : nullptr;
  String_vector kids{};
  ::Stat st{};
  int rc = ctx ? zoo_wget_children2(zh_, server_path(path).c_str(), &ZooKeeperStore::on_watch_event, ctx, &kids, &st)
               : zoo_get_children2(zh_, server_path(path).c_str(), 0, &kids, &st);
  if (rc != ZOK) {
    drop_watch(ctx);
    return zk_error(rc, "children", path);
  }
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(kids.count));
  for (int32_t i = 0; i < kids.count; ++i) out.emplace_back(kids.data[i]);
  deallocate_String_vector(&kids);
  std::sort(out.begin(), out.end());
  return out;
}

StoreResult<std::vector<OpResult>> ZooKeeperStore::multi(const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    std::string why = op.kind == Op::Kind::kCreate ? create_path_error(op.path, op.mode) : path_error(op.path);
    if (!why.empty()) return StoreError{StoreCode::kInvalidArgument, "multi " + op.path + ": " + why};
  }
  if (ops.empty()) return std::vector<OpResult>{};
  const std::string path = "(multi)";
  SPOOL_ZK_PRELUDE("multi", std::string());
  std::vector<zoo_op_t> zops(ops.size());
  std::vector<zoo_op_result_t> results(ops.size());
  std::vector<std::vector<char>> created(ops.size());
  std::vector<::Stat> stats(ops.size());
  std::vector<std::string> paths(ops.size());  // zoo_op_t points into these
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    paths[i] = server_path(op.path);
    switch (op.kind) {
      case Op::Kind::kCreate:
        created[i].resize(kMaxPathBytes);
        zoo_create_op_init(&zops[i], paths[i].c_str(), op.data.data(), static_cast<int>(op.data.size()),
                           &ZOO_OPEN_ACL_UNSAFE, zk_flags(op.mode), created[i].data(), static_cast<int>(kMaxPathBytes));
        break;
      case Op::Kind::kDelete: zoo_delete_op_init(&zops[i], paths[i].c_str(), op.version); break;
      case Op::Kind::kSetData:
        zoo_set_op_init(&zops[i], paths[i].c_str(), op.data.data(), static_cast<int>(op.data.size()), op.version,
                        &stats[i]);
        break;
      case Op::Kind::kCheck: zoo_check_op_init(&zops[i], paths[i].c_str(), op.version); break;
    }
  }
  // The C client's zoo_amulti (3.8) is unsafe on a handle that turns
  // unrecoverable (session expired) before or while it builds the request:
  // every op after the first refused one frees a stale request path (a
  // double free, or a free of memory it does not own), and the completion
  // entries leak. The handle learns of an expiry only in a reconnect
  // handshake, so a multi is handed over only while the handle is connected
  // (waiting, bounded, as the library's sync call would): a flip to expired
  // then needs a whole reconnection, far longer than building the request.
  if (StoreError e = wait_handle_connected(); e.code != StoreCode::kOk) return e;
  int rc = zoo_multi(zh_, static_cast<int>(zops.size()), zops.data(), results.data());
  if (rc != ZOK) {
    // The first op with its own error (the others report ZRUNTIMEINCONSISTENCY or ZOK).
    for (size_t i = 0; i < ops.size(); ++i) {
      int err = results[i].err;
      if (err != ZOK && err != ZRUNTIMEINCONSISTENCY) {
        StoreError e = zk_error(err, "multi op " + std::to_string(i) + ":", ops[i].path);
        return e;
      }
    }
    return zk_error(rc, "multi", path);
  }
  std::vector<OpResult> out(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == Op::Kind::kCreate) out[i].created_path = store_path(created[i].data());
    if (ops[i].kind == Op::Kind::kSetData) out[i].stat = from_zk(stats[i]);
  }
  return out;
}

#undef SPOOL_ZK_PRELUDE

}  // namespace spool::cluster
