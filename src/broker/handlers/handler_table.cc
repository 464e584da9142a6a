// The runtime form of the served-API table (handler_table.h): entries, the
// lookup by key, and the ApiVersions answers built from them.
#include "broker/handlers/handler_table.h"

#include <array>

#include "protocol/error_code.h"
#include "protocol/header.h"

namespace spool::broker {

namespace {

#define SPOOL_API_ENTRY(Name, Min, Max, Handler, Listeners, Family, Authorization)                      \
  ApiEntry{protocol::Name##Request::kApiKey, Min, Max, protocol::Name##Request::kFirstFlexibleVersion, \
           protocol::Name##Request::kApiName, &Handler, Listeners, Authz::k##Authorization},
constexpr std::array kEntries = {SPOOL_SERVED_APIS(SPOOL_API_ENTRY)};
#undef SPOOL_API_ENTRY
static_assert(kEntries.size() == ServedApis::kSize);

constexpr bool sorted_by_key() {
  for (size_t i = 1; i < kEntries.size(); ++i) {
    if (kEntries[i - 1].api_key >= kEntries[i].api_key) return false;
  }
  return true;
}
static_assert(sorted_by_key(), "ServedApis must be ordered by api key, without duplicates");

// Api key -> index into kEntries (-1: not served), for keys below kMaxKey.
constexpr int16_t kMaxKey = 256;
constexpr std::array<int16_t, kMaxKey> make_index() {
  std::array<int16_t, kMaxKey> index{};
  for (auto& i : index) i = -1;
  for (size_t i = 0; i < kEntries.size(); ++i)
    index[static_cast<size_t>(kEntries[i].api_key)] = static_cast<int16_t>(i);
  return index;
}
static_assert(kEntries.back().api_key < kMaxKey);
constexpr auto kIndex = make_index();

}  // namespace

std::span<const ApiEntry> served_apis() { return kEntries; }

const ApiEntry* find_served_api(int16_t key, Listener l) { return find_served_api(key, listeners(l)); }

const ApiEntry* find_served_api(int16_t key, ListenerSet roles) {
  if (key < 0 || key >= kMaxKey || kIndex[static_cast<size_t>(key)] < 0) return nullptr;
  const ApiEntry* e = &kEntries[static_cast<size_t>(kIndex[static_cast<size_t>(key)])];
  return (e->listeners & roles) != 0 ? e : nullptr;
}

protocol::ApiVersionsResponse make_api_versions_response(Listener l) {
  return make_api_versions_response(listeners(l));
}

protocol::ApiVersionsResponse make_api_versions_response(ListenerSet roles) {
  protocol::ApiVersionsResponse resp;
  resp.error_code = protocol::ErrorCode::kNone;
  resp.api_keys.reserve(kEntries.size());
  for (const auto& a : kEntries) {
    if ((a.listeners & roles) == 0) continue;
    auto& v = resp.api_keys.emplace_back();
    v.api_key = a.api_key;
    v.min_version = a.min_version;
    v.max_version = a.max_version;
  }
  return resp;
}

Bytes encode_unsupported_api_versions(int32_t correlation_id, Listener l) {
  return encode_unsupported_api_versions(correlation_id, listeners(l));
}

Bytes encode_unsupported_api_versions(int32_t correlation_id, ListenerSet roles) {
  const ApiEntry* self = find_served_api(protocol::ApiVersionsRequest::kApiKey, roles);
  protocol::ApiVersionsResponse resp;
  resp.error_code = protocol::ErrorCode::kUnsupportedVersion;
  auto& v = resp.api_keys.emplace_back();
  v.api_key = protocol::ApiVersionsRequest::kApiKey;
  v.min_version = self ? self->min_version : 0;
  v.max_version = self ? self->max_version : 0;
  ByteWriter w(32);
  protocol::encode_response_header(w, correlation_id, /*flexible=*/false);
  resp.encode(w, 0);
  return w.take();
}

}  // namespace spool::broker
