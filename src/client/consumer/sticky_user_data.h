// User data of the sticky assignors, byte-compatible with Kafka's:
//  - "sticky" (StickyAssignorUserData): v0 = int32 count of
//    {int16-length topic, int32 count of int32 partitions}; v1 appends the
//    int32 generation. Spool writes v1, topics in first-seen order.
//  - "cooperative-sticky": the int32 generation alone.
// Decoding follows Kafka: sticky data with fewer than 4 bytes after the
// partitions is v0 (no generation); unparsable sticky data is "no partitions,
// generation -1"; unparsable cooperative data is generation -1.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "util/bytes.h"
#include "util/topic_partition.h"

namespace spool::client {

// What a sticky member reports of its previous assignment.
struct MemberData {
  std::vector<TopicPartition> partitions;
  std::optional<int32_t> generation;

  bool operator==(const MemberData&) const = default;
};

// v1 when `generation` is set, v0 (Kafka's old schema) otherwise.
Bytes encode_sticky_user_data(const MemberData& data);
MemberData decode_sticky_user_data(ByteSpan bytes);

Bytes encode_cooperative_user_data(int32_t generation);
// nullopt for null user data (no generation reported).
std::optional<int32_t> decode_cooperative_user_data(const std::optional<Bytes>& bytes);

}  // namespace spool::client
