// Encoding rules independent of any one message: nullability, compact
// lengths, tagged fields, hostile lengths, version bounds.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/error_code.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/produce_request.h"
#include "protocol/wire.h"

namespace spool::protocol {
namespace {

using testing::hex;
using testing::to_hex;

template <typename M>
Bytes encode(const M& m, int16_t v) {
  ByteWriter w;
  m.encode(w, v);
  return w.take();
}

template <typename M>
bool decode(M& m, const Bytes& b, int16_t v) {
  ByteReader r(b);
  return m.decode(r, v) && r.remaining() == 0;
}

TEST(Nullable, MetadataTopicsNullOnlyFromV1) {
  MetadataRequest m;  // topics = null
  EXPECT_EQ(to_hex(encode(m, 1)), "ffffffff");
  // v0 cannot express null: written as an empty list ("all topics" in v0).
  EXPECT_EQ(to_hex(encode(m, 0)), "00000000");
  MetadataRequest d;
  EXPECT_FALSE(decode(d, hex("ffffffff"), 0)) << "null array in a non-nullable version";
  ASSERT_TRUE(decode(d, hex("ffffffff"), 1));
  EXPECT_FALSE(d.topics.has_value());
  ASSERT_TRUE(decode(d, hex("00000000"), 1));
  ASSERT_TRUE(d.topics.has_value());
  EXPECT_TRUE(d.topics->empty());
}

TEST(Nullable, StringsAndRecords) {
  ProduceRequest m;
  m.acks = 1;
  m.topic_data.push_back({"t", {}, {{0, std::nullopt}}});
  EXPECT_EQ(to_hex(encode(m, 3)), "ffff" "0001" "00000000" "00000001" "000174" "00000001"
                                  "00000000" "ffffffff");
  ProduceRequest d;
  ASSERT_TRUE(decode(d, encode(m, 3), 3));
  EXPECT_FALSE(d.transactional_id.has_value());
  EXPECT_FALSE(d.topic_data[0].partition_data[0].records.has_value());
  // A null non-nullable string (the topic name) is malformed.
  EXPECT_FALSE(decode(d, hex("ffff 0001 00000000 00000001 ffff 00000000"), 3));
  // Negative lengths other than -1 are malformed.
  EXPECT_FALSE(decode(d, hex("fffe 0001 00000000 00000000"), 3));
}

TEST(Compact, LongStringUsesMultiByteUvarint) {
  ApiVersionsRequest m;
  m.client_software_name = std::string(200, 'a');
  m.client_software_version = "";
  Bytes b = encode(m, 3);
  ASSERT_EQ(b.size(), 2u + 200 + 1 + 1);
  EXPECT_EQ(b[0], 0xc9);  // 201 = 200 + 1, low 7 bits with continuation
  EXPECT_EQ(b[1], 0x01);
  EXPECT_EQ(b[202], 0x01);  // empty string: length 0 + 1
  EXPECT_EQ(b[203], 0x00);  // no tagged fields
  ApiVersionsRequest d;
  ASSERT_TRUE(decode(d, b, 3));
  EXPECT_EQ(d, m);
}

TEST(Compact, NullInNonNullableCompactStringRejected) {
  ApiVersionsRequest d;
  EXPECT_FALSE(decode(d, hex("00 01 00"), 3));
}

TEST(Tagged, UnknownTagsAreSkipped) {
  ApiVersionsRequest d;
  ASSERT_TRUE(decode(d, hex("02 6b | 02 31 | 02 | 05 02 abcd | 07 00"), 3));
  EXPECT_EQ(d.client_software_name, "k");
  EXPECT_EQ(d.client_software_version, "1");

  ApiVersionsResponse r;
  ASSERT_TRUE(decode(r, hex("0000 | 01 | 00000000 | 02 | 01 08 0000000000000009 | 63 01 ff"), 3));
  EXPECT_EQ(r.finalized_features_epoch, 9);
  EXPECT_TRUE(r.api_keys.empty());
}

TEST(Tagged, DefaultValuedTaggedFieldsAreNotWritten) {
  ApiVersionsResponse m;
  EXPECT_EQ(to_hex(encode(m, 3)), "0000" "01" "00000000" "00");
}

TEST(Tagged, TruncatedOrBadTaggedFieldsFail) {
  ApiVersionsResponse r;
  // Size runs past the end.
  EXPECT_FALSE(decode(r, hex("0000 01 00000000 01 01 08 00000000"), 3));
  // Known tag whose payload is too short for its type.
  EXPECT_FALSE(decode(r, hex("0000 01 00000000 01 01 02 0000"), 3));
  // Tag count larger than what follows.
  EXPECT_FALSE(decode(r, hex("0000 01 00000000 05 01 01 00"), 3));
}

TEST(Hostile, HugeArrayCountsRejectedWithoutAllocating) {
  MetadataRequest m;
  EXPECT_FALSE(decode(m, hex("7fffffff"), 0));
  EXPECT_FALSE(decode(m, hex("7fffffff 0001 74"), 1));
  DeleteTopicsRequest d;
  EXPECT_FALSE(decode(d, hex("7ffffff0 0001 61 00000000"), 1));
  MetadataResponse mr;  // int32 arrays: 4 bytes per element must be present
  EXPECT_FALSE(decode(mr, hex("00000000 00000001 0000 0001 74 00000001 0000 00000000 00000001"
                              "00000003 00000001 00000000 000000"),
                      0));
  ApiVersionsResponse av;
  EXPECT_FALSE(decode(av, hex("0000 ffffffff0f 00000000 00"), 3));
  EXPECT_FALSE(decode(av, hex("0000 ffffffffff01"), 3)) << "over-long uvarint";
}

TEST(Hostile, HugeStringAndBytesLengthsRejected) {
  ProduceRequest p;
  EXPECT_FALSE(decode(p, hex("0001 000003e8 00000001 7fff 74"), 0));
  EXPECT_FALSE(decode(p, hex("0001 000003e8 00000001 0001 74 00000001 00000000 7fffffff 00"), 0));
}

TEST(Versions, OutOfRangeVersionsRejected) {
  MetadataRequest m;
  Bytes b = hex("00000000");
  EXPECT_FALSE(decode(m, b, -1));
  EXPECT_FALSE(decode(m, b, 14));
  EXPECT_TRUE(decode(m, b, 0));
  EXPECT_EQ(MetadataRequest::kMinVersion, 0);
  EXPECT_EQ(MetadataRequest::kMaxVersion, 13);
  EXPECT_EQ(MetadataRequest::kFirstFlexibleVersion, 9);
  EXPECT_EQ(ApiVersionsRequest::kFirstFlexibleVersion, 3);
  EXPECT_EQ(FetchResponse::kApiKey, 1);
}

TEST(Versions, DecodeResetsFieldsAbsentInVersion) {
  FetchRequest f;
  f.rack_id = "stale";
  ASSERT_TRUE(decode(f, hex("ffffffff 00000000 00000001 00000000"), 0));
  EXPECT_EQ(f.rack_id, "");
  EXPECT_EQ(f.max_bytes, 0x7fffffff);
  EXPECT_EQ(f.session_epoch, -1);
}

TEST(Wire, ClassicStringTruncatedToInt16Range) {
  ByteWriter w;
  wire::write_string(w, std::string(40000, 'x'), false);
  EXPECT_EQ(w.size(), 2u + 0x7fff);
  ByteReader r(w.buffer());
  EXPECT_EQ(wire::read_string(r, false).size(), 0x7fffu);
  EXPECT_TRUE(r.ok());
}

TEST(ErrorCodes, NamesAndValues) {
  EXPECT_EQ(to_int(ErrorCode::kNone), 0);
  EXPECT_EQ(to_int(ErrorCode::kUnknownServerError), -1);
  EXPECT_EQ(to_int(ErrorCode::kCorruptMessage), 2);
  EXPECT_EQ(to_int(ErrorCode::kNotLeaderOrFollower), 6);
  EXPECT_EQ(to_int(ErrorCode::kUnsupportedVersion), 35);
  EXPECT_EQ(to_int(ErrorCode::kInvalidRequest), 42);
  EXPECT_EQ(to_int(ErrorCode::kInvalidRecord), 87);
  EXPECT_EQ(to_int(ErrorCode::kUnknownTopicId), 100);
  EXPECT_EQ(error_name(ErrorCode::kUnknownTopicOrPartition), "UNKNOWN_TOPIC_OR_PARTITION");
  EXPECT_EQ(error_name(static_cast<ErrorCode>(30000)), "UNKNOWN_ERROR_CODE");
  EXPECT_TRUE(is_retriable(ErrorCode::kNotLeaderOrFollower));
  EXPECT_FALSE(is_retriable(ErrorCode::kTopicAlreadyExists));
}

}  // namespace
}  // namespace spool::protocol
