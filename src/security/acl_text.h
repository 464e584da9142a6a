// The text forms of Kafka's ACL enums, both ways:
//   * Kafka's camel-case names, as ZooKeeper's ACL nodes and kafka-acls.sh
//     print them ("Topic", "TransactionalId", "ClusterAction", "Allow");
//   * Kafka's enum names ("TOPIC", "CLUSTER_ACTION", "PREFIXED"), as the
//     admin API's toString, the literal change notifications and
//     `spool acl --operation` use them.
// Parsing accepts either form, case-insensitively, with or without the
// underscores (Kafka's fromString is case-insensitive); it returns nullopt
// for UNKNOWN and anything else. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "security/acl.h"

namespace spool::security {

std::string_view camel_name(ResourceType t);   // "Topic"
std::string_view camel_name(AclOperation op);  // "ClusterAction"
std::string_view camel_name(AclPermission p);  // "Allow"
std::string_view enum_name(ResourceType t);    // "TOPIC"
std::string_view enum_name(PatternType t);     // "PREFIXED"
std::string_view enum_name(AclOperation op);   // "CLUSTER_ACTION"
std::string_view enum_name(AclPermission p);   // "ALLOW"

std::optional<ResourceType> parse_resource_type(std::string_view text);
std::optional<PatternType> parse_pattern_type(std::string_view text);
std::optional<AclOperation> parse_operation(std::string_view text);
std::optional<AclPermission> parse_permission(std::string_view text);

// "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"
// on "ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)", as
// Kafka's log lines and kafka-acls.sh show a binding.
std::string describe(const AclBinding& b);

}  // namespace spool::security
