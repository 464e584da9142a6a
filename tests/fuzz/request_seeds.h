// Seed inputs for the request fuzzers (fuzz_request_<family>), derived from
// the broker's handler table: per served API, one seed per version family
// (pre-flexible and flexible) at the family's lowest and highest served
// version, once with the default Request body and once with the default
// Response body (the fuzzers decode both from the same bytes). A seed is a
// request header (v1, or v2 for flexible versions) + that body; it lives in
// the corpus folder of its API's family: corpus/request/<family>/<name>.
// Used by make_request_corpus (writes them) and by broker_fuzz_corpus_test
// (checks the committed corpus has them all). Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "broker/handlers/handler_table.h"
#include "protocol/header.h"
#include "util/bytes.h"

namespace spool::fuzz {

struct RequestSeed {
  std::string name;  // file name: <api>_v<version> or <api>Response_v<version>, e.g. "Produce_v3"
  broker::ApiFamily family;
  int16_t api_key;
  int16_t version;
  Bytes frame;  // without the size prefix
};

template <typename Api>
std::vector<int16_t> seed_versions() {
  std::vector<int16_t> out;
  auto add = [&](int16_t lo, int16_t hi) {
    if (lo > hi) return;
    out.push_back(lo);
    if (hi != lo) out.push_back(hi);
  };
  const int16_t ff = Api::kFirstFlexibleVersion;
  add(Api::kMinVersion, ff > Api::kMaxVersion ? Api::kMaxVersion : static_cast<int16_t>(ff - 1));
  add(ff < Api::kMinVersion ? Api::kMinVersion : ff, Api::kMaxVersion);
  return out;
}

// Header for (Api, v) followed by `body` encoded at v.
template <typename Api, typename Body>
Bytes seed_frame(int16_t v, const Body& body) {
  protocol::RequestHeader h;
  h.api_key = Api::kApiKey;
  h.api_version = v;
  h.correlation_id = 1;
  h.client_id = "fuzz";
  ByteWriter w;
  protocol::encode_request_header(w, h);
  body.encode(w, v);
  return w.take();
}

inline std::vector<RequestSeed> request_seeds() {
  std::vector<RequestSeed> out;
  broker::for_each_api(broker::ServedApis{}, [&]<typename Api>() {
    for (int16_t v : seed_versions<Api>()) {
      const std::string suffix = "_v" + std::to_string(v);
      out.push_back({std::string(Api::kName) + suffix, Api::kFamily, Api::kApiKey, v,
                     seed_frame<Api>(v, typename Api::Request{})});
      out.push_back({std::string(Api::kName) + "Response" + suffix, Api::kFamily, Api::kApiKey, v,
                     seed_frame<Api>(v, typename Api::Response{})});
    }
  });
  return out;
}

}  // namespace spool::fuzz
