#include "util/bytes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace spool {
namespace {

Bytes enc_u(uint64_t v) {
  ByteWriter w;
  w.uvarint(v);
  return w.take();
}
Bytes enc_i32(int32_t v) {
  ByteWriter w;
  w.varint32(v);
  return w.take();
}
Bytes enc_i64(int64_t v) {
  ByteWriter w;
  w.varint64(v);
  return w.take();
}

TEST(Varint, KnownEncodings) {
  EXPECT_EQ(enc_i32(0), (Bytes{0x00}));
  EXPECT_EQ(enc_i32(-1), (Bytes{0x01}));
  EXPECT_EQ(enc_i32(1), (Bytes{0x02}));
  EXPECT_EQ(enc_i32(-2), (Bytes{0x03}));
  EXPECT_EQ(enc_i32(63), (Bytes{0x7E}));
  EXPECT_EQ(enc_i32(-64), (Bytes{0x7F}));
  EXPECT_EQ(enc_i32(64), (Bytes{0x80, 0x01}));
  EXPECT_EQ(enc_u(300), (Bytes{0xAC, 0x02}));
  EXPECT_EQ(enc_u(0), (Bytes{0x00}));
  EXPECT_EQ(enc_u(127), (Bytes{0x7F}));
  EXPECT_EQ(enc_u(128), (Bytes{0x80, 0x01}));
  EXPECT_EQ(enc_i32(std::numeric_limits<int32_t>::max()), (Bytes{0xFE, 0xFF, 0xFF, 0xFF, 0x0F}));
  EXPECT_EQ(enc_i32(std::numeric_limits<int32_t>::min()), (Bytes{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}));
  EXPECT_EQ(enc_i64(std::numeric_limits<int64_t>::max()),
            (Bytes{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
  EXPECT_EQ(enc_i64(std::numeric_limits<int64_t>::min()),
            (Bytes{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
}

TEST(Varint, SizesMatchEncodings) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{63}, int64_t{64}, int64_t{-65},
                    int64_t{1} << 40, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(varint64_size(v), enc_i64(v).size()) << v;
  }
  for (int32_t v : {0, 1, -1, 8191, 8192, -8193, std::numeric_limits<int32_t>::min(),
                    std::numeric_limits<int32_t>::max()}) {
    EXPECT_EQ(varint32_size(v), enc_i32(v).size()) << v;
  }
  EXPECT_EQ(uvarint_size(300), 2u);
  EXPECT_EQ(uvarint_size(UINT64_MAX), 10u);
}

TEST(Varint, RoundTrips32) {
  std::vector<int32_t> values = {0, 1, -1, 2, -2, 127, -128, 300, -300, 1 << 20, -(1 << 20),
                                 std::numeric_limits<int32_t>::min(),
                                 std::numeric_limits<int32_t>::max()};
  for (int shift = 0; shift < 31; ++shift) {
    values.push_back(1 << shift);
    values.push_back(-(1 << shift));
  }
  for (int32_t v : values) {
    Bytes b = enc_i32(v);
    ByteReader r(b);
    EXPECT_EQ(r.varint32(), v);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.remaining(), 0u);
  }
}

TEST(Varint, RoundTrips64) {
  std::vector<int64_t> values = {0, 1, -1, std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max()};
  for (int shift = 0; shift < 63; ++shift) {
    values.push_back(int64_t{1} << shift);
    values.push_back(-(int64_t{1} << shift));
  }
  for (int64_t v : values) {
    Bytes b = enc_i64(v);
    ByteReader r(b);
    EXPECT_EQ(r.varint64(), v);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.remaining(), 0u);
  }
  for (uint64_t v : {uint64_t{0}, uint64_t{300}, uint64_t{UINT32_MAX}, UINT64_MAX}) {
    Bytes b = enc_u(v);
    ByteReader r(b);
    EXPECT_EQ(r.uvarint64(), v);
    EXPECT_TRUE(r.ok());
  }
}

TEST(Varint, OverlongRejected) {
  // Six bytes for a 32-bit varint: one continuation too many.
  Bytes b32 = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  ByteReader r32(b32);
  r32.varint32();
  EXPECT_FALSE(r32.ok());
  // A five-byte varint whose value does not fit 32 bits.
  Bytes big = {0xFF, 0xFF, 0xFF, 0xFF, 0x1F};
  ByteReader rbig(big);
  rbig.uvarint32();
  EXPECT_FALSE(rbig.ok());
  // Eleven bytes for a 64-bit varint.
  Bytes b64(10, 0x80);
  b64.push_back(0x01);
  ByteReader r64(b64);
  r64.varint64();
  EXPECT_FALSE(r64.ok());
}

TEST(Varint, TruncatedRejected) {
  for (Bytes b : {Bytes{}, Bytes{0x80}, Bytes{0xFF, 0xFF}, Bytes{0xAC}}) {
    ByteReader r(b);
    r.varint32();
    EXPECT_FALSE(r.ok());
    ByteReader r2(b);
    r2.varint64();
    EXPECT_FALSE(r2.ok());
  }
}

TEST(ByteReader, StickyFailureAndBigEndian) {
  Bytes b = {0x01, 0x02, 0x03, 0x04, 0x05};
  ByteReader r(b);
  EXPECT_EQ(r.i32(), 0x01020304);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.i16(), 0);  // only one byte left
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.u8(), 0);   // stays failed
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.take(1).empty());
}

TEST(ByteWriter, BigEndianAndPatch) {
  ByteWriter w;
  w.i16(-2);
  w.i32(0);
  w.i64(0x0102030405060708);
  w.patch_i32(2, 0x0A0B0C0D);
  EXPECT_EQ(w.buffer(), (Bytes{0xFF, 0xFE, 0x0A, 0x0B, 0x0C, 0x0D, 1, 2, 3, 4, 5, 6, 7, 8}));
}

}  // namespace
}  // namespace spool
