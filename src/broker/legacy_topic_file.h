// The topic file of Spool's single-node mode before its topics moved into
// the metadata store: `spool-metadata.json` in the first log dir. Only read
// now, to import it once (TopicRegistry::open), then renamed to
// `spool-metadata.json.migrated`; nothing writes it any more.
//
// Format (version 1, what the old TopicRegistry wrote; keys in this order):
//   {"topics":[{"configs":{"k":"v"},"id":"<32 lower-case hex digits>",
//               "name":"T","partitions":N}, ...],"version":1}
// "configs" may be absent; an all-zero id is Kafka's "no id".
//
// Contract: read_legacy_topic_file never throws. A missing file is nullopt;
// a file that fails validation (not JSON, another version, a bad name, id
// or partition count) is an error naming the file, "... is invalid: why",
// so the start stops instead of forgetting topics. Stateless, thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "broker/topic_registry.h"
#include "util/status.h"

namespace spool::broker {

inline constexpr const char* kLegacyTopicFileName = "spool-metadata.json";
inline constexpr const char* kMigratedSuffix = ".migrated";

// `dir`/spool-metadata.json's topics in name order; nullopt when absent.
Result<std::optional<std::vector<TopicInfo>>> read_legacy_topic_file(const std::filesystem::path& dir);

// Renames `dir`/spool-metadata.json to spool-metadata.json.migrated (over
// an older .migrated) and syncs the dir.
Status retire_legacy_topic_file(const std::filesystem::path& dir);

}  // namespace spool::broker
