// Kafka's AclBindingFilter: what DescribeAcls and DeleteAcls select.
//   * resource type: ANY, or that type;
//   * name: nullopt = any; else, by pattern type,
//       LITERAL / PREFIXED  the stored pattern of that type with exactly
//                           that name;
//       ANY                 a stored pattern of either type with exactly
//                           that name;
//       MATCH               every stored pattern that covers the name: the
//                           LITERAL name itself, the LITERAL wildcard "*",
//                           and each PREFIXED pattern the name starts with;
//     with no name, LITERAL / PREFIXED still select that pattern type;
//   * principal and host: nullopt = any, else exactly equal (so "User:*"
//     selects only the wildcard bindings, as in Kafka);
//   * operation and permission: ANY, or exactly equal.
// A filter with an UNKNOWN (or out-of-range) field is invalid (Kafka's
// INVALID_REQUEST). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "security/acl.h"

namespace spool::security {

struct AclFilter {
  ResourceType resource_type = ResourceType::kAny;
  std::optional<std::string> resource_name;
  PatternType pattern_type = PatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  AclPermission permission = AclPermission::kAny;
};

// Why the filter cannot be used, or nullopt.
std::optional<std::string> invalid_filter(const AclFilter& f);

bool matches(const AclFilter& f, const AclBinding& b);

}  // namespace spool::security
