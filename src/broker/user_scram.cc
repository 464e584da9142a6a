#include "broker/user_scram.h"

#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "broker/client_quota_entity.h"
#include "broker/entity_config_store.h"
#include "cluster/zk_paths.h"
#include "protocol/error_code.h"

namespace spool::broker {
namespace {

using protocol::ErrorCode;
namespace zk_paths = cluster::zk_paths;

// Stored under the sanitized name, as Kafka (client_quota_entity.h): a
// principal with '/' or '%' is still one path component.
std::string user_path(const std::string& user) {
  return zk_paths::config_entity(zk_paths::kEntityUsers, sanitize_entity_name(user));
}

// The users of /config/users' children (sanitized names); a name that does
// not decode is logged and left out.
std::vector<std::string> users_of(const std::vector<std::string>& children) {
  std::vector<std::string> out;
  for (const std::string& child : children) {
    if (child == kDefaultEntityName) continue;  // default quotas, never a SCRAM user
    if (auto name = desanitize_entity_name(child)) {
      out.push_back(std::move(*name));
    } else {
      spdlog::warn("scram: ignoring /config/users/{}: not a sanitized user name", child);
    }
  }
  return out;
}

struct Failure {
  ErrorCode code = ErrorCode::kNone;
  std::string message;
};

// One user's alterations, in request order.
struct UserEdit {
  std::vector<const protocol::AlterUserScramCredentialsRequest::ScramCredentialDeletion*> deletions;
  std::vector<const protocol::AlterUserScramCredentialsRequest::ScramCredentialUpsertion*> upsertions;
  Failure failure;
};

Failure apply_edit(cluster::MetadataStore& store, security::ScramCredentials& creds, const std::string& user,
                   const UserEdit& edit, bool notify) {
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto current = read_entity_config(store, user_path(user));
    if (!current) return {ErrorCode::kUnknownServerError, current.status().message()};
    cluster::EntityConfig config = current->config;
    for (const auto* d : edit.deletions) {
      auto name = std::string(security::scram_name(*security::scram_mechanism_of_type(d->mechanism)));
      if (config.erase(name) == 0) {
        return {ErrorCode::kResourceNotFound, "Attempt to delete a user credential that does not exist"};
      }
    }
    for (const auto* u : edit.upsertions) {
      auto m = *security::scram_mechanism_of_type(u->mechanism);
      config[std::string(security::scram_name(m))] =
          security::format_scram_credential(security::scram_credential(m, u->salt, u->salted_password, u->iterations));
    }
    auto wrote = write_entity_config(store, user_path(user), config, current->version,
                                     notify ? zk_paths::config_entity_path(zk_paths::kEntityUsers, sanitize_entity_name(user)) : "");
    if (!wrote) return {ErrorCode::kUnknownServerError, wrote.status().message()};
    if (*wrote) {
      apply_scram_user(creds, user, config);
      return {};
    }
  }
  return {ErrorCode::kUnknownServerError, "the user's credentials kept changing under this request; retry"};
}

}  // namespace

void apply_scram_user(security::ScramCredentials& creds, const std::string& user, const cluster::EntityConfig& config) {
  for (const std::string& problem : creds.set_user(user, config)) {
    spdlog::warn("scram: ignoring a stored credential: {}", problem);
  }
}

Status load_scram_users(cluster::MetadataStore& store, security::ScramCredentials& creds) {
  auto users = store.children(std::string(zk_paths::kConfig) + "/" + std::string(zk_paths::kEntityUsers));
  if (!users) {
    if (users.code() == cluster::StoreCode::kNoNode) return Status::ok();
    return Status::error("cannot list /config/users: " + users.error().message);
  }
  for (const std::string& user : users_of(*users)) {
    auto stored = read_entity_config(store, user_path(user));
    if (!stored) {
      spdlog::warn("scram: {}", stored.status().message());
      continue;
    }
    apply_scram_user(creds, user, stored->config);
  }
  if (!users->empty()) spdlog::info("scram: {} user(s) with SCRAM credentials", creds.user_count());
  return Status::ok();
}

protocol::DescribeUserScramCredentialsResponse describe_scram_users(
    cluster::MetadataStore& store, const std::optional<std::vector<std::string>>& users) {
  protocol::DescribeUserScramCredentialsResponse resp;
  std::vector<std::string> names;
  const bool all = !users || users->empty();
  if (all) {
    auto listed = store.children(std::string(zk_paths::kConfig) + "/" + std::string(zk_paths::kEntityUsers));
    if (listed) {
      names = users_of(*listed);
    } else if (listed.code() != cluster::StoreCode::kNoNode) {
      resp.error_code = ErrorCode::kUnknownServerError;
      resp.error_message = "cannot list /config/users: " + listed.error().message;
      return resp;
    }
  } else {
    names = *users;
  }
  std::map<std::string, int> seen;
  for (const std::string& n : names) ++seen[n];
  for (const std::string& user : names) {
    if (seen[user] == 0) continue;  // a duplicate, already answered
    protocol::DescribeUserScramCredentialsResponse::DescribeUserScramCredentialsResult r;
    r.user = user;
    if (seen[user] > 1) {
      r.error_code = ErrorCode::kDuplicateResource;
      r.error_message = "Cannot describe SCRAM credentials for the same user twice in a single request: " + user;
      seen[user] = 0;
      resp.results.push_back(std::move(r));
      continue;
    }
    seen[user] = 0;
    auto stored = user.empty() ? Result<StoredEntityConfig>(StoredEntityConfig{}) : read_entity_config(store, user_path(user));
    if (!stored) {
      r.error_code = ErrorCode::kUnknownServerError;
      r.error_message = stored.status().message();
    } else {
      for (const auto& [key, text] : stored->config) {
        auto m = security::scram_mechanism_named(key);
        auto c = m ? security::parse_scram_credential(text) : Result<security::ScramCredential>(Status::error(""));
        if (!m || !c) continue;
        r.credential_infos.push_back({static_cast<int8_t>(*m), c->iterations});
      }
      if (r.credential_infos.empty()) {
        if (all) continue;  // a user node with other configs only (quotas)
        r.error_code = ErrorCode::kResourceNotFound;
        r.error_message = "Attempt to describe a user credential that does not exist: " + user;
      }
    }
    resp.results.push_back(std::move(r));
  }
  return resp;
}

protocol::AlterUserScramCredentialsResponse alter_scram_users(cluster::MetadataStore& store,
                                                              security::ScramCredentials& creds,
                                                              const protocol::AlterUserScramCredentialsRequest& req,
                                                              bool notify) {
  std::vector<std::string> order;
  std::map<std::string, UserEdit> edits;
  // Kafka 4's controller takes one alteration per user and request,
  // whatever the mechanisms (ZooKeeper-mode Kafka took one per mechanism).
  std::set<std::string> touched;
  auto edit_of = [&](const std::string& user) -> UserEdit& {
    auto [it, fresh] = edits.try_emplace(user);
    if (fresh) order.push_back(user);
    return it->second;
  };
  auto check = [&](UserEdit& e, const std::string& user, int8_t mechanism) {
    if (e.failure.code != ErrorCode::kNone) return false;
    if (user.empty()) {
      e.failure = {ErrorCode::kUnacceptableCredential, "Username must not be empty"};
    } else if (!security::scram_mechanism_of_type(mechanism)) {
      e.failure = {ErrorCode::kUnsupportedSaslMechanism, "Unknown SCRAM mechanism"};
    } else if (!touched.insert(user).second) {
      e.failure = {ErrorCode::kDuplicateResource, "A user credential cannot be altered twice in the same request"};
    }
    return e.failure.code == ErrorCode::kNone;
  };
  for (const auto& d : req.deletions) {
    UserEdit& e = edit_of(d.name);
    if (check(e, d.name, d.mechanism)) e.deletions.push_back(&d);
  }
  for (const auto& u : req.upsertions) {
    UserEdit& e = edit_of(u.name);
    if (!check(e, u.name, u.mechanism)) continue;
    if (u.iterations < security::kScramMinIterations) {
      e.failure = {ErrorCode::kUnacceptableCredential, "Too few iterations"};
    } else if (u.iterations > security::kScramMaxIterations) {
      e.failure = {ErrorCode::kUnacceptableCredential, "Too many iterations"};
    } else if (u.salt.empty() || u.salted_password.empty()) {
      e.failure = {ErrorCode::kUnacceptableCredential, "Salt and salted password must not be empty"};
    } else {
      e.upsertions.push_back(&u);
    }
  }
  protocol::AlterUserScramCredentialsResponse resp;
  for (const std::string& user : order) {
    UserEdit& e = edits[user];
    Failure f = e.failure.code != ErrorCode::kNone ? e.failure : apply_edit(store, creds, user, e, notify);
    protocol::AlterUserScramCredentialsResponse::AlterUserScramCredentialsResult r;
    r.user = user;
    r.error_code = f.code;
    if (f.code != ErrorCode::kNone) r.error_message = f.message;
    resp.results.push_back(std::move(r));
  }
  return resp;
}

}  // namespace spool::broker
