// max.connections.per.ip.overrides parsing (config/host_counts.h) and the
// broker config rules around it.
#include "config/host_counts.h"

#include <gtest/gtest.h>

#include "config/broker_config.h"

namespace spool::config {
namespace {

using Counts = std::map<std::string, int>;

TEST(HostCounts, ParsesKafkasCsvMap) {
  EXPECT_EQ(*parse_host_counts(""), Counts{});
  EXPECT_EQ(*parse_host_counts("  "), Counts{});
  EXPECT_EQ(*parse_host_counts("127.0.0.1:5"), (Counts{{"127.0.0.1", 5}}));
  EXPECT_EQ(*parse_host_counts(" hostA : 0 , 10.0.0.2:+7,hostA:3"), (Counts{{"hostA", 3}, {"10.0.0.2", 7}}));
  // The last ':' splits, so IPv6 addresses work.
  EXPECT_EQ(*parse_host_counts("::1:4,fe80::2:9"), (Counts{{"::1", 4}, {"fe80::2", 9}}));
  EXPECT_EQ(*parse_host_counts("h:2147483647"), (Counts{{"h", 2147483647}}));
  for (const char* bad : {"host", "host:", ":3", "h:-1", "h:x", "h:2147483648", "a:1,,b:2", "a:1,", "h:1.5"}) {
    auto r = parse_host_counts(bad);
    EXPECT_FALSE(r.is_ok()) << bad;
    EXPECT_EQ(check_host_counts(bad), r.status().message()) << bad;
  }
  EXPECT_EQ(check_host_counts("a:1,b:2"), "");
}

Result<BrokerConfig> with(const std::vector<std::string>& overrides) {
  return BrokerConfig::load(std::nullopt, overrides, nullptr);
}

TEST(HostCounts, BrokerKeys) {
  auto r = with({"max.connections.per.ip=3", "max.connections.per.ip.overrides=localhost:10, 10.1.1.1:0"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->max_connections_per_ip(), 3);
  EXPECT_EQ(r->max_connections_per_ip_overrides(), (Counts{{"localhost", 10}, {"10.1.1.1", 0}}));
  r = with({"max.connections.per.ip.overrides=oops"});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("max.connections.per.ip.overrides"), std::string::npos) << r.status().message();
  // Kafka's rule: zero per IP only together with overrides.
  r = with({"max.connections.per.ip=0"});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("only if max.connections.per.ip.overrides"), std::string::npos)
      << r.status().message();
  EXPECT_TRUE(with({"max.connections.per.ip=0", "max.connections.per.ip.overrides=10.0.0.1:5"}).is_ok());
}

}  // namespace
}  // namespace spool::config
