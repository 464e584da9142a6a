// authorizer.class.name, super.users and allow.everyone.if.no.acl.found as
// `spool broker` reads them: Kafka's class names as aliases, anything else
// refused (fail closed).
#include "security/authorizer_config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace spool::security {
namespace {

Result<std::optional<AuthorizerOptions>> options(std::vector<std::string> overrides) {
  auto cfg = config::BrokerConfig::load(std::nullopt, overrides, nullptr);
  EXPECT_TRUE(cfg.is_ok()) << cfg.status().message();
  return authorizer_options(*cfg);
}

TEST(AuthorizerConfigTest, NoClassNoAuthorizer) {
  auto o = options({"super.users=User:admin"});
  ASSERT_TRUE(o.is_ok());
  EXPECT_FALSE(*o);
}

TEST(AuthorizerConfigTest, KafkasClassNamesAreAliases) {
  for (const char* cls : {"kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer",
                          "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}) {
    auto o = options({std::string("authorizer.class.name=") + cls});
    ASSERT_TRUE(o.is_ok()) << cls << ": " << o.status().message();
    ASSERT_TRUE(*o) << cls;
    EXPECT_TRUE((*o)->super_users.empty());
    EXPECT_FALSE((*o)->allow_if_no_acl);
  }
}

TEST(AuthorizerConfigTest, SuperUsersAndTheNoAclDefault) {
  auto o = options({"authorizer.class.name=kafka.security.authorizer.AclAuthorizer",
                    "super.users= User:admin ;User:CN=broker,O=example;;", "allow.everyone.if.no.acl.found=true"});
  ASSERT_TRUE(o.is_ok()) << o.status().message();
  ASSERT_TRUE(*o);
  EXPECT_EQ((*o)->super_users, (std::set<std::string, std::less<>>{"User:admin", "User:CN=broker,O=example"}));
  EXPECT_TRUE((*o)->allow_if_no_acl);
}

TEST(AuthorizerConfigTest, UnknownClassesAndBadPrincipalsAreRefused) {
  auto o = options({"authorizer.class.name=com.example.OpenDoor"});
  ASSERT_FALSE(o.is_ok());
  EXPECT_NE(o.status().message().find("authorizer.class.name=com.example.OpenDoor"), std::string::npos);
  for (const char* bad : {"super.users=admin", "super.users=User:", "super.users=:alice"}) {
    auto b = options({"authorizer.class.name=kafka.security.authorizer.AclAuthorizer", bad});
    ASSERT_FALSE(b.is_ok()) << bad;
    EXPECT_NE(b.status().message().find("super.users"), std::string::npos) << b.status().message();
  }
}

}  // namespace
}  // namespace spool::security
