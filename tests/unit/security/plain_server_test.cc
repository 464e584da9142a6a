#include "security/plain_server.h"

#include <gtest/gtest.h>

#include <string>

namespace spool::security {
namespace {

SaslStep run(std::string_view token) {
  auto users = std::make_shared<PlainUsers>(PlainUsers{{"alice", "alice-secret"}, {"bob", "b"}});
  PlainServer server(users);
  return server.evaluate(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(token.data()), token.size()));
}

TEST(PlainServerTest, RightPasswordAuthenticatesTheUser) {
  using namespace std::string_literals;
  for (std::string token : {"\0alice\0alice-secret"s, "alice\0alice\0alice-secret"s}) {
    SaslStep s = run(token);
    EXPECT_EQ(s.outcome, SaslStep::Outcome::kDone) << s.error;
    EXPECT_EQ(s.user, "alice");
    EXPECT_TRUE(s.challenge.empty());
  }
}

TEST(PlainServerTest, EveryWrongFormFailsWithKafkasMessage) {
  using namespace std::string_literals;
  struct Case {
    std::string token, error;
  } cases[] = {
      {"\0alice\0wrong"s, "Authentication failed: Invalid username or password"},
      {"\0alice\0alice-secreT"s, "Authentication failed: Invalid username or password"},
      {"\0alice\0alice-secret-longer"s, "Authentication failed: Invalid username or password"},
      {"\0mallory\0alice-secret"s, "Authentication failed: Invalid username or password"},
      {"bob\0alice\0alice-secret"s, "Authentication failed: Client requested an authorization id that is different from username"},
      {"\0\0alice-secret"s, "Authentication failed: username not specified"},
      {"\0alice\0"s, "Authentication failed: password not specified"},
      {""s, "Invalid SASL/PLAIN response: expected 3 tokens, got 1"},
      {"alice-secret"s, "Invalid SASL/PLAIN response: expected 3 tokens, got 1"},
      {"\0alice"s, "Invalid SASL/PLAIN response: expected 3 tokens, got 2"},
      {"\0alice\0alice-secret\0"s, "Invalid SASL/PLAIN response: expected 3 tokens, got 4"},
  };
  for (const Case& c : cases) {
    SaslStep s = run(c.token);
    EXPECT_EQ(s.outcome, SaslStep::Outcome::kFailed);
    EXPECT_EQ(s.error, c.error);
    EXPECT_TRUE(s.user.empty());
    EXPECT_EQ(s.error.find("alice-secret"), std::string::npos);
  }
}

}  // namespace
}  // namespace spool::security
