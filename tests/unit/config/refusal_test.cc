// Fail closed (refusal.h): every setting that restricts access or promises
// safety and that Spool does not act on yet stops the start; harmless ones
// only warn; topic keys of the same kind fail with INVALID_CONFIG.
#include "config/refusal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "config/broker_config.h"
#include "config/config_def.h"
#include "config/listener.h"
#include "config/topic_config.h"
#include "refused_examples.h"

namespace spool::config {
namespace {

Result<BrokerConfig> with(const std::vector<std::string>& overrides, std::vector<std::string>* warnings = nullptr) {
  return BrokerConfig::load(std::nullopt, overrides, warnings);
}

bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

TEST(Refusal, EveryRefusedKeyStopsTheStartNamingKeyAndReason) {
  size_t n = 0;
  for (const KeyDef& d : broker_key_defs()) {
    if (d.acts != Acts::kRefused) continue;
    ++n;
    ASSERT_NE(d.refusal, nullptr) << d.name;
    auto value = testing::refused_example(d);
    ASSERT_TRUE(value.has_value()) << "no refused example value for " << d.name;
    SCOPED_TRACE(std::string(d.name) + "=" + *value);
    auto r = with({std::string(d.name) + "=" + *value});
    ASSERT_FALSE(r.is_ok());
    const std::string& msg = r.status().message();
    EXPECT_TRUE(contains(msg, "refusing to start")) << msg;
    EXPECT_TRUE(contains(msg, std::string(d.name) + ": " + d.refusal)) << msg;
    if (d.type == ConfigType::kPassword) {
      EXPECT_FALSE(contains(msg, "=" + *value)) << "secret echoed: " << msg;
    }
  }
  EXPECT_GT(n, 90u);  // the table is read, not empty (99 refused keys after client quotas)
}

TEST(Refusal, RefusedKeysAtTheirOffValueStartWithTheWarning) {
  for (const KeyDef& d : broker_key_defs()) {
    if (d.acts != Acts::kRefused) continue;
    // A class name cannot be empty (Kafka's type), so an unset one is its only off value.
    const bool string_like = d.type == ConfigType::kString || d.type == ConfigType::kList ||
                             d.type == ConfigType::kPassword;
    if (d.default_value == nullptr && !string_like) continue;  // only unset is off
    std::string off = d.default_value != nullptr ? d.default_value : "";
    std::vector<std::string> warnings;
    auto r = with({std::string(d.name) + "=" + off}, &warnings);
    ASSERT_TRUE(r.is_ok()) << d.name << "=" << off << ": " << r.status().message();
    ASSERT_EQ(warnings.size(), 1u) << d.name;
    EXPECT_TRUE(contains(warnings[0], d.name)) << warnings[0];
  }
}

TEST(Refusal, TheIssuesListIsRefused) {
  auto refused = [](std::string_view name) {
    const KeyDef* d = find_broker_key(name);
    return d != nullptr && d->acts == Acts::kRefused;
  };
  size_t ssl = 0, sasl = 0;
  for (const KeyDef& d : broker_key_defs()) {
    std::string_view name = d.name;
    // TLS listeners are served (issue 17): the keys they read act; the
    // Java-only ones stay refused.
    const bool served_ssl = std::find(std::begin(kTlsListenerKeys), std::end(kTlsListenerKeys), name) !=
                            std::end(kTlsListenerKeys);
    if (name.starts_with("ssl.") && !served_ssl) {
      ++ssl;
      EXPECT_TRUE(refused(name)) << name;
    }
    if (served_ssl) {
      EXPECT_EQ(d.acts, Acts::kYes) << name;
    }
    // SASL/PLAIN is served (issue 17): its keys act; the other mechanisms' stay refused.
    const bool served_sasl = name == "sasl.enabled.mechanisms" || name == "sasl.server.max.receive.size" ||
                             name == "sasl.mechanism.inter.broker.protocol";
    if (name.starts_with("sasl.") && !served_sasl) {
      ++sasl;
      EXPECT_TRUE(refused(name)) << name;
    }
    if (served_sasl) {
      EXPECT_EQ(d.acts, Acts::kYes) << name;
    }
    // The controller mutation quota is not enforced; the client quotas'
    // window is, and so is the replication throttles' (KIP-73).
    if (name.starts_with("controller.quota.")) {
      EXPECT_TRUE(refused(name)) << name;
    }
    if (name.starts_with("replication.quota.") || name.starts_with("quota.")) {
      EXPECT_EQ(find_broker_key(name)->acts, Acts::kYes) << name;
    }
  }
  EXPECT_GE(ssl, 6u);
  EXPECT_GT(sasl, 25u);
  for (const char* k : {"client.quota.callback.class", "security.inter.broker.protocol", "zookeeper.set.acl",
                        "remote.log.storage.system.enable", "delegation.token.secret.key"})
    EXPECT_TRUE(refused(k)) << k;
  // Cluster mode reads these (issue 13); the ZooKeeper TLS/ACL keys stay refused.
  for (const char* k : {"zookeeper.connect", "zookeeper.session.timeout.ms", "broker.rack", "num.replica.fetchers",
                        "unclean.leader.election.enable", "inter.broker.listener.name", "max.connections.per.ip",
                        "max.connections.per.ip.overrides", "connections.max.reauth.ms", "max.connection.creation.rate",
                        // The ACL authorizer (security/authorizer_config.h checks the class).
                        "authorizer.class.name", "super.users", "allow.everyone.if.no.acl.found"})
    EXPECT_EQ(find_broker_key(k)->acts, Acts::kYes) << k;
  for (const char* k : {"zookeeper.ssl.client.enable", "zookeeper.ssl.keystore.location"}) EXPECT_TRUE(refused(k)) << k;
  // Harmless tuning keeps the warning.
  for (const char* k : {"num.io.threads", "num.network.threads", "auto.include.jmx.reporter", "metrics.num.samples"})
    EXPECT_EQ(find_broker_key(k)->acts, Acts::kNo) << k;
}

TEST(Refusal, SecuredKafkaServerPropertiesIsServed) {
  // SASL/PLAIN on SASL_PLAINTEXT, TLS on SASL_SSL (its keystore is read at
  // start, security/tls_context.h) and the ACL authorizer are served: none
  // of their keys is refused. A Java-only TLS key still is, without echoing
  // the passwords around it.
  const std::string secured =
      "listeners=PLAINTEXT://127.0.0.1:9093,SASL_PLAINTEXT://127.0.0.1:9094,SASL_SSL://127.0.0.1:9095\n"
      "sasl.enabled.mechanisms=PLAIN\n"
      "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
      "required username=\"admin\" password=\"hunter2\";\n"
      "listener.name.sasl_ssl.ssl.keystore.password=hunter3\n"
      "listener.name.sasl_ssl.ssl.keystore.type=PKCS12\n"
      "ssl.client.auth=required\n"
      "authorizer.class.name=kafka.security.authorizer.AclAuthorizer\n"
      "allow.everyone.if.no.acl.found=true\n"
      "super.users=User:admin\n";
  auto props = parse_properties(secured);
  ASSERT_TRUE(props.is_ok());
  auto ok = BrokerConfig::from_properties(*props, nullptr);
  ASSERT_TRUE(ok.is_ok()) << ok.status().message();

  props = parse_properties(secured + "ssl.engine.factory.class=com.example.Engine\n"
                                     "listener.name.plaintext.ssl.keystore.location=/etc/ks.p12\n");
  ASSERT_TRUE(props.is_ok());
  auto r = BrokerConfig::from_properties(*props, nullptr);
  ASSERT_FALSE(r.is_ok());
  const std::string& msg = r.status().message();
  // An ssl key on a PLAINTEXT listener secures nothing: refused, not ignored.
  for (const char* k : {"ssl.engine.factory.class:", "listener.name.plaintext.ssl.keystore.location:"})
    EXPECT_TRUE(contains(msg, k)) << k << " missing in: " << msg;
  for (const char* k : {"SASL_SSL://", "listener.name.sasl_ssl", "ssl.client.auth:", "sasl.enabled.mechanisms:",
                        "authorizer.class.name:", "super.users:"})
    EXPECT_FALSE(contains(msg, k)) << k << " refused in: " << msg;
  EXPECT_FALSE(contains(msg, "hunter2")) << msg;
  EXPECT_FALSE(contains(msg, "hunter3")) << msg;
}

TEST(Refusal, Listeners) {
  EXPECT_TRUE(with({"listeners=PLAINTEXT://127.0.0.1:9092"}).is_ok());
  EXPECT_TRUE(with({"listeners=INTERNAL://127.0.0.1:9092", "listener.security.protocol.map=INTERNAL:PLAINTEXT"}).is_ok());
  // SSL, SASL_SSL and SASL_PLAINTEXT are served on a single node (their
  // stores and mechanisms are checked at start, security/tls_context.h and
  // security/sasl_listener.h)...
  for (const char* l : {"listeners=SSL://127.0.0.1:9093", "listeners=SASL_SSL://127.0.0.1:9093",
                        "listeners=SASL_PLAINTEXT://127.0.0.1:9093"})
    EXPECT_TRUE(with({l}).is_ok()) << l;
  // A cluster's inter-broker listener may be SASL_PLAINTEXT (the brokers log
  // in to each other); a separate control-plane listener must stay PLAINTEXT
  // beside a PLAINTEXT inter-broker listener.
  EXPECT_TRUE(with({"zookeeper.connect=127.0.0.1:2181",
                    "listeners=PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9093",
                    "inter.broker.listener.name=SASL_PLAINTEXT"})
                  .is_ok());
  for (const std::vector<std::string>& c :
       {std::vector<std::string>{"control.plane.listener.name=SASL_PLAINTEXT"},
        std::vector<std::string>{"control.plane.listener.name=PLAINTEXT", "inter.broker.listener.name=SASL_PLAINTEXT"}}) {
    std::vector<std::string> keys = {"zookeeper.connect=127.0.0.1:2181",
                                     "listeners=PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9093"};
    keys.insert(keys.end(), c.begin(), c.end());
    auto r = with(keys);
    ASSERT_FALSE(r.is_ok()) << c[0];
    EXPECT_TRUE(contains(r.status().message(), "controller channel shares the inter-broker client")) << r.status().message();
  }
  // The inter-broker listener may be SSL or SASL_SSL too (the brokers dial
  // each other over TLS); a control-plane listener beside it may not.
  EXPECT_TRUE(with({"listeners=INTERNAL://127.0.0.1:9092", "listener.security.protocol.map=INTERNAL:SSL"}).is_ok());
  EXPECT_TRUE(with({"zookeeper.connect=127.0.0.1:2181", "listeners=PLAINTEXT://127.0.0.1:9092,INTERNAL://127.0.0.1:9093",
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:SASL_SSL",
                    "inter.broker.listener.name=INTERNAL"})
                  .is_ok());
  auto r = with({"zookeeper.connect=127.0.0.1:2181", "listeners=PLAINTEXT://127.0.0.1:9092,INTERNAL://127.0.0.1:9093",
                 "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:SSL", "inter.broker.listener.name=INTERNAL",
                 "control.plane.listener.name=PLAINTEXT"});
  ASSERT_FALSE(r.is_ok());
  EXPECT_TRUE(contains(r.status().message(), "beside an inter-broker listener on SSL")) << r.status().message();
}

TEST(Refusal, PerListenerOverridesAreRefusedWhenSet) {
  auto r = with({"listener.name.plaintext.ssl.keystore.location=/etc/kafka/ks.p12"});
  ASSERT_FALSE(r.is_ok());
  EXPECT_TRUE(contains(r.status().message(),
                       "listener.name.plaintext.ssl.keystore.location: this per-listener override is not supported"))
      << r.status().message();
  // The SASL ones Spool acts on pass, for a SASL listener named lower-case in
  // the key (Kafka's prefix); upper-case or on a PLAINTEXT listener they are refused.
  const char* jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required user_a=\"b\";";
  const std::string sasl = "listeners=PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9093";
  EXPECT_TRUE(with({sasl, std::string("listener.name.sasl_plaintext.plain.sasl.jaas.config=") + jaas,
                    "listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN"})
                  .is_ok());
  for (std::string bad : {std::string("listener.name.SASL_PLAINTEXT.plain.sasl.jaas.config=") + jaas,
                          std::string("listener.name.plaintext.plain.sasl.jaas.config=") + jaas,
                          std::string("listener.name.sasl_plaintext.gssapi.sasl.jaas.config=") + jaas}) {
    r = with({sasl, bad});
    ASSERT_FALSE(r.is_ok()) << bad;
    EXPECT_TRUE(contains(r.status().message(), "this per-listener override is not supported")) << r.status().message();
  }
  std::vector<std::string> warnings;
  ASSERT_TRUE(with({"listener.name.plaintext.ssl.keystore.location="}, &warnings).is_ok());
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(Refusal, KraftQuorumOfSeveralVoters) {
  EXPECT_TRUE(with({"controller.quorum.voters=1@localhost:9093"}).is_ok());
  auto r = with({"controller.quorum.voters=1@a:9093,2@b:9093,3@c:9093"});
  ASSERT_FALSE(r.is_ok());
  EXPECT_TRUE(contains(r.status().message(), "controller.quorum.voters: a KRaft quorum")) << r.status().message();
  r = with({"controller.quorum.bootstrap.servers=a:9093,b:9093"});
  ASSERT_FALSE(r.is_ok());
  EXPECT_TRUE(contains(r.status().message(), "controller.quorum.bootstrap.servers:")) << r.status().message();
}

TEST(Refusal, HarmlessKeysOnlyWarn) {
  std::vector<std::string> warnings;
  auto r = with({"num.io.threads=4", "num.network.threads=6", "auto.include.jmx.reporter=false"}, &warnings);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(warnings.size(), 3u);
}

TEST(Refusal, TopicKeys) {
  for (const TopicKeyDef& t : topic_key_defs()) {
    if (t.def.acts != Acts::kRefused) continue;
    ASSERT_NE(t.def.refusal, nullptr) << t.def.name;
    auto value = testing::refused_example(t.def);
    ASSERT_TRUE(value.has_value()) << t.def.name;
    Status s = validate_topic_config(t.def.name, *value);
    ASSERT_FALSE(s.is_ok()) << t.def.name << "=" << *value;
    EXPECT_EQ(s.kafka_code(), kInvalidConfigCode);
    EXPECT_TRUE(contains(s.message(), std::string("'") + t.def.name + "' is not supported by Spool yet")) << s.message();
    std::string off = t.def.default_value != nullptr ? t.def.default_value : "";
    EXPECT_TRUE(validate_topic_config(t.def.name, off).is_ok()) << t.def.name << "=" << off;
  }
  EXPECT_FALSE(validate_topic_config("remote.storage.enable", "true").is_ok());
  // Replication throttles are enforced now: a valid list passes, a bad one is INVALID_CONFIG.
  EXPECT_TRUE(validate_topic_config("leader.replication.throttled.replicas", "0:1").is_ok());
  Status bad = validate_topic_config("follower.replication.throttled.replicas", "0:x");
  EXPECT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.kafka_code(), kInvalidConfigCode);
  EXPECT_TRUE(validate_topic_config("min.insync.replicas", "2").is_ok());  // enforced, not refused
}

}  // namespace
}  // namespace spool::config
