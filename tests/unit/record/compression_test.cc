#include "record/compression.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "record/error_codes.h"
#include "test_batches.h"

namespace spool::record {
namespace {

Bytes text(size_t n) {
  Bytes b;
  std::mt19937 rng(7);
  const std::string words[] = {"kafka ", "spool ", "record ", "batch ", "offset ", "log "};
  while (b.size() < n) {
    const std::string& w = words[rng() % 6];
    b.insert(b.end(), w.begin(), w.end());
  }
  b.resize(n);
  return b;
}

Bytes random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

std::string str(const Bytes& b) { return std::string(b.begin(), b.end()); }

class CodecTest : public ::testing::TestWithParam<Compression> {};

TEST_P(CodecTest, RoundTripsManySizes) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{32 * 1024}, size_t{32 * 1024 + 1},
                   size_t{200 * 1024}}) {
    for (const Bytes& in : {text(n), random_bytes(n, static_cast<uint32_t>(n))}) {
      auto c = compress(GetParam(), in);
      ASSERT_TRUE(c) << c.status().message();
      auto d = decompress(GetParam(), *c, in.size());
      ASSERT_TRUE(d) << compression_name(GetParam()) << " n=" << n << ": " << d.status().message();
      EXPECT_EQ(*d, in);
    }
  }
}

TEST_P(CodecTest, BombIsCapped) {
  Bytes zeros(8 * 1024 * 1024, 0);
  auto c = compress(GetParam(), zeros);
  ASSERT_TRUE(c);
  auto d = decompress(GetParam(), *c, 1024 * 1024);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.status().kafka_code(), kCorruptMessage);
  // Exactly at the limit is fine.
  auto ok = decompress(GetParam(), *c, zeros.size());
  ASSERT_TRUE(ok) << ok.status().message();
  EXPECT_EQ(ok->size(), zeros.size());
  auto under = decompress(GetParam(), *c, zeros.size() - 1);
  EXPECT_FALSE(under);
}

// The codecs that compress: "none" has no format to break.
class CompressingCodecTest : public ::testing::TestWithParam<Compression> {};

std::vector<Compression> compressing_codecs() {
  std::vector<Compression> out;
  for (Compression c : testing::all_codecs()) {
    if (c != Compression::kNone) out.push_back(c);
  }
  return out;
}

TEST_P(CompressingCodecTest, GarbageAndTruncationFailCleanly) {
  Bytes in = text(100000);
  auto c = compress(GetParam(), in);
  ASSERT_TRUE(c);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{5}, c->size() / 2, c->size() - 1}) {
    auto d = decompress(GetParam(), ByteSpan(*c).first(cut), 1 << 20);
    EXPECT_FALSE(d) << compression_name(GetParam()) << " cut " << cut;
    if (!d) {
      EXPECT_EQ(d.status().kafka_code(), kCorruptMessage);
    }
  }
  for (uint32_t seed = 0; seed < 50; ++seed) {
    Bytes g = random_bytes(1 + seed * 37, seed);
    auto d = decompress(GetParam(), g, 1 << 20);
    if (!d) {
      EXPECT_EQ(d.status().kafka_code(), kCorruptMessage);
    }
  }
  // Bit flips must never crash (they may or may not be detected).
  std::mt19937 rng(99);
  for (int i = 0; i < 200; ++i) {
    Bytes m = *c;
    m[rng() % m.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    (void)decompress(GetParam(), m, 1 << 20);
  }
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecTest, ::testing::ValuesIn(testing::all_codecs()),
                         [](const auto& info) { return std::string(compression_name(info.param)); });
INSTANTIATE_TEST_SUITE_P(Compressing, CompressingCodecTest, ::testing::ValuesIn(compressing_codecs()),
                         [](const auto& info) { return std::string(compression_name(info.param)); });

// Snappy blocks written by hand from the format description: varint
// uncompressed length, then elements (literal tag = (len-1)<<2, copy with
// 1-byte offset tag = ((len-4)<<2) | 1 followed by the offset).
const Bytes kRawHello = {0x05, 0x10, 'h', 'e', 'l', 'l', 'o'};
const Bytes kRawAbcx4 = {0x0C, 0x08, 'a', 'b', 'c', 0x15, 0x03};

TEST(Snappy, RawBlockAsLibrdkafkaSends) {
  auto d = decompress(Compression::kSnappy, kRawAbcx4, 100);
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(str(*d), "abcabcabcabc");
}

TEST(Snappy, XerialFramingAsJavaSends) {
  Bytes in = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0x00,  // magic
              0, 0, 0, 1,                                // version
              0, 0, 0, 1};                               // compatible version
  auto chunk = [&](const Bytes& block) {
    in.push_back(0);
    in.push_back(0);
    in.push_back(0);
    in.push_back(static_cast<uint8_t>(block.size()));
    in.insert(in.end(), block.begin(), block.end());
  };
  chunk(kRawHello);
  chunk(kRawAbcx4);
  auto d = decompress(Compression::kSnappy, in, 100);
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(str(*d), "helloabcabcabcabc");

  // The limit covers the sum of the chunks.
  EXPECT_EQ(decompress(Compression::kSnappy, in, 16).status().kafka_code(), kCorruptMessage);
  // A chunk length past the end, or a cut length field, is corrupt.
  Bytes bad = in;
  bad[19] = 0x50;
  EXPECT_EQ(decompress(Compression::kSnappy, bad, 100).status().kafka_code(), kCorruptMessage);
  Bytes cut(in.begin(), in.end() - static_cast<long>(kRawAbcx4.size()) - 2);
  EXPECT_EQ(decompress(Compression::kSnappy, cut, 100).status().kafka_code(), kCorruptMessage);
}

TEST(Snappy, OurOutputIsXerialFramed) {
  auto c = compress(Compression::kSnappy, text(100000));
  ASSERT_TRUE(c);
  ASSERT_GE(c->size(), 16u);
  EXPECT_EQ(c->at(0), 0x82);
  EXPECT_EQ(std::string(c->begin() + 1, c->begin() + 7), "SNAPPY");
}

TEST(Snappy, LyingLengthHeaderIsRejectedWithoutHugeAllocation) {
  // Claims 2^31 bytes of output from a handful of input bytes.
  Bytes lie = {0x80, 0x80, 0x80, 0x80, 0x08, 0x00, 'x'};
  auto d = decompress(Compression::kSnappy, lie, size_t{4} << 30);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.status().kafka_code(), kCorruptMessage);
}

TEST(Gzip, ConcatenatedMembers) {
  auto a = compress(Compression::kGzip, as_span("hello "));
  auto b = compress(Compression::kGzip, as_span("world"));
  ASSERT_TRUE(a && b);
  Bytes both = *a;
  both.insert(both.end(), b->begin(), b->end());
  auto d = decompress(Compression::kGzip, both, 100);
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(str(*d), "hello world");
}

TEST(Gzip, OutputHasGzipMagic) {
  auto c = compress(Compression::kGzip, as_span("x"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->at(0), 0x1F);
  EXPECT_EQ(c->at(1), 0x8B);
}

TEST(Compression, LevelsAreChecked) {
  Bytes in = text(1000);
  EXPECT_TRUE(compress(Compression::kGzip, in, 9));
  EXPECT_FALSE(compress(Compression::kGzip, in, 10));
  EXPECT_TRUE(compress(Compression::kLz4, in, 9));  // HC
  EXPECT_FALSE(compress(Compression::kLz4, in, 13));
  EXPECT_TRUE(compress(Compression::kZstd, in, 19));
  EXPECT_FALSE(compress(Compression::kZstd, in, 99));
}

TEST(Compression, UnknownCodecFails) {
  EXPECT_FALSE(decompress(static_cast<Compression>(5), as_span("x"), 10));
  EXPECT_FALSE(compress(static_cast<Compression>(7), as_span("x")));
}

TEST(Compression, NoneIsCappedToo) {
  EXPECT_FALSE(decompress(Compression::kNone, as_span("hello"), 4));
  EXPECT_TRUE(decompress(Compression::kNone, as_span("hello"), 5));
}

}  // namespace
}  // namespace spool::record
