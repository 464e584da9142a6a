// Client quotas without a broker: Kafka's Sanitizer, entity paths, value
// validation, the manager's precedence order, shared rates and throttle
// times (on a given clock), and Describe/AlterClientQuotas on the in-memory
// store (filters, validation, SCRAM keys left alone).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "broker/client_quota_entity.h"
#include "broker/client_quota_manager.h"
#include "broker/client_quota_store.h"
#include "cluster/memory_store.h"
#include "cluster/memory_tree.h"
#include "cluster/zk_data.h"

namespace spool::broker {
namespace {

using protocol::ErrorCode;

QuotaEntity user(std::optional<std::string> u) { return QuotaEntity{{true, std::move(u)}, {}}; }
QuotaEntity client(std::optional<std::string> c) { return QuotaEntity{{}, {true, std::move(c)}}; }
QuotaEntity both(std::optional<std::string> u, std::optional<std::string> c) {
  return QuotaEntity{{true, std::move(u)}, {true, std::move(c)}};
}

TEST(ClientQuotaEntity, SanitizesAsKafka) {
  EXPECT_EQ(sanitize_entity_name("alice"), "alice");
  EXPECT_EQ(sanitize_entity_name("a.b-c_d"), "a.b-c_d");
  // Java's URLEncoder, with ' ' and '*' percent-encoded too.
  EXPECT_EQ(sanitize_entity_name("CN=x, O=y*"), "CN%3Dx%2C%20O%3Dy%2A");
  EXPECT_EQ(sanitize_entity_name("a/b%"), "a%2Fb%25");
  EXPECT_EQ(sanitize_entity_name("\xc3\xa9"), "%C3%A9");
  for (std::string s : {"CN=x, O=y*", "a/b%", "<default>", "", "\xc3\xa9+"}) {
    EXPECT_EQ(desanitize_entity_name(sanitize_entity_name(s)), s) << s;
  }
  EXPECT_EQ(desanitize_entity_name("a+b"), "a b");
  EXPECT_FALSE(desanitize_entity_name("a%2"));
  EXPECT_FALSE(desanitize_entity_name("a%zz"));
}

TEST(ClientQuotaEntity, PathsRoundTrip) {
  EXPECT_EQ(user("alice").path(), "users/alice");
  EXPECT_EQ(user(std::nullopt).path(), "users/<default>");
  EXPECT_EQ(client("app 1").path(), "clients/app%201");
  EXPECT_EQ(both("a/b", std::nullopt).path(), "users/a%2Fb/clients/<default>");
  for (const QuotaEntity& e : {user("alice"), user(std::nullopt), client("c"), client(std::nullopt), both("u", "c"),
                               both(std::nullopt, std::nullopt), both("%", "<default>")}) {
    auto back = QuotaEntity::from_path(e.path());
    ASSERT_TRUE(back) << e.path();
    EXPECT_EQ(*back, e) << e.path();
  }
  for (const char* bad : {"users", "users/", "topics/t", "clients/a/users/b", "users/a/clients", "users/a/topics/b",
                          "users/a/clients/b/c", "users/%zz"}) {
    EXPECT_FALSE(QuotaEntity::from_path(bad)) << bad;
  }
}

TEST(ClientQuotaEntity, ValidatesValuesAsKafka) {
  EXPECT_TRUE(validate_quota_value("producer_byte_rate", 1048576));
  EXPECT_TRUE(validate_quota_value("request_percentage", 12.5));
  EXPECT_EQ(validate_quota_value("producer_byte_rate", 1.5).kafka_code(), protocol::to_int(ErrorCode::kInvalidRequest));
  EXPECT_EQ(validate_quota_value("no_such", 1).kafka_code(), protocol::to_int(ErrorCode::kInvalidRequest));
  EXPECT_FALSE(validate_quota_value("consumer_byte_rate", 0));
  EXPECT_FALSE(validate_quota_value("request_percentage", -1));
  EXPECT_FALSE(validate_quota_value("controller_mutation_rate", 10));  // Kafka's key, not enforced here
}

TEST(ClientQuotaManager, KafkasPrecedenceOrder) {
  ClientQuotaManager m;
  EXPECT_FALSE(m.active(QuotaKind::kProduce));
  EXPECT_FALSE(m.quota(QuotaKind::kProduce, "u", "c"));
  // From the least specific to the most: each one takes over.
  const std::pair<QuotaEntity, double> ladder[] = {
      {client(std::nullopt), 8}, {client("c"), 7}, {user(std::nullopt), 6}, {both(std::nullopt, std::nullopt), 5},
      {both(std::nullopt, "c"), 4}, {user("u"), 3}, {both("u", std::nullopt), 2}, {both("u", "c"), 1}};
  for (const auto& [entity, value] : ladder) {
    m.set_entity(entity, {{"producer_byte_rate", std::to_string(static_cast<int>(value))}});
    EXPECT_EQ(m.quota(QuotaKind::kProduce, "u", "c"), value) << entity.path();
  }
  EXPECT_TRUE(m.active(QuotaKind::kProduce));
  EXPECT_FALSE(m.active(QuotaKind::kFetch));
  // Another user, another client id: the defaults.
  EXPECT_EQ(m.quota(QuotaKind::kProduce, "v", "d"), 5);
  EXPECT_EQ(m.quota(QuotaKind::kProduce, "v", "c"), 4);
  EXPECT_EQ(m.quota(QuotaKind::kProduce, "u", "d"), 2);
  // Each kind resolves on its own: a fetch quota only at clients/<default>.
  m.set_entity(client(std::nullopt), {{"producer_byte_rate", "8"}, {"consumer_byte_rate", "80"}});
  EXPECT_EQ(m.quota(QuotaKind::kFetch, "u", "c"), 80);
  EXPECT_EQ(m.quota(QuotaKind::kProduce, "u", "c"), 1);
  // An empty config removes the entity; SCRAM keys and bad values are ignored.
  m.set_entity(both("u", "c"), {{"SCRAM-SHA-256", "salt=..."}, {"producer_byte_rate", "x"}});
  EXPECT_EQ(m.quota(QuotaKind::kProduce, "u", "c"), 2);
}

TEST(ClientQuotaManager, ThrottleIsKafkasAndRatesAreSharedAsItsTags) {
  ClientQuotaManager m(11, 1000);
  m.set_entity(user("u"), {{"producer_byte_rate", "1000"}});
  // 10 s worth at once is within the quota (the window is at least 10 s).
  EXPECT_EQ(m.record(QuotaKind::kProduce, "u", "c1", 10000, 0), 0);
  // users/U is one rate for all of U's client ids: 1,000 more bytes from
  // another client id make 1,100 B/s, (1100 - 1000) / 1000 of 10 s.
  EXPECT_EQ(m.record(QuotaKind::kProduce, "u", "c2", 1000, 0), 1000);
  EXPECT_EQ(m.throttle(QuotaKind::kProduce, "u", "c3", 0), 1000);
  // Taken back (a throttled fetch sends nothing): within the quota again.
  m.unrecord(QuotaKind::kProduce, "u", "c2", 1000, 0);
  EXPECT_EQ(m.throttle(QuotaKind::kProduce, "u", "c1", 0), 0);
  // Byte-rate throttles are not bounded ...
  EXPECT_EQ(m.record(QuotaKind::kProduce, "u", "c1", 100000, 0), 100000);
  // ... nor shared with a user the entity does not name.
  EXPECT_EQ(m.record(QuotaKind::kProduce, "v", "c1", 100000, 0), 0);

  // clients/<default>: one rate per client id.
  m.set_entity(client(std::nullopt), {{"consumer_byte_rate", "100"}});
  EXPECT_EQ(m.record(QuotaKind::kFetch, "x", "a", 1000, 0), 0);
  EXPECT_EQ(m.record(QuotaKind::kFetch, "y", "b", 1000, 0), 0);
  EXPECT_EQ(m.record(QuotaKind::kFetch, "z", "a", 100, 0), 1000);  // the same client id, another user

  // Request time is bounded by one window (Kafka's ClientRequestQuotaManager).
  m.set_entity(client("busy"), {{"request_percentage", "1"}});
  EXPECT_EQ(m.record(QuotaKind::kRequest, "x", "busy", 1000, 0), 1000);
}

struct StoreFixture {
  std::shared_ptr<cluster::MemoryTree> tree = std::make_shared<cluster::MemoryTree>();
  cluster::MemoryStore store{tree};
  ClientQuotaManager quotas;

  protocol::AlterClientQuotasResponse alter(std::vector<protocol::AlterClientQuotasRequest::EntityData> entity,
                                            std::vector<protocol::AlterClientQuotasRequest::OpData> ops,
                                            bool validate_only = false) {
    protocol::AlterClientQuotasRequest req;
    req.entries.push_back({std::move(entity), std::move(ops)});
    req.validate_only = validate_only;
    return alter_client_quotas(store, quotas, req, /*notify=*/false);
  }
  protocol::DescribeClientQuotasResponse describe(
      std::vector<protocol::DescribeClientQuotasRequest::ComponentData> components, bool strict = false) {
    protocol::DescribeClientQuotasRequest req;
    req.components = std::move(components);
    req.strict = strict;
    return describe_client_quotas(store, req);
  }
};

TEST(ClientQuotaStore, AlterDescribeAndLoad) {
  StoreFixture f;
  ASSERT_TRUE(f.store.create("/config", "").is_ok());
  // A SCRAM user's node keeps its credential beside the quota.
  ASSERT_TRUE(f.store.create("/config/users", "").is_ok());
  ASSERT_TRUE(f.store.create("/config/users/alice", cluster::encode_entity_config({{"SCRAM-SHA-256", "s"}})).is_ok());
  auto r = f.alter({{"user", "alice"}}, {{"producer_byte_rate", 2048, false}, {"request_percentage", 50, false}});
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].error_code, ErrorCode::kNone) << r.entries[0].error_message.value_or("");
  EXPECT_EQ(f.quotas.quota(QuotaKind::kProduce, "alice", "any"), 2048);
  auto node = f.store.get("/config/users/alice");
  ASSERT_TRUE(node.is_ok());
  auto config = cluster::decode_entity_config("", node->data);
  ASSERT_TRUE(config);
  EXPECT_EQ(*config, (cluster::EntityConfig{{"SCRAM-SHA-256", "s"}, {"producer_byte_rate", "2048"},
                                            {"request_percentage", "50.0"}}));
  EXPECT_EQ(f.alter({{"user", std::nullopt}, {"client-id", "c/1"}}, {{"consumer_byte_rate", 100, false}})
                .entries[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(f.alter({{"client-id", std::nullopt}}, {{"consumer_byte_rate", 7, false}}).entries[0].error_code,
            ErrorCode::kNone);

  // Validation, per entry: nothing is written.
  EXPECT_EQ(f.alter({{"user", "bob"}}, {{"producer_byte_rate", 1.5, false}}).entries[0].error_code,
            ErrorCode::kInvalidRequest);
  EXPECT_EQ(f.alter({{"user", "bob"}, {"user", "carol"}}, {{"producer_byte_rate", 1, false}}).entries[0].error_code,
            ErrorCode::kInvalidRequest);
  EXPECT_EQ(f.alter({{"group", "g"}}, {{"producer_byte_rate", 1, false}}).entries[0].error_code,
            ErrorCode::kUnsupportedVersion);
  EXPECT_EQ(f.alter({{"ip", "10.0.0.1"}}, {{"connection_creation_rate", 1, false}}).entries[0].error_code,
            ErrorCode::kInvalidRequest);
  EXPECT_EQ(f.alter({}, {{"producer_byte_rate", 1, false}}).entries[0].error_code, ErrorCode::kInvalidRequest);
  EXPECT_EQ(f.alter({{"user", "bob"}}, {{"producer_byte_rate", 5, false}}, /*validate_only=*/true)
                .entries[0].error_code, ErrorCode::kNone);
  EXPECT_FALSE(f.quotas.quota(QuotaKind::kProduce, "bob", "x"));

  // Describe: everything, an exact user (not strict), the default user
  // (with any client id), strict.
  auto all = f.describe({});
  ASSERT_EQ(all.error_code, ErrorCode::kNone);
  ASSERT_TRUE(all.entries);
  EXPECT_EQ(all.entries->size(), 3u);
  auto alice = f.describe({{"user", 0, "alice"}});
  ASSERT_EQ(alice.entries->size(), 1u);
  EXPECT_EQ((*alice.entries)[0].values.size(), 2u);
  auto defaults = f.describe({{"user", 1, std::nullopt}, {"client-id", 2, std::nullopt}});
  ASSERT_EQ(defaults.entries->size(), 1u);
  EXPECT_EQ((*defaults.entries)[0].entity[1].entity_name, "c/1");
  EXPECT_EQ(f.describe({{"client-id", 1, std::nullopt}}, /*strict=*/true).entries->size(), 1u);
  EXPECT_EQ(f.describe({{"user", 2, std::nullopt}}, /*strict=*/true).entries->size(), 1u);
  EXPECT_EQ(f.describe({{"user", 0, std::nullopt}}).error_code, ErrorCode::kInvalidRequest);
  EXPECT_EQ(f.describe({{"user", 2, std::nullopt}, {"user", 1, std::nullopt}}).error_code, ErrorCode::kInvalidRequest);
  EXPECT_EQ(f.describe({{"topic", 2, std::nullopt}}).error_code, ErrorCode::kUnsupportedVersion);

  // A fresh broker loads the same quotas from the store.
  ClientQuotaManager loaded;
  ASSERT_TRUE(load_client_quotas(f.store, loaded));
  EXPECT_EQ(loaded.quota(QuotaKind::kProduce, "alice", "x"), 2048);
  EXPECT_EQ(loaded.quota(QuotaKind::kFetch, "zed", "c/1"), 100);
  EXPECT_EQ(loaded.quota(QuotaKind::kFetch, "zed", "other"), 7);

  // Removing the last quota key leaves the SCRAM credential.
  EXPECT_EQ(f.alter({{"user", "alice"}}, {{"producer_byte_rate", 0, true}, {"request_percentage", 0, true},
                                         {"SCRAM-SHA-256", 0, true}}).entries[0].error_code, ErrorCode::kNone);
  EXPECT_FALSE(f.quotas.quota(QuotaKind::kProduce, "alice", "x"));
  config = cluster::decode_entity_config("", f.store.get("/config/users/alice")->data);
  ASSERT_TRUE(config);
  EXPECT_EQ(*config, (cluster::EntityConfig{{"SCRAM-SHA-256", "s"}}));
}

}  // namespace
}  // namespace spool::broker
