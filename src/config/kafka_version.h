// Kafka release versions as inter.broker.protocol.version writes them:
// "MAJOR.MINOR" or "MAJOR.MINOR.PATCH" (old releases, e.g. "0.10.2"), with an
// optional "-IVn" for an internal version within a release ("2.7-IV1").
// Pure functions; no failure beyond nullopt for text that is not a version.
#pragma once

#include <optional>
#include <string_view>

namespace spool::config {

struct KafkaVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  int iv = -1;  // -IVn; -1: none given, i.e. the release's latest
};

std::optional<KafkaVersion> parse_kafka_version(std::string_view text);

// Kafka's MetadataVersion.isTruncationOnFetchSupported: 2.7-IV1 and later.
// Below it a follower truncates with OffsetForLeaderEpoch before fetching
// (KIP-101/279) instead of on the Fetch response's DivergingEpoch (KIP-595).
bool truncation_on_fetch_supported(const KafkaVersion& v);

}  // namespace spool::config
