// Fuzzes what a client controls first: the request header and the body
// decoder of every served API at the header's version, walking the broker's
// handler table (broker/handlers/handler_table.h) so a newly served API or
// version is fuzzed without touching this file. Any input must either decode
// or be refused; sanitizers catch everything else. Decoded requests are
// re-encoded and decoded again to exercise the encoders on odd values too.
// Records fields decode as views into the input (no copy), as in the broker.
#include <cstddef>
#include <cstdint>

#include "broker/handlers/handler_table.h"
#include "protocol/header.h"
#include "util/bytes.h"

namespace {

template <typename Req>
void roundtrip(spool::ByteReader& r, int16_t version) {
  Req req;
  if (!req.decode(r, version)) return;
  spool::ByteWriter w;
  req.encode(w, version);
  Req again;
  spool::ByteReader r2(w.buffer().data(), w.buffer().size());
  if (!again.decode(r2, version)) __builtin_trap();  // what we wrote we must read
  if (r2.remaining() != 0 || !(again == req)) __builtin_trap();  // and get the same value back
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spool;
  ByteReader r(data, size);
  protocol::RequestHeader h;
  if (!protocol::decode_request_header(r, h)) return 0;
  broker::for_each_api(broker::ServedApis{}, [&]<typename Api>() {
    if (Api::kApiKey != h.api_key || h.api_version < Api::kMinVersion || h.api_version > Api::kMaxVersion) return;
    roundtrip<typename Api::Request>(r, h.api_version);
  });
  return 0;
}
