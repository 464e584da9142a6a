#include "client/wire_frame.h"

#include <algorithm>

#include "protocol/api_table.h"
#include "protocol/header.h"

namespace spool::client {

namespace {
constexpr int16_t kControlledShutdownKey = 7;
}  // namespace

std::string api_label(int16_t api_key) {
  const std::string_view name = protocol::api_name(api_key);
  std::string k = "api key " + std::to_string(api_key);
  return name.empty() ? k : std::string(name) + " (" + k + ")";
}

size_t begin_request_frame(ByteWriter& w, int16_t api_key, int16_t version, int32_t correlation_id,
                           const std::string& client_id) {
  const size_t start = w.size();
  w.i32(0);
  if (api_key == kControlledShutdownKey && version == 0) {
    // Header v0: api key, version, correlation id; no client id.
    w.i16(api_key);
    w.i16(version);
    w.i32(correlation_id);
  } else {
    protocol::RequestHeader h;
    h.api_key = api_key;
    h.api_version = version;
    h.correlation_id = correlation_id;
    h.client_id = client_id;
    protocol::encode_request_header(w, h);
  }
  return start;
}

void end_request_frame(ByteWriter& w, size_t start) {
  w.patch_i32(start, static_cast<int32_t>(w.size() - start - 4));
}

Status check_response_size(int32_t size, int32_t max_bytes) {
  if (size < 4) return Status::error("invalid response size " + std::to_string(size) + " (below 4)");
  if (size > max_bytes) {
    return Status::error("response size " + std::to_string(size) + " exceeds the limit of " +
                         std::to_string(max_bytes) + " bytes");
  }
  return Status::ok();
}

Result<size_t> parse_response_header(ByteSpan frame, int16_t api_key, int16_t version,
                                     int32_t expected_correlation_id) {
  ByteReader r(frame);
  int32_t correlation_id = 0;
  if (!protocol::decode_response_header(r, protocol::response_header_flexible(api_key, version), correlation_id)) {
    return Status::error("malformed response header for " + api_label(api_key) + " v" + std::to_string(version));
  }
  if (correlation_id != expected_correlation_id) {
    return Status::error("response correlation id " + std::to_string(correlation_id) +
                         " does not match request " + std::to_string(expected_correlation_id) + " (" +
                         api_label(api_key) + ")");
  }
  return r.position();
}

ApiVersionTable::ApiVersionTable(const protocol::ApiVersionsResponse& resp) {
  for (const auto& k : resp.api_keys) ranges_[k.api_key] = {k.min_version, k.max_version};
}

std::optional<ApiVersionTable::Range> ApiVersionTable::find(int16_t api_key) const {
  auto it = ranges_.find(api_key);
  if (it == ranges_.end()) return std::nullopt;
  return it->second;
}

Result<int16_t> ApiVersionTable::negotiate(int16_t api_key, int16_t our_min, int16_t our_max) const {
  auto it = ranges_.find(api_key);
  if (it == ranges_.end()) {
    return Status::error("the broker does not support " + api_label(api_key),
                         protocol::to_int(protocol::ErrorCode::kUnsupportedVersion));
  }
  const int16_t lo = std::max(our_min, it->second.first);
  const int16_t hi = std::min(our_max, it->second.second);
  if (lo > hi) {
    return Status::error("no common version for " + api_label(api_key) + " (broker " +
                             std::to_string(it->second.first) + "-" + std::to_string(it->second.second) +
                             ", client " + std::to_string(our_min) + "-" + std::to_string(our_max) + ")",
                         protocol::to_int(protocol::ErrorCode::kUnsupportedVersion));
  }
  return hi;
}

}  // namespace spool::client
