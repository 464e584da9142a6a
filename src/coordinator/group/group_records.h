// The key/value format of __consumer_offsets records (documented in
// docs/consumer-offsets-format.md). Layout facts follow Kafka's so its tools
// read our topic: key = int16 version + fields (v0/v1 offset commit, v2 group
// metadata); values are versioned too (we write v3, read v0-v3).
// Strings: int16 length (-1 = null where nullable); bytes: int32 length.
// Failure: decoding validates every length and version; bad input returns an
// error Status (never reads out of bounds, never throws). Pure functions,
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "util/bytes.h"
#include "util/status.h"

namespace spool::coordinator {

struct OffsetRecordKey {
  std::string group;
  std::string topic;
  int32_t partition = 0;
  bool operator==(const OffsetRecordKey&) const = default;
};
struct GroupRecordKey {
  std::string group;
  bool operator==(const GroupRecordKey&) const = default;
};
using RecordKey = std::variant<OffsetRecordKey, GroupRecordKey>;

struct OffsetRecordValue {
  int64_t offset = 0;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = 0;
  int64_t expire_timestamp = -1;  // only in v1 values (read, never written)
  bool operator==(const OffsetRecordValue&) const = default;
};

struct MemberRecordValue {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  Bytes subscription;
  Bytes assignment;
  bool operator==(const MemberRecordValue&) const = default;
};

struct GroupRecordValue {
  std::string protocol_type;
  int32_t generation = 0;
  std::optional<std::string> protocol;
  std::optional<std::string> leader;
  int64_t current_state_timestamp = -1;
  std::vector<MemberRecordValue> members;
  bool operator==(const GroupRecordValue&) const = default;
};

inline constexpr int16_t kOffsetKeyVersion = 1;
inline constexpr int16_t kGroupKeyVersion = 2;
inline constexpr int16_t kOffsetValueVersion = 3;
inline constexpr int16_t kGroupValueVersion = 3;

Bytes encode_key(const OffsetRecordKey& k);
Bytes encode_key(const GroupRecordKey& k);
Bytes encode_value(const OffsetRecordValue& v);
Bytes encode_value(const GroupRecordValue& v);

Result<RecordKey> decode_key(ByteSpan data);
Result<OffsetRecordValue> decode_offset_value(ByteSpan data);
Result<GroupRecordValue> decode_group_value(ByteSpan data);

}  // namespace spool::coordinator
