#include "security/acl_filter.h"

namespace spool::security {
namespace {

bool in_range(int8_t v, int8_t lo, int8_t hi) { return v >= lo && v <= hi; }

bool pattern_matches(const AclFilter& f, const AclBinding& b) {
  if (f.resource_type != ResourceType::kAny && f.resource_type != b.resource_type) return false;
  const bool specific = f.pattern_type == PatternType::kLiteral || f.pattern_type == PatternType::kPrefixed;
  if (specific && f.pattern_type != b.pattern_type) return false;
  if (!f.resource_name) return true;
  const std::string& name = *f.resource_name;
  if (f.pattern_type != PatternType::kMatch) return b.resource_name == name;
  if (b.pattern_type == PatternType::kLiteral) return b.resource_name == name || b.resource_name == kWildcardResource;
  return b.pattern_type == PatternType::kPrefixed && name.starts_with(b.resource_name);
}

}  // namespace

std::optional<std::string> invalid_filter(const AclFilter& f) {
  if (!in_range(static_cast<int8_t>(f.resource_type), 1, 7)) return "the resource type filter is UNKNOWN";
  if (!in_range(static_cast<int8_t>(f.pattern_type), 1, 4)) return "the pattern type filter is UNKNOWN";
  if (!in_range(static_cast<int8_t>(f.operation), 1, 14)) return "the operation filter is UNKNOWN";
  if (!in_range(static_cast<int8_t>(f.permission), 1, 3)) return "the permission type filter is UNKNOWN";
  return std::nullopt;
}

bool matches(const AclFilter& f, const AclBinding& b) {
  if (!pattern_matches(f, b)) return false;
  if (f.principal && *f.principal != b.principal) return false;
  if (f.host && *f.host != b.host) return false;
  if (f.operation != AclOperation::kAny && f.operation != b.operation) return false;
  return f.permission == AclPermission::kAny || f.permission == b.permission;
}

}  // namespace spool::security
