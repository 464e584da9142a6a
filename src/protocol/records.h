// Records: the value of a `records` field (a record-batch set) without
// copying it. Three shapes:
//   * a view into the request frame it was decoded from (decode() of every
//     generated message): no allocation, and mutable, because the broker
//     assigns offsets by rewriting batch headers in place. The frame must
//     outlive the view; request frames are owned, mutable buffers of the
//     dispatcher for the whole handler call (nothing keeps a view past it);
//   * a list of file regions (util/file_region.h) to send with sendfile: an
//     encoder whose ByteWriter collects splices leaves the bytes in the files
//     and records where they go; any other writer reads them into memory;
//   * owned bytes (tests, clients building a request).
// size() is the byte length on the wire in every shape. Equality compares
// bytes for views and owned bytes, and (file, offset, length) for regions.
// Not thread-safe (plain value); copying a view copies the view, not bytes.
#pragma once

#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "util/bytes.h"
#include "util/file_region.h"

namespace spool::protocol {

class Records {
 public:
  Records() = default;
  explicit Records(Bytes owned) : v_(std::move(owned)) {}
  static Records view(std::span<uint8_t> frame_bytes) {
    Records r;
    r.v_ = frame_bytes;
    return r;
  }
  static Records from_regions(std::vector<FileRegion> regions) {
    Records r;
    r.v_ = std::move(regions);
    return r;
  }

  size_t size() const;
  bool empty() const { return size() == 0; }
  // The bytes when they are in memory (a view or owned); empty for regions.
  std::span<uint8_t> bytes();
  ByteSpan bytes() const;
  // The regions, or nullptr when the bytes are in memory.
  const std::vector<FileRegion>* regions() const { return std::get_if<std::vector<FileRegion>>(&v_); }

  // Appends the bytes to w: as splices when w collects them, else copied (a
  // region is read with pread; false if its file is shorter than the region,
  // which then leaves w with fewer bytes than size() promised).
  bool write_to(ByteWriter& w) const;

  bool operator==(const Records& other) const;

 private:
  std::variant<Bytes, std::span<uint8_t>, std::vector<FileRegion>> v_;
};

}  // namespace spool::protocol
