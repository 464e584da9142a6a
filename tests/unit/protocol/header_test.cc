// Request/response headers and what protocol knows of every defined API.
#include <gtest/gtest.h>

#include <map>

#include "golden.h"
#include "protocol/api_table.h"
#include "protocol/api_versions_request.h"
#include "protocol/header.h"

namespace spool::protocol {
namespace {

using testing::hex;
using testing::to_hex;

TEST(RequestHeader, V1ForNonFlexibleVersions) {
  Bytes b = hex("0003 0001 0000002a 0003 636c69 | ffffffff");  // Metadata v1 + body
  ByteReader r(b);
  RequestHeader h;
  ASSERT_TRUE(decode_request_header(r, h));
  EXPECT_EQ(h.api_key, 3);
  EXPECT_EQ(h.api_version, 1);
  EXPECT_EQ(h.correlation_id, 42);
  EXPECT_EQ(h.client_id, "cli");
  EXPECT_EQ(r.remaining(), 4u);
  ByteWriter w;
  encode_request_header(w, h);
  EXPECT_EQ(to_hex(w.buffer()), "000300010000002a0003636c69");
}

TEST(RequestHeader, V2ForFlexibleVersionsKeepsClassicClientId) {
  // ApiVersions v3: client_id is still int16-length, then tagged fields.
  Bytes b = hex("0012 0003 00000007 0003 636c69 00 | 02 6b 02 31 00");
  ByteReader r(b);
  RequestHeader h;
  ASSERT_TRUE(decode_request_header(r, h));
  EXPECT_EQ(h.client_id, "cli");
  ApiVersionsRequest req;
  ASSERT_TRUE(req.decode(r, h.api_version));
  EXPECT_EQ(req.client_software_name, "k");
  ByteWriter w;
  encode_request_header(w, h);
  EXPECT_EQ(to_hex(w.buffer()), "0012000300000007" "0003636c69" "00");
}

TEST(RequestHeader, V2SkipsUnknownTagsAndNullClientId) {
  Bytes b = hex("0012 0004 00000001 ffff 01 05 02 abcd");  // v4: above our max, still v2
  ByteReader r(b);
  RequestHeader h;
  ASSERT_TRUE(decode_request_header(r, h));
  EXPECT_FALSE(h.client_id.has_value());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(RequestHeader, TruncatedFails) {
  Bytes full = hex("0012 0003 00000007 0003 636c69 00");
  for (size_t n = 0; n < full.size(); ++n) {
    ByteReader r(full.data(), n);
    RequestHeader h;
    EXPECT_FALSE(decode_request_header(r, h)) << n;
  }
}

TEST(ResponseHeader, V0AndV1) {
  ByteWriter w0;
  encode_response_header(w0, 42, false);
  EXPECT_EQ(to_hex(w0.buffer()), "0000002a");
  ByteWriter w1;
  encode_response_header(w1, 42, true);
  EXPECT_EQ(to_hex(w1.buffer()), "0000002a00");
  int32_t cid = 0;
  ByteReader r(w1.buffer());
  ASSERT_TRUE(decode_response_header(r, true, cid));
  EXPECT_EQ(cid, 42);
}

TEST(ResponseHeader, ApiVersionsAlwaysV0) {
  for (int16_t v = 0; v <= 5; ++v) EXPECT_FALSE(response_header_flexible(18, v)) << v;
  EXPECT_TRUE(is_flexible(18, 3));
  EXPECT_FALSE(response_header_flexible(3, 8));
  EXPECT_TRUE(response_header_flexible(3, 9));
  EXPECT_FALSE(response_header_flexible(0, 8));
  EXPECT_TRUE(response_header_flexible(0, 9));
  EXPECT_FALSE(is_flexible(12345, 50)) << "unknown keys decode as header v1";
}

TEST(ApiTable, NamesOfKnownApis) {
  EXPECT_EQ(api_name(1), "Fetch");
  EXPECT_EQ(api_name(29), "DescribeAcls");  // defined, not served
  EXPECT_EQ(api_name(12345), "");
}

}  // namespace
}  // namespace spool::protocol
