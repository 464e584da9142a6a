// Shared fixtures for the record tests.
#pragma once

#include <string>
#include <vector>

#include "record/batch_builder.h"

namespace spool::record::testing {

// A batch of `n` records key"k<i>" / value"value-<i>" built with codec `c`.
inline Bytes make_batch(int n, Compression c = Compression::kNone, int64_t ts = 1700000000000) {
  std::vector<BuildRecord> recs;
  for (int i = 0; i < n; ++i) {
    recs.push_back(BuildRecord::of("k" + std::to_string(i), "value-" + std::to_string(i), ts + i));
  }
  BatchOptions o;
  o.compression = c;
  auto b = build_batch(o, recs);
  return b ? b.value() : Bytes{};
}

inline const std::vector<Compression>& all_codecs() {
  static const std::vector<Compression> k = {Compression::kNone, Compression::kGzip,
                                             Compression::kSnappy, Compression::kLz4,
                                             Compression::kZstd};
  return k;
}

}  // namespace spool::record::testing
