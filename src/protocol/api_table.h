// What the protocol layer knows about every API it has message definitions
// for (generated known_apis.h), served or not: whether a version is flexible
// and the API's name. Which APIs the broker serves, at which versions and on
// which listeners, is the broker's handler table (broker/handlers/
// handler_table.h); ApiVersions is built from that.
//
// Flexibility is known even for APIs that are not served and for versions
// above the served max, because a header must be parsed before the key is
// judged (KIP-511: ApiVersions v4 arrives with header v2). Immutable static
// data; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace spool::protocol {

// Whether (key, version) uses flexible encodings (compact types, tagged
// fields, request header v2). False for keys Spool has no definition of.
bool is_flexible(int16_t key, int16_t version);
// Kafka's name of the API ("Fetch"), or "" for keys Spool has no definition of.
std::string_view api_name(int16_t key);

}  // namespace spool::protocol
