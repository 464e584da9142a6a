// Fuzzes what a client controls first: the request header and the body
// decoder of every served API at the header's version. Any input must either
// decode or be refused; sanitizers catch everything else. Decoded requests
// are re-encoded to exercise the encoders on odd values too.
#include <cstddef>
#include <cstdint>

#include "protocol/api_table.h"
#include "protocol/header.h"
#include "protocol/messages.h"
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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spool::protocol;
  spool::ByteReader r(data, size);
  RequestHeader h;
  if (!decode_request_header(r, h)) return 0;
  const ApiRange* api = find_api(h.api_key);
  if (api == nullptr || h.api_version < api->min_version || h.api_version > api->max_version) return 0;
  switch (h.api_key) {
    case 0: roundtrip<ProduceRequest>(r, h.api_version); break;
    case 1: roundtrip<FetchRequest>(r, h.api_version); break;
    case 2: roundtrip<ListOffsetsRequest>(r, h.api_version); break;
    case 3: roundtrip<MetadataRequest>(r, h.api_version); break;
    case 18: roundtrip<ApiVersionsRequest>(r, h.api_version); break;
    case 19: roundtrip<CreateTopicsRequest>(r, h.api_version); break;
    case 20: roundtrip<DeleteTopicsRequest>(r, h.api_version); break;
    default: break;
  }
  return 0;
}
