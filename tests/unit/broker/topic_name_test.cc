#include "broker/topic_name.h"

#include <gtest/gtest.h>

namespace spool::broker {
namespace {

TEST(TopicName, AcceptsKafkaLegalNames) {
  EXPECT_TRUE(is_valid_topic_name("demo"));
  EXPECT_TRUE(is_valid_topic_name("a.b_c-D9"));
  EXPECT_TRUE(is_valid_topic_name(std::string(249, 'x')));
}

TEST(TopicName, RefusesIllegalNamesWithAReason) {
  EXPECT_FALSE(is_valid_topic_name(""));
  EXPECT_FALSE(is_valid_topic_name("."));
  EXPECT_FALSE(is_valid_topic_name(".."));
  EXPECT_FALSE(is_valid_topic_name(std::string(250, 'x')));
  EXPECT_FALSE(is_valid_topic_name("with space"));
  EXPECT_FALSE(is_valid_topic_name("slash/"));
  EXPECT_FALSE(is_valid_topic_name("br[acket]"));
  EXPECT_NE(topic_name_problem(std::string(250, 'x')).find("249"), std::string::npos);
}

TEST(TopicName, DotAndUnderscoreCollide) {
  EXPECT_TRUE(topic_names_collide("a.b", "a_b"));
  EXPECT_TRUE(topic_names_collide("x_y.z", "x.y_z"));
  EXPECT_FALSE(topic_names_collide("a.b", "a.b"));  // same name is "exists", not a collision
  EXPECT_FALSE(topic_names_collide("a.b", "a-b"));
  EXPECT_FALSE(topic_names_collide("ab", "a_b"));
}

}  // namespace
}  // namespace spool::broker
