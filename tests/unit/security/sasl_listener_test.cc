#include "security/sasl_listener.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/broker_config.h"

namespace spool::security {
namespace {

const char* kJaas =
    "listener.name.sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
    "user_alice=\"alice-secret\" user_bob=\"bob-secret\";";

Result<config::BrokerConfig> load(std::vector<std::string> overrides) {
  overrides.push_back("listeners=PLAINTEXT://127.0.0.1:9092,SASL://127.0.0.1:9093");
  overrides.push_back("listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL:SASL_PLAINTEXT");
  return config::BrokerConfig::load(std::nullopt, overrides, nullptr);
}

TEST(SaslListenerTest, PlainListenerFromKafkasKeys) {
  auto cfg = load({"sasl.enabled.mechanisms=PLAIN", kJaas, "connections.max.reauth.ms=60000",
                   "sasl.server.max.receive.size=1000"});
  ASSERT_TRUE(cfg.is_ok()) << cfg.status().message();
  auto l = sasl_listener_config(*cfg, "SASL");
  ASSERT_TRUE(l.is_ok()) << l.status().message();
  EXPECT_EQ(l->mechanisms, std::vector<std::string>{"PLAIN"});
  ASSERT_TRUE(l->plain_users);
  EXPECT_EQ(l->plain_users->size(), 2u);
  EXPECT_EQ(l->plain_users->at("bob"), "bob-secret");
  EXPECT_EQ(l->max_reauth_ms, 60000);
  EXPECT_EQ(l->max_receive_bytes, 1000);
  auto server = l->new_server("PLAIN");
  ASSERT_TRUE(server);
  EXPECT_EQ(server->mechanism(), "PLAIN");
  EXPECT_FALSE(l->new_server("SCRAM-SHA-256"));
}

TEST(SaslListenerTest, PerListenerMechanismsWin) {
  auto cfg = load({"listener.name.sasl.sasl.enabled.mechanisms=PLAIN", kJaas});
  ASSERT_TRUE(cfg.is_ok()) << cfg.status().message();
  auto l = sasl_listener_config(*cfg, "SASL");
  ASSERT_TRUE(l.is_ok()) << l.status().message();
  EXPECT_TRUE(l->enabled("PLAIN"));
}

TEST(SaslListenerTest, RefusalsNameTheKeyAndNeverThePassword) {
  struct Case {
    std::vector<std::string> overrides;
    std::string says;
  } cases[] = {
      {{kJaas}, "GSSAPI is not supported"},  // Kafka's default mechanism
      {{"sasl.enabled.mechanisms=PLAIN,OAUTHBEARER", kJaas}, "OAUTHBEARER is not supported"},
      {{"sasl.enabled.mechanisms=PLAIN"}, "'listener.name.sasl.plain.sasl.jaas.config' is not set"},
      {{"sasl.enabled.mechanisms=PLAIN",
        "listener.name.sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        "username=\"admin\" password=\"alice-secret\";"},
       "names no user"},
      {{"sasl.enabled.mechanisms=PLAIN",
        "listener.name.sasl.plain.sasl.jaas.config=com.example.Other required user_alice=\"alice-secret\";"},
       "is not org.apache.kafka.common.security.plain.PlainLoginModule"},
      {{"sasl.enabled.mechanisms=PLAIN",
        "listener.name.sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        "user_alice=\"alice-secret\""},
       "no ';'"},
  };
  for (const Case& c : cases) {
    auto cfg = load(c.overrides);
    ASSERT_TRUE(cfg.is_ok()) << cfg.status().message();
    auto l = sasl_listener_config(*cfg, "SASL");
    ASSERT_FALSE(l.is_ok()) << c.says;
    EXPECT_NE(l.status().message().find(c.says), std::string::npos) << l.status().message();
    EXPECT_EQ(l.status().message().find("alice-secret"), std::string::npos) << l.status().message();
  }
}

}  // namespace
}  // namespace spool::security
