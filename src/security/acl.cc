#include "security/acl.h"

#include <algorithm>
#include <map>

namespace spool::security {

struct AclAuthorizer::Snapshot {
  std::vector<AclBinding> all;
  // (type, literal name) -> bindings; prefixed ones are scanned per type.
  std::map<std::pair<ResourceType, std::string>, std::vector<const AclBinding*>, std::less<>> literal;
  std::map<ResourceType, std::vector<const AclBinding*>> prefixed;
};

namespace {

bool concrete_type(ResourceType t) {
  return t == ResourceType::kTopic || t == ResourceType::kGroup || t == ResourceType::kCluster ||
         t == ResourceType::kTransactionalId || t == ResourceType::kDelegationToken || t == ResourceType::kUser;
}

bool concrete_operation(AclOperation op) {
  return static_cast<int8_t>(op) >= static_cast<int8_t>(AclOperation::kAll) &&
         static_cast<int8_t>(op) <= static_cast<int8_t>(AclOperation::kDescribeTokens);
}

// Whether an ALLOW for `granted` allows `wanted` (Kafka's implied operations).
bool allows(AclOperation granted, AclOperation wanted) {
  if (granted == AclOperation::kAll || granted == wanted) return true;
  if (wanted == AclOperation::kDescribe) {
    return granted == AclOperation::kRead || granted == AclOperation::kWrite || granted == AclOperation::kDelete ||
           granted == AclOperation::kAlter;
  }
  return wanted == AclOperation::kDescribeConfigs && granted == AclOperation::kAlterConfigs;
}

bool entry_matches(const AclBinding& b, std::string_view principal, std::string_view host) {
  return (b.principal == principal || b.principal == kWildcardPrincipal) && (b.host == host || b.host == kWildcardHost);
}

}  // namespace

std::optional<std::string> invalid_binding(const AclBinding& b) {
  if (!concrete_type(b.resource_type)) return "a resource type must be given (not UNKNOWN or ANY)";
  if (b.pattern_type != PatternType::kLiteral && b.pattern_type != PatternType::kPrefixed) {
    return "the pattern type must be LITERAL or PREFIXED";
  }
  if (b.resource_name.empty()) return "the resource name must not be empty";
  if (b.pattern_type == PatternType::kPrefixed && b.resource_name == kWildcardResource) {
    return "a PREFIXED pattern cannot be the wildcard '*'";
  }
  if (b.resource_type == ResourceType::kCluster &&
      (b.pattern_type != PatternType::kLiteral || b.resource_name != "kafka-cluster")) {
    return "the cluster resource is the LITERAL name kafka-cluster";
  }
  if (!concrete_operation(b.operation)) return "an operation must be given (not UNKNOWN or ANY)";
  if (b.permission != AclPermission::kAllow && b.permission != AclPermission::kDeny) {
    return "the permission must be ALLOW or DENY";
  }
  const size_t colon = b.principal.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == b.principal.size()) {
    return "the principal must be <type>:<name>, e.g. User:alice";
  }
  if (b.host.empty()) return "the host must be an address or '*'";
  return std::nullopt;
}

AclAuthorizer::AclAuthorizer(AuthorizerOptions options)
    : options_(std::move(options)), snapshot_(std::make_shared<const Snapshot>()) {}

void AclAuthorizer::set(std::vector<AclBinding> bindings) {
  auto s = std::make_shared<Snapshot>();
  std::sort(bindings.begin(), bindings.end());
  bindings.erase(std::unique(bindings.begin(), bindings.end()), bindings.end());
  s->all = std::move(bindings);
  for (const AclBinding& b : s->all) {
    if (b.pattern_type == PatternType::kPrefixed) {
      s->prefixed[b.resource_type].push_back(&b);
    } else {
      s->literal[{b.resource_type, b.resource_name}].push_back(&b);
    }
  }
  std::atomic_store(&snapshot_, std::shared_ptr<const Snapshot>(std::move(s)));
}

std::vector<AclBinding> AclAuthorizer::bindings() const { return std::atomic_load(&snapshot_)->all; }

bool AclAuthorizer::authorize(std::string_view principal, std::string_view host, AclOperation op, ResourceType type,
                              std::string_view resource_name) const {
  if (is_super_user(principal)) return true;
  const std::shared_ptr<const Snapshot> s = std::atomic_load(&snapshot_);
  std::vector<const AclBinding*> matching;
  auto add = [&](const std::string& name) {
    auto it = s->literal.find(std::pair<ResourceType, std::string>(type, name));
    if (it != s->literal.end()) matching.insert(matching.end(), it->second.begin(), it->second.end());
  };
  add(std::string(resource_name));
  if (resource_name != kWildcardResource) add(std::string(kWildcardResource));
  if (auto it = s->prefixed.find(type); it != s->prefixed.end()) {
    for (const AclBinding* b : it->second) {
      if (resource_name.starts_with(b->resource_name)) matching.push_back(b);
    }
  }
  if (matching.empty()) return options_.allow_if_no_acl;
  for (const AclBinding* b : matching) {
    if (b->permission == AclPermission::kDeny && entry_matches(*b, principal, host) &&
        (b->operation == AclOperation::kAll || b->operation == op)) {
      return false;
    }
  }
  for (const AclBinding* b : matching) {
    if (b->permission == AclPermission::kAllow && entry_matches(*b, principal, host) && allows(b->operation, op)) {
      return true;
    }
  }
  return false;
}

bool AclAuthorizer::authorize_any(std::string_view principal, std::string_view host, AclOperation op,
                                  ResourceType type) const {
  if (is_super_user(principal)) return true;
  const std::shared_ptr<const Snapshot> s = std::atomic_load(&snapshot_);
  std::set<std::string, std::less<>> deny_literal, deny_prefixed;
  std::vector<const AclBinding*> allow;
  bool any_of_type = false;
  auto scan = [&](const AclBinding& b) {
    any_of_type = true;
    if (!entry_matches(b, principal, host)) return;
    if (b.permission == AclPermission::kDeny && (b.operation == AclOperation::kAll || b.operation == op)) {
      (b.pattern_type == PatternType::kPrefixed ? deny_prefixed : deny_literal).insert(b.resource_name);
    } else if (b.permission == AclPermission::kAllow && allows(b.operation, op)) {
      allow.push_back(&b);
    }
  };
  for (const auto& [key, bindings] : s->literal) {
    if (key.first != type) continue;
    for (const AclBinding* b : bindings) scan(*b);
  }
  if (auto it = s->prefixed.find(type); it != s->prefixed.end()) {
    for (const AclBinding* b : it->second) scan(*b);
  }
  if (!any_of_type) return options_.allow_if_no_acl;
  if (deny_literal.count(kWildcardResource) > 0) return false;
  auto denied_by_prefix = [&](const std::string& name) {
    for (const std::string& p : deny_prefixed) {
      if (name.starts_with(p)) return true;
    }
    return false;
  };
  for (const AclBinding* b : allow) {
    if (b->pattern_type == PatternType::kLiteral) {
      if (b->resource_name == kWildcardResource) return true;
      if (deny_literal.count(b->resource_name) == 0 && !denied_by_prefix(b->resource_name)) return true;
    } else if (!denied_by_prefix(b->resource_name)) {
      return true;
    }
  }
  return false;
}

}  // namespace spool::security
