// Admin, ACLs area: CreateAcls, DescribeAcls and DeleteAcls, to any node
// (the broker stores them cluster-wide); see admin.h.
#include "client/admin/admin_routing.h"

namespace spool::client {

Result<protocol::CreateAclsResponse> Admin::create_acls(const protocol::CreateAclsRequest& request) {
  auto node = any_node();
  if (!node) return node.status();
  auto reply = call<protocol::CreateAclsRequest, protocol::CreateAclsResponse>(*node, request);
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::DescribeAclsResponse> Admin::describe_acls(const protocol::DescribeAclsRequest& request) {
  auto node = any_node();
  if (!node) return node.status();
  auto reply = call<protocol::DescribeAclsRequest, protocol::DescribeAclsResponse>(*node, request);
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::DeleteAclsResponse> Admin::delete_acls(const protocol::DeleteAclsRequest& request) {
  auto node = any_node();
  if (!node) return node.status();
  auto reply = call<protocol::DeleteAclsRequest, protocol::DeleteAclsResponse>(*node, request);
  if (!reply) return reply.status();
  return std::move(reply->message);
}

}  // namespace spool::client
