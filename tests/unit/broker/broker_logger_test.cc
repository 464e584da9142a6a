// BROKER_LOGGER over spdlog: Kafka's level names and errors, live changes.
#include "broker/broker_logger.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

namespace spool::broker {
namespace {

struct RestoreLevel {
  spdlog::level::level_enum was = spdlog::get_level();
  ~RestoreLevel() { spdlog::set_level(was); }
};

TEST(BrokerLogger, DescribesAndSetsTheRootLevel) {
  RestoreLevel restore;
  spdlog::set_level(spdlog::level::info);
  EXPECT_EQ(describe_loggers(), (std::vector<std::pair<std::string, std::string>>{{"root", "INFO"}}));
  std::vector<LoggerOp> set{{"root", 0, "DEBUG"}};
  ASSERT_TRUE(check_logger_ops(set));
  apply_logger_ops(set);
  EXPECT_EQ(spdlog::get_level(), spdlog::level::debug);
  EXPECT_EQ(describe_loggers()[0].second, "DEBUG");
  apply_logger_ops({{"root", 0, "FATAL"}});
  EXPECT_EQ(describe_loggers()[0].second, "FATAL");
}

TEST(BrokerLogger, KafkasErrors) {
  Status bad_level = check_logger_ops({{"root", 0, "debug"}});  // Kafka's names are upper case
  EXPECT_EQ(bad_level.kafka_code(), 40);
  EXPECT_NE(bad_level.message().find("Valid log levels are FATAL, ERROR, WARN, INFO, DEBUG, TRACE"), std::string::npos);
  Status unknown = check_logger_ops({{"kafka.server", 0, "INFO"}});
  EXPECT_EQ(unknown.kafka_code(), 40);
  EXPECT_EQ(unknown.message(), "Logger kafka.server does not exist!");
  Status remove = check_logger_ops({{"root", 1, std::nullopt}});
  EXPECT_EQ(remove.kafka_code(), 42);
  EXPECT_EQ(remove.message(), "Removing the log level of the root logger is not allowed");
  EXPECT_EQ(check_logger_ops({{"root", 2, "INFO"}}).kafka_code(), 42);
  EXPECT_EQ(check_logger_ops({{"root", 0, std::nullopt}}).kafka_code(), 42);
}

}  // namespace
}  // namespace spool::broker
