#include "broker/admin_api/admin_auth.h"

#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "security/acl.h"
#include "security/scram.h"
#include "security/scram_credentials.h"

namespace spool::broker {
namespace {

bool open_route(const std::string& path) { return path == "/v1/health" || path == "/v1/ready"; }

http::HttpResponse refuse(int status, const std::string& why) {
  http::HttpResponse r = http::HttpResponse::json(status, nlohmann::json{{"error", why}}.dump() + "\n");
  if (status == 401) r.headers["WWW-Authenticate"] = "Basic realm=\"spool\", charset=\"UTF-8\"";
  return r;
}

}  // namespace

std::optional<AdminAuthMode> admin_auth_mode(std::string_view value) {
  if (value == "none") return AdminAuthMode::kNone;
  if (value == "basic") return AdminAuthMode::kBasic;
  return std::nullopt;
}

bool AdminAuth::password_matches(const std::string& user, const std::string& password) const {
  if (scram_ == nullptr) return false;
  for (auto m : {security::ScramMechanism::kSha256, security::ScramMechanism::kSha512}) {
    auto cred = scram_->find(m, user);
    if (!cred) continue;
    const Bytes salted = security::scram_salted_password(m, password, cred->salt, cred->iterations);
    const auto derived = security::scram_credential(m, cred->salt, salted, cred->iterations);
    if (derived.stored_key.size() == cred->stored_key.size() &&
        CRYPTO_memcmp(derived.stored_key.data(), cred->stored_key.data(), derived.stored_key.size()) == 0)
      return true;
  }
  return false;
}

std::optional<http::HttpResponse> AdminAuth::check(const http::HttpRequest& req) const {
  if (open_route(req.path)) return std::nullopt;
  if (mode_ == AdminAuthMode::kNone) {
    if (authorizer_ == nullptr) return std::nullopt;
    return refuse(403, "an authorizer is configured: set admin.listener.authentication=basic to read " + req.path);
  }
  const std::string* h = req.header("authorization");
  if (h == nullptr || h->size() < 6 || h->compare(0, 6, "Basic ") != 0)
    return refuse(401, "HTTP Basic authentication with a SCRAM user is required");
  auto decoded = security::base64_decode(std::string_view(*h).substr(6));
  if (!decoded) return refuse(401, "malformed Basic credentials");
  const std::string pair(decoded->begin(), decoded->end());
  const size_t colon = pair.find(':');
  if (colon == std::string::npos) return refuse(401, "malformed Basic credentials");
  const std::string user = pair.substr(0, colon);
  if (!password_matches(user, pair.substr(colon + 1))) {
    spdlog::warn("admin listener: failed authentication of '{}' from {}", user, req.peer);
    return refuse(401, "authentication failed");
  }
  if (authorizer_ != nullptr && !authorizer_->is_super_user("User:" + user))
    return refuse(403, "User:" + user + " is not a super user");
  return std::nullopt;
}

}  // namespace spool::broker
