#include "record/produce_validation.h"

#include <gtest/gtest.h>

#include <random>

#include "record/batch_builder.h"
#include "record/compression.h"
#include "record/control_record.h"
#include "record/error_codes.h"
#include "test_batches.h"

namespace spool::record {
namespace {

using testing::make_batch;

constexpr size_t kMax = 1 << 20;

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(ProduceValidation, SingleBatchEveryCodec) {
  for (Compression c : testing::all_codecs()) {
    Bytes b = make_batch(10, c);
    auto v = validate_produce_records(b, kMax);
    ASSERT_TRUE(v) << compression_name(c) << ": " << v.status().message();
    ASSERT_EQ(v->batches.size(), 1u);
    EXPECT_EQ(v->record_count, 10);
    EXPECT_EQ(v->batches[0].position, 0u);
    EXPECT_EQ(v->batches[0].size, b.size());
    EXPECT_EQ(v->max_timestamp, 1700000000009);
    EXPECT_EQ(v->offset_of_max_timestamp, 9);
  }
}

TEST(ProduceValidation, MultiBatchBlob) {
  Bytes a = make_batch(3, Compression::kGzip, 5000);
  Bytes b = make_batch(2, Compression::kNone, 9000);
  Bytes c = make_batch(4, Compression::kSnappy, 100);
  Bytes blob = concat({a, b, c});
  auto v = validate_produce_records(blob, kMax);
  ASSERT_TRUE(v) << v.status().message();
  ASSERT_EQ(v->batches.size(), 3u);
  EXPECT_EQ(v->record_count, 9);
  EXPECT_EQ(v->batches[1].position, a.size());
  EXPECT_EQ(v->batches[2].position, a.size() + b.size());
  EXPECT_EQ(v->batches[1].first_relative_offset, 3);
  EXPECT_EQ(v->batches[2].first_relative_offset, 5);
  EXPECT_EQ(v->max_timestamp, 9001);
  EXPECT_EQ(v->offset_of_max_timestamp, 4);

  // Offsets are assigned in place without touching the CRC.
  for (const auto& vb : v->batches) set_base_offset(blob.data() + vb.position, 1000 + vb.first_relative_offset);
  auto again = validate_produce_records(blob, kMax);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->batches[2].header.base_offset, 1005);

  ProduceValidationOptions single;
  single.single_batch = true;
  EXPECT_EQ(validate_produce_records(blob, single).status().kafka_code(), kInvalidRecord);
  EXPECT_TRUE(validate_produce_records(a, single));

  // A broken batch in the middle fails the whole blob.
  Bytes broken = blob;
  broken[a.size() + kHeaderSize + 2] ^= 0x40;
  EXPECT_EQ(validate_produce_records(broken, kMax).status().kafka_code(), kCorruptMessage);
  // A partial trailing batch is corrupt, not silently dropped.
  Bytes partial(blob.begin(), blob.end() - 1);
  EXPECT_EQ(validate_produce_records(partial, kMax).status().kafka_code(), kCorruptMessage);
}

TEST(ProduceValidation, EmptyBlobIsInvalid) {
  EXPECT_EQ(validate_produce_records({}, kMax).status().kafka_code(), kInvalidRecord);
}

TEST(ProduceValidation, OldMagicIsUnsupportedFormat) {
  for (uint8_t m : {0, 1}) {
    Bytes b = make_batch(1);
    b[kMagicPos] = m;
    EXPECT_EQ(validate_produce_records(b, kMax).status().kafka_code(), kUnsupportedForMessageFormat);
  }
  Bytes b = make_batch(1);
  b[kMagicPos] = 3;
  EXPECT_EQ(validate_produce_records(b, kMax).status().kafka_code(), kCorruptMessage);
}

TEST(ProduceValidation, TooLarge) {
  Bytes b = make_batch(100);
  EXPECT_EQ(validate_produce_records(b, b.size() - 1).status().kafka_code(), kMessageTooLarge);
  EXPECT_TRUE(validate_produce_records(b, b.size()));
}

TEST(ProduceValidation, RecordsCountMustMatchOffsets) {
  // last_offset_delta 5 for 2 records: fine for storage, not from a client.
  std::vector<BuildRecord> recs = {BuildRecord::of("a", "1"), BuildRecord::of("b", "2")};
  BatchOptions o;
  o.last_offset_delta = 5;
  auto b = build_batch(o, recs);
  ASSERT_TRUE(b);
  EXPECT_TRUE(validate_batch(*b));
  EXPECT_EQ(validate_produce_records(*b, kMax).status().kafka_code(), kInvalidRecord);
  // Gapped deltas with a matching count are caught by the deep check only.
  recs[1].offset_delta = 1;
  recs.push_back(BuildRecord::of("c", "3"));
  recs[2].offset_delta = 3;
  o.last_offset_delta = 3;
  auto gapped = build_batch(o, recs);
  ASSERT_TRUE(gapped);
  // count 3 != last_offset_delta 3 + 1
  EXPECT_EQ(validate_produce_records(*gapped, kMax).status().kafka_code(), kInvalidRecord);
}

TEST(ProduceValidation, DeepCheckFindsBadRecords) {
  Bytes b = make_batch(3);
  // Records follow the header: corrupt the first record's key length to a
  // value past the end, then fix the CRC so only the deep check can see it.
  b[kHeaderSize + 4] = 0x7E;
  update_crc(b.data(), b.size());
  EXPECT_TRUE(validate_produce_records(b, kMax, /*deep=*/false));
  EXPECT_EQ(validate_produce_records(b, kMax).status().kafka_code(), kInvalidRecord);
}

TEST(ProduceValidation, DeepCheckRequiresSequentialDeltas) {
  std::vector<BuildRecord> recs = {BuildRecord::of("a", "1"), BuildRecord::of("b", "2")};
  recs[0].offset_delta = 1;  // deltas 1, 2 with last_offset_delta 2 but count 2
  recs[1].offset_delta = 2;
  BatchOptions o;
  auto b = build_batch(o, recs);
  ASSERT_TRUE(b);
  // Header says count 2, last delta 2: rejected before decoding.
  EXPECT_EQ(validate_produce_records(*b, kMax).status().kafka_code(), kInvalidRecord);
}

TEST(ProduceValidation, ControlBatchFromClientRejected) {
  ControlBatchOptions o;
  o.producer_id = 1;
  o.producer_epoch = 0;
  auto b = build_control_batch(o, {ControlType::kAbort, 0});
  ASSERT_TRUE(b);
  EXPECT_EQ(validate_produce_records(*b, kMax).status().kafka_code(), kInvalidRecord);
}

TEST(ProduceValidation, ProducerIdRules) {
  std::vector<BuildRecord> recs = {BuildRecord::of("a", "1")};
  BatchOptions o;
  o.producer_id = 5;
  o.producer_epoch = 0;
  o.base_sequence = -1;
  EXPECT_EQ(validate_produce_records(*build_batch(o, recs), kMax).status().kafka_code(), kInvalidRecord);
  o.base_sequence = 0;
  EXPECT_TRUE(validate_produce_records(*build_batch(o, recs), kMax));
  o.producer_id = -1;
  o.transactional = true;
  EXPECT_EQ(validate_produce_records(*build_batch(o, recs), kMax).status().kafka_code(), kInvalidRecord);
}

TEST(ProduceValidation, DecompressionBombCapped) {
  std::vector<BuildRecord> recs = {BuildRecord::of("k", std::string(4 << 20, 'x'))};
  BatchOptions o;
  o.compression = Compression::kZstd;
  auto b = build_batch(o, recs);
  ASSERT_TRUE(b);
  ASSERT_LT(b->size(), 1024u);
  ProduceValidationOptions opt;
  opt.max_uncompressed_bytes = 1 << 20;
  EXPECT_EQ(validate_produce_records(*b, opt).status().kafka_code(), kCorruptMessage);
  opt.max_uncompressed_bytes = 8 << 20;
  EXPECT_TRUE(validate_produce_records(*b, opt));
}

TEST(ProduceValidation, LogAppendTimeRewriteStillValid) {
  Bytes b = make_batch(4, Compression::kSnappy);
  set_log_append_time(b.data(), b.size(), 1);
  auto v = validate_produce_records(b, kMax);
  ASSERT_TRUE(v) << v.status().message();
  EXPECT_TRUE(v->batches[0].header.log_append_time());
}

// Whatever the bytes, validation returns an answer: no crash, no UB (run
// under the asan preset), no giant allocation.
TEST(ProduceValidation, SurvivesMutatedInput) {
  std::mt19937 rng(2024);
  std::vector<Bytes> seeds;
  for (Compression c : testing::all_codecs()) seeds.push_back(make_batch(5, c));
  seeds.push_back(concat({seeds[0], seeds[3]}));
  int accepted = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Bytes m = seeds[rng() % seeds.size()];
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      switch (rng() % 3) {
        case 0: m[rng() % m.size()] = static_cast<uint8_t>(rng()); break;
        case 1: m.resize(rng() % (m.size() + 1)); break;
        default: m.insert(m.begin() + static_cast<long>(rng() % (m.size() + 1)), static_cast<uint8_t>(rng())); break;
      }
      if (m.empty()) m.push_back(0);
    }
    // Keep many mutants past the CRC so the record decoders get exercised.
    if (iter % 2 == 0 && m.size() >= kHeaderSize) {
      auto h = read_header(m);
      if (h && h->batch_length >= 49 && h->total_size() <= m.size()) update_crc(m.data(), h->total_size());
    }
    auto v = validate_produce_records(m, kMax);
    if (v) {
      ++accepted;
      EXPECT_GT(v->record_count, 0);
    } else {
      const int16_t code = v.status().kafka_code();
      EXPECT_TRUE(code == kCorruptMessage || code == kInvalidRecord || code == kMessageTooLarge ||
                  code == kUnsupportedForMessageFormat)
          << code << " " << v.status().message();
    }
  }
  RecordProperty("accepted", accepted);
}

}  // namespace
}  // namespace spool::record
