// The single table of APIs Spool serves, with the version ranges it
// advertises (PROTOCOL-NOTES.md). The dispatcher checks requests against it
// and the ApiVersions answer is built from it, so the two cannot drift.
//
// Flexibility is known for every API that has generated messages, even ones
// not served yet (a header must be parsed before the key is judged), and for
// versions above the served max (KIP-511: ApiVersions v4 arrives with header
// v2). Immutable static data; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/api_versions_response.h"
#include "util/bytes.h"

namespace spool::protocol {

struct ApiRange {
  int16_t api_key;
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible;  // INT16_MAX if the API has no flexible version
  std::string_view name;
};

// The served APIs, ordered by api key.
std::span<const ApiRange> served_apis();
// nullptr if Spool does not serve `key`.
const ApiRange* find_api(int16_t key);
// Whether (key, version) uses flexible encodings (compact types, tagged
// fields, request header v2). False for keys Spool has no definition of.
bool is_flexible(int16_t key, int16_t version);

// The ApiVersions answer (error NONE, every served range, throttle 0).
ApiVersionsResponse make_api_versions_response(int16_t version);
// KIP-511 answer to an ApiVersions request above our max: response header v0
// + a v0 body with UNSUPPORTED_VERSION and ApiVersions' own range. Without
// the 4-byte size prefix (the net layer adds it).
Bytes encode_unsupported_api_versions(int32_t correlation_id);

}  // namespace spool::protocol
