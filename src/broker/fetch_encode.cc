#include "broker/fetch_encode.h"

#include "net/buffer_pool.h"
#include "protocol/wire.h"

namespace spool::broker {

namespace {

constexpr uint8_t kMarkerMagic[4] = {'Z', 'C', 'P', 'Y'};
constexpr size_t kMarkerSize = 8;

// Only the last field of PartitionData may become a hole: otherwise the
// generated encoder would write other fields after it (tagged fields of
// flexible versions). Fetch is served up to v11, all non-flexible.
static_assert(protocol::FetchResponse::kMaxVersion < protocol::FetchResponse::kFirstFlexibleVersion,
              "flexible Fetch versions need tagged fields after records: extend encode_fetch_response");

}  // namespace

Bytes FetchRecordSets::add(std::vector<FileRegion> regions) {
  const auto index = static_cast<uint32_t>(sets_.size());
  sets_.push_back(std::move(regions));
  Bytes marker(kMarkerMagic, kMarkerMagic + 4);
  marker.push_back(static_cast<uint8_t>(index >> 24));
  marker.push_back(static_cast<uint8_t>(index >> 16));
  marker.push_back(static_cast<uint8_t>(index >> 8));
  marker.push_back(static_cast<uint8_t>(index));
  return marker;
}

const std::vector<FileRegion>* FetchRecordSets::find(const Bytes& records) const {
  if (records.size() != kMarkerSize) return nullptr;
  for (size_t i = 0; i < 4; ++i)
    if (records[i] != kMarkerMagic[i]) return nullptr;
  const uint32_t index = (uint32_t{records[4]} << 24) | (uint32_t{records[5]} << 16) | (uint32_t{records[6]} << 8) |
                         uint32_t{records[7]};
  return index < sets_.size() ? &sets_[index] : nullptr;
}

net::Response encode_fetch_response(int32_t correlation_id, int16_t api_version,
                                    protocol::FetchResponse& response, const FetchRecordSets& sets) {
  constexpr bool kFlex = false;
  ByteWriter w;
  size_t partitions = 0;
  for (const auto& t : response.responses) partitions += t.partitions.size();
  w.buffer() = net::acquire_buffer(64 + 96 * partitions);
  protocol::encode_response_header(w, correlation_id,
                                   protocol::response_header_flexible(protocol::FetchResponse::kApiKey, api_version));
  net::Response out;
  // The top two levels mirror FetchResponse::encode; partitions use the
  // generated encoder itself.
  if (api_version >= 1) w.i32(response.throttle_time_ms);
  if (api_version >= 7) {
    w.i16(response.error_code);
    w.i32(response.session_id);
  }
  protocol::wire::write_array_len(w, response.responses.size(), kFlex);
  for (auto& topic : response.responses) {
    protocol::wire::write_string(w, topic.topic, kFlex);
    protocol::wire::write_array_len(w, topic.partitions.size(), kFlex);
    for (auto& p : topic.partitions) {
      const std::vector<FileRegion>* regions = p.records ? sets.find(*p.records) : nullptr;
      if (!regions) {
        p.encode(w, api_version);
        continue;
      }
      // Encode with an empty record set: the field's int32 length comes
      // last; patch it to the regions' total and splice them in after it.
      p.records.emplace();
      p.encode(w, api_version);
      int64_t total = 0;
      for (const auto& r : *regions) total += r.length;
      auto& buf = w.buffer();
      const size_t at = buf.size();
      const auto n = static_cast<uint32_t>(total);
      buf[at - 4] = static_cast<uint8_t>(n >> 24);
      buf[at - 3] = static_cast<uint8_t>(n >> 16);
      buf[at - 2] = static_cast<uint8_t>(n >> 8);
      buf[at - 1] = static_cast<uint8_t>(n);
      for (const auto& r : *regions) out.splices.push_back(net::Response::Splice{at, r});
    }
  }
  out.bytes = w.take();
  return out;
}

}  // namespace spool::broker
