// AclChanges: a cluster member's listener on the ACL change notifications
// (Kafka's ZkAclChangeStore listeners on /kafka-acl-changes and
// /kafka-acl-extended-changes). poll() lists both (setting children
// watches that call `wake`); when either holds a notification newer than
// the last one seen (or at the first poll) it reloads every ACL into the
// authorizer (acl_store.h reload_acls). Reloading everything, not only the
// announced resource, keeps one code path and heals any missed
// notification; its cost grows with the ACL count (see the benchmark note
// in docs/ARCHITECTURE.md).
// Threading: poll() from one thread at a time (the member's recovery
// thread); wake runs on the store's callback thread and must only signal.
// Failure: a store error is returned and the next poll() retries.
#pragma once

#include <cstdint>
#include <functional>

#include "cluster/metadata_store.h"
#include "security/acl.h"

namespace spool::broker {

class AclChanges {
 public:
  AclChanges(cluster::MetadataStore& store, security::AclAuthorizer& authorizer, std::function<void()> wake)
      : store_(store), authorizer_(authorizer), wake_(std::move(wake)) {}

  // true when the ACLs were reloaded.
  cluster::StoreResult<bool> poll();

 private:
  cluster::MetadataStore& store_;
  security::AclAuthorizer& authorizer_;
  std::function<void()> wake_;
  bool loaded_ = false;
  int64_t last_literal_ = -1;
  int64_t last_extended_ = -1;
};

}  // namespace spool::broker
