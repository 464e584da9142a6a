// Test helper: a generated protocol message through its own encode and
// decode at one version, as it crosses the wire. Fails the test when the
// decode fails or leaves bytes unread.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "util/bytes.h"

namespace spool::cluster::testing {

template <class Message>
Message round_trip(const Message& m, int16_t version) {
  ByteWriter w;
  m.encode(w, version);
  Bytes bytes = w.take();
  ByteReader r(bytes);
  Message out;
  EXPECT_TRUE(out.decode(r, version)) << Message::kApiName << " v" << version;
  EXPECT_EQ(r.remaining(), 0u) << Message::kApiName << " v" << version;
  return out;
}

inline std::array<uint8_t, 16> id_of(uint8_t seed) {
  std::array<uint8_t, 16> id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(seed + i);
  return id;
}

}  // namespace spool::cluster::testing
