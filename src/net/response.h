// Response: one answer as the connection writes it — a memory buffer with
// file regions spliced in at given positions (a Fetch answer: everything but
// the record bytes in `bytes`, each partition's records as regions of its
// segment files). The size prefix is added by the connection.
//
// Contract: splices are sorted by `at` (ties keep their order) and every
// `at` <= bytes.size(). Move-only in practice (holds the buffer); the
// regions keep their files open until the answer is written or dropped.
//
// ResponseTiming: when one request passed net's stages, for the layer
// above's latency metrics. The handler sets only `tag`; net stamps the rest
// (one steady-clock read each, no allocation) and hands the whole to
// RequestHandler::on_answered once the answer is written.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "util/bytes.h"
#include "util/file_region.h"

namespace spool::net {

// Stamps are std::chrono::steady_clock nanoseconds since its epoch.
struct ResponseTiming {
  // The handler's label for the answer, handed back unchanged (the broker:
  // the request's API key); -1 = none.
  int32_t tag = -1;
  // The read that completed the request's frame. Frames cut later from the
  // same read buffer (pipelined behind others, or held while the connection
  // was muted, paused or parked) keep that read's time: nothing is read
  // while a complete frame waits in the buffer.
  int64_t received_ns = 0;
  int64_t handled_ns = 0;  // RequestHandler::handle returned
  int64_t ready_ns = 0;    // the Responder was called (send or no_response)
  // The last byte was written. no_response: its turn came (the answers
  // before it were handed to the writer, maybe not all written yet).
  int64_t sent_ns = 0;

  // Kafka's split of a request's time after its handler ran, in ns:
  // remote = answered after the handler returned (a parked request's wait;
  // 0 when answered inside handle()); send = from the later of the two to
  // the last byte written (waiting behind earlier answers included). Then
  // received..sent = (handle's start - received) + handle's own time +
  // remote + send.
  int64_t remote_ns() const { return std::max<int64_t>(0, ready_ns - handled_ns); }
  int64_t send_ns() const { return std::max<int64_t>(0, sent_ns - std::max(ready_ns, handled_ns)); }
  int64_t total_ns() const { return std::max<int64_t>(0, sent_ns - received_ns); }
};

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
  // The handler sets timing.tag; net fills in the stamps.
  ResponseTiming timing;

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
