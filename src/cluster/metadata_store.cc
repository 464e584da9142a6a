// Op factories, store_code_name, path rules (store_path.h) and the two
// helpers built on the interface (ensure_path, remove_recursive).
#include "cluster/metadata_store.h"

#include "cluster/store_path.h"

namespace spool::cluster {

const char* store_code_name(StoreCode c) {
  switch (c) {
    case StoreCode::kOk: return "OK";
    case StoreCode::kNoNode: return "NO_NODE";
    case StoreCode::kNodeExists: return "NODE_EXISTS";
    case StoreCode::kBadVersion: return "BAD_VERSION";
    case StoreCode::kNotEmpty: return "NOT_EMPTY";
    case StoreCode::kConnectionLoss: return "CONNECTION_LOSS";
    case StoreCode::kSessionExpired: return "SESSION_EXPIRED";
    case StoreCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StoreCode::kOther: return "OTHER";
  }
  return "UNKNOWN";
}

Op Op::create(std::string path, std::string data, CreateMode mode) {
  Op op;
  op.kind = Kind::kCreate;
  op.path = std::move(path);
  op.data = std::move(data);
  op.mode = mode;
  return op;
}

Op Op::remove(std::string path, int32_t version) {
  Op op;
  op.kind = Kind::kDelete;
  op.path = std::move(path);
  op.version = version;
  return op;
}

Op Op::set_data(std::string path, std::string data, int32_t version) {
  Op op;
  op.kind = Kind::kSetData;
  op.path = std::move(path);
  op.data = std::move(data);
  op.version = version;
  return op;
}

Op Op::check(std::string path, int32_t version) {
  Op op;
  op.kind = Kind::kCheck;
  op.path = std::move(path);
  op.version = version;
  return op;
}

std::string path_error(std::string_view path) {
  if (path.empty()) return "empty path";
  if (path[0] != '/') return "path must start with '/'";
  if (path.size() == 1) return "";
  if (path.back() == '/') return "path must not end with '/'";
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty()) return "empty path component";
    if (part == "." || part == "..") return "relative path component";
    if (part.find('\0') != std::string_view::npos) return "NUL in path";
    start = end + 1;
  }
  return "";
}

std::string parent_path(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string node_name(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(path.substr(slash + 1));
}

std::string join_path(std::string_view parent, std::string_view name) {
  std::string out(parent);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

StoreResult<bool> ensure_path(MetadataStore& store, const std::string& path) {
  if (std::string why = path_error(path); !why.empty())
    return StoreError{StoreCode::kInvalidArgument, "ensure_path " + path + ": " + why};
  if (path == "/") return true;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    std::string prefix = path.substr(0, pos);
    auto r = store.create(prefix, "");
    if (!r && r.code() != StoreCode::kNodeExists) return r.error();
  }
  return true;
}

StoreResult<bool> remove_recursive(MetadataStore& store, const std::string& path) {
  if (std::string why = path_error(path); !why.empty() || path == "/")
    return StoreError{StoreCode::kInvalidArgument, "remove_recursive " + path + ": " + (why.empty() ? "root" : why)};
  // A child created between the listing and the delete makes the delete
  // kNotEmpty: list again (bounded: a writer racing forever wins).
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto kids = store.children(path);
    if (!kids) return kids.code() == StoreCode::kNoNode ? StoreResult<bool>(false) : StoreResult<bool>(kids.error());
    for (const std::string& kid : *kids) {
      auto r = remove_recursive(store, join_path(path, kid));
      if (!r) return r;
    }
    auto r = store.remove(path);
    if (r) return true;
    if (r.code() == StoreCode::kNoNode) return false;
    if (r.code() != StoreCode::kNotEmpty) return r;
  }
  return StoreError{StoreCode::kNotEmpty, "remove_recursive " + path + ": children keep appearing"};
}

}  // namespace spool::cluster
