// Client-side framing used by NetworkClient (client/network_client.h): a request
// frame is a 4-byte size, the request header and the body; a response frame
// is a 4-byte size, the response header and the body.
//
// Header versions: request header v2 for flexible (key, version), v1
// otherwise (protocol/header.h), except ControlledShutdown v0, whose header
// is v0 (no client id; Kafka's one special case). Response header v1 for
// flexible versions except ApiVersions (always v0).
//
// ApiVersionTable holds one broker's ApiVersions answer and negotiates the
// highest version both sides support. Stateless functions are thread-safe;
// ApiVersionTable is a plain value (not thread-safe).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "protocol/api_versions_response.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::client {

// "Fetch (api key 1)", or "api key 99" for keys without a definition.
std::string api_label(int16_t api_key);

// Appends a whole request frame (size, header, body) to `w`; `body` writes
// the body at `version`.
template <class BodyFn>
void append_request_frame(ByteWriter& w, int16_t api_key, int16_t version, int32_t correlation_id,
                          const std::string& client_id, BodyFn&& body);
// The non-template parts.
size_t begin_request_frame(ByteWriter& w, int16_t api_key, int16_t version, int32_t correlation_id,
                           const std::string& client_id);
void end_request_frame(ByteWriter& w, size_t start);

// A response frame's size field must hold at least the correlation id and
// stay within `max_bytes`; checked before anything is allocated.
Status check_response_size(int32_t size, int32_t max_bytes);
// Checks the response header of `frame` (the bytes after the size field)
// against the request it answers. Returns the offset of the body.
Result<size_t> parse_response_header(ByteSpan frame, int16_t api_key, int16_t version,
                                     int32_t expected_correlation_id);

class ApiVersionTable {
 public:
  using Range = std::pair<int16_t, int16_t>;  // (min, max)
  ApiVersionTable() = default;
  // Takes the ranges of a successful answer (error_code must be NONE).
  explicit ApiVersionTable(const protocol::ApiVersionsResponse& resp);

  // Highest version of `api_key` within [our_min, our_max] that the broker
  // supports, or an error naming the API and both ranges.
  Result<int16_t> negotiate(int16_t api_key, int16_t our_min, int16_t our_max) const;
  std::optional<Range> find(int16_t api_key) const;
  const std::map<int16_t, Range>& ranges() const { return ranges_; }

 private:
  std::map<int16_t, Range> ranges_;
};

template <class BodyFn>
void append_request_frame(ByteWriter& w, int16_t api_key, int16_t version, int32_t correlation_id,
                          const std::string& client_id, BodyFn&& body) {
  const size_t start = begin_request_frame(w, api_key, version, correlation_id, client_id);
  body(w);
  end_request_frame(w, start);
}

}  // namespace spool::client
