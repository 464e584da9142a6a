// The ACL decision as Kafka's AclAuthorizer makes it: patterns (literal,
// wildcard, prefixed), principals and hosts with wildcards, DENY over
// ALLOW, implied operations, super users and the no-ACL default.
#include "security/acl.h"

#include <gtest/gtest.h>

namespace spool::security {
namespace {

AclBinding acl(ResourceType t, std::string name, PatternType p, std::string principal, AclOperation op,
               AclPermission perm = AclPermission::kAllow, std::string host = "*") {
  return {t, std::move(name), p, std::move(principal), std::move(host), op, perm};
}

constexpr auto kTopic = ResourceType::kTopic;
constexpr auto kLit = PatternType::kLiteral;
constexpr auto kPre = PatternType::kPrefixed;

TEST(AclTest, LiteralWildcardAndPrefixedPatterns) {
  AclAuthorizer a;
  a.set({acl(kTopic, "orders", kLit, "User:alice", AclOperation::kRead),
         acl(kTopic, "*", kLit, "User:bob", AclOperation::kWrite),
         acl(kTopic, "logs-", kPre, "User:carol", AclOperation::kRead)});
  EXPECT_TRUE(a.authorize("User:alice", "10.0.0.1", AclOperation::kRead, kTopic, "orders"));
  EXPECT_FALSE(a.authorize("User:alice", "10.0.0.1", AclOperation::kRead, kTopic, "orders2"));
  EXPECT_FALSE(a.authorize("User:alice", "10.0.0.1", AclOperation::kWrite, kTopic, "orders"));
  EXPECT_TRUE(a.authorize("User:bob", "h", AclOperation::kWrite, kTopic, "anything"));
  EXPECT_TRUE(a.authorize("User:carol", "h", AclOperation::kRead, kTopic, "logs-app"));
  EXPECT_TRUE(a.authorize("User:carol", "h", AclOperation::kRead, kTopic, "logs-"));
  EXPECT_FALSE(a.authorize("User:carol", "h", AclOperation::kRead, kTopic, "log"));
  // The pattern is per resource type.
  EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::kRead, ResourceType::kGroup, "orders"));
}

TEST(AclTest, DenyWinsOverAllowWhateverItsPattern) {
  AclAuthorizer a;
  a.set({acl(kTopic, "*", kLit, "User:*", AclOperation::kAll),
         acl(kTopic, "secret-", kPre, "User:mallory", AclOperation::kRead, AclPermission::kDeny),
         acl(kTopic, "audit", kLit, "User:*", AclOperation::kAll, AclPermission::kDeny, "10.9.9.9")});
  EXPECT_TRUE(a.authorize("User:mallory", "1.2.3.4", AclOperation::kRead, kTopic, "public"));
  EXPECT_FALSE(a.authorize("User:mallory", "1.2.3.4", AclOperation::kRead, kTopic, "secret-x"));
  // A DENY of READ does not deny what READ would imply (DESCRIBE), as Kafka.
  EXPECT_TRUE(a.authorize("User:mallory", "1.2.3.4", AclOperation::kDescribe, kTopic, "secret-x"));
  EXPECT_TRUE(a.authorize("User:alice", "1.2.3.4", AclOperation::kRead, kTopic, "secret-x"));
  // Host-scoped DENY of ALL.
  EXPECT_FALSE(a.authorize("User:alice", "10.9.9.9", AclOperation::kWrite, kTopic, "audit"));
  EXPECT_TRUE(a.authorize("User:alice", "10.9.9.8", AclOperation::kWrite, kTopic, "audit"));
}

TEST(AclTest, ImpliedOperations) {
  AclAuthorizer a;
  a.set({acl(kTopic, "r", kLit, "User:u", AclOperation::kRead), acl(kTopic, "w", kLit, "User:u", AclOperation::kWrite),
         acl(kTopic, "d", kLit, "User:u", AclOperation::kDelete), acl(kTopic, "a", kLit, "User:u", AclOperation::kAlter),
         acl(kTopic, "c", kLit, "User:u", AclOperation::kAlterConfigs),
         acl(kTopic, "x", kLit, "User:u", AclOperation::kCreate)});
  for (const char* t : {"r", "w", "d", "a"}) {
    EXPECT_TRUE(a.authorize("User:u", "h", AclOperation::kDescribe, kTopic, t)) << t;
  }
  EXPECT_TRUE(a.authorize("User:u", "h", AclOperation::kDescribeConfigs, kTopic, "c"));
  EXPECT_FALSE(a.authorize("User:u", "h", AclOperation::kDescribe, kTopic, "c"));
  EXPECT_FALSE(a.authorize("User:u", "h", AclOperation::kDescribe, kTopic, "x"));
  EXPECT_FALSE(a.authorize("User:u", "h", AclOperation::kWrite, kTopic, "r"));
  EXPECT_FALSE(a.authorize("User:u", "h", AclOperation::kRead, kTopic, "w"));
}

TEST(AclTest, SuperUsersAndTheNoAclDefault) {
  AclAuthorizer closed({{"User:admin"}, false});
  closed.set({acl(kTopic, "t", kLit, "User:alice", AclOperation::kRead)});
  EXPECT_TRUE(closed.authorize("User:admin", "h", AclOperation::kAlter, ResourceType::kCluster, "kafka-cluster"));
  EXPECT_FALSE(closed.authorize("User:bob", "h", AclOperation::kRead, kTopic, "untouched"));
  AclAuthorizer open({{}, true});
  open.set({acl(kTopic, "t", kLit, "User:alice", AclOperation::kRead)});
  EXPECT_TRUE(open.authorize("User:bob", "h", AclOperation::kRead, kTopic, "untouched"));
  // A resource some ACL names is closed to everyone else, default or not.
  EXPECT_FALSE(open.authorize("User:bob", "h", AclOperation::kRead, kTopic, "t"));
}

TEST(AclTest, SetReplacesAndDeduplicates) {
  AclAuthorizer a;
  a.set({acl(kTopic, "t", kLit, "User:a", AclOperation::kRead), acl(kTopic, "t", kLit, "User:a", AclOperation::kRead)});
  EXPECT_EQ(a.bindings().size(), 1u);
  a.set({});
  EXPECT_TRUE(a.bindings().empty());
  EXPECT_FALSE(a.authorize("User:a", "h", AclOperation::kRead, kTopic, "t"));
}

TEST(AclTest, InvalidBindingsAreNamed) {
  EXPECT_FALSE(invalid_binding(acl(kTopic, "t", kLit, "User:a", AclOperation::kRead)));
  EXPECT_FALSE(invalid_binding(acl(ResourceType::kCluster, "kafka-cluster", kLit, "User:a", AclOperation::kAlter)));
  for (const AclBinding& b : {acl(ResourceType::kAny, "t", kLit, "User:a", AclOperation::kRead),
                              acl(kTopic, "t", PatternType::kMatch, "User:a", AclOperation::kRead),
                              acl(kTopic, "", kLit, "User:a", AclOperation::kRead),
                              acl(kTopic, "*", kPre, "User:a", AclOperation::kRead),
                              acl(ResourceType::kCluster, "other", kLit, "User:a", AclOperation::kAlter),
                              acl(kTopic, "t", kLit, "User:a", AclOperation::kAny),
                              acl(kTopic, "t", kLit, "User:a", AclOperation::kRead, AclPermission::kAny),
                              acl(kTopic, "t", kLit, "alice", AclOperation::kRead),
                              acl(kTopic, "t", kLit, "User:a", AclOperation::kRead, AclPermission::kAllow, "")}) {
    EXPECT_TRUE(invalid_binding(b).has_value()) << b.resource_name << " " << b.principal;
  }
}

// KIP-679 (InitProducerId's fallback): WRITE on some topic that no DENY
// covers, in Kafka's authorizeByResourceType rules.
TEST(AclTest, AuthorizeAnyFindsAnAllowNoDenyCovers) {
  AclAuthorizer none;
  EXPECT_FALSE(none.authorize_any("User:alice", "h", AclOperation::kWrite, kTopic));
  AclAuthorizer open(AuthorizerOptions{{}, true});
  EXPECT_TRUE(open.authorize_any("User:alice", "h", AclOperation::kWrite, kTopic));

  AclAuthorizer a(AuthorizerOptions{{"User:root"}, false});
  a.set({acl(kTopic, "orders", kLit, "User:alice", AclOperation::kWrite),
         acl(kTopic, "logs-", kPre, "User:bob", AclOperation::kAll),
         acl(kTopic, "logs-", kPre, "User:bob", AclOperation::kWrite, AclPermission::kDeny),
         acl(kTopic, "x", kLit, "User:carol", AclOperation::kWrite),
         acl(kTopic, "x", kLit, "User:carol", AclOperation::kWrite, AclPermission::kDeny),
         acl(kTopic, "y", kLit, "User:carol", AclOperation::kRead),
         acl(kTopic, "*", kLit, "User:dave", AclOperation::kWrite),
         acl(kTopic, "*", kLit, "User:erin", AclOperation::kWrite),
         acl(kTopic, "*", kLit, "User:erin", AclOperation::kAll, AclPermission::kDeny)});
  EXPECT_TRUE(a.authorize_any("User:alice", "h", AclOperation::kWrite, kTopic));
  EXPECT_FALSE(a.authorize_any("User:alice", "h", AclOperation::kDelete, kTopic));
  EXPECT_FALSE(a.authorize_any("User:bob", "h", AclOperation::kWrite, kTopic));   // the DENY prefix covers it
  EXPECT_TRUE(a.authorize_any("User:bob", "h", AclOperation::kRead, kTopic));     // ALL allows READ
  EXPECT_FALSE(a.authorize_any("User:carol", "h", AclOperation::kWrite, kTopic));  // DENY literal on x
  EXPECT_TRUE(a.authorize_any("User:dave", "h", AclOperation::kWrite, kTopic));
  EXPECT_FALSE(a.authorize_any("User:erin", "h", AclOperation::kWrite, kTopic));  // DENY on "*"
  EXPECT_TRUE(a.authorize_any("User:root", "h", AclOperation::kWrite, kTopic));   // super user
  EXPECT_FALSE(a.authorize_any("User:alice", "h", AclOperation::kWrite, ResourceType::kGroup));
  EXPECT_TRUE(a.is_super_user("User:root"));
  EXPECT_FALSE(a.is_super_user("User:alice"));
}

}  // namespace
}  // namespace spool::security
