// Kafka error codes the record layer reports through Status::kafka_code().
// Kept here (not in protocol/) because record/ sits below protocol/ in the
// module order and only needs these few; values are the wire values.
#pragma once

#include <cstdint>

namespace spool::record {

inline constexpr int16_t kCorruptMessage = 2;
inline constexpr int16_t kMessageTooLarge = 10;
inline constexpr int16_t kUnsupportedForMessageFormat = 43;
inline constexpr int16_t kInvalidRecord = 87;

}  // namespace spool::record
