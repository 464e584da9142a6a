// ACLs in the metadata store in Kafka's ZooKeeper layout (acl_store.h), and
// the cluster's change listener (acl_changes.h), on the in-memory store.
#include "broker/acl_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "broker/acl_changes.h"
#include "cluster/memory_store.h"
#include "cluster/memory_tree.h"
#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"

namespace spool::broker {
namespace {

using security::AclBinding;
using security::AclFilter;
using security::AclOperation;
using security::AclPermission;
using security::PatternType;
using security::ResourceType;

AclBinding acl(ResourceType t, std::string name, PatternType p, std::string principal, AclOperation op,
               AclPermission perm = AclPermission::kAllow) {
  return {t, std::move(name), p, std::move(principal), "*", op, perm};
}

std::vector<AclBinding> sorted(std::vector<AclBinding> v) {
  std::sort(v.begin(), v.end());
  return v;
}

struct Fixture {
  std::shared_ptr<cluster::MemoryTree> tree = std::make_shared<cluster::MemoryTree>();
  cluster::MemoryStore store{tree};
  Fixture() { EXPECT_TRUE(ensure_acl_paths(store).is_ok()); }
  std::vector<AclBinding> all() {
    auto r = load_acls(store);
    EXPECT_TRUE(r.is_ok());
    return r.is_ok() ? sorted(*r) : std::vector<AclBinding>{};
  }
};

const AclBinding kRead = acl(ResourceType::kTopic, "orders", PatternType::kLiteral, "User:alice", AclOperation::kRead);
const AclBinding kWrite =
    acl(ResourceType::kTopic, "orders", PatternType::kLiteral, "User:bob", AclOperation::kWrite);
const AclBinding kPrefix =
    acl(ResourceType::kGroup, "app-", PatternType::kPrefixed, "User:alice", AclOperation::kRead);
const AclBinding kDeny = acl(ResourceType::kTopic, "orders", PatternType::kLiteral, "User:*", AclOperation::kDelete,
                             AclPermission::kDeny);

TEST(AclStoreTest, CreateWritesKafkasNodesAndLoadReadsThemBack) {
  Fixture f;
  auto results = create_acls(f.store, {kRead, kWrite, kPrefix, kDeny, kRead}, /*notify=*/false);
  ASSERT_EQ(results.size(), 5u);
  for (const auto& r : results) EXPECT_FALSE(r) << r->message;
  EXPECT_EQ(f.all(), sorted({kRead, kWrite, kPrefix, kDeny}));
  // Kafka's layout and JSON, so a Kafka 3.x broker reads the same nodes.
  auto literal = f.store.get("/kafka-acl/Topic/orders");
  ASSERT_TRUE(literal.is_ok());
  auto entries = cluster::decode_acl_node("/kafka-acl/Topic/orders", literal->data);
  ASSERT_TRUE(entries.is_ok());
  EXPECT_EQ(entries->size(), 3u);
  EXPECT_NE(literal->data.find(R"({"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"})"),
            std::string::npos)
      << literal->data;
  EXPECT_NE(literal->data.find(R"("permissionType":"Deny","operation":"Delete")"), std::string::npos) << literal->data;
  EXPECT_TRUE(f.store.get("/kafka-acl-extended/prefixed/Group/app-").is_ok());
  // No notifications on a single node.
  auto changes = f.store.children("/kafka-acl-changes");
  ASSERT_TRUE(changes.is_ok());
  EXPECT_TRUE(changes->empty());
}

TEST(AclStoreTest, AClusterWriteAnnouncesEachResource) {
  Fixture f;
  for (const auto& r : create_acls(f.store, {kRead, kWrite, kPrefix}, /*notify=*/true)) EXPECT_FALSE(r);
  auto literal = f.store.children("/kafka-acl-changes");
  auto extended = f.store.children("/kafka-acl-extended-changes");
  ASSERT_TRUE(literal.is_ok() && extended.is_ok());
  ASSERT_EQ(literal->size(), 1u);  // one resource, written once
  ASSERT_EQ(extended->size(), 1u);
  EXPECT_EQ(f.store.get("/kafka-acl-changes/" + literal->front())->data, "TOPIC:orders");
  EXPECT_EQ(f.store.get("/kafka-acl-extended-changes/" + extended->front())->data,
            R"({"version":1,"resourceType":"GROUP","name":"app-","patternType":"PREFIXED"})");
}

TEST(AclStoreTest, UnstorableNamesAreInvalidRequests) {
  Fixture f;
  auto results = create_acls(f.store,
                             {acl(ResourceType::kGroup, "a/b", PatternType::kLiteral, "User:x", AclOperation::kRead),
                              acl(ResourceType::kGroup, "..", PatternType::kLiteral, "User:x", AclOperation::kRead),
                              kRead},
                             false);
  ASSERT_TRUE(results[0] && results[1]);
  EXPECT_EQ(results[0]->code, protocol::ErrorCode::kInvalidRequest);
  EXPECT_EQ(results[1]->code, protocol::ErrorCode::kInvalidRequest);
  EXPECT_FALSE(results[2]);
  EXPECT_EQ(f.all(), std::vector<AclBinding>{kRead});
}

TEST(AclStoreTest, DeleteRemovesWhatEachFilterMatchesAndEmptyNodes) {
  Fixture f;
  for (const auto& r : create_acls(f.store, {kRead, kWrite, kPrefix, kDeny}, false)) EXPECT_FALSE(r);
  AclFilter alice;
  alice.principal = "User:alice";
  AclFilter everything;
  auto results = delete_acls(f.store, {alice, everything}, false);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].error);
  EXPECT_EQ(sorted(results[0].removed), sorted({kRead, kPrefix}));
  EXPECT_EQ(sorted(results[1].removed), sorted({kWrite, kDeny}));  // what the first left
  EXPECT_TRUE(f.all().empty());
  EXPECT_EQ(f.store.get("/kafka-acl/Topic/orders").code(), cluster::StoreCode::kNoNode);
  EXPECT_EQ(f.store.get("/kafka-acl-extended/prefixed/Group/app-").code(), cluster::StoreCode::kNoNode);
}

TEST(AclStoreTest, BadNodesAndEntriesAreSkippedNotFatal) {
  Fixture f;
  for (const auto& r : create_acls(f.store, {kRead}, false)) EXPECT_FALSE(r);
  ASSERT_TRUE(cluster::ensure_path(f.store, "/kafka-acl/Group").is_ok());
  ASSERT_TRUE(f.store.create("/kafka-acl/Group/g1", "not json").is_ok());
  ASSERT_TRUE(f.store.create("/kafka-acl/Group/g2",
                             R"({"version":1,"acls":[{"principal":"User:a","permissionType":"Allow",)"
                             R"("operation":"Juggle","host":"*"},{"principal":"nocolon","permissionType":"Allow",)"
                             R"("operation":"Read","host":"*"},{"principal":"User:b","permissionType":"Allow",)"
                             R"("operation":"Read","host":"*"}]})")
                  .is_ok());
  ASSERT_TRUE(cluster::ensure_path(f.store, "/kafka-acl/Spaceship/x").is_ok());
  EXPECT_EQ(f.all(), sorted({kRead, acl(ResourceType::kGroup, "g2", PatternType::kLiteral, "User:b",
                                        AclOperation::kRead)}));
}

TEST(AclStoreTest, ChangesReloadTheAuthorizerOnNewNotificationsOnly) {
  Fixture f;
  security::AclAuthorizer authorizer;
  int wakes = 0;
  AclChanges changes(f.store, authorizer, [&] { ++wakes; });
  auto first = changes.poll();
  ASSERT_TRUE(first.is_ok());
  EXPECT_TRUE(*first);  // the first poll always loads
  EXPECT_TRUE(authorizer.bindings().empty());
  EXPECT_FALSE(*changes.poll());  // nothing new
  for (const auto& r : create_acls(f.store, {kRead, kPrefix}, /*notify=*/true)) EXPECT_FALSE(r);
  f.tree->deliver();
  EXPECT_GE(wakes, 1);
  auto second = changes.poll();
  ASSERT_TRUE(second.is_ok());
  EXPECT_TRUE(*second);
  EXPECT_EQ(sorted(authorizer.bindings()), sorted({kRead, kPrefix}));
  EXPECT_TRUE(authorizer.authorize("User:alice", "h", AclOperation::kRead, ResourceType::kGroup, "app-1"));
  EXPECT_FALSE(*changes.poll());
}

}  // namespace
}  // namespace spool::broker
