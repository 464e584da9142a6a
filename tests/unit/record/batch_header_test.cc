#include "record/batch_header.h"

#include <gtest/gtest.h>

#include "record/batch_builder.h"
#include "record/error_codes.h"
#include "record/record.h"
#include "test_batches.h"
#include "util/crc32c.h"

namespace spool::record {
namespace {

// One record, key "k", value "v", CreateTime 1700000000000, no producer id,
// written out by hand from the v2 layout. CRC-32C computed independently
// (bitwise reference implementation) over bytes 21..69.
const Bytes kGolden = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // base_offset 0
    0x00, 0x00, 0x00, 0x3A,                          // batch_length 58
    0x00, 0x00, 0x00, 0x00,                          // partition_leader_epoch 0
    0x02,                                            // magic
    0xE9, 0x9B, 0x8D, 0xD8,                          // crc
    0x00, 0x00,                                      // attributes
    0x00, 0x00, 0x00, 0x00,                          // last_offset_delta
    0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00,  // base_timestamp
    0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00,  // max_timestamp
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // producer_id -1
    0xFF, 0xFF,                                      // producer_epoch -1
    0xFF, 0xFF, 0xFF, 0xFF,                          // base_sequence -1
    0x00, 0x00, 0x00, 0x01,                          // records_count 1
    // record: length 8, attributes 0, ts delta 0, offset delta 0,
    // key len 1 "k", value len 1 "v", 0 headers (zigzag varints)
    0x10, 0x00, 0x00, 0x00, 0x02, 0x6B, 0x02, 0x76, 0x00};

TEST(BatchHeader, GoldenBatchValidates) {
  auto h = validate_batch(kGolden);
  ASSERT_TRUE(h) << h.status().message();
  EXPECT_EQ(h->base_offset, 0);
  EXPECT_EQ(h->batch_length, 58);
  EXPECT_EQ(h->magic, 2);
  EXPECT_EQ(h->crc, 0xE99B8DD8u);
  EXPECT_EQ(h->records_count, 1);
  EXPECT_EQ(h->base_timestamp, 1700000000000);
  EXPECT_EQ(h->producer_id, -1);
  EXPECT_EQ(h->total_size(), kGolden.size());
  EXPECT_EQ(h->compression(), Compression::kNone);

  Bytes scratch;
  auto recs = decode_records(*h, kGolden, scratch);
  ASSERT_TRUE(recs) << recs.status().message();
  ASSERT_EQ(recs->size(), 1u);
  const Record& r = (*recs)[0];
  ASSERT_TRUE(r.key && r.value);
  EXPECT_EQ(std::string(r.key->begin(), r.key->end()), "k");
  EXPECT_EQ(std::string(r.value->begin(), r.value->end()), "v");
  EXPECT_TRUE(r.headers.empty());
}

TEST(BatchHeader, BuilderReproducesGolden) {
  BatchOptions o;
  o.partition_leader_epoch = 0;
  BuildRecord r = BuildRecord::of("k", "v", 1700000000000);
  auto b = build_batch(o, std::span<const BuildRecord>(&r, 1));
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, kGolden);
}

TEST(BatchHeader, CrcMismatchIsCorrupt) {
  Bytes b = kGolden;
  b.back() ^= 0x01;
  auto h = validate_batch(b);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.status().kafka_code(), kCorruptMessage);
  b = kGolden;
  b[kCrcPos] ^= 0x80;
  EXPECT_EQ(validate_batch(b).status().kafka_code(), kCorruptMessage);
}

TEST(BatchHeader, TruncatedIsCorrupt) {
  for (size_t n = 0; n < kGolden.size(); ++n) {
    auto h = validate_batch(ByteSpan(kGolden).first(n));
    ASSERT_FALSE(h) << n;
    EXPECT_EQ(h.status().kafka_code(), kCorruptMessage) << n;
  }
  EXPECT_FALSE(read_header(ByteSpan(kGolden).first(kHeaderSize - 1)));
  EXPECT_TRUE(read_header(ByteSpan(kGolden).first(kHeaderSize)));
}

TEST(BatchHeader, LengthBelowHeaderIsCorrupt) {
  Bytes b = kGolden;
  b[kLengthPos + 3] = 48;  // one short of the fixed header
  EXPECT_EQ(validate_batch(b).status().kafka_code(), kCorruptMessage);
  b[kLengthPos] = 0x80;  // negative
  EXPECT_EQ(validate_batch(b).status().kafka_code(), kCorruptMessage);
}

TEST(BatchHeader, BadMagicIsCorrupt) {
  for (uint8_t m : {0, 1, 3, 0xFF}) {
    Bytes b = kGolden;
    b[kMagicPos] = m;
    EXPECT_EQ(validate_batch(b).status().kafka_code(), kCorruptMessage) << int(m);
  }
}

TEST(BatchHeader, UnknownCodecIsCorrupt) {
  Bytes b = kGolden;
  b[kAttributesPos + 1] = 0x05;
  update_crc(b.data(), b.size());
  EXPECT_EQ(validate_batch(b).status().kafka_code(), kCorruptMessage);
}

TEST(BatchHeader, CountsBeyondOffsetRangeAreInvalid) {
  Bytes b = kGolden;
  b[kRecordsCountPos + 3] = 2;  // two records but last_offset_delta 0
  update_crc(b.data(), b.size());
  EXPECT_EQ(validate_batch(b).status().kafka_code(), kInvalidRecord);
  b = kGolden;
  b[kRecordsCountPos] = 0xFF;  // negative
  update_crc(b.data(), b.size());
  EXPECT_EQ(validate_batch(b).status().kafka_code(), kInvalidRecord);
  b = kGolden;
  b[kLastOffsetDeltaPos] = 0xFF;  // negative
  update_crc(b.data(), b.size());
  EXPECT_EQ(validate_batch(b).status().kafka_code(), kInvalidRecord);
}

TEST(BatchHeader, FewerRecordsThanOffsetsIsAllowed) {
  // Compaction keeps the offset range while dropping records.
  Bytes b = kGolden;
  b[kLastOffsetDeltaPos + 3] = 5;
  update_crc(b.data(), b.size());
  EXPECT_TRUE(validate_batch(b));
}

TEST(BatchHeader, TrailingBytesBeyondBatchIgnored) {
  Bytes b = kGolden;
  b.push_back(0xAA);
  auto h = validate_batch(b);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->total_size(), kGolden.size());
}

TEST(BatchHeader, RewritesOutsideCrcKeepBatchValid) {
  Bytes b = kGolden;
  set_base_offset(b.data(), 0x0102030405060708);
  set_partition_leader_epoch(b.data(), -7);
  auto h = validate_batch(b);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->base_offset, 0x0102030405060708);
  EXPECT_EQ(h->partition_leader_epoch, -7);
  EXPECT_EQ(h->last_offset(), 0x0102030405060708);
}

TEST(BatchHeader, LogAppendTimeRewriteKeepsCrcValid) {
  Bytes b = testing::make_batch(3, Compression::kLz4);
  ASSERT_FALSE(b.empty());
  set_log_append_time(b.data(), b.size(), 1800000000000);
  auto h = validate_batch(b);
  ASSERT_TRUE(h) << h.status().message();
  EXPECT_TRUE(h->log_append_time());
  EXPECT_EQ(h->max_timestamp, 1800000000000);
  EXPECT_EQ(h->compression(), Compression::kLz4);
  EXPECT_EQ(h->base_timestamp, 1700000000000);
  // Short buffers are left alone rather than overrun.
  Bytes small(10, 0);
  set_log_append_time(small.data(), small.size(), 1);
  EXPECT_EQ(small, Bytes(10, 0));
}

}  // namespace
}  // namespace spool::record
