#include "broker/entity_config_store.h"

#include "cluster/zk_paths.h"
#include "protocol/error_code.h"

namespace spool::broker {

namespace zk_paths = cluster::zk_paths;

namespace {

Status store_error(const std::string& what, const std::string& path, const cluster::StoreError& e) {
  return Status::error(what + " " + path + ": " + cluster::store_code_name(e.code) + " " + e.message,
                       protocol::to_int(protocol::ErrorCode::kUnknownServerError));
}

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? std::string("/") : path.substr(0, slash);
}

}  // namespace

Result<StoredEntityConfig> read_entity_config(cluster::MetadataStore& store, const std::string& path) {
  StoredEntityConfig out;
  auto node = store.get(path);
  if (!node) {
    if (node.code() == cluster::StoreCode::kNoNode) return out;
    return store_error("reading", path, node.error());
  }
  out.version = node->stat.version;
  // A parent made on the way to a deeper node (/config/users/U above
  // /config/users/U/clients/C) holds no data: no config, as Kafka reads it.
  if (node->data.empty()) return out;
  auto decoded = cluster::decode_entity_config(path, node->data);
  if (!decoded)
    return Status::error(decoded.status().message(), protocol::to_int(protocol::ErrorCode::kUnknownServerError));
  out.config = std::move(*decoded);
  return out;
}

Result<bool> write_entity_config(cluster::MetadataStore& store, const std::string& path,
                                 const cluster::EntityConfig& config, int32_t expected_version,
                                 const std::string& notify_entity) {
  const std::string data = cluster::encode_entity_config(config);
  bool written = false;
  if (expected_version != StoredEntityConfig::kNoNode) {
    auto set = store.set(path, data, expected_version >= 0 ? expected_version : -1);
    if (set) {
      written = true;
    } else if (set.code() == cluster::StoreCode::kBadVersion) {
      return false;
    } else if (set.code() != cluster::StoreCode::kNoNode) {
      return store_error("writing", path, set.error());
    } else if (expected_version >= 0) {
      return false;  // deleted meanwhile
    }
  }
  if (!written) {
    auto created = store.create(path, data);
    if (!created && created.code() == cluster::StoreCode::kNoNode) {  // no parent yet (a fresh embedded store)
      if (auto made = cluster::ensure_path(store, parent_of(path)); !made)
        return store_error("creating", parent_of(path), made.error());
      created = store.create(path, data);
    }
    if (!created && created.code() == cluster::StoreCode::kNodeExists) {
      if (expected_version != StoredEntityConfig::kAnyVersion) return false;  // created meanwhile
      auto again = store.set(path, data);
      if (!again) return store_error("writing", path, again.error());
    } else if (!created) {
      return store_error("creating", path, created.error());
    }
  }
  if (!notify_entity.empty()) {
    auto note = store.create(zk_paths::config_change_prefix(), cluster::encode_config_change(notify_entity),
                             cluster::CreateMode::kPersistentSequential);
    if (!note) return store_error("creating", zk_paths::config_change_prefix(), note.error());
  }
  return true;
}

}  // namespace spool::broker
