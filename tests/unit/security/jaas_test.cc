#include "security/jaas.h"

#include <gtest/gtest.h>

namespace spool::security {
namespace {

TEST(JaasTest, ParsesKafkasPlainModule) {
  auto m = parse_jaas_config(
      "org.apache.kafka.common.security.plain.PlainLoginModule required\n"
      "  username=\"admin\" password=\"admin-secret\"\n"
      "  user_admin=\"admin-secret\" user_alice=\"a \\\"quoted\\\" pass\\\\word\" user_bob=bare-word_1.$;");
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_EQ(m->class_name, "org.apache.kafka.common.security.plain.PlainLoginModule");
  EXPECT_EQ(m->flag, "required");
  EXPECT_EQ(m->options.size(), 5u);
  EXPECT_EQ(m->options.at("user_alice"), "a \"quoted\" pass\\word");
  EXPECT_EQ(m->options.at("user_bob"), "bare-word_1.$");
  EXPECT_EQ(m->options.at("username"), "admin");
}

TEST(JaasTest, ModuleWithoutOptions) {
  auto m = parse_jaas_config("com.example.Module optional;");
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_TRUE(m->options.empty());
  EXPECT_EQ(m->flag, "optional");
}

TEST(JaasTest, RejectsMalformedTextWithoutEchoingValues) {
  for (const char* bad : {
           "",
           "   ",
           "org.Module;",                                   // no flag
           "org.Module mandatory;",                         // unknown flag
           "org.Module required user_a=\"secret\"",          // no ';'
           "org.Module required user_a=\"secret;",           // unterminated quote
           "org.Module required user_a;",                   // no '='
           "org.Module required user_a=;",                  // no value
           "org.Module required =\"x\";",                   // no name
           "org.Module required user_a=\"1\" user_a=\"2\";",  // twice
           "org.A required; org.B required;",               // two modules
       }) {
    auto m = parse_jaas_config(bad);
    ASSERT_FALSE(m.is_ok()) << bad;
    EXPECT_EQ(m.status().message().find("secret"), std::string::npos) << m.status().message();
  }
}

}  // namespace
}  // namespace spool::security
