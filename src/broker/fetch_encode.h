// Zero-copy Fetch answers: the response is encoded as usual except for each
// partition's record bytes, which stay in the segment files and are spliced
// in as file regions (net::Response), so the connection can sendfile them.
//
// How the regions travel through the fetch session code (which builds the
// FetchResponse from per-partition results and must keep treating "records
// present" as before): the fetch handler parks each partition's regions in a
// FetchRecordSets and puts a small marker in PartitionData::records; the
// encoder replaces every marker by the length of its regions and the regions
// themselves. Marker bytes can never be mistaken for records (a record batch
// is at least 61 bytes; a marker is 8). The bytes on the wire are exactly
// those of FetchResponse::encode with the records filled in.
// Not thread-safe (plain values); regions keep their files open (see
// util/file_region.h).
#pragma once

#include <cstdint>
#include <vector>

#include "net/response.h"
#include "protocol/header.h"
#include "protocol/messages.h"
#include "util/bytes.h"
#include "util/file_region.h"

namespace spool::broker {

class FetchRecordSets {
 public:
  // Keeps `regions` and returns the marker to store in PartitionData::records.
  Bytes add(std::vector<FileRegion> regions);
  // The regions of a marker, or nullptr if `records` is not one of ours.
  const std::vector<FileRegion>* find(const Bytes& records) const;
  size_t size() const { return sets_.size(); }

 private:
  std::vector<std::vector<FileRegion>> sets_;
};

// Response header + body for a Fetch of `api_version` (non-flexible versions
// only, which is all the broker serves), markers replaced by their regions.
net::Response encode_fetch_response(int32_t correlation_id, int16_t api_version,
                                    protocol::FetchResponse& response, const FetchRecordSets& sets);

}  // namespace spool::broker
