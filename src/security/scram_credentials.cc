#include "security/scram_credentials.h"

#include <mutex>

namespace spool::security {

std::optional<ScramCredential> ScramCredentials::find(ScramMechanism m, const std::string& user) const {
  std::shared_lock lock(mu_);
  auto u = users_.find(user);
  if (u == users_.end()) return std::nullopt;
  auto c = u->second.find(m);
  if (c == u->second.end()) return std::nullopt;
  return c->second;
}

std::vector<std::string> ScramCredentials::set_user(const std::string& user,
                                                    const std::map<std::string, std::string>& config) {
  std::map<ScramMechanism, ScramCredential> creds;
  std::vector<std::string> problems;
  for (const auto& [key, text] : config) {
    auto m = scram_mechanism_named(key);
    if (!m) continue;
    auto c = parse_scram_credential(text);
    if (!c) {
      problems.push_back("user '" + user + "' " + key + ": " + c.status().message());
      continue;
    }
    creds.emplace(*m, std::move(*c));
  }
  std::unique_lock lock(mu_);
  if (creds.empty()) {
    users_.erase(user);
  } else {
    users_[user] = std::move(creds);
  }
  return problems;
}

size_t ScramCredentials::user_count() const {
  std::shared_lock lock(mu_);
  return users_.size();
}

}  // namespace spool::security
