// Broker loggers (KIP-412's BROKER_LOGGER resource, Kafka's Log4jController)
// over spdlog. Spool logs through one logger; it is listed under Kafka's
// root logger name, "root", with Kafka's log4j level names: TRACE, DEBUG,
// INFO, WARN, ERROR, FATAL (spdlog trace, debug, info, warn, err, critical;
// spdlog's off is described as OFF and cannot be set).
//
// DescribeConfigs lists describe_loggers(). IncrementalAlterConfigs changes
// levels live: check_logger_ops() validates every operation of a resource
// (Kafka's ConfigAdminManager.validateLogLevelConfigs: unknown logger or
// level -> INVALID_CONFIG; DELETE of the root logger, APPEND and SUBTRACT ->
// INVALID_REQUEST, Kafka's messages), apply_logger_ops() applies them. Like
// Kafka, a level set here is not persisted: a restart starts with log.level.
// Thread-safe (spdlog's level is atomic).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace spool::broker {

inline constexpr const char* kRootLogger = "root";

struct LoggerOp {
  std::string logger;
  int8_t op = 0;  // Kafka's AlterConfigOp.OpType: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT
  std::optional<std::string> level;
};

// (logger name, Kafka level name) of every logger.
std::vector<std::pair<std::string, std::string>> describe_loggers();

Status check_logger_ops(const std::vector<LoggerOp>& ops);
void apply_logger_ops(const std::vector<LoggerOp>& ops);

}  // namespace spool::broker
