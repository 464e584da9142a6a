// Kafka's ACL model and its authorization decision (AclAuthorizer's rules;
// the wire ids are Kafka's, as CreateAcls/DescribeAcls carry them):
//   * an ACL binds a resource pattern (type; name; LITERAL, where "*" is
//     every resource of the type, or PREFIXED) to an entry (principal, or
//     "User:*"; host, or "*"; operation, or ALL; ALLOW or DENY);
//   * super users are allowed everything;
//   * a resource that no ACL names (for anyone) is allowed exactly when
//     allow.everyone.if.no.acl.found is true (default false);
//   * otherwise a matching DENY wins; then a matching ALLOW is needed, where
//     READ, WRITE, DELETE and ALTER also allow DESCRIBE, ALTER_CONFIGS also
//     allows DESCRIBE_CONFIGS, and ALL allows every operation.
// The broker's handlers ask it through broker/handlers/authorize.h. AclAuthorizer holds an
// immutable snapshot replaced whole by set(); authorize() is thread-safe and
// takes no lock on the hot path beyond one atomic load.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace spool::security {

enum class ResourceType : int8_t {
  kUnknown = 0, kAny = 1, kTopic = 2, kGroup = 3, kCluster = 4, kTransactionalId = 5, kDelegationToken = 6, kUser = 7
};
enum class PatternType : int8_t { kUnknown = 0, kAny = 1, kMatch = 2, kLiteral = 3, kPrefixed = 4 };
enum class AclOperation : int8_t {
  kUnknown = 0, kAny = 1, kAll = 2, kRead = 3, kWrite = 4, kCreate = 5, kDelete = 6, kAlter = 7, kDescribe = 8,
  kClusterAction = 9, kDescribeConfigs = 10, kAlterConfigs = 11, kIdempotentWrite = 12, kCreateTokens = 13,
  kDescribeTokens = 14
};
enum class AclPermission : int8_t { kUnknown = 0, kAny = 1, kDeny = 2, kAllow = 3 };

inline constexpr std::string_view kWildcardResource = "*";
inline constexpr std::string_view kWildcardPrincipal = "User:*";
inline constexpr std::string_view kWildcardHost = "*";

struct AclBinding {
  ResourceType resource_type = ResourceType::kTopic;
  std::string resource_name;
  PatternType pattern_type = PatternType::kLiteral;  // kLiteral or kPrefixed
  std::string principal;                             // "User:alice" or "User:*"
  std::string host;                                  // an IP or "*"
  AclOperation operation = AclOperation::kRead;
  AclPermission permission = AclPermission::kAllow;  // kAllow or kDeny
  auto operator<=>(const AclBinding&) const = default;
};

// Why a binding cannot be stored (Kafka's INVALID_REQUEST reasons): a
// concrete type, pattern, operation and permission, a principal of the form
// "<type>:<name>", and no PREFIXED pattern on the cluster or with "*".
std::optional<std::string> invalid_binding(const AclBinding& b);

struct AuthorizerOptions {
  std::set<std::string, std::less<>> super_users;  // super.users, e.g. "User:admin"
  bool allow_if_no_acl = false;                    // allow.everyone.if.no.acl.found
};

class AclAuthorizer {
 public:
  explicit AclAuthorizer(AuthorizerOptions options = {});

  // Replaces every binding (invalid ones must have been refused before).
  void set(std::vector<AclBinding> bindings);
  std::vector<AclBinding> bindings() const;

  bool authorize(std::string_view principal, std::string_view host, AclOperation op, ResourceType type,
                 std::string_view resource_name) const;
  // Kafka's authorizeByResourceType (KIP-679): whether `op` is allowed on at
  // least one resource of `type` that no DENY covers: a super user; an ALLOW
  // on the wildcard "*" (unless a DENY on "*" too); an ALLOW on a literal
  // name or prefix that no DENY literal of that name or DENY prefix of it
  // covers; or, with no ACL of the type at all, allow.everyone.if.no.acl.found.
  bool authorize_any(std::string_view principal, std::string_view host, AclOperation op, ResourceType type) const;
  bool is_super_user(std::string_view principal) const { return options_.super_users.count(principal) > 0; }

 private:
  struct Snapshot;
  const AuthorizerOptions options_;
  std::shared_ptr<const Snapshot> snapshot_;  // read with std::atomic_load
};

}  // namespace spool::security
