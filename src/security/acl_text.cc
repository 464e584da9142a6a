#include "security/acl_text.h"

#include <array>
#include <cctype>

#include <fmt/format.h>

namespace spool::security {
namespace {

struct Names {
  int8_t code;
  std::string_view camel;
  std::string_view enum_form;
};

constexpr std::array kResourceTypes = {
    Names{2, "Topic", "TOPIC"},
    Names{3, "Group", "GROUP"},
    Names{4, "Cluster", "CLUSTER"},
    Names{5, "TransactionalId", "TRANSACTIONAL_ID"},
    Names{6, "DelegationToken", "DELEGATION_TOKEN"},
    Names{7, "User", "USER"},
    Names{1, "Any", "ANY"},
};
constexpr std::array kPatternTypes = {
    Names{3, "Literal", "LITERAL"},
    Names{4, "Prefixed", "PREFIXED"},
    Names{1, "Any", "ANY"},
    Names{2, "Match", "MATCH"},
};
constexpr std::array kOperations = {
    Names{2, "All", "ALL"},
    Names{3, "Read", "READ"},
    Names{4, "Write", "WRITE"},
    Names{5, "Create", "CREATE"},
    Names{6, "Delete", "DELETE"},
    Names{7, "Alter", "ALTER"},
    Names{8, "Describe", "DESCRIBE"},
    Names{9, "ClusterAction", "CLUSTER_ACTION"},
    Names{10, "DescribeConfigs", "DESCRIBE_CONFIGS"},
    Names{11, "AlterConfigs", "ALTER_CONFIGS"},
    Names{12, "IdempotentWrite", "IDEMPOTENT_WRITE"},
    Names{13, "CreateTokens", "CREATE_TOKENS"},
    Names{14, "DescribeTokens", "DESCRIBE_TOKENS"},
    Names{1, "Any", "ANY"},
};
constexpr std::array kPermissions = {
    Names{3, "Allow", "ALLOW"},
    Names{2, "Deny", "DENY"},
    Names{1, "Any", "ANY"},
};

template <size_t N>
const Names* by_code(const std::array<Names, N>& table, int8_t code) {
  for (const Names& n : table) {
    if (n.code == code) return &n;
  }
  return nullptr;
}

// Lower-cased, underscores dropped: "CLUSTER_ACTION", "ClusterAction" and
// "clusteraction" all become "clusteraction".
std::string folded(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

template <size_t N>
std::optional<int8_t> parse(const std::array<Names, N>& table, std::string_view text) {
  const std::string key = folded(text);
  for (const Names& n : table) {
    if (folded(n.camel) == key) return n.code;
  }
  return std::nullopt;
}

template <size_t N>
std::string_view camel(const std::array<Names, N>& table, int8_t code) {
  const Names* n = by_code(table, code);
  return n != nullptr ? n->camel : std::string_view("Unknown");
}

template <size_t N>
std::string_view enum_form(const std::array<Names, N>& table, int8_t code) {
  const Names* n = by_code(table, code);
  return n != nullptr ? n->enum_form : std::string_view("UNKNOWN");
}

template <typename E, size_t N>
std::optional<E> parse_as(const std::array<Names, N>& table, std::string_view text) {
  auto code = parse(table, text);
  if (!code) return std::nullopt;
  return static_cast<E>(*code);
}

}  // namespace

std::string_view camel_name(ResourceType t) { return camel(kResourceTypes, static_cast<int8_t>(t)); }
std::string_view camel_name(AclOperation op) { return camel(kOperations, static_cast<int8_t>(op)); }
std::string_view camel_name(AclPermission p) { return camel(kPermissions, static_cast<int8_t>(p)); }
std::string_view enum_name(ResourceType t) { return enum_form(kResourceTypes, static_cast<int8_t>(t)); }
std::string_view enum_name(PatternType t) { return enum_form(kPatternTypes, static_cast<int8_t>(t)); }
std::string_view enum_name(AclOperation op) { return enum_form(kOperations, static_cast<int8_t>(op)); }
std::string_view enum_name(AclPermission p) { return enum_form(kPermissions, static_cast<int8_t>(p)); }

std::optional<ResourceType> parse_resource_type(std::string_view text) {
  return parse_as<ResourceType>(kResourceTypes, text);
}
std::optional<PatternType> parse_pattern_type(std::string_view text) {
  return parse_as<PatternType>(kPatternTypes, text);
}
std::optional<AclOperation> parse_operation(std::string_view text) { return parse_as<AclOperation>(kOperations, text); }
std::optional<AclPermission> parse_permission(std::string_view text) {
  return parse_as<AclPermission>(kPermissions, text);
}

std::string describe(const AclBinding& b) {
  return fmt::format(
      "(principal={}, host={}, operation={}, permissionType={}) on ResourcePattern(resourceType={}, name={}, "
      "patternType={})",
      b.principal, b.host, enum_name(b.operation), enum_name(b.permission), enum_name(b.resource_type),
      b.resource_name, enum_name(b.pattern_type));
}

}  // namespace spool::security
