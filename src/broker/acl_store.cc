#include "broker/acl_store.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include <spdlog/spdlog.h>

#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"
#include "security/acl_text.h"

namespace spool::broker {

namespace zk_paths = cluster::zk_paths;
using security::AclBinding;
using security::PatternType;
using security::ResourceType;

namespace {

// A read-modify-write lost to another writer this many times in a row is
// reported instead of retried for ever.
constexpr int kMaxAttempts = 20;

struct Pattern {
  ResourceType type;
  std::string name;
  PatternType pattern;
  auto operator<=>(const Pattern&) const = default;
};

Pattern pattern_of(const AclBinding& b) { return {b.resource_type, b.resource_name, b.pattern_type}; }

std::string_view root_of(PatternType p) {
  return p == PatternType::kPrefixed ? zk_paths::kAclPrefixed : zk_paths::kAclLiteral;
}

std::string type_path(PatternType p, ResourceType t) {
  return std::string(root_of(p)) + "/" + std::string(security::camel_name(t));
}

std::string node_path(const Pattern& r) { return type_path(r.pattern, r.type) + "/" + r.name; }

AclStoreError store_failure(std::string_view what, const std::string& path, const cluster::StoreError& e) {
  return {protocol::ErrorCode::kUnknownServerError,
          fmt::format("{} {}: {} {}", what, path, cluster::store_code_name(e.code), e.message)};
}

cluster::ZkAclEntry to_entry(const AclBinding& b) {
  return {b.principal, std::string(security::camel_name(b.permission)), std::string(security::camel_name(b.operation)),
          b.host};
}

// The bindings of one node; entries that do not decode are logged, skipped.
std::vector<AclBinding> to_bindings(const Pattern& r, const std::string& path,
                                    const std::vector<cluster::ZkAclEntry>& entries) {
  std::vector<AclBinding> out;
  for (const cluster::ZkAclEntry& e : entries) {
    AclBinding b{r.type, r.name, r.pattern, e.principal, e.host};
    auto op = security::parse_operation(e.operation);
    auto perm = security::parse_permission(e.permission_type);
    if (op) b.operation = *op;
    if (perm) b.permission = *perm;
    auto why = !op || !perm ? std::optional<std::string>("unknown operation or permission type")
                            : security::invalid_binding(b);
    if (why) {
      spdlog::warn("ACL store: skipping an entry of {} (principal {}, operation {}, permission {}): {}", path,
                   e.principal, e.operation, e.permission_type, *why);
      continue;
    }
    out.push_back(std::move(b));
  }
  return out;
}

struct Node {
  std::vector<AclBinding> bindings;
  int32_t version = -1;  // -1: no node
};

cluster::StoreResult<Node> read_node(cluster::MetadataStore& store, const Pattern& r) {
  const std::string path = node_path(r);
  auto got = store.get(path);
  if (!got) {
    if (got.code() == cluster::StoreCode::kNoNode) return Node{};
    return got.error();
  }
  Node out;
  out.version = got->stat.version;
  auto entries = cluster::decode_acl_node(path, got->data);
  if (!entries) {
    spdlog::warn("ACL store: {} (its ACLs are ignored; a write replaces the node)", entries.status().message());
    return out;
  }
  out.bindings = to_bindings(r, path, *entries);
  return out;
}

void announce(cluster::MetadataStore& store, const Pattern& r) {
  const bool literal = r.pattern == PatternType::kLiteral;
  const std::string_view changes = literal ? zk_paths::kAclLiteralChanges : zk_paths::kAclExtendedChanges;
  const std::string data =
      literal ? cluster::encode_literal_acl_change(security::enum_name(r.type), r.name)
              : cluster::encode_extended_acl_change(security::enum_name(r.type), r.name, security::enum_name(r.pattern));
  auto made = store.create(zk_paths::acl_change_prefix(changes), data, cluster::CreateMode::kPersistentSequential);
  if (!made && made.code() == cluster::StoreCode::kNoNode) {
    if (cluster::ensure_path(store, std::string(changes))) {
      made = store.create(zk_paths::acl_change_prefix(changes), data, cluster::CreateMode::kPersistentSequential);
    }
  }
  if (!made) {
    // The write itself stands; other brokers pick it up at their next reload.
    spdlog::warn("ACL store: announcing the change of {} failed: {} {}", node_path(r),
                 cluster::store_code_name(made.code()), made.error().message);
  }
}

// Writes `bindings` as the node of `r` over `version` (-1: create; an empty
// list deletes). true: written; false: another writer got there first.
cluster::StoreResult<bool> write_node(cluster::MetadataStore& store, const Pattern& r,
                                      const std::vector<AclBinding>& bindings, int32_t version) {
  const std::string path = node_path(r);
  if (bindings.empty()) {
    if (version < 0) return true;
    auto removed = store.remove(path, version);
    if (removed || removed.code() == cluster::StoreCode::kNoNode) return true;
    if (removed.code() == cluster::StoreCode::kBadVersion) return false;
    return removed.error();
  }
  std::vector<cluster::ZkAclEntry> entries;
  for (const AclBinding& b : bindings) entries.push_back(to_entry(b));
  const std::string data = cluster::encode_acl_node(entries);
  if (version >= 0) {
    auto set = store.set(path, data, version);
    if (set) return true;
    if (set.code() == cluster::StoreCode::kBadVersion || set.code() == cluster::StoreCode::kNoNode) return false;
    return set.error();
  }
  auto created = store.create(path, data);
  if (!created && created.code() == cluster::StoreCode::kNoNode) {
    if (auto parent = cluster::ensure_path(store, type_path(r.pattern, r.type)); !parent) return parent.error();
    created = store.create(path, data);
  }
  if (created) return true;
  if (created.code() == cluster::StoreCode::kNodeExists) return false;
  return created.error();
}

// Applies `edit` to the node of `r` until the version-checked write lands.
// `edit` returns whether it changed the list.
template <typename Edit>
std::optional<AclStoreError> update_node(cluster::MetadataStore& store, const Pattern& r, bool notify, Edit&& edit) {
  const std::string path = node_path(r);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto node = read_node(store, r);
    if (!node) return store_failure("reading", path, node.error());
    if (!edit(node->bindings)) return std::nullopt;
    auto written = write_node(store, r, node->bindings, node->version);
    if (!written) return store_failure("writing", path, written.error());
    if (*written) {
      if (notify) announce(store, r);
      return std::nullopt;
    }
  }
  return AclStoreError{protocol::ErrorCode::kUnknownServerError,
                       fmt::format("writing {}: {} concurrent writers won in a row", path, kMaxAttempts)};
}

std::optional<std::string> unstorable_name(const std::string& name) {
  if (name.find('/') != std::string::npos || name == "." || name == "..") {
    return fmt::format("the resource name '{}' cannot be stored: ACLs live at ZooKeeper paths, where a name "
                       "cannot hold '/' or be '.' or '..'",
                       name);
  }
  return std::nullopt;
}

}  // namespace

cluster::StoreResult<bool> ensure_acl_paths(cluster::MetadataStore& store) {
  for (std::string_view p : {zk_paths::kAclLiteral, zk_paths::kAclLiteralChanges, zk_paths::kAclPrefixed,
                             zk_paths::kAclExtendedChanges}) {
    if (auto made = cluster::ensure_path(store, std::string(p)); !made) return made.error();
  }
  return true;
}

cluster::StoreResult<std::vector<AclBinding>> load_acls(cluster::MetadataStore& store) {
  std::vector<AclBinding> out;
  for (PatternType pattern : {PatternType::kLiteral, PatternType::kPrefixed}) {
    const std::string root(root_of(pattern));
    auto types = store.children(root);
    if (!types) {
      if (types.code() == cluster::StoreCode::kNoNode) continue;
      return types.error();
    }
    for (const std::string& type_name : *types) {
      auto type = security::parse_resource_type(type_name);
      if (!type || *type == ResourceType::kAny) {
        spdlog::warn("ACL store: skipping {}/{}: not a resource type", root, type_name);
        continue;
      }
      auto names = store.children(type_path(pattern, *type));
      if (!names) {
        if (names.code() == cluster::StoreCode::kNoNode) continue;
        return names.error();
      }
      for (const std::string& name : *names) {
        auto node = read_node(store, Pattern{*type, name, pattern});
        if (!node) return node.error();
        out.insert(out.end(), node->bindings.begin(), node->bindings.end());
      }
    }
  }
  return out;
}

std::vector<std::optional<AclStoreError>> create_acls(cluster::MetadataStore& store,
                                                      const std::vector<AclBinding>& bindings, bool notify) {
  std::vector<std::optional<AclStoreError>> out(bindings.size());
  std::map<Pattern, std::vector<size_t>> by_node;
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (auto why = unstorable_name(bindings[i].resource_name)) {
      out[i] = AclStoreError{protocol::ErrorCode::kInvalidRequest, *why};
    } else {
      by_node[pattern_of(bindings[i])].push_back(i);
    }
  }
  for (const auto& node : by_node) {
    const Pattern& r = node.first;
    const std::vector<size_t>& indexes = node.second;  // (a structured binding cannot be captured before C++20 in clang)
    auto failed = update_node(store, r, notify, [&](std::vector<AclBinding>& stored) {
      bool changed = false;
      for (size_t i : indexes) {
        if (std::find(stored.begin(), stored.end(), bindings[i]) == stored.end()) {
          stored.push_back(bindings[i]);
          changed = true;
        }
      }
      return changed;
    });
    for (size_t i : indexes) out[i] = failed;
  }
  return out;
}

std::vector<AclDeletion> delete_acls(cluster::MetadataStore& store, const std::vector<security::AclFilter>& filters,
                                     bool notify) {
  std::vector<AclDeletion> out(filters.size());
  for (size_t f = 0; f < filters.size(); ++f) {
    auto all = load_acls(store);
    if (!all) {
      out[f].error = store_failure("reading", "the ACLs", all.error());
      continue;
    }
    std::set<Pattern> nodes;
    for (const AclBinding& b : *all) {
      if (security::matches(filters[f], b)) nodes.insert(pattern_of(b));
    }
    for (const Pattern& r : nodes) {
      std::vector<AclBinding> removed;
      auto failed = update_node(store, r, notify, [&](std::vector<AclBinding>& stored) {
        removed.clear();
        auto keep = std::stable_partition(stored.begin(), stored.end(),
                                          [&](const AclBinding& b) { return !security::matches(filters[f], b); });
        removed.assign(keep, stored.end());
        stored.erase(keep, stored.end());
        return !removed.empty();
      });
      if (failed) {
        out[f].error = failed;
        break;
      }
      out[f].removed.insert(out[f].removed.end(), removed.begin(), removed.end());
    }
  }
  return out;
}

cluster::StoreResult<size_t> reload_acls(cluster::MetadataStore& store, security::AclAuthorizer& authorizer) {
  static std::mutex reloading;
  std::lock_guard lock(reloading);
  auto all = load_acls(store);
  if (!all) return all.error();
  const size_t n = all->size();
  authorizer.set(std::move(*all));
  return n;
}

}  // namespace spool::broker
