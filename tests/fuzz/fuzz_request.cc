// Fuzzes the message decoders of one API family of the broker's handler
// table (broker/handlers/handler_table.h): built once per family, the
// family named by SPOOL_FUZZ_FAMILY ("data", "admin", "groups", "txn",
// "inter_broker"; tests/fuzz/CMakeLists.txt makes fuzz_request_<family>).
// The APIs and versions come from the table, so a newly served API or
// version is fuzzed without touching this file.
//
// Input: a request frame without its size prefix (request header v1/v2 +
// body), the format of the seed corpus and of real client traffic. The
// header is decoded first (and must round-trip). Its api key and version
// pick the API: a key outside the family selects the family's
// (key mod n)-th API, and a version outside the served range is folded
// into it, so every input reaches some decoder of the family. The body is
// then decoded as that API's Request and, from the same bytes, as its
// Response (the broker decodes responses too: a follower's Fetch, the
// controller's LeaderAndIsr/UpdateMetadata/StopReplica answers, the marker
// sender's WriteTxnMarkers, the CLI's everything). Any input must either
// decode or be refused; sanitizers catch everything else. What decodes is
// re-encoded, and the encoding must decode to an equal value with nothing
// left over. Records fields decode as views into the input, as in the broker.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "broker/handlers/handler_table.h"
#include "protocol/header.h"
#include "util/bytes.h"

#ifndef SPOOL_FUZZ_FAMILY
#error "build with -DSPOOL_FUZZ_FAMILY=\"<family>\" (see tests/fuzz/CMakeLists.txt)"
#endif

namespace {

using spool::broker::ApiFamily;

constexpr ApiFamily family_named(std::string_view name) {
  for (size_t i = 0; i < spool::broker::kApiFamilyCount; ++i) {
    if (spool::broker::api_family_name(static_cast<ApiFamily>(i)) == name) return static_cast<ApiFamily>(i);
  }
  throw "SPOOL_FUZZ_FAMILY names no ApiFamily";  // a compile error in a constant expression
}
constexpr ApiFamily kFamily = family_named(SPOOL_FUZZ_FAMILY);

constexpr size_t family_size() {
  size_t n = 0;
  spool::broker::for_each_api(spool::broker::ServedApis{}, [&]<typename Api>() { n += Api::kFamily == kFamily; });
  return n;
}
static_assert(family_size() > 0, "a family of the table with no API");

// Decodes Message at `version`; if it decodes, the re-encoding must decode
// to the same value, consuming exactly what was written.
template <typename Message>
void roundtrip(spool::ByteSpan body, int16_t version) {
  spool::ByteReader r(body);
  Message msg;
  if (!msg.decode(r, version)) return;
  spool::ByteWriter w;
  msg.encode(w, version);
  Message again;
  spool::ByteReader r2(w.buffer().data(), w.buffer().size());
  if (!again.decode(r2, version)) __builtin_trap();              // what we wrote we must read
  if (r2.remaining() != 0 || !(again == msg)) __builtin_trap();  // and get the same value back
}

void check_header_roundtrip(const spool::protocol::RequestHeader& h) {
  spool::ByteWriter w;
  spool::protocol::encode_request_header(w, h);
  spool::ByteReader r(w.buffer().data(), w.buffer().size());
  spool::protocol::RequestHeader again;
  if (!spool::protocol::decode_request_header(r, again) || r.remaining() != 0 || !(again == h)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spool;
  ByteReader r(data, size);
  protocol::RequestHeader h;
  if (!protocol::decode_request_header(r, h)) return 0;
  check_header_roundtrip(h);
  const ByteSpan body = r.data().subspan(r.position());

  // The family's API with this key, else its (key mod n)-th.
  constexpr size_t kN = family_size();
  bool key_in_family = false;
  broker::for_each_api(broker::ServedApis{}, [&]<typename Api>() {
    key_in_family |= Api::kFamily == kFamily && Api::kApiKey == h.api_key;
  });
  const size_t pick = static_cast<uint16_t>(h.api_key) % kN;
  size_t i = 0;
  broker::for_each_api(broker::ServedApis{}, [&]<typename Api>() {
    if (Api::kFamily != kFamily) return;
    const bool chosen = key_in_family ? Api::kApiKey == h.api_key : i == pick;
    ++i;
    if (!chosen) return;
    int16_t v = h.api_version;
    if (v < Api::kMinVersion || v > Api::kMaxVersion) {
      const int span = Api::kMaxVersion - Api::kMinVersion + 1;
      v = static_cast<int16_t>(Api::kMinVersion + static_cast<uint16_t>(v) % span);
    }
    roundtrip<typename Api::Request>(body, v);
    roundtrip<typename Api::Response>(body, v);
  });
  return 0;
}
