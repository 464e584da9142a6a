// The handlers' questions to the ACL authorizer (BrokerContext::authorizer),
// asked for the request's principal and its client's address. Without an
// authorizer every answer is yes, as in Kafka without authorizer.class.name.
// What each API checks, with Kafka's error codes, is in its handler; the
// handler table's Authz column says which APIs check in their handler and
// which the dispatcher gates (handler_table.h). Thread-safe (the authorizer
// reads an immutable snapshot).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "broker/broker_context.h"
#include "broker/request_context.h"
#include "protocol/error_code.h"
#include "security/acl.h"

namespace spool::broker {

// The cluster resource's one name.
inline constexpr std::string_view kClusterResource = "kafka-cluster";

bool allowed(const BrokerContext& b, const RequestContext& ctx, security::AclOperation op,
             security::ResourceType type, std::string_view name);
inline bool cluster_allowed(const BrokerContext& b, const RequestContext& ctx, security::AclOperation op) {
  return allowed(b, ctx, op, security::ResourceType::kCluster, kClusterResource);
}
inline bool group_allowed(const BrokerContext& b, const RequestContext& ctx, security::AclOperation op,
                          std::string_view group) {
  return allowed(b, ctx, op, security::ResourceType::kGroup, group);
}
inline bool topic_allowed(const BrokerContext& b, const RequestContext& ctx, security::AclOperation op,
                          std::string_view topic) {
  return allowed(b, ctx, op, security::ResourceType::kTopic, topic);
}
// Auto-creating a topic (Metadata): CREATE on the cluster or on the topic.
inline bool create_allowed(const BrokerContext& b, const RequestContext& ctx, std::string_view topic) {
  return cluster_allowed(b, ctx, security::AclOperation::kCreate) ||
         topic_allowed(b, ctx, security::AclOperation::kCreate, topic);
}
// A config resource (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs;
// ConfigResource types TOPIC 2, BROKER 4, BROKER_LOGGER 8): `op`
// (DESCRIBE_CONFIGS or ALTER_CONFIGS) on the topic, or on the cluster for a
// broker or its loggers. nullopt when allowed (or another type, which the
// handler refuses itself); else TOPIC_ / CLUSTER_AUTHORIZATION_FAILED.
std::optional<protocol::ErrorCode> config_refusal(const BrokerContext& b, const RequestContext& ctx, int8_t type,
                                                  std::string_view name, security::AclOperation op);
// Kafka's message for an authorization error code ("Topic authorization failed.").
const char* authorization_message(protocol::ErrorCode e);
// KIP-679: `op` allowed on some resource of `type` (AclAuthorizer::authorize_any).
bool allowed_on_any(const BrokerContext& b, const RequestContext& ctx, security::AclOperation op,
                    security::ResourceType type);

// The authorized-operations bit set (bit = AclOperation code) of a resource:
// those of `ops` the principal is allowed; all of them without an authorizer.
int32_t authorized_operations(const BrokerContext& b, const RequestContext& ctx, security::ResourceType type,
                              std::string_view name, std::initializer_list<security::AclOperation> ops);
int32_t topic_authorized_operations(const BrokerContext& b, const RequestContext& ctx, std::string_view topic);
int32_t cluster_authorized_operations(const BrokerContext& b, const RequestContext& ctx);
int32_t group_authorized_operations(const BrokerContext& b, const RequestContext& ctx, std::string_view group);

}  // namespace spool::broker
