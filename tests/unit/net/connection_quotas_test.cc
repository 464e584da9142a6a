// ConnectionQuotas (net/connection_quotas.h): the total and per-address
// limits, overrides (literal and resolved), limits changed while
// connections are open, and the connection creation rates (Kafka's Rate over
// sampled windows and its throttle time).
#include "net/connection_quotas.h"

#include <gtest/gtest.h>

#include <algorithm>

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

TEST(ConnectionQuotas, CountsPerListener) {
  ConnectionQuotas q;
  EXPECT_EQ(q.admit("10.0.0.1", 0), std::nullopt);
  EXPECT_EQ(q.admit("10.0.0.1", 1), std::nullopt);
  EXPECT_EQ(q.admit("10.0.0.2", 1), std::nullopt);
  EXPECT_EQ(q.open_on(0), 1u);
  EXPECT_EQ(q.open_on(1), 2u);
  EXPECT_EQ(q.open_on(2), 0u);
  q.release("10.0.0.2", 1);
  q.release("10.0.0.9", 1);  // never admitted: ignored
  EXPECT_EQ(q.open_on(1), 1u);
  EXPECT_EQ(q.open(), 2u);
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

TEST(SampledRate, KafkasRateOverSampledWindows) {
  util::SampledRate r(11, 1000);
  // A fresh rate divides by at least ten windows: 50 connections at once
  // are 5 per second, within a limit of 5.
  for (int i = 0; i < 50; ++i) {
    r.record(0, 1);
    EXPECT_EQ(r.throttle_ms(0, 5), 0) << i;
  }
  EXPECT_DOUBLE_EQ(r.rate(0), 5.0);
  // The 51st: 5.1/s, (5.1 - 5) / 5 of the 10 s window = 200 ms.
  r.record(0, 1);
  EXPECT_EQ(r.throttle_ms(0, 5), 200);
  // Samples older than 11 windows are forgotten.
  EXPECT_DOUBLE_EQ(r.rate(11000), 0.0);
  EXPECT_EQ(r.throttle_ms(11000, 5), 0);
  // Far over the limit the throttle grows without bound unless capped.
  util::SampledRate burst(11, 1000);
  burst.record(0, 10000);
  EXPECT_EQ(burst.throttle_ms(0, 1), 9990000);  // 1,000/s against 1/s: 999 x 10 s
  EXPECT_EQ(burst.throttle_ms(0, 1, 1000), 1000);
  // The divisor: 2.5 s after the first sample, the 8 full windows not yet
  // seen are added (10.5 s); 10.5 s after, the real span.
  util::SampledRate late(11, 1000);
  late.record(0, 100);
  EXPECT_DOUBLE_EQ(late.rate(2500), 100.0 * 1000 / 10500);
  late.record(10500, 0);
  EXPECT_DOUBLE_EQ(late.rate(10500), 100.0 * 1000 / 10500);
}

TEST(ConnectionQuotas, CreationRatesPerListenerAndBroker) {
  ConnectionLimits limits;
  limits.max_creation_rate = 2;               // 20 per 10 s window
  limits.listener_creation_rates = {{1, 1}};  // 10 per 10 s window on listener 1
  limits.inter_broker_listener = 0;
  ConnectionQuotas q(limits);
  int64_t wait = 0;
  // Listener 0 is the inter-broker one: the broker-wide rate does not hold it.
  for (int i = 0; i < 100; ++i) wait = std::max(wait, q.record_creation(0, 0));
  EXPECT_EQ(wait, 0);
  // Listener 1 meets its own limit first ...
  for (int i = 0; i < 10; ++i) EXPECT_EQ(q.record_creation(1, 0), 0) << i;
  EXPECT_EQ(q.record_creation(1, 0), 1000);  // 1.1/s against 1/s: a tenth of 10 s
  // ... listener 2 only the broker's, which listener 1's connections count toward (11 so far).
  for (int i = 0; i < 9; ++i) EXPECT_EQ(q.record_creation(2, 0), 0) << i;
  EXPECT_EQ(q.record_creation(2, 0), 500);  // 2.1/s against 2/s
  // Lifting the limits lifts the holds.
  q.set_limits({});
  EXPECT_EQ(q.record_creation(1, 0), 0);
  EXPECT_EQ(q.record_creation(2, 0), 0);
}

}  // namespace
}  // namespace spool::net
