// The "consumer" embedded protocol (Kafka's ConsumerProtocol): the
// Subscription a member sends in JoinGroup's protocol metadata and the
// Assignment the leader returns through SyncGroup, byte-compatible with the
// Java client at versions 0-3 (definitions: protocol/messages/
// consumer_protocol_{subscription,assignment}.json, generated structs).
//
// Wire form: int16 version, then the struct at that version. Encoding sorts a
// subscription's topics and owned partitions (topic, then partition) as Java
// does; an assignment's partitions are grouped per topic in first-seen order.
// Decoding is lenient the way Java's is: a version above 3 is read as 3 and
// bytes after the known fields are ignored. A negative version, truncated or
// malformed input comes back as a Status. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/bytes.h"
#include "util/status.h"
#include "util/topic_partition.h"

namespace spool::client {

inline constexpr const char* kConsumerProtocolType = "consumer";
inline constexpr int16_t kConsumerProtocolMaxVersion = 3;
// "No generation" in a subscription or sticky user data (Kafka's DEFAULT_GENERATION).
inline constexpr int32_t kDefaultGeneration = -1;

struct Subscription {
  std::vector<std::string> topics;
  std::optional<Bytes> user_data;                // assignor-specific; nullopt = null
  std::vector<TopicPartition> owned_partitions;  // v1+
  int32_t generation_id = kDefaultGeneration;    // v2+; < 0 = none
  std::optional<std::string> rack_id;            // v3+; an empty rack decodes as none
  // Not on the wire: the member's group.instance.id from the JoinGroup answer.
  std::optional<std::string> group_instance_id;

  bool operator==(const Subscription&) const = default;
};

struct Assignment {
  std::vector<TopicPartition> partitions;
  std::optional<Bytes> user_data;

  bool operator==(const Assignment&) const = default;
};

// `version` must be 0..3 (the default is the newest).
Bytes encode_subscription(const Subscription& s, int16_t version = kConsumerProtocolMaxVersion);
Result<Subscription> decode_subscription(ByteSpan bytes);

Bytes encode_assignment(const Assignment& a, int16_t version = kConsumerProtocolMaxVersion);
Result<Assignment> decode_assignment(ByteSpan bytes);

}  // namespace spool::client
