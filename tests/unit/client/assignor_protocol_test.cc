// The consumer protocol and the sticky assignors' user data against the
// golden bytes in data/consumer_protocol_golden.txt, which the Java client
// produces for the same values (tests/compat/java/.../
// ConsumerProtocolReferenceTest.java builds the same cases).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "client/consumer/consumer_protocol.h"
#include "client/consumer/sticky_user_data.h"

namespace spool::client {
namespace {

std::map<std::string, std::string> golden() {
  const std::string path = std::string(SPOOL_SOURCE_DIR) + "/tests/unit/client/data/consumer_protocol_golden.txt";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path << " is missing";
  std::map<std::string, std::string> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, hex;
    fields >> name >> hex;
    cases[name] = hex;
  }
  return cases;
}

std::string to_hex(ByteSpan b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s += kDigits[c >> 4];
    s += kDigits[c & 15];
  }
  return s;
}

Bytes from_hex(const std::string& hex) {
  Bytes out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// The same values as ConsumerProtocolReferenceTest: topics and owned
// partitions out of order (the encoder sorts them).
Subscription full_subscription() {
  Subscription s;
  s.topics = {"topic-b", "topic-a"};
  s.user_data = Bytes{1, 2, 3};
  s.owned_partitions = {{"t1", 2}, {"t1", 0}, {"t0", 1}};
  s.generation_id = 7;
  s.rack_id = "rack-a";
  return s;
}

Assignment full_assignment() { return Assignment{{{"t1", 0}, {"t0", 1}, {"t1", 2}}, Bytes{0xca, 0xfe}}; }

TEST(ConsumerProtocol, SubscriptionMatchesJavaAtEveryVersion) {
  auto g = golden();
  for (int16_t v = 0; v <= 3; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    const std::string expected = g["subscription_v" + std::to_string(v)];
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(to_hex(encode_subscription(full_subscription(), v)), expected);

    // Decoding gives back what the version carries, sorted as encoded.
    Result<Subscription> decoded = decode_subscription(from_hex(expected));
    ASSERT_TRUE(decoded.is_ok()) << decoded.status().message();
    EXPECT_EQ(decoded->topics, (std::vector<std::string>{"topic-a", "topic-b"}));
    EXPECT_EQ(decoded->user_data, (Bytes{1, 2, 3}));
    EXPECT_EQ(decoded->owned_partitions,
              v >= 1 ? (std::vector<TopicPartition>{{"t0", 1}, {"t1", 0}, {"t1", 2}}) : std::vector<TopicPartition>{});
    EXPECT_EQ(decoded->generation_id, v >= 2 ? 7 : -1);
    EXPECT_EQ(decoded->rack_id, v >= 3 ? std::optional<std::string>("rack-a") : std::nullopt);
  }
}

TEST(ConsumerProtocol, EmptyAndNullFields) {
  auto g = golden();
  Subscription empty;
  empty.topics = {"t1"};
  empty.user_data = Bytes{};
  EXPECT_EQ(to_hex(encode_subscription(empty, 3)), g["subscription_v3_empty"]);
  Result<Subscription> decoded = decode_subscription(from_hex(g["subscription_v3_empty"]));
  ASSERT_TRUE(decoded.is_ok());
  EXPECT_EQ(decoded->user_data, Bytes{});
  EXPECT_FALSE(decoded->rack_id.has_value());

  Subscription null_user_data;
  null_user_data.topics = {"t1"};
  EXPECT_EQ(to_hex(encode_subscription(null_user_data, 1)), g["subscription_v1_null_user_data"]);
  decoded = decode_subscription(from_hex(g["subscription_v1_null_user_data"]));
  ASSERT_TRUE(decoded.is_ok());
  EXPECT_FALSE(decoded->user_data.has_value());
}

TEST(ConsumerProtocol, NewerVersionIsReadAsTheNewestKnown) {
  Result<Subscription> decoded = decode_subscription(from_hex(golden()["subscription_v4_future"]));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().message();
  Subscription expected = full_subscription();
  expected.topics = {"topic-a", "topic-b"};
  expected.owned_partitions = {{"t0", 1}, {"t1", 0}, {"t1", 2}};
  EXPECT_EQ(*decoded, expected);
}

TEST(ConsumerProtocol, BadInputFails) {
  EXPECT_FALSE(decode_subscription(Bytes{}).is_ok());
  EXPECT_FALSE(decode_subscription(Bytes{0xff, 0xff}).is_ok());  // version -1
  EXPECT_FALSE(decode_assignment(Bytes{0x00}).is_ok());
  const Bytes v3 = from_hex(golden()["subscription_v3"]);
  for (size_t n = 2; n < v3.size(); ++n) {
    EXPECT_FALSE(decode_subscription(ByteSpan(v3.data(), n)).is_ok()) << "prefix of " << n << " bytes";
  }
}

TEST(ConsumerProtocol, AssignmentMatchesJavaAtEveryVersion) {
  auto g = golden();
  for (int16_t v = 0; v <= 3; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    const std::string expected = g["assignment_v" + std::to_string(v)];
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(to_hex(encode_assignment(full_assignment(), v)), expected);
    Result<Assignment> decoded = decode_assignment(from_hex(expected));
    ASSERT_TRUE(decoded.is_ok());
    // Grouped per topic in first-seen order, as Java groups them.
    EXPECT_EQ(decoded->partitions, (std::vector<TopicPartition>{{"t1", 0}, {"t1", 2}, {"t0", 1}}));
    EXPECT_EQ(decoded->user_data, (Bytes{0xca, 0xfe}));
  }
  EXPECT_EQ(to_hex(encode_assignment(Assignment{}, 0)), g["assignment_v0_null_user_data"]);
  Result<Assignment> decoded = decode_assignment(from_hex(g["assignment_v0_null_user_data"]));
  ASSERT_TRUE(decoded.is_ok());
  EXPECT_EQ(*decoded, Assignment{});
}

TEST(StickyUserData, V1MatchesJava) {
  const std::string expected = golden()["sticky_user_data_v1"];
  MemberData data{{{"t0", 0}, {"t0", 2}, {"t1", 1}}, 5};
  EXPECT_EQ(to_hex(encode_sticky_user_data(data)), expected);
  EXPECT_EQ(decode_sticky_user_data(from_hex(expected)), data);
}

TEST(StickyUserData, V0HasNoGenerationAndGarbageIsIgnored) {
  // Kafka's old schema: the partitions only.
  MemberData v0{{{"t0", 3}}, std::nullopt};
  const Bytes bytes = encode_sticky_user_data(v0);
  EXPECT_EQ(to_hex(bytes), "00000001000274300000000100000003");
  EXPECT_EQ(decode_sticky_user_data(bytes), v0);
  // A short tail cannot be v1's generation: read as v0.
  Bytes short_tail = bytes;
  short_tail.push_back(0);
  EXPECT_EQ(decode_sticky_user_data(short_tail), v0);
  // Unreadable: no partitions, generation -1.
  EXPECT_EQ(decode_sticky_user_data(Bytes{0, 0, 0, 5, 0}), (MemberData{{}, kDefaultGeneration}));
}

TEST(CooperativeUserData, GenerationMatchesJava) {
  EXPECT_EQ(to_hex(encode_cooperative_user_data(9)), golden()["cooperative_sticky_user_data"]);
  EXPECT_EQ(decode_cooperative_user_data(Bytes{0, 0, 0, 9}), 9);
  EXPECT_EQ(decode_cooperative_user_data(std::nullopt), std::nullopt);
  EXPECT_EQ(decode_cooperative_user_data(Bytes{1}), kDefaultGeneration);
}

}  // namespace
}  // namespace spool::client
