// BatchAppender against build_batch: the same records give the same bytes,
// every codec decodes back, and producer state rewrites keep a valid CRC.
#include "record/batch_appender.h"

#include <gtest/gtest.h>

#include <vector>

#include "record/batch_builder.h"
#include "record/compression.h"
#include "record/record.h"

namespace spool::record {
namespace {

ByteSpan span_of(const std::string& s) { return as_span(std::string_view(s)); }

TEST(BatchAppender, UncompressedBatchEqualsBuildBatch) {
  BatchAppender a;
  std::vector<BuildRecord> recs;
  for (int i = 0; i < 50; ++i) {
    const std::string k = "key-" + std::to_string(i);
    const std::string v(static_cast<size_t>(i * 7), 'v');
    const std::string hv = "hv";
    AppendHeader h{"h", span_of(hv)};
    if (i % 3 == 0) {
      a.append(1000 + i, std::nullopt, span_of(v), std::span<const AppendHeader>(&h, 1));
      BuildRecord r;
      r.value = Bytes(v.begin(), v.end());
      r.headers.push_back(BuildHeader{"h", Bytes(hv.begin(), hv.end())});
      r.timestamp = 1000 + i;
      recs.push_back(r);
    } else {
      a.append(1000 + i, span_of(k), std::nullopt);
      BuildRecord r;
      r.key = Bytes(k.begin(), k.end());
      r.timestamp = 1000 + i;
      recs.push_back(r);
    }
  }
  ASSERT_TRUE(a.close().is_ok());
  auto expected = build_batch(BatchOptions{}, recs);
  ASSERT_TRUE(expected.is_ok());
  EXPECT_EQ(a.bytes(), *expected);
  EXPECT_EQ(a.record_count(), 50);
}

TEST(BatchAppender, RecordSizeIsAnUpperBound) {
  BatchAppender a;
  const std::string k = "k", v(300, 'x');
  size_t before = a.estimated_size();
  a.append(5, span_of(k), span_of(v));
  EXPECT_LE(a.estimated_size() - before, BatchAppender::record_size(span_of(k), span_of(v), {}));
}

TEST(BatchAppender, EveryCodecRoundTrips) {
  for (Compression c : {Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd}) {
    BatchAppender a(c);
    for (int i = 0; i < 100; ++i) {
      const std::string v = "value-" + std::to_string(i);
      a.append(i, std::nullopt, span_of(v));
    }
    ASSERT_TRUE(a.close().is_ok()) << compression_name(c);
    a.set_producer_state(42, 3, 7, true);
    auto h = validate_batch(ByteSpan(a.bytes()));
    ASSERT_TRUE(h.is_ok()) << compression_name(c) << ": " << h.status().message();
    EXPECT_EQ(h->compression(), c);
    EXPECT_EQ(h->producer_id, 42);
    EXPECT_EQ(h->producer_epoch, 3);
    EXPECT_EQ(h->base_sequence, 7);
    EXPECT_TRUE(h->is_transactional());
    EXPECT_EQ(h->records_count, 100);
    EXPECT_EQ(h->max_timestamp, 99);
    Bytes scratch;
    auto recs = decode_records(*h, ByteSpan(a.bytes()), scratch);
    ASSERT_TRUE(recs.is_ok()) << compression_name(c);
    ASSERT_EQ(recs->size(), 100u);
    EXPECT_EQ(std::string((*recs)[42].value->begin(), (*recs)[42].value->end()), "value-42");
  }
}

TEST(BatchAppender, CloseWithoutRecordsFails) {
  BatchAppender a;
  EXPECT_FALSE(a.close().is_ok());
}

}  // namespace
}  // namespace spool::record
