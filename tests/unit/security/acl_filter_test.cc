// Kafka's ACL binding filters (DescribeAcls/DeleteAcls) and the text forms
// of the ACL enums (ZooKeeper's camel case, the enum names).
#include "security/acl_filter.h"

#include <gtest/gtest.h>

#include "security/acl_text.h"

namespace spool::security {
namespace {

AclBinding acl(ResourceType t, std::string name, PatternType p, std::string principal = "User:alice",
               AclOperation op = AclOperation::kRead, AclPermission perm = AclPermission::kAllow) {
  return {t, std::move(name), p, std::move(principal), "*", op, perm};
}

constexpr auto kTopic = ResourceType::kTopic;
constexpr auto kLit = PatternType::kLiteral;
constexpr auto kPre = PatternType::kPrefixed;

AclFilter by_name(std::optional<std::string> name, PatternType p, ResourceType t = ResourceType::kAny) {
  AclFilter f;
  f.resource_type = t;
  f.resource_name = std::move(name);
  f.pattern_type = p;
  return f;
}

TEST(AclFilterTest, PatternTypesSelectAsKafka) {
  const AclBinding literal = acl(kTopic, "orders", kLit);
  const AclBinding wildcard = acl(kTopic, "*", kLit);
  const AclBinding prefix = acl(kTopic, "ord", kPre);
  const AclBinding other_prefix = acl(kTopic, "orders", kPre);
  const AclBinding group = acl(ResourceType::kGroup, "orders", kLit);
  // No name: every pattern of the (pattern) type.
  EXPECT_TRUE(matches(by_name(std::nullopt, PatternType::kAny), prefix));
  EXPECT_TRUE(matches(by_name(std::nullopt, kLit), wildcard));
  EXPECT_FALSE(matches(by_name(std::nullopt, kLit), prefix));
  EXPECT_TRUE(matches(by_name(std::nullopt, PatternType::kMatch), prefix));
  // LITERAL / PREFIXED: that pattern type and exactly that name.
  EXPECT_TRUE(matches(by_name("orders", kLit), literal));
  EXPECT_FALSE(matches(by_name("orders", kLit), wildcard));
  EXPECT_FALSE(matches(by_name("orders", kLit), other_prefix));
  EXPECT_TRUE(matches(by_name("orders", kPre), other_prefix));
  EXPECT_FALSE(matches(by_name("orders", kPre), prefix));
  // ANY: either pattern type, exact name.
  EXPECT_TRUE(matches(by_name("orders", PatternType::kAny), literal));
  EXPECT_TRUE(matches(by_name("orders", PatternType::kAny), other_prefix));
  EXPECT_FALSE(matches(by_name("orders", PatternType::kAny), prefix));
  // MATCH: every pattern that covers the name.
  for (const AclBinding& b : {literal, wildcard, prefix, other_prefix})
    EXPECT_TRUE(matches(by_name("orders", PatternType::kMatch), b)) << describe(b);
  EXPECT_FALSE(matches(by_name("ord", PatternType::kMatch), literal));
  EXPECT_FALSE(matches(by_name("ord", PatternType::kMatch), other_prefix));
  // The resource type.
  EXPECT_TRUE(matches(by_name("orders", kLit), group));
  EXPECT_FALSE(matches(by_name("orders", kLit, kTopic), group));
}

TEST(AclFilterTest, EntryFieldsAreExactOrAny) {
  const AclBinding b = acl(kTopic, "t", kLit, "User:alice", AclOperation::kWrite, AclPermission::kDeny);
  AclFilter f = by_name(std::nullopt, PatternType::kAny);
  EXPECT_TRUE(matches(f, b));
  f.principal = "User:*";  // exact: only wildcard bindings
  EXPECT_FALSE(matches(f, b));
  f.principal = "User:alice";
  f.host = "10.0.0.1";
  EXPECT_FALSE(matches(f, b));
  f.host = "*";
  f.operation = AclOperation::kRead;
  EXPECT_FALSE(matches(f, b));
  f.operation = AclOperation::kWrite;
  f.permission = AclPermission::kAllow;
  EXPECT_FALSE(matches(f, b));
  f.permission = AclPermission::kDeny;
  EXPECT_TRUE(matches(f, b));
}

TEST(AclFilterTest, UnknownFieldsAreInvalid) {
  AclFilter ok = by_name(std::nullopt, PatternType::kAny);
  EXPECT_FALSE(invalid_filter(ok));
  AclFilter f = ok;
  f.resource_type = ResourceType::kUnknown;
  EXPECT_TRUE(invalid_filter(f));
  f = ok;
  f.pattern_type = PatternType::kUnknown;
  EXPECT_TRUE(invalid_filter(f));
  f = ok;
  f.operation = static_cast<AclOperation>(15);
  EXPECT_TRUE(invalid_filter(f));
  f = ok;
  f.permission = static_cast<AclPermission>(-3);
  EXPECT_TRUE(invalid_filter(f));
}

TEST(AclTextTest, NamesBothWays) {
  EXPECT_EQ(camel_name(ResourceType::kTransactionalId), "TransactionalId");
  EXPECT_EQ(enum_name(ResourceType::kTransactionalId), "TRANSACTIONAL_ID");
  EXPECT_EQ(camel_name(AclOperation::kClusterAction), "ClusterAction");
  EXPECT_EQ(enum_name(AclOperation::kIdempotentWrite), "IDEMPOTENT_WRITE");
  EXPECT_EQ(camel_name(AclPermission::kDeny), "Deny");
  EXPECT_EQ(enum_name(PatternType::kPrefixed), "PREFIXED");
  EXPECT_EQ(enum_name(static_cast<AclOperation>(99)), "UNKNOWN");
  for (int op = 1; op <= 14; ++op) {
    const auto o = static_cast<AclOperation>(op);
    EXPECT_EQ(parse_operation(camel_name(o)), o) << op;
    EXPECT_EQ(parse_operation(enum_name(o)), o) << op;
  }
  for (int t = 1; t <= 7; ++t) {
    const auto r = static_cast<ResourceType>(t);
    EXPECT_EQ(parse_resource_type(camel_name(r)), r) << t;
    EXPECT_EQ(parse_resource_type(enum_name(r)), r) << t;
  }
  EXPECT_EQ(parse_operation("describe_configs"), AclOperation::kDescribeConfigs);
  EXPECT_EQ(parse_permission("allow"), AclPermission::kAllow);
  EXPECT_EQ(parse_pattern_type("Literal"), PatternType::kLiteral);
  EXPECT_FALSE(parse_operation("Unknown"));
  EXPECT_FALSE(parse_operation("Rea d"));
  EXPECT_FALSE(parse_resource_type(""));
  EXPECT_EQ(describe(acl(kTopic, "t", kLit)),
            "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW) on "
            "ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)");
}

}  // namespace
}  // namespace spool::security
