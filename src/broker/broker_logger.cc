#include "broker/broker_logger.h"

#include <spdlog/spdlog.h>

#include <array>

#include "protocol/error_code.h"

namespace spool::broker {

namespace {

using protocol::ErrorCode;

struct LevelName {
  const char* kafka;
  spdlog::level::level_enum level;
};
// Kafka's LogLevelConfig.VALID_LOG_LEVELS, in its order.
constexpr std::array<LevelName, 6> kLevels{{{"FATAL", spdlog::level::critical},
                                            {"ERROR", spdlog::level::err},
                                            {"WARN", spdlog::level::warn},
                                            {"INFO", spdlog::level::info},
                                            {"DEBUG", spdlog::level::debug},
                                            {"TRACE", spdlog::level::trace}}};

Status error(ErrorCode code, std::string message) { return Status::error(std::move(message), protocol::to_int(code)); }

const LevelName* find_level(const std::string& kafka) {
  for (const auto& l : kLevels)
    if (kafka == l.kafka) return &l;
  return nullptr;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> describe_loggers() {
  const auto current = spdlog::get_level();
  for (const auto& l : kLevels)
    if (l.level == current) return {{kRootLogger, l.kafka}};
  return {{kRootLogger, "OFF"}};
}

Status check_logger_ops(const std::vector<LoggerOp>& ops) {
  for (const auto& op : ops) {
    if (op.op == 2 || op.op == 3)
      return error(ErrorCode::kInvalidRequest, std::string(op.op == 2 ? "APPEND" : "SUBTRACT") +
                                                   " operation is not allowed for the BROKER_LOGGER resource");
    if (op.op != 0 && op.op != 1)
      return error(ErrorCode::kInvalidRequest, "Unknown operation type " + std::to_string(op.op) +
                                                   " is not allowed for the BROKER_LOGGER resource");
    if (op.logger != kRootLogger)
      return error(ErrorCode::kInvalidConfig, "Logger " + op.logger + " does not exist!");
    if (op.op == 1)
      return error(ErrorCode::kInvalidRequest,
                   std::string("Removing the log level of the ") + kRootLogger + " logger is not allowed");
    if (!op.level) return error(ErrorCode::kInvalidRequest, "Null value not supported for : " + op.logger);
    if (find_level(*op.level) == nullptr) {
      std::string valid;
      for (const auto& l : kLevels) valid += (valid.empty() ? "" : ", ") + std::string(l.kafka);
      return error(ErrorCode::kInvalidConfig, "Cannot set the log level of " + op.logger + " to " + *op.level +
                                                  " as it is not a supported log level. Valid log levels are " +
                                                  valid);
    }
  }
  return Status::ok();
}

void apply_logger_ops(const std::vector<LoggerOp>& ops) {
  for (const auto& op : ops) {
    if (op.op != 0 || !op.level) continue;
    const LevelName* l = find_level(*op.level);
    if (l == nullptr) continue;
    spdlog::info("Updating the log level of {} to {}", op.logger, l->kafka);
    spdlog::set_level(l->level);
  }
}

}  // namespace spool::broker
