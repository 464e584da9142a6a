#include "security/authorizer_config.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

namespace spool::security {
namespace {

constexpr std::array<std::string_view, 3> kAuthorizerClasses = {
    "kafka.security.authorizer.AclAuthorizer",
    "kafka.security.auth.SimpleAclAuthorizer",
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<std::optional<AuthorizerOptions>> authorizer_options(const config::BrokerConfig& cfg) {
  const std::string cls(trimmed(cfg.get("authorizer.class.name")));
  if (cls.empty()) return std::optional<AuthorizerOptions>();
  bool known = false;
  for (std::string_view k : kAuthorizerClasses) known = known || k == cls;
  if (!known) {
    return Status::error(fmt::format(
        "authorizer.class.name={}: Spool's ACL authorizer answers to kafka.security.authorizer.AclAuthorizer, "
        "kafka.security.auth.SimpleAclAuthorizer and org.apache.kafka.metadata.authorizer.StandardAuthorizer; "
        "another authorizer class cannot be loaded",
        cls));
  }
  AuthorizerOptions out;
  out.allow_if_no_acl = cfg.get_bool("allow.everyone.if.no.acl.found");
  const std::string all = cfg.is_set("super.users") ? cfg.get("super.users") : std::string();
  size_t start = 0;
  while (start <= all.size()) {
    const size_t end = std::min(all.find(';', start), all.size());
    const std::string_view one = trimmed(std::string_view(all).substr(start, end - start));
    start = end + 1;
    if (one.empty()) continue;
    const size_t colon = one.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == one.size()) {
      return Status::error(fmt::format("super.users: '{}' is not a principal <type>:<name>, e.g. User:admin", one));
    }
    out.super_users.emplace(one);
  }
  return std::optional<AuthorizerOptions>(std::move(out));
}

}  // namespace spool::security
