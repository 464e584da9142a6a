// The throttled-replica topic configs' values (KIP-73): parsing for one
// broker, and Kafka's validation.
#include "config/throttled_replicas.h"

#include <gtest/gtest.h>

namespace spool::config {
namespace {

TEST(ThrottledReplicas, ParsesKafkasForms) {
  EXPECT_FALSE(throttled_partitions("", 1).all);
  EXPECT_TRUE(throttled_partitions("", 1).partitions.empty());
  EXPECT_TRUE(throttled_partitions(" * ", 1).all);
  auto t = throttled_partitions("0:1, 1:2,2:1 ,3:3", 1);
  EXPECT_FALSE(t.all);
  EXPECT_EQ(t.partitions, (std::vector<int32_t>{0, 2}));
  EXPECT_TRUE(t.contains(2));
  EXPECT_FALSE(t.contains(1));
  EXPECT_EQ(check_throttled_replicas(""), "");
  EXPECT_EQ(check_throttled_replicas("*"), "");
  EXPECT_EQ(check_throttled_replicas("0:1,1:2"), "");
  for (const char* bad : {"0", "0:", ":1", "a:1", "0:1,", "*,0:1", "0:-1", "0:1:2"})
    EXPECT_NE(check_throttled_replicas(bad), "") << bad;
}

}  // namespace
}  // namespace spool::config
