// The broker keys that turn Kafka's ACL authorizer on, read and checked:
//   authorizer.class.name   "" (no authorizer: nothing is checked) or one of
//                           Kafka's class names, all taken as aliases of
//                           Spool's one ACL authorizer (security/acl.h):
//                           kafka.security.authorizer.AclAuthorizer,
//                           kafka.security.auth.SimpleAclAuthorizer,
//                           org.apache.kafka.metadata.authorizer.StandardAuthorizer;
//                           any other class stops the start (fail closed);
//   super.users             "User:a;User:b": principals allowed everything;
//   allow.everyone.if.no.acl.found  (default false).
// Pure functions of the config; thread-safe.
#pragma once

#include <optional>

#include "config/broker_config.h"
#include "security/acl.h"
#include "util/status.h"

namespace spool::security {

// nullopt when no authorizer is configured; an error naming the key and
// value for an unknown class or a malformed super user.
Result<std::optional<AuthorizerOptions>> authorizer_options(const config::BrokerConfig& cfg);

}  // namespace spool::security
