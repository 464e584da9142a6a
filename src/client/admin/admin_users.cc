// Admin, users area: SCRAM credentials (DescribeUserScramCredentials,
// AlterUserScramCredentials) and client quotas (DescribeClientQuotas,
// AlterClientQuotas), to any node; see admin.h.
#include "client/admin/admin_routing.h"

namespace spool::client {

namespace {

template <class Req, class Resp>
Result<Resp> message_of(Result<Reply<Resp>> reply) {
  if (!reply) return reply.status();
  return std::move(reply->message);
}

}  // namespace

Result<protocol::DescribeUserScramCredentialsResponse> Admin::describe_user_scram_credentials(
    const protocol::DescribeUserScramCredentialsRequest& request) {
  using Req = protocol::DescribeUserScramCredentialsRequest;
  using Resp = protocol::DescribeUserScramCredentialsResponse;
  auto node = any_node();
  if (!node) return node.status();
  return message_of<Req, Resp>(call<Req, Resp>(*node, request));
}

Result<protocol::AlterUserScramCredentialsResponse> Admin::alter_user_scram_credentials(
    const protocol::AlterUserScramCredentialsRequest& request) {
  using Req = protocol::AlterUserScramCredentialsRequest;
  using Resp = protocol::AlterUserScramCredentialsResponse;
  auto node = any_node();
  if (!node) return node.status();
  return message_of<Req, Resp>(call<Req, Resp>(*node, request));
}

Result<protocol::DescribeClientQuotasResponse> Admin::describe_client_quotas(
    const protocol::DescribeClientQuotasRequest& request) {
  using Req = protocol::DescribeClientQuotasRequest;
  using Resp = protocol::DescribeClientQuotasResponse;
  auto node = any_node();
  if (!node) return node.status();
  return message_of<Req, Resp>(call<Req, Resp>(*node, request));
}

Result<protocol::AlterClientQuotasResponse> Admin::alter_client_quotas(
    const protocol::AlterClientQuotasRequest& request) {
  using Req = protocol::AlterClientQuotasRequest;
  using Resp = protocol::AlterClientQuotasResponse;
  auto node = any_node();
  if (!node) return node.status();
  return message_of<Req, Resp>(call<Req, Resp>(*node, request));
}

}  // namespace spool::client
