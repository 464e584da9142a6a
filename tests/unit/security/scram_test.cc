// SCRAM: RFC 7677's SCRAM-SHA-256 example exchange byte for byte, a
// SCRAM-SHA-512 exchange against a client written here from RFC 5802, every
// way a client can get it wrong, and the stored credential's text form.
#include "security/scram_server.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace spool::security {
namespace {

std::string str(const Bytes& b) { return {b.begin(), b.end()}; }
Bytes bytes(std::string_view s) { return {s.begin(), s.end()}; }

SaslStep step(ScramServer& s, std::string_view msg) {
  return s.evaluate(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(msg.data()), msg.size()));
}

// Users whose credential derives from `password` with a fixed salt.
ScramLookup users(std::map<std::string, std::string> passwords, Bytes salt, int32_t iterations = 4096) {
  return [=](ScramMechanism m, const std::string& user) -> std::optional<ScramCredential> {
    auto it = passwords.find(user);
    if (it == passwords.end()) return std::nullopt;
    return scram_credential(m, salt, scram_salted_password(m, it->second, salt, iterations), iterations);
  };
}

TEST(ScramTest, Rfc7677Sha256Example) {
  auto salt = base64_decode("W22ZaJ0SNY7soEsUEjb6gQ==");
  ASSERT_TRUE(salt);
  ScramServer s(ScramMechanism::kSha256, users({{"user", "pencil"}}, *salt), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
  SaslStep first = step(s, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  ASSERT_EQ(first.outcome, SaslStep::Outcome::kContinue) << first.error;
  EXPECT_EQ(str(first.challenge),
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
  SaslStep last = step(s,
                       "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                       "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  ASSERT_EQ(last.outcome, SaslStep::Outcome::kDone) << last.error;
  EXPECT_EQ(last.user, "user");
  EXPECT_EQ(str(last.challenge), "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
}

// The client side of RFC 5802, for the exchanges below.
std::string client_final(ScramMechanism m, const std::string& password, const std::string& client_first_bare,
                         const std::string& server_first, const std::string& channel = "biws",
                         std::string nonce = {}) {
  std::map<char, std::string> f;
  for (size_t pos = 0; pos < server_first.size();) {
    size_t comma = server_first.find(',', pos);
    std::string item = server_first.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    f[item[0]] = item.substr(2);
    pos = comma == std::string::npos ? server_first.size() : comma + 1;
  }
  if (nonce.empty()) nonce = f['r'];
  Bytes salted = scram_salted_password(m, password, *base64_decode(f['s']), std::stoi(f['i']));
  std::string without_proof = "c=" + channel + ",r=" + nonce;
  std::string auth = client_first_bare + "," + server_first + "," + without_proof;
  Bytes client_key = scram_hmac(m, salted, "Client Key");
  Bytes signature = scram_hmac(m, scram_hash(m, client_key), auth);
  for (size_t i = 0; i < client_key.size(); ++i) client_key[i] ^= signature[i];
  return without_proof + ",p=" + base64_encode(client_key);
}

TEST(ScramTest, Sha512ExchangeWithEscapedUserName) {
  ScramServer s(ScramMechanism::kSha512, users({{"a,b=c", "secret"}}, bytes("salty")));
  const std::string bare = "n=a=2Cb=3Dc,r=abcdefgh,ext=1";
  SaslStep first = step(s, "n,a=a=2Cb=3Dc," + bare);
  ASSERT_EQ(first.outcome, SaslStep::Outcome::kContinue) << first.error;
  std::string server_first = str(first.challenge);
  ASSERT_TRUE(server_first.starts_with("r=abcdefgh")) << server_first;
  EXPECT_GT(server_first.find(",s="), std::string("r=abcdefgh").size() + 16) << "a random server nonce follows";
  SaslStep last = step(s, client_final(ScramMechanism::kSha512, "secret", bare, server_first,
                                       base64_encode(bytes("n,a=a=2Cb=3Dc,"))));
  ASSERT_EQ(last.outcome, SaslStep::Outcome::kDone) << last.error;
  EXPECT_EQ(last.user, "a,b=c");
  EXPECT_TRUE(str(last.challenge).starts_with("v="));
}

TEST(ScramTest, WrongPasswordNonceOrChannelFailAlike) {
  const std::string generic =
      "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256";
  struct Case {
    std::string password, channel, nonce_suffix;
  } cases[] = {{"wrong", "biws", ""}, {"pencil", "eSws", ""}, {"pencil", "biws", "x"}, {"pencil", "biws", "-cut"}};
  for (const Case& c : cases) {
    ScramServer s(ScramMechanism::kSha256, users({{"user", "pencil"}}, bytes("salt")));
    const std::string bare = "n=user,r=nonce1";
    SaslStep first = step(s, "n,," + bare);
    ASSERT_EQ(first.outcome, SaslStep::Outcome::kContinue);
    std::string server_first = str(first.challenge);
    std::string nonce = server_first.substr(2, server_first.find(',') - 2);
    nonce = c.nonce_suffix == "-cut" ? nonce.substr(1) : nonce + c.nonce_suffix;
    SaslStep last = step(s, client_final(ScramMechanism::kSha256, c.password, bare, server_first, c.channel, nonce));
    EXPECT_EQ(last.outcome, SaslStep::Outcome::kFailed);
    EXPECT_EQ(last.error, generic);
  }
  // An unknown user fails the same way, at the first message.
  ScramServer s(ScramMechanism::kSha256, users({{"user", "pencil"}}, bytes("salt")));
  SaslStep first = step(s, "n,,n=mallory,r=nonce1");
  EXPECT_EQ(first.outcome, SaslStep::Outcome::kFailed);
  EXPECT_EQ(first.error, generic);
}

// librdkafka 2.0 repeats its client nonce in front of the full nonce; Kafka
// accepts a final nonce that ends with the server-first one, and so does Spool.
TEST(ScramTest, FinalNonceMayCarryAPrefixAsKafkaAccepts) {
  ScramServer s(ScramMechanism::kSha256, users({{"user", "pencil"}}, bytes("salt")));
  const std::string bare = "n=user,r=cnonce";
  SaslStep first = step(s, "n,," + bare);
  ASSERT_EQ(first.outcome, SaslStep::Outcome::kContinue);
  std::string server_first = str(first.challenge);
  std::string nonce = "cnonce" + server_first.substr(2, server_first.find(',') - 2);
  SaslStep last = step(s, client_final(ScramMechanism::kSha256, "pencil", bare, server_first, "biws", nonce));
  EXPECT_EQ(last.outcome, SaslStep::Outcome::kDone) << last.error;
}

TEST(ScramTest, MalformedFirstMessagesFail) {
  for (std::string_view bad : {"", "n", "n,,", "n,,r=abc", "n,,n=user", "n,,n=user,r=", "y,,n=user,r=abc",
                               "p=tls-unique,,n=user,r=abc", "n,x=1,n=user,r=abc", "n,,n=us=er,r=abc",
                               "n,,n=,r=abc", "n,,n=user,r=ab\x01", "n,,n=user,r=abc,=x",
                               "n,a=other,n=user,r=abc", "n,,n=user,r=abc,tokenauth=true"}) {
    ScramServer s(ScramMechanism::kSha256, users({{"user", "pencil"}}, bytes("salt")));
    SaslStep r = step(s, bad);
    EXPECT_EQ(r.outcome, SaslStep::Outcome::kFailed) << bad;
    EXPECT_FALSE(r.error.empty());
    // The exchange is over: nothing more is accepted.
    EXPECT_EQ(step(s, "c=biws,r=x,p=AAAA").outcome, SaslStep::Outcome::kFailed);
  }
}

TEST(ScramTest, MalformedFinalMessagesFail) {
  for (std::string_view bad : {"", "c=biws", "c=biws,r=x", "p=AAAA", "c=biws,r=x,p=not-base64!",
                               "r=x,c=biws,p=AAAA", "c=biws,r=x,p=AAAA"}) {
    ScramServer s(ScramMechanism::kSha256, users({{"user", "pencil"}}, bytes("salt")));
    ASSERT_EQ(step(s, "n,,n=user,r=abc").outcome, SaslStep::Outcome::kContinue);
    EXPECT_EQ(step(s, bad).outcome, SaslStep::Outcome::kFailed) << bad;
  }
}

TEST(ScramTest, CredentialTextRoundTripsAndRejectsDamage) {
  ScramCredential c = scram_credential(ScramMechanism::kSha512, bytes("NaCl"),
                                       scram_salted_password(ScramMechanism::kSha512, "pw", bytes("NaCl"), 4096), 4096);
  std::string text = format_scram_credential(c);
  EXPECT_TRUE(text.starts_with("salt=TmFDbA==,stored_key=")) << text;
  EXPECT_TRUE(text.ends_with(",iterations=4096")) << text;
  auto back = parse_scram_credential(text);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(*back, c);
  for (std::string_view bad : {"", "salt=TmFDbA==", "salt=TmFDbA==,stored_key=AA==,server_key=AA==,iterations=x",
                               "salt=!!!!,stored_key=AA==,server_key=AA==,iterations=1",
                               "salt=TmFDbA==,stored_key=AA==,server_key=AA==,iterations=0",
                               "salt=TmFDbA==,salt=TmFDbA==,stored_key=AA==,server_key=AA==,iterations=1"}) {
    EXPECT_FALSE(parse_scram_credential(bad).is_ok()) << bad;
  }
}

TEST(ScramTest, Base64IsStrict) {
  EXPECT_EQ(base64_encode(bytes("")), "");
  EXPECT_EQ(base64_encode(bytes("f")), "Zg==");
  EXPECT_EQ(base64_encode(bytes("fo")), "Zm8=");
  EXPECT_EQ(str(*base64_decode("Zm9vYg==")), "foob");
  EXPECT_EQ(str(*base64_decode("Zm9vYmE=")), "fooba");
  EXPECT_EQ(str(*base64_decode("")), "");
  for (std::string_view bad : {"Zg=", "Z===", "Zm=v", "Zm9v!A==", "=Zm9", "Zm9=", "Zh=="}) EXPECT_FALSE(base64_decode(bad)) << bad;
}

}  // namespace
}  // namespace spool::security
