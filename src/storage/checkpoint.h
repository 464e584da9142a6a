// Kafka's small text files in a log dir, read and written exactly in Kafka's
// formats so a Kafka tool (or a human) reads them the same way:
//  * offset checkpoints (recovery-point-offset-checkpoint,
//    log-start-offset-checkpoint): "0\n<count>\n" + "<topic> <partition> <offset>\n"...
//  * leader-epoch-checkpoint: "0\n<count>\n" + "<epoch> <start offset>\n"...
//  * meta.properties: key=value lines (version, broker.id, cluster.id).
//  * partition.metadata (KIP-516), in each partition dir:
//    "version: 0\ntopic_id: <Uuid text>\n" naming the topic id the data belongs to.
// Parsers validate everything (a garbage file is an error the caller turns
// into "absent"); writers replace atomically (tmp + fsync + rename + dir
// fsync). Pure functions; thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/file_util.h"
#include "util/status.h"

namespace spool::storage {

inline constexpr const char* kRecoveryPointCheckpoint = "recovery-point-offset-checkpoint";
inline constexpr const char* kLogStartOffsetCheckpoint = "log-start-offset-checkpoint";
inline constexpr const char* kLeaderEpochCheckpoint = "leader-epoch-checkpoint";
inline constexpr const char* kMetaProperties = "meta.properties";
inline constexpr const char* kCleanShutdownMarker = ".kafka_cleanshutdown";
inline constexpr const char* kPartitionMetadata = "partition.metadata";

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
  std::string dir_name() const { return topic + "-" + std::to_string(partition); }
};

using OffsetMap = std::map<TopicPartition, int64_t>;

std::string format_offset_checkpoint(const OffsetMap& offsets);
Result<OffsetMap> parse_offset_checkpoint(std::string_view text);
// A missing file reads as an empty map; a malformed one is an error.
Result<OffsetMap> read_offset_checkpoint(const std::string& path);
Status write_offset_checkpoint(const std::string& path, const OffsetMap& offsets);

struct EpochEntry {
  int32_t epoch;
  int64_t start_offset;
  bool operator==(const EpochEntry&) const = default;
};
std::string format_epoch_checkpoint(const std::vector<EpochEntry>& entries);
Result<std::vector<EpochEntry>> parse_epoch_checkpoint(std::string_view text);

struct MetaProperties {
  int32_t broker_id = -1;
  std::string cluster_id;
};
Result<std::optional<MetaProperties>> read_meta_properties(const std::string& path);
Status write_meta_properties(const std::string& path, const MetaProperties& meta);

std::string format_partition_metadata(const Uuid& topic_id);
Result<Uuid> parse_partition_metadata(std::string_view text);
// The topic id in `partition_dir`'s partition.metadata: nullopt when there is
// no such file, an error (kStorageError) when it is malformed.
Result<std::optional<Uuid>> read_partition_metadata(const std::string& partition_dir);
Status write_partition_metadata(const std::string& partition_dir, const Uuid& topic_id);

bool valid_topic_name(std::string_view topic);
// "<topic>-<partition>" -> parts; nullopt when it does not parse.
std::optional<TopicPartition> parse_partition_dir(std::string_view name);

}  // namespace spool::storage
