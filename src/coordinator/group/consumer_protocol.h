// Reads the topic list out of a "consumer" protocol subscription (Kafka's
// ConsumerProtocol: int16 version, then int32 count of int16-length topic
// names, then fields we ignore). Used by OffsetDelete and offset retention.
// Failure: malformed input returns nullopt. Pure, thread-safe.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "util/bytes.h"

namespace spool::coordinator {

inline constexpr const char* kConsumerProtocolType = "consumer";

std::optional<std::set<std::string>> decode_subscription_topics(ByteSpan subscription);

}  // namespace spool::coordinator
