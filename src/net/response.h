// Response: one answer as the connection writes it — a memory buffer with
// file regions spliced in at given positions (a Fetch answer: everything but
// the record bytes in `bytes`, each partition's records as regions of its
// segment files). The size prefix is added by the connection.
//
// Contract: splices are sorted by `at` (ties keep their order) and every
// `at` <= bytes.size(). Move-only in practice (holds the buffer); the
// regions keep their files open until the answer is written or dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "util/bytes.h"
#include "util/file_region.h"

namespace spool::net {

struct Response {
  // {at, region}: insert the region before bytes[at]. The same type an
  // encoder collects in a ByteWriter, so an answer moves over unchanged.
  using Splice = ByteWriter::Splice;

  Response() = default;
  explicit Response(Bytes b) : bytes(std::move(b)) {}

  Bytes bytes;
  std::vector<Splice> splices;
  // KIP-219: the client was throttled for this long. Once the answer is
  // queued the connection reads no further request until the time is over
  // (Kafka's muted channel). 0 = not throttled.
  int32_t mute_ms = 0;

  // Bytes on the wire after the size prefix.
  uint64_t size() const {
    uint64_t n = bytes.size();
    for (const auto& s : splices) n += static_cast<uint64_t>(s.region.length);
    return n;
  }
  // The whole answer in memory (pread of every region). Tests and the copy
  // path use it; fails only when a region's file is shorter than the region.
  bool flatten(Bytes& out) const;
};

}  // namespace spool::net
