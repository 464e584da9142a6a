#include "record/record.h"

#include <gtest/gtest.h>

#include <string>

#include "record/batch_builder.h"
#include "record/compression.h"
#include "record/control_record.h"
#include "record/error_codes.h"
#include "test_batches.h"

namespace spool::record {
namespace {

std::string str(ByteSpan s) { return std::string(s.begin(), s.end()); }
Bytes bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

class RoundTrip : public ::testing::TestWithParam<Compression> {};

TEST_P(RoundTrip, BuildValidateDecode) {
  std::vector<BuildRecord> recs;
  BuildRecord a = BuildRecord::of("key-a", "value-a", 1000);
  a.headers.push_back({"h1", bytes("v1")});
  a.headers.push_back({"h-null", std::nullopt});
  BuildRecord b;  // null key and value (tombstone)
  b.timestamp = 990;  // earlier than the first: negative delta
  BuildRecord c = BuildRecord::of("", std::string(100000, 'z'), 1005);
  recs = {a, b, c};

  BatchOptions o;
  o.compression = GetParam();
  o.base_offset = 42;
  o.producer_id = 7;
  o.producer_epoch = 3;
  o.base_sequence = 11;
  o.transactional = true;
  auto built = build_batch(o, recs);
  ASSERT_TRUE(built) << built.status().message();

  auto h = validate_batch(*built);
  ASSERT_TRUE(h) << h.status().message();
  EXPECT_EQ(h->compression(), GetParam());
  EXPECT_EQ(h->base_offset, 42);
  EXPECT_EQ(h->records_count, 3);
  EXPECT_EQ(h->last_offset_delta, 2);
  EXPECT_EQ(h->base_timestamp, 1000);
  EXPECT_EQ(h->max_timestamp, 1005);
  EXPECT_EQ(h->producer_id, 7);
  EXPECT_EQ(h->producer_epoch, 3);
  EXPECT_EQ(h->base_sequence, 11);
  EXPECT_TRUE(h->is_transactional());
  EXPECT_FALSE(h->is_control());
  if (GetParam() != Compression::kNone) {
    EXPECT_LT(built->size(), 10000u);  // the 100 kB of 'z' compressed
  }

  Bytes scratch;
  auto out = decode_records(*h, *built, scratch);
  ASSERT_TRUE(out) << out.status().message();
  ASSERT_EQ(out->size(), 3u);
  const Record& ra = (*out)[0];
  EXPECT_EQ(str(*ra.key), "key-a");
  EXPECT_EQ(str(*ra.value), "value-a");
  EXPECT_EQ(ra.timestamp_delta, 0);
  EXPECT_EQ(ra.offset_delta, 0);
  ASSERT_EQ(ra.headers.size(), 2u);
  EXPECT_EQ(ra.headers[0].key, "h1");
  EXPECT_EQ(ra.headers[0].value, std::optional<std::string_view>("v1"));
  EXPECT_EQ(ra.headers[1].key, "h-null");
  EXPECT_FALSE(ra.headers[1].value);
  const Record& rb = (*out)[1];
  EXPECT_FALSE(rb.key);
  EXPECT_FALSE(rb.value);
  EXPECT_EQ(rb.timestamp_delta, -10);
  EXPECT_EQ(rb.offset_delta, 1);
  const Record& rc = (*out)[2];
  ASSERT_TRUE(rc.key);
  EXPECT_TRUE(rc.key->empty());
  EXPECT_EQ(rc.value->size(), 100000u);
  EXPECT_EQ(rc.offset_delta, 2);

  // Cap on the decompressed section.
  if (GetParam() != Compression::kNone) {
    auto capped = decode_records(*h, *built, scratch, 50000);
    ASSERT_FALSE(capped);
    EXPECT_EQ(capped.status().kafka_code(), kCorruptMessage);
  }
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, RoundTrip, ::testing::ValuesIn(testing::all_codecs()),
                         [](const auto& info) { return std::string(compression_name(info.param)); });

// Builds a batch around a hand-written records section.
Bytes batch_with_section(const Bytes& section, int32_t count, int32_t last_delta) {
  Bytes b = testing::make_batch(1);
  b.resize(kHeaderSize);
  b.insert(b.end(), section.begin(), section.end());
  ByteWriter w;
  w.i32(static_cast<int32_t>(b.size() - kLogOverhead));
  w.i32(last_delta);
  std::copy(w.buffer().begin(), w.buffer().begin() + 4, b.begin() + kLengthPos);
  std::copy(w.buffer().begin() + 4, w.buffer().end(), b.begin() + kLastOffsetDeltaPos);
  ByteWriter c;
  c.i32(count);
  std::copy(c.buffer().begin(), c.buffer().end(), b.begin() + kRecordsCountPos);
  update_crc(b.data(), b.size());
  return b;
}

Status decode_status(const Bytes& batch) {
  auto h = validate_batch(batch);
  if (!h) return h.status();
  Bytes scratch;
  auto r = decode_records(*h, batch, scratch);
  return r ? Status::ok() : r.status();
}

TEST(DecodeRecords, WellFormedHandWrittenSection) {
  // length 7: attrs 0, ts 0, delta 0, null key (01), value len 0, 0 headers...
  Bytes rec = {0x0C, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00};
  EXPECT_TRUE(decode_status(batch_with_section(rec, 1, 0))) << decode_status(batch_with_section(rec, 1, 0)).message();
}

TEST(DecodeRecords, MalformedRecordsAreInvalidRecord) {
  const std::vector<std::pair<const char*, Bytes>> cases = {
      {"garbage", {0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03}},
      {"length past end", {0x7E, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00}},
      {"negative length", {0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00}},
      {"key len -2", {0x0C, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00}},
      {"value past record", {0x0C, 0x00, 0x00, 0x00, 0x01, 0x10, 0x00}},
      {"negative header count", {0x0C, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01}},
      {"header count too big", {0x0C, 0x00, 0x00, 0x00, 0x01, 0x00, 0x7E}},
      {"null header key", {0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x01, 0x00}},
      {"bytes left in record", {0x0E, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0xAA}},
      {"trailing bytes after records", {0x0C, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00}},
      {"offset delta beyond last", {0x0C, 0x00, 0x00, 0x04, 0x01, 0x00, 0x00}},
      {"overlong varint", {0x0C, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}},
      {"empty section", {}},
  };
  for (const auto& [name, section] : cases) {
    Status s = decode_status(batch_with_section(section, 1, 0));
    EXPECT_FALSE(s) << name;
    EXPECT_EQ(s.kafka_code(), kInvalidRecord) << name << ": " << s.message();
  }
}

TEST(DecodeRecords, CountMismatchIsInvalidRecord) {
  Bytes one = {0x0C, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00};
  // Two declared, one present.
  Status s = decode_status(batch_with_section(one, 2, 1));
  EXPECT_EQ(s.kafka_code(), kInvalidRecord) << s.message();
  // Huge declared count is refused before any allocation.
  s = decode_status(batch_with_section(one, 1 << 30, (1 << 30) - 1));
  EXPECT_EQ(s.kafka_code(), kInvalidRecord) << s.message();
}

TEST(DecodeRecords, OffsetDeltasMustIncrease) {
  Bytes two = {0x0C, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00,   // delta 1
               0x0C, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00};  // delta 1 again
  EXPECT_EQ(decode_status(batch_with_section(two, 2, 1)).kafka_code(), kInvalidRecord);
  two[10] = 0x00;  // second record delta 0 < 1
  EXPECT_EQ(decode_status(batch_with_section(two, 2, 1)).kafka_code(), kInvalidRecord);
  two[3] = 0x00;   // deltas 0, 0
  EXPECT_EQ(decode_status(batch_with_section(two, 2, 1)).kafka_code(), kInvalidRecord);
  two[10] = 0x04;  // deltas 0, 2 with a gap (compacted) are fine
  EXPECT_TRUE(decode_status(batch_with_section(two, 2, 2)));
}

TEST(DecodeRecords, CorruptCompressedSectionIsCorruptMessage) {
  Bytes b = testing::make_batch(5, Compression::kZstd);
  b[kHeaderSize] ^= 0xFF;  // breaks the zstd frame magic
  update_crc(b.data(), b.size());
  Status s = decode_status(b);
  EXPECT_FALSE(s);
  EXPECT_EQ(s.kafka_code(), kCorruptMessage) << s.message();
}

TEST(BatchBuilder, RejectsBadInput) {
  BatchOptions o;
  EXPECT_FALSE(build_batch(o, {}));
  std::vector<BuildRecord> recs = {BuildRecord::of("a", "b"), BuildRecord::of("c", "d")};
  recs[1].offset_delta = 0;
  EXPECT_FALSE(build_batch(o, recs));
  recs[1].offset_delta = 5;
  auto b = build_batch(o, recs);
  ASSERT_TRUE(b);
  EXPECT_EQ(validate_batch(*b)->last_offset_delta, 5);
  o.last_offset_delta = 3;
  EXPECT_FALSE(build_batch(o, recs));
}

TEST(BatchBuilder, ExtremeTimestampsDoNotOverflow) {
  std::vector<BuildRecord> recs = {BuildRecord::of("a", "b", INT64_MIN),
                                   BuildRecord::of("c", "d", INT64_MAX)};
  auto b = build_batch({}, recs);
  ASSERT_TRUE(b);
  auto h = validate_batch(*b);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->max_timestamp, INT64_MAX);
  Bytes scratch;
  EXPECT_TRUE(decode_records(*h, *b, scratch));
}

TEST(ControlRecord, CommitMarkerRoundTrip) {
  ControlBatchOptions o;
  o.producer_id = 99;
  o.producer_epoch = 4;
  o.timestamp = 12345;
  o.base_offset = 10;
  auto b = build_control_batch(o, {ControlType::kCommit, 17});
  ASSERT_TRUE(b);
  auto h = validate_batch(*b);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->is_control());
  EXPECT_TRUE(h->is_transactional());
  EXPECT_EQ(h->base_sequence, -1);
  EXPECT_EQ(h->producer_id, 99);
  EXPECT_EQ(h->compression(), Compression::kNone);
  Bytes scratch;
  auto recs = decode_records(*h, *b, scratch);
  ASSERT_TRUE(recs);
  ASSERT_EQ(recs->size(), 1u);
  EXPECT_EQ(str(*(*recs)[0].key), std::string("\0\0\0\1", 4));
  auto m = parse_control_record((*recs)[0]);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, ControlType::kCommit);
  EXPECT_EQ(m->coordinator_epoch, 17);
}

TEST(ControlRecord, MalformedMarkersRejected) {
  Record r;
  EXPECT_FALSE(parse_control_record(r));
  Bytes key = {0, 0, 0, 9};
  r.key = ByteSpan(key);
  Bytes value = {0, 0, 0, 0, 0, 1};
  r.value = ByteSpan(value);
  EXPECT_EQ(parse_control_record(r).status().kafka_code(), kInvalidRecord);
  key[3] = 0;
  EXPECT_TRUE(parse_control_record(r));
  Bytes short_value = {0, 0, 0};
  r.value = ByteSpan(short_value);
  EXPECT_FALSE(parse_control_record(r));
}

}  // namespace
}  // namespace spool::record
