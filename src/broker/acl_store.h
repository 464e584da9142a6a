// ACL bindings in the metadata store (ZooKeeper in a cluster, the embedded
// store on a single node), in Kafka's ZooKeeper layout: one node per
// resource pattern, /kafka-acl/<Type>/<name> for LITERAL patterns and
// /kafka-acl-extended/prefixed/<Type>/<name> for PREFIXED ones, holding
// {"version":1,"acls":[{"principal","permissionType","operation","host"}]}
// (zk_paths.h, zk_data.h; docs/zookeeper-layout.md). A writer in a cluster
// announces each changed resource under /kafka-acl-changes or
// /kafka-acl-extended-changes (acl_changes_<seq>), which every broker's
// AclChanges listener watches.
//
// Contract
// - Blocking store round trips: call off the reactors (admin executor,
//   the cluster member's change thread, start-up). Thread-safe (the store is).
// - load_acls: every stored binding. A node or entry that does not decode
//   (bad JSON, an unknown type or operation, a bad principal) is logged and
//   skipped: bad data in the store never stops a broker. An error only when
//   the store fails.
// - create_acls: each binding (valid per security::invalid_binding) joins
//   its resource's node by a version-checked read-modify-write, retried when
//   another writer got there first; one already stored is success. The
//   answer per binding, in order: nullopt, or the error (INVALID_REQUEST
//   for a name no store path can hold: one with '/', or "." / "..";
//   UNKNOWN_SERVER_ERROR naming the path when the store fails).
// - delete_acls: per filter (valid per security::invalid_filter), in order,
//   removes every stored binding it matches and returns them; a node left
//   empty is deleted. Filters apply one after the other, so a binding two
//   filters match is reported by the first only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/metadata_store.h"
#include "protocol/error_code.h"
#include "security/acl.h"
#include "security/acl_filter.h"
#include "util/status.h"

namespace spool::broker {

// Creates the four ACL roots when absent (Kafka's createAclPaths).
cluster::StoreResult<bool> ensure_acl_paths(cluster::MetadataStore& store);

cluster::StoreResult<std::vector<security::AclBinding>> load_acls(cluster::MetadataStore& store);

struct AclStoreError {
  protocol::ErrorCode code = protocol::ErrorCode::kUnknownServerError;
  std::string message;
};

std::vector<std::optional<AclStoreError>> create_acls(cluster::MetadataStore& store,
                                                      const std::vector<security::AclBinding>& bindings,
                                                      bool notify);

struct AclDeletion {
  std::optional<AclStoreError> error;
  std::vector<security::AclBinding> removed;
};
std::vector<AclDeletion> delete_acls(cluster::MetadataStore& store, const std::vector<security::AclFilter>& filters,
                                     bool notify);

// Loads every binding and hands them to `authorizer` (one reload at a time,
// so a slower, older read never replaces a newer one). The number loaded.
cluster::StoreResult<size_t> reload_acls(cluster::MetadataStore& store, security::AclAuthorizer& authorizer);

}  // namespace spool::broker
