// Offsets as the native producer and consumer exchange them (Kafka's
// OffsetAndMetadata and ConsumerGroupMetadata): what a consumer commits, and
// what a transactional producer commits for a consumer's group
// (send_offsets_to_transaction). Plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace spool::client {

struct OffsetAndMetadata {
  int64_t offset = 0;
  int32_t leader_epoch = -1;  // -1: none
  std::string metadata;
  bool operator==(const OffsetAndMetadata&) const = default;
};

// The consumer's group, for send_offsets_to_transaction; only group_id is
// required (the generation and member let the coordinator fence a zombie).
struct ConsumerGroupMetadata {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
};

}  // namespace spool::client
