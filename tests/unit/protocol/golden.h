// Test helpers: hex literals and the golden round-trip check shared by the
// protocol tests.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <string_view>

#include "util/bytes.h"

namespace spool::protocol::testing {

// Parses hex digits, ignoring spaces and '|' (used to separate fields).
inline Bytes hex(std::string_view s) {
  Bytes out;
  int hi = -1;
  for (char c : s) {
    if (c == ' ' || c == '|' || c == '\n') continue;
    int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                                                        : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
    EXPECT_TRUE(v >= 0 && v < 16) << "bad hex digit " << c;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<uint8_t>(hi << 4 | v));
      hi = -1;
    }
  }
  EXPECT_EQ(hi, -1) << "odd number of hex digits";
  return out;
}

inline std::string to_hex(ByteSpan b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s += kDigits[c >> 4];
    s += kDigits[c & 15];
  }
  return s;
}

// Encodes `m` at `version` and compares with the hand-written bytes; decodes
// those bytes back and requires equality with `m` and full consumption; and
// requires every strict prefix to fail decoding (truncation is detected).
template <typename M>
void check_golden(const M& m, int16_t version, std::string_view expected_hex) {
  SCOPED_TRACE("version " + std::to_string(version));
  const Bytes expected = hex(expected_hex);
  ByteWriter w;
  m.encode(w, version);
  EXPECT_EQ(to_hex(w.buffer()), to_hex(expected));

  M decoded;
  ByteReader r(expected);
  ASSERT_TRUE(decoded.decode(r, version));
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(decoded == m) << "decoded value differs from the encoded one";

  for (size_t n = 0; n < expected.size(); ++n) {
    M t;
    ByteReader tr(expected.data(), n);
    EXPECT_FALSE(t.decode(tr, version)) << "prefix of " << n << " bytes decoded";
  }
}

}  // namespace spool::protocol::testing
