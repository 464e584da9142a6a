// Kafka error codes the record layer reports through Status::kafka_code(),
// as int16 wire values. The values come from protocol::ErrorCode (protocol/
// sits below record/), so Kafka's code table is written down once.
#pragma once

#include <cstdint>

#include "protocol/error_code.h"

namespace spool::record {

inline constexpr int16_t kCorruptMessage = static_cast<int16_t>(protocol::ErrorCode::kCorruptMessage);
inline constexpr int16_t kMessageTooLarge = static_cast<int16_t>(protocol::ErrorCode::kMessageTooLarge);
inline constexpr int16_t kUnsupportedForMessageFormat = static_cast<int16_t>(protocol::ErrorCode::kUnsupportedForMessageFormat);
inline constexpr int16_t kInvalidRecord = static_cast<int16_t>(protocol::ErrorCode::kInvalidRecord);

}  // namespace spool::record
