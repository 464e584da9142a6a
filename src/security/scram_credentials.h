// ScramCredentials: the SCRAM credentials this broker authenticates
// against, per user and mechanism, mirrored from the metadata store's
// /config/users/<user> nodes (whose config maps "SCRAM-SHA-256" /
// "SCRAM-SHA-512" to the credential text, scram.h). Replaced per user as a
// whole when the node changes; an entry that does not parse is left out and
// reported (the user cannot log in with it, nothing else is harmed).
// Thread-safe: reads (every SCRAM exchange) share a lock, updates take it
// alone.
#pragma once

#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "security/scram.h"

namespace spool::security {

class ScramCredentials {
 public:
  std::optional<ScramCredential> find(ScramMechanism m, const std::string& user) const;
  // The user's whole config node (mechanism name -> credential text; other
  // keys, e.g. quotas, are not ours); an empty map removes the user. Returns
  // why each entry left out was (empty when all parsed).
  std::vector<std::string> set_user(const std::string& user, const std::map<std::string, std::string>& config);
  size_t user_count() const;

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::map<ScramMechanism, ScramCredential>, std::less<>> users_;
};

}  // namespace spool::security
