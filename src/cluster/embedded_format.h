// The embedded backend's file: every persistent node of the tree plus the
// last zxid, in one checksummed binary file in the broker's first log dir.
// The byte layout is documented in docs/embedded-metadata-format.md; the
// constants below are the ones it names. Pure functions, thread-safe;
// decode() never trusts its input: any length, count or checksum that does
// not add up is an error naming what is wrong (never a crash, never a
// partial tree).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/memory_tree.h"
#include "util/status.h"

namespace spool::cluster::embedded {

inline constexpr const char* kFileName = "spool-metadata-store";
inline constexpr char kMagic[4] = {'S', 'P', 'M', 'S'};
inline constexpr uint16_t kVersion = 1;
// Header: magic(4) version(2) flags(2) last_zxid(8) node_count(4).
inline constexpr size_t kHeaderBytes = 20;
// Trailer: crc32c(4) of every byte before it.
inline constexpr size_t kTrailerBytes = 4;
// Per node, besides path and data: path_len(4) data_len(4) czxid(8)
// mzxid(8) version(4) cversion(4).
inline constexpr size_t kNodeFixedBytes = 32;
inline constexpr uint32_t kMaxPathBytes = 4096;
inline constexpr uint32_t kMaxDataBytes = 1 << 20;  // ZooKeeper's jute.maxbuffer
inline constexpr size_t kMaxFileBytes = size_t{1} << 30;

struct Snapshot {
  int64_t last_zxid = 0;
  std::vector<MemoryTree::SavedNode> nodes;  // parents first
};

std::string encode(const Snapshot& snap);
// Structure only (the tree's load() checks paths and parents).
Result<Snapshot> decode(std::string_view bytes);

}  // namespace spool::cluster::embedded
