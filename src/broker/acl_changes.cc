#include "broker/acl_changes.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "broker/acl_store.h"
#include "cluster/zk_paths.h"

namespace spool::broker {

namespace zk_paths = cluster::zk_paths;

cluster::StoreResult<bool> AclChanges::poll() {
  int64_t newest[2] = {-1, -1};
  const std::string_view paths[2] = {zk_paths::kAclLiteralChanges, zk_paths::kAclExtendedChanges};
  for (int i = 0; i < 2; ++i) {
    const std::string path(paths[i]);
    auto children = store_.children(path, [wake = wake_](cluster::WatchEvent, const std::string&) { wake(); });
    if (!children) {
      if (children.code() != cluster::StoreCode::kNoNode) return children.error();
      // Not created yet: watch for its creation instead.
      auto exists = store_.exists(path, [wake = wake_](cluster::WatchEvent, const std::string&) { wake(); });
      if (!exists && exists.code() != cluster::StoreCode::kNoNode) return exists.error();
      continue;
    }
    for (const std::string& child : *children) {
      if (auto seq = zk_paths::sequence_number(child, zk_paths::kAclChangePrefix)) newest[i] = std::max(newest[i], *seq);
    }
  }
  if (loaded_ && newest[0] <= last_literal_ && newest[1] <= last_extended_) return false;
  auto n = reload_acls(store_, authorizer_);
  if (!n) return n.error();
  spdlog::info("ACLs reloaded: {} bindings (changes up to {} literal, {} extended)", *n, newest[0], newest[1]);
  loaded_ = true;
  last_literal_ = newest[0];
  last_extended_ = newest[1];
  return true;
}

}  // namespace spool::broker
