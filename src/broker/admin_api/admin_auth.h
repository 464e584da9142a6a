// AdminAuth: who may read the admin API (admin.listener.authentication,
// Spool's key).
//   none   (default) anyone who reaches the listener; but when an authorizer
//          is configured (authorizer.class.name), only /v1/health and
//          /v1/ready are served and everything else is 403: the views and
//          metrics name every topic and group, which ACLs may hide (fail
//          closed).
//   basic  HTTP Basic with a SCRAM user's password (the users of `spool user
//          scram`, SHA-256 or SHA-512 credentials, checked by deriving the
//          stored key); with an authorizer the user must also be in
//          super.users. /v1/health and /v1/ready stay open for probes.
// Any other scheme (e.g. Bearer) or a wrong password is 401 with
// WWW-Authenticate: Basic; a user who is not a super user is 403.
//
// Threading: check() is const and thread-safe (the credentials and the
// authorizer are).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "http/http_server.h"

namespace spool::security {
class AclAuthorizer;
class ScramCredentials;
}  // namespace spool::security

namespace spool::broker {

enum class AdminAuthMode { kNone, kBasic };

std::optional<AdminAuthMode> admin_auth_mode(std::string_view value);

class AdminAuth {
 public:
  AdminAuth(AdminAuthMode mode, const security::ScramCredentials* scram, const security::AclAuthorizer* authorizer)
      : mode_(mode), scram_(scram), authorizer_(authorizer) {}

  // nullopt: allowed; else the answer to send instead.
  std::optional<http::HttpResponse> check(const http::HttpRequest& req) const;

  // Whether `password` is `user`'s (any SCRAM mechanism it has).
  bool password_matches(const std::string& user, const std::string& password) const;

 private:
  AdminAuthMode mode_;
  const security::ScramCredentials* scram_;
  const security::AclAuthorizer* authorizer_;
};

}  // namespace spool::broker
