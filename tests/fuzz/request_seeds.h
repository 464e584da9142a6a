// Seed requests for fuzz_request, derived from the broker's handler table:
// per served API one seed per version family (pre-flexible and flexible),
// each at the family's lowest and highest served version. A seed is a
// request header (v1, or v2 for flexible versions) + the default request
// body at that version. Used by make_request_corpus (writes them) and by
// broker_fuzz_corpus_test (checks the committed corpus has them all).
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "broker/handlers/handler_table.h"
#include "protocol/header.h"
#include "util/bytes.h"

namespace spool::fuzz {

struct RequestSeed {
  std::string name;  // file name: <api>_v<version>, e.g. "Produce_v3"
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

inline std::vector<RequestSeed> request_seeds() {
  std::vector<RequestSeed> out;
  broker::for_each_api(broker::ServedApis{}, [&]<typename Api>() {
    for (int16_t v : seed_versions<Api>()) {
      protocol::RequestHeader h;
      h.api_key = Api::kApiKey;
      h.api_version = v;
      h.correlation_id = 1;
      h.client_id = "fuzz";
      ByteWriter w;
      protocol::encode_request_header(w, h);
      typename Api::Request req;
      req.encode(w, v);
      out.push_back({std::string(Api::kName) + "_v" + std::to_string(v), Api::kApiKey, v, w.take()});
    }
  });
  return out;
}

}  // namespace spool::fuzz
