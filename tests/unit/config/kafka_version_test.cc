// Kafka release versions (inter.broker.protocol.version): parsing, and the
// 2.7-IV1 boundary where followers start truncating on the Fetch response.
#include "config/kafka_version.h"

#include <gtest/gtest.h>

#include "config/broker_config.h"

namespace spool::config {
namespace {

TEST(KafkaVersion, ParsesReleaseForms) {
  auto v = parse_kafka_version("2.7-IV1");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 2);
  EXPECT_EQ(v->minor, 7);
  EXPECT_EQ(v->iv, 1);
  v = parse_kafka_version("0.10.2");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->minor, 10);
  EXPECT_EQ(v->patch, 2);
  EXPECT_EQ(v->iv, -1);
  v = parse_kafka_version("0.10.0-IV1");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->patch, 0);
  EXPECT_EQ(v->iv, 1);
  for (const char* bad : {"", "3", "3.", ".3", "3.x", "3.0-IV", "3.0-iv1", "3.0 ", "-3.0", "3.0-IV1x", "3.0.1.2"})
    EXPECT_FALSE(parse_kafka_version(bad)) << bad;
}

TEST(KafkaVersion, TruncationOnFetchFrom27IV1) {
  auto at = [](const char* s) { return truncation_on_fetch_supported(*parse_kafka_version(s)); };
  EXPECT_FALSE(at("0.11.0"));
  EXPECT_FALSE(at("2.6"));
  EXPECT_FALSE(at("2.6-IV0"));
  EXPECT_FALSE(at("2.7-IV0"));
  EXPECT_TRUE(at("2.7-IV1"));
  EXPECT_TRUE(at("2.7"));  // a release alone means its latest internal version
  EXPECT_TRUE(at("2.8"));
  EXPECT_TRUE(at("3.0-IV1"));
  EXPECT_TRUE(at("3.9"));
}

TEST(KafkaVersion, BrokerConfigRefusesWhatIsNotAVersion) {
  std::vector<std::string> warnings;
  auto ok = BrokerConfig::from_properties({{"inter.broker.protocol.version", "2.6"}}, &warnings);
  ASSERT_TRUE(ok) << ok.status().message();
  auto bad = BrokerConfig::from_properties({{"inter.broker.protocol.version", "latest"}}, &warnings);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("inter.broker.protocol.version"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace spool::config
