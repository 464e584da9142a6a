// Request and response headers.
//
// Request header v1: api_key, api_version, correlation_id, client_id (int16
// nullable string). v2 adds a tagged-field section and is used exactly when
// the (api_key, api_version) is flexible per the api table; client_id stays
// a non-compact string even then. Response header v0 is the correlation id;
// v1 adds an (empty) tagged-field section, except that ApiVersions answers
// always use v0 so a client can parse them before it knows our versions.
//
// Failure: decode_request_header returns false on truncation or malformed
// tagged fields; the reader is then failed. Stateless, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "util/bytes.h"

namespace spool::protocol {

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id;

  bool operator==(const RequestHeader&) const = default;
};

// Reads the header and leaves `r` at the start of the body. Unknown api keys
// decode as v1 (the caller rejects them).
bool decode_request_header(ByteReader& r, RequestHeader& out);
// Writes v1 or v2 (chosen like the decoder) for clients of the protocol.
void encode_request_header(ByteWriter& w, const RequestHeader& h);

// Whether a response to (api_key, version) carries header v1.
bool response_header_flexible(int16_t api_key, int16_t version);
void encode_response_header(ByteWriter& w, int32_t correlation_id, bool flexible);
// Reads a response header (for clients); false on truncation.
bool decode_response_header(ByteReader& r, bool flexible, int32_t& correlation_id);

}  // namespace spool::protocol
