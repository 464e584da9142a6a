#include "broker/handlers/authorize.h"

namespace spool::broker {

using security::AclOperation;
using security::ResourceType;

namespace {

// The operations that apply to each resource type (Kafka's
// authorized-operations sets: without an authorizer a topic answers 3576,
// the cluster 8096, a group 328).
constexpr std::initializer_list<AclOperation> kTopicOperations = {
    AclOperation::kRead,   AclOperation::kWrite,    AclOperation::kCreate,          AclOperation::kDelete,
    AclOperation::kAlter,  AclOperation::kDescribe, AclOperation::kDescribeConfigs, AclOperation::kAlterConfigs};
constexpr std::initializer_list<AclOperation> kClusterOperations = {
    AclOperation::kCreate,          AclOperation::kAlter,        AclOperation::kDescribe,
    AclOperation::kClusterAction,   AclOperation::kDescribeConfigs, AclOperation::kAlterConfigs,
    AclOperation::kIdempotentWrite};
constexpr std::initializer_list<AclOperation> kGroupOperations = {AclOperation::kRead, AclOperation::kDelete,
                                                                  AclOperation::kDescribe};

}  // namespace

bool allowed(const BrokerContext& b, const RequestContext& ctx, AclOperation op, ResourceType type,
             std::string_view name) {
  return b.authorizer == nullptr || b.authorizer->authorize(ctx.principal, ctx.client_address(), op, type, name);
}

bool allowed_on_any(const BrokerContext& b, const RequestContext& ctx, AclOperation op, ResourceType type) {
  return b.authorizer == nullptr || b.authorizer->authorize_any(ctx.principal, ctx.client_address(), op, type);
}

int32_t authorized_operations(const BrokerContext& b, const RequestContext& ctx, ResourceType type,
                              std::string_view name, std::initializer_list<AclOperation> ops) {
  int32_t bits = 0;
  for (AclOperation op : ops) {
    if (allowed(b, ctx, op, type, name)) bits |= 1 << static_cast<int>(op);
  }
  return bits;
}

int32_t topic_authorized_operations(const BrokerContext& b, const RequestContext& ctx, std::string_view topic) {
  return authorized_operations(b, ctx, ResourceType::kTopic, topic, kTopicOperations);
}

int32_t cluster_authorized_operations(const BrokerContext& b, const RequestContext& ctx) {
  return authorized_operations(b, ctx, ResourceType::kCluster, kClusterResource, kClusterOperations);
}

int32_t group_authorized_operations(const BrokerContext& b, const RequestContext& ctx, std::string_view group) {
  return authorized_operations(b, ctx, ResourceType::kGroup, group, kGroupOperations);
}

std::optional<protocol::ErrorCode> config_refusal(const BrokerContext& b, const RequestContext& ctx, int8_t type,
                                                  std::string_view name, AclOperation op) {
  constexpr int8_t kTopic = 2, kBroker = 4, kBrokerLogger = 8;
  if (type == kTopic) {
    if (topic_allowed(b, ctx, op, name)) return std::nullopt;
    return protocol::ErrorCode::kTopicAuthorizationFailed;
  }
  if (type == kBroker || type == kBrokerLogger) {
    if (cluster_allowed(b, ctx, op)) return std::nullopt;
    return protocol::ErrorCode::kClusterAuthorizationFailed;
  }
  return std::nullopt;
}

const char* authorization_message(protocol::ErrorCode e) {
  switch (e) {
    case protocol::ErrorCode::kTopicAuthorizationFailed: return "Topic authorization failed.";
    case protocol::ErrorCode::kGroupAuthorizationFailed: return "Group authorization failed.";
    case protocol::ErrorCode::kClusterAuthorizationFailed: return "Cluster authorization failed.";
    case protocol::ErrorCode::kTransactionalIdAuthorizationFailed: return "Transactional Id authorization failed.";
    default: return "Authorization failed.";
  }
}

}  // namespace spool::broker
