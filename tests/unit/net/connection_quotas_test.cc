// ConnectionQuotas (net/connection_quotas.h): the total and per-address
// limits, overrides (literal and resolved), and limits changed while
// connections are open.
#include "net/connection_quotas.h"

#include <gtest/gtest.h>

namespace spool::net {
namespace {

TEST(ConnectionQuotas, TotalAndPerAddress) {
  ConnectionQuotas q({3, 2, {}});
  EXPECT_EQ(q.admit("10.0.0.1"), std::nullopt);
  EXPECT_EQ(q.admit("10.0.0.1"), std::nullopt);
  auto refused = q.admit("10.0.0.1");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(*refused, "address 10.0.0.1 already has the configured maximum of 2 connections");
  EXPECT_EQ(q.admit("10.0.0.2"), std::nullopt);
  EXPECT_EQ(q.open(), 3u);
  refused = q.admit("10.0.0.3");  // the whole server is full
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(*refused, "max.connections (3) reached");
  q.release("10.0.0.1");
  EXPECT_EQ(q.open(), 2u);
  EXPECT_EQ(q.admit("10.0.0.1"), std::nullopt);
}

TEST(ConnectionQuotas, OverridesRaiseOrLowerOneAddress) {
  ConnectionQuotas q({INT32_MAX, 1, {{"10.0.0.9", 3}, {"10.0.0.8", 0}, {"localhost", 2}}});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(q.admit("10.0.0.9"), std::nullopt) << i;
  EXPECT_TRUE(q.admit("10.0.0.9").has_value());
  EXPECT_TRUE(q.admit("10.0.0.8").has_value());  // zero: none at all
  EXPECT_EQ(q.admit("10.0.0.7"), std::nullopt);  // the default, 1
  EXPECT_TRUE(q.admit("10.0.0.7").has_value());
  // A name counts for the addresses it resolves to.
  EXPECT_EQ(q.admit("127.0.0.1"), std::nullopt);
  EXPECT_EQ(q.admit("127.0.0.1"), std::nullopt);
  EXPECT_TRUE(q.admit("127.0.0.1").has_value());
}

TEST(ConnectionQuotas, NewLimitsApplyToNewConnectionsOnly) {
  ConnectionQuotas q;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(q.admit("10.0.0.1"), std::nullopt);
  q.set_limits({INT32_MAX, 2, {}});
  EXPECT_EQ(q.open(), 4u);  // open ones stay
  EXPECT_TRUE(q.admit("10.0.0.1").has_value());
  for (int i = 0; i < 3; ++i) q.release("10.0.0.1");
  EXPECT_EQ(q.admit("10.0.0.1"), std::nullopt);  // 1 open, below 2 again
  q.set_limits({INT32_MAX, 0, {{"10.0.0.1", 5}, {"no-such-host.invalid", 1}}});  // unresolvable: skipped
  EXPECT_EQ(q.admit("10.0.0.1"), std::nullopt);
  EXPECT_TRUE(q.admit("10.0.0.2").has_value());
  q.release("10.9.9.9");  // never admitted: no effect on the others
  EXPECT_EQ(q.open(), 3u);
}

}  // namespace
}  // namespace spool::net
