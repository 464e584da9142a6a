#include "broker/admin_api/admin_listener.h"

#include <gtest/gtest.h>

#include "net/test_client.h"
#include "security/test_certs.h"
#include "security/tls_context.h"

namespace spool::broker {
namespace {

config::BrokerConfig config_of(const std::vector<std::string>& overrides) {
  auto c = config::BrokerConfig::load(std::nullopt, overrides, nullptr);
  EXPECT_TRUE(c) << c.status().message();
  return *c;
}

std::string get(uint16_t port, const std::string& path) {
  net::testing::TestClient c(port, 5000);
  c.send_raw("GET " + path + " HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  return c.read_until_closed();
}

TEST(AdminListener, ParsesHttpAndHttpsAddressesAndEmpty) {
  auto d = parse_admin_listener(kDefaultAdminListener);
  ASSERT_TRUE(d && *d);
  EXPECT_EQ((*d)->options.host, "127.0.0.1");
  EXPECT_EQ((*d)->options.port, 9644);
  EXPECT_FALSE((*d)->https);
  auto any = parse_admin_listener("http://:0");
  ASSERT_TRUE(any && *any);
  EXPECT_EQ((*any)->options.host, "");
  EXPECT_EQ((*any)->options.port, 0);
  auto tls = parse_admin_listener("https://0.0.0.0:9645");
  ASSERT_TRUE(tls && *tls);
  EXPECT_TRUE((*tls)->https);
  EXPECT_EQ((*tls)->options.port, 9645);
  auto off = parse_admin_listener("");
  ASSERT_TRUE(off);
  EXPECT_FALSE(*off);
}

TEST(AdminListener, RefusesMalformedValues) {
  for (const char* bad : {"127.0.0.1:9644", "http://127.0.0.1", "http://127.0.0.1:99999", "http://127.0.0.1:-1",
                          "http://127.0.0.1:9644/path", "http://[::1]:9644", "http://h:12x", "ftp://h:1",
                          "https://h", "HTTPS://h:1"})
    EXPECT_FALSE(parse_admin_listener(bad)) << bad;
}

TEST(AdminListener, HttpsNeedsAReadableKeystore) {
  auto none = admin_listener_options(config_of({"admin.listener=https://127.0.0.1:0"}));
  ASSERT_FALSE(none);
  EXPECT_NE(none.status().message().find("ssl.keystore"), std::string::npos) << none.status().message();
  auto missing = admin_listener_options(config_of(
      {"admin.listener=https://127.0.0.1:0", "ssl.keystore.type=PEM", "ssl.keystore.location=/nonexistent/k.pem"}));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("/nonexistent/k.pem"), std::string::npos) << missing.status().message();
  spool::testing::TestCerts certs;
  auto ok = admin_listener_options(config_of({"admin.listener=https://127.0.0.1:0", "ssl.keystore.type=PEM",
                                              "ssl.keystore.location=" + certs.path("server.pem")}));
  ASSERT_TRUE(ok && *ok) << ok.status().message();
  ASSERT_NE((*ok)->tls, nullptr);
  EXPECT_EQ((*ok)->tls->side(), security::TlsContext::Side::kServer);
  auto plain = admin_listener_options(config_of({"admin.listener=http://127.0.0.1:0"}));
  ASSERT_TRUE(plain && *plain);
  EXPECT_EQ((*plain)->tls, nullptr);
}

// Before the API is attached (ZooKeeper, log recovery) the listener answers
// the probes only; detached at shutdown it says so.
TEST(AdminListener, AnswersProbesWhileStartingAndAfterDetach) {
  auto l = AdminListener::start(config_of({"admin.listener=http://127.0.0.1:0", "broker.id=7"}));
  ASSERT_TRUE(l && *l) << l.status().message();
  const uint16_t port = (*l)->port();
  std::string health = get(port, "/v1/health");
  EXPECT_TRUE(health.starts_with("HTTP/1.1 200 ")) << health;
  EXPECT_NE(health.find("\"broker_id\": 7"), std::string::npos) << health;
  (*l)->set_phase("starting: recovering the logs");
  std::string ready = get(port, "/v1/ready");
  EXPECT_TRUE(ready.starts_with("HTTP/1.1 503 ")) << ready;
  EXPECT_NE(ready.find("starting: recovering the logs"), std::string::npos) << ready;
  EXPECT_NE(ready.find("Retry-After: 1"), std::string::npos) << ready;
  std::string metrics = get(port, "/metrics");
  EXPECT_TRUE(metrics.starts_with("HTTP/1.1 503 ")) << metrics;
  EXPECT_EQ(metrics.find("kafka_"), std::string::npos) << metrics;
  (*l)->detach();
  ready = get(port, "/v1/ready");
  EXPECT_TRUE(ready.starts_with("HTTP/1.1 503 ")) << ready;
  EXPECT_NE(ready.find("shutting down"), std::string::npos) << ready;
  EXPECT_TRUE(get(port, "/v1/health").starts_with("HTTP/1.1 200 "));
}

TEST(AdminListener, AnExplicitAddressThatCannotBindFailsTheStart) {
  auto first = AdminListener::start(config_of({"admin.listener=http://127.0.0.1:0"}));
  ASSERT_TRUE(first && *first);
  const std::string taken = "admin.listener=http://127.0.0.1:" + std::to_string((*first)->port());
  EXPECT_FALSE(AdminListener::start(config_of({taken})));
}

}  // namespace
}  // namespace spool::broker
