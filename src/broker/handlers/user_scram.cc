// DescribeUserScramCredentials (v0) and AlterUserScramCredentials (v0):
// validated on the reactor, run on the admin executor (the metadata store is
// blocking), answered from there. The work is broker/user_scram.h's. A
// broker wired without a store (hand-built tests) answers
// UNKNOWN_SERVER_ERROR. With an authorizer (Kafka's checks) Describe needs
// DESCRIBE on the cluster and Alter ALTER, else CLUSTER_AUTHORIZATION_FAILED.
#include <set>

#include "broker/handlers/authorize.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/handlers.h"
#include "broker/user_scram.h"
#include "protocol/alter_user_scram_credentials_request.h"
#include "protocol/describe_user_scram_credentials_request.h"

namespace spool::broker {

void handle_describe_user_scram_credentials(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeUserScramCredentialsRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeUserScramCredentials")) return;
  std::optional<std::vector<std::string>> users;
  if (req.users) {
    users.emplace();
    for (const auto& u : *req.users) users->push_back(u.name);
  }
  auto fail = [ctx](const Status& s) {
    protocol::DescribeUserScramCredentialsResponse resp;
    resp.error_code = static_cast<protocol::ErrorCode>(s.kafka_code());
    resp.error_message = s.message();
    ctx.respond(resp);
  };
  if (!cluster_allowed(b, ctx, security::AclOperation::kDescribe)) {
    return fail(Status::error("Cluster authorization failed.",
                              protocol::to_int(protocol::ErrorCode::kClusterAuthorizationFailed)));
  }
  if (b.config_store == nullptr) return fail(Status::error("no metadata store", -1));
  run_admin_job(b, "describe SCRAM users", [&b, ctx, users = std::move(users)] {
    ctx.respond(describe_scram_users(*b.config_store, users), 256);
  }, fail);
}

namespace {

// librdkafka (2.16 at least) ends AlterUserScramCredentials with one more
// empty tag section than the message has (a trailing 0x00), which Kafka,
// not checking for leftover bytes, ignores. Spool accepts trailing zero
// bytes here only; anything else left over still closes the connection.
bool decode_alter(const RequestContext& ctx, ByteReader& body, protocol::AlterUserScramCredentialsRequest& req) {
  if (req.decode(body, ctx.version()) && body.ok()) {
    bool zeros = true;
    while (zeros && body.remaining() > 0) zeros = body.u8() == 0;
    if (zeros && body.ok()) return true;
  }
  ctx.close("undecodable AlterUserScramCredentials v" + std::to_string(ctx.version()) + " request");
  return false;
}

}  // namespace

void handle_alter_user_scram_credentials(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::AlterUserScramCredentialsRequest req;
  if (!decode_alter(ctx, body, req)) return;
  auto fail = [ctx, req](const Status& s) {
    protocol::AlterUserScramCredentialsResponse resp;
    std::set<std::string> users;
    for (const auto& d : req.deletions) users.insert(d.name);
    for (const auto& u : req.upsertions) users.insert(u.name);
    for (const std::string& user : users) {
      resp.results.push_back({user, static_cast<protocol::ErrorCode>(s.kafka_code()), s.message()});
    }
    ctx.respond(resp);
  };
  if (!cluster_allowed(b, ctx, security::AclOperation::kAlter)) {
    return fail(Status::error("Cluster authorization failed.",
                              protocol::to_int(protocol::ErrorCode::kClusterAuthorizationFailed)));
  }
  if (b.config_store == nullptr || b.scram == nullptr) return fail(Status::error("no metadata store", -1));
  run_admin_job(b, "alter SCRAM users", [&b, ctx, req = std::move(req)] {
    ctx.respond(alter_scram_users(*b.config_store, *b.scram, req, /*notify=*/b.cluster != nullptr));
  }, fail);
}

}  // namespace spool::broker
