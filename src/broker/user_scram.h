// SCRAM users in the metadata store (Kafka's ZooKeeper layout:
// /config/users/<user, sanitized as Kafka's Sanitizer> = {"version":1,"config":{"SCRAM-SHA-256":
// "salt=...,stored_key=...,server_key=...,iterations=N"}}), and the
// broker's in-memory mirror (security::ScramCredentials) the SASL listeners
// authenticate against.
//   * load_scram_users: every user node at start.
//   * apply_scram_user: one user's node after a change (the config-change
//     listener in a cluster, which desanitizes the name; the writer itself
//     on a single node).
//   * describe_scram_users / alter_scram_users: DescribeUserScramCredentials
//     and AlterUserScramCredentials with Kafka's validation and error codes
//     (UNSUPPORTED_SASL_MECHANISM, DUPLICATE_RESOURCE, UNACCEPTABLE_CREDENTIAL,
//     RESOURCE_NOT_FOUND); a user's alterations apply all or none. The
//     secrets never leave the store: Describe gives mechanisms and iterations.
// Blocking store round trips: call off the reactors (admin executor, the
// config-change thread, start-up). Thread-safe (the store and the mirror are).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"
#include "protocol/alter_user_scram_credentials_request.h"
#include "protocol/alter_user_scram_credentials_response.h"
#include "protocol/describe_user_scram_credentials_response.h"
#include "security/scram_credentials.h"
#include "util/status.h"

namespace spool::broker {

Status load_scram_users(cluster::MetadataStore& store, security::ScramCredentials& creds);

void apply_scram_user(security::ScramCredentials& creds, const std::string& user, const cluster::EntityConfig& config);

protocol::DescribeUserScramCredentialsResponse describe_scram_users(
    cluster::MetadataStore& store, const std::optional<std::vector<std::string>>& users);

// `notify`: write the /config/changes notification (a cluster, where every
// broker's listener applies it); `creds` is updated here either way.
protocol::AlterUserScramCredentialsResponse alter_scram_users(cluster::MetadataStore& store,
                                                              security::ScramCredentials& creds,
                                                              const protocol::AlterUserScramCredentialsRequest& req,
                                                              bool notify);

}  // namespace spool::broker
