// The kWalk record check (produce_validation.h): it must accept exactly what
// full decoding (kDeep) accepts, so that skipping Record materialisation on
// the produce path never lets a record into the log that a reader cannot
// decode. Checked by construction cases and by a differential sweep that
// mutates record bytes, fixes the CRC (as a client computing it over its own
// garbage would) and compares both modes.
#include <gtest/gtest.h>

#include <random>

#include "record/batch_builder.h"
#include "record/compression.h"
#include "record/error_codes.h"
#include "record/produce_validation.h"
#include "test_batches.h"

namespace spool::record {
namespace {

constexpr size_t kMax = 1 << 20;

Result<ValidatedBatches> check(ByteSpan b, RecordCheck mode) {
  ProduceValidationOptions o;
  o.max_message_bytes = kMax;
  o.records = mode;
  return validate_produce_records(b, o);
}

Bytes rich_batch() {
  std::vector<BuildRecord> recs;
  recs.push_back(BuildRecord::of("key-0", "value-0", 1700000000005));
  BuildRecord null_key;  // null key, null value (a tombstone without key)
  null_key.timestamp = 1700000000001;
  recs.push_back(null_key);
  BuildRecord with_headers = BuildRecord::of("k2", std::string(300, 'v'), 1700000000009);
  with_headers.headers.push_back({"h1", Bytes{'a', 'b'}});
  with_headers.headers.push_back({"h2", std::nullopt});
  recs.push_back(with_headers);
  recs.push_back(BuildRecord::of("", "", 1700000000002));
  auto b = build_batch(BatchOptions{}, recs);
  return b ? b.value() : Bytes{};
}

TEST(ProduceWalk, AcceptsWhatDeepAccepts) {
  for (const Bytes& b : {testing::make_batch(1), testing::make_batch(500), rich_batch()}) {
    ASSERT_FALSE(b.empty());
    auto deep = check(b, RecordCheck::kDeep);
    auto walk = check(b, RecordCheck::kWalk);
    ASSERT_TRUE(deep) << deep.status().message();
    ASSERT_TRUE(walk) << walk.status().message();
    EXPECT_EQ(walk->record_count, deep->record_count);
    EXPECT_EQ(walk->max_timestamp, deep->max_timestamp);
    EXPECT_EQ(walk->offset_of_max_timestamp, deep->offset_of_max_timestamp);
  }
  // rich_batch's newest record is the third one, not the last.
  auto walk = check(rich_batch(), RecordCheck::kWalk);
  ASSERT_TRUE(walk);
  EXPECT_EQ(walk->max_timestamp, 1700000000009);
  EXPECT_EQ(walk->offset_of_max_timestamp, 2);
}

TEST(ProduceWalk, RefusesBadKeyLengthThatPassesTheCrc) {
  Bytes b = testing::make_batch(3);
  // First record: length, attributes, ts delta, offset delta, then the key length.
  b[kHeaderSize + 4] = 0x7E;  // key length 63, past the record's end
  update_crc(b.data(), b.size());
  EXPECT_TRUE(check(b, RecordCheck::kHeader));
  auto walk = check(b, RecordCheck::kWalk);
  ASSERT_FALSE(walk);
  EXPECT_EQ(walk.status().kafka_code(), kInvalidRecord);
  EXPECT_NE(walk.status().message().find("record 0"), std::string::npos) << walk.status().message();
}

TEST(ProduceWalk, RefusesOffsetDeltasOutOfSequence) {
  std::vector<BuildRecord> recs = {BuildRecord::of("a", "1"), BuildRecord::of("b", "2"), BuildRecord::of("c", "3")};
  recs[1].offset_delta = 2;  // 0, 2, 3: count 3 but last delta 3 -> header rule
  recs[2].offset_delta = 3;
  BatchOptions o;
  auto gapped = build_batch(o, recs);
  ASSERT_TRUE(gapped);
  EXPECT_EQ(check(*gapped, RecordCheck::kWalk).status().kafka_code(), kInvalidRecord);
  // Same count and last delta, but record 1 claims delta 1 twice: patch the
  // offset delta byte of record 2 from 2 (zigzag 4) to 1 (zigzag 2).
  Bytes b = testing::make_batch(3);
  ByteReader r(ByteSpan(b).subspan(kHeaderSize));
  size_t pos = kHeaderSize;
  for (int i = 0; i < 2; ++i) {
    const int32_t len = r.varint32();
    r.skip(static_cast<size_t>(len));
    pos = kHeaderSize + r.position();
  }
  // Record 2 starts at pos: length (1 byte), attributes, ts delta (1 byte), offset delta.
  ASSERT_EQ(b[pos + 3], 4);
  b[pos + 3] = 2;
  update_crc(b.data(), b.size());
  EXPECT_EQ(check(b, RecordCheck::kDeep).status().kafka_code(), kInvalidRecord);
  EXPECT_EQ(check(b, RecordCheck::kWalk).status().kafka_code(), kInvalidRecord);
}

TEST(ProduceWalk, RefusesTrailingBytes) {
  Bytes b = testing::make_batch(2);
  // Trailing garbage inside the batch (covered by a fixed-up CRC and length).
  Bytes trailing = b;
  trailing.push_back(0);
  uint32_t len = static_cast<uint32_t>(trailing.size() - kLogOverhead);
  trailing[8] = static_cast<uint8_t>(len >> 24);
  trailing[9] = static_cast<uint8_t>(len >> 16);
  trailing[10] = static_cast<uint8_t>(len >> 8);
  trailing[11] = static_cast<uint8_t>(len);
  update_crc(trailing.data(), trailing.size());
  ASSERT_TRUE(check(trailing, RecordCheck::kHeader));
  EXPECT_EQ(check(trailing, RecordCheck::kWalk).status().kafka_code(), kInvalidRecord);
  EXPECT_EQ(check(trailing, RecordCheck::kDeep).status().kafka_code(), kInvalidRecord);
}

TEST(ProduceWalk, CompressedBatchesAreStillDecoded) {
  for (Compression c : testing::all_codecs()) {
    if (c == Compression::kNone) continue;
    Bytes b = testing::make_batch(20, c);
    auto walk = check(b, RecordCheck::kWalk);
    ASSERT_TRUE(walk) << walk.status().message();
    EXPECT_EQ(walk->max_timestamp, 1700000000019);
    // Garbage in the compressed section with a valid CRC: refused by decoding.
    for (size_t i = kHeaderSize; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 7);
    update_crc(b.data(), b.size());
    auto bad = check(b, RecordCheck::kWalk);
    ASSERT_FALSE(bad) << compression_name(c);
    EXPECT_TRUE(bad.status().kafka_code() == kCorruptMessage || bad.status().kafka_code() == kInvalidRecord);
  }
}

// Every single-byte mutation of the records section (several values per
// position), CRC fixed: kWalk and kDeep must agree on accept/refuse, and on
// the result when both accept.
TEST(ProduceWalk, AgreesWithDeepOnMutations) {
  const Bytes base = rich_batch();
  ASSERT_FALSE(base.empty());
  std::mt19937 rng(7);
  int refused = 0, accepted = 0;
  for (size_t pos = kHeaderSize; pos < base.size(); ++pos) {
    for (uint8_t v : {uint8_t{0x00}, uint8_t{0x01}, uint8_t{0x7F}, uint8_t{0x80}, uint8_t{0xFF},
                      static_cast<uint8_t>(rng()), static_cast<uint8_t>(base[pos] + 2)}) {
      Bytes b = base;
      b[pos] = v;
      update_crc(b.data(), b.size());
      auto deep = check(b, RecordCheck::kDeep);
      auto walk = check(b, RecordCheck::kWalk);
      ASSERT_EQ(static_cast<bool>(deep), static_cast<bool>(walk))
          << "byte " << pos << " = " << int(v) << ": deep " << (deep ? "ok" : deep.status().message())
          << ", walk " << (walk ? "ok" : walk.status().message());
      if (deep) {
        ++accepted;
        EXPECT_EQ(walk->max_timestamp, deep->max_timestamp) << "byte " << pos;
        EXPECT_EQ(walk->offset_of_max_timestamp, deep->offset_of_max_timestamp) << "byte " << pos;
      } else {
        ++refused;
        EXPECT_EQ(walk.status().kafka_code(), deep.status().kafka_code()) << "byte " << pos;
      }
    }
  }
  // The sweep must exercise both outcomes to mean anything.
  EXPECT_GT(refused, 100);
  EXPECT_GT(accepted, 100);
}

TEST(ProduceWalk, ArbitraryBytesNeverCrash) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 2000; ++iter) {
    Bytes b = testing::make_batch(1 + static_cast<int>(rng() % 4));
    const size_t n = rng() % 64;
    for (size_t k = 0; k < n; ++k) b[kHeaderSize + rng() % (b.size() - kHeaderSize)] = static_cast<uint8_t>(rng());
    update_crc(b.data(), b.size());
    auto walk = check(b, RecordCheck::kWalk);
    auto deep = check(b, RecordCheck::kDeep);
    EXPECT_EQ(static_cast<bool>(walk), static_cast<bool>(deep)) << "iteration " << iter;
  }
}

}  // namespace
}  // namespace spool::record
