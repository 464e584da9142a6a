// Zero-copy Fetch answers: a FetchResponse whose records are file regions
// (protocol::Records) encodes, through encode_response (what
// RequestContext::respond sends), to bytes plus splices that, once filled
// in, are byte for byte the encoding of the same answer with the records in
// memory - for every served version.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "broker/handlers/handler_table.h"
#include "broker/request_context.h"
#include "protocol/fetch_response.h"
#include "protocol/header.h"

namespace spool::broker {
namespace {

class TempFile {
 public:
  explicit TempFile(size_t size) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "spool-fetch-zero-copy-XXXXXX").string();
    fd_ = ::mkstemp(tmpl.data());
    path_ = tmpl;
    std::mt19937 rng(5);
    data_.resize(size);
    for (auto& c : data_) c = static_cast<uint8_t>(rng());
    EXPECT_EQ(::write(fd_, data_.data(), size), static_cast<ssize_t>(size));
  }
  ~TempFile() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  FileRegion region(int64_t off, int64_t len) const { return FileRegion{std::make_shared<int>(0), fd_, off, len}; }
  Bytes bytes(int64_t off, int64_t len) const { return Bytes(data_.begin() + off, data_.begin() + off + len); }

 private:
  int fd_ = -1;
  std::string path_;
  Bytes data_;
};

using PartitionData = protocol::FetchResponse::PartitionData;

PartitionData partition(int32_t index, protocol::ErrorCode error) {
  PartitionData p;
  p.partition_index = index;
  p.error_code = error;
  p.high_watermark = 1000 + index;
  p.last_stable_offset = 900 + index;
  p.log_start_offset = 5;
  p.aborted_transactions.emplace();
  p.records.emplace();
  return p;
}

TEST(FetchZeroCopy, SplicesFilledEqualTheInMemoryEncodingForEveryServedVersion) {
  TempFile f(200000);
  const ApiEntry* fetch = find_served_api(protocol::FetchResponse::kApiKey, Listener::kClient);
  ASSERT_NE(fetch, nullptr);
  for (int16_t v = fetch->min_version; v <= fetch->max_version; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    protocol::FetchResponse zero_copy;  // records as file regions
    protocol::FetchResponse in_memory;  // the same with the bytes
    zero_copy.throttle_time_ms = 3;
    zero_copy.session_id = 77;
    in_memory = zero_copy;
    for (int t = 0; t < 3; ++t) {
      auto& zt = zero_copy.responses.emplace_back();
      auto& mt = in_memory.responses.emplace_back();
      if (v >= 13) {  // KIP-516: topics by id, no name on the wire
        zt.topic_id[0] = mt.topic_id[0] = static_cast<uint8_t>(t + 1);
      } else {
        zt.topic = mt.topic = "topic-" + std::to_string(t);
      }
      for (int32_t p = 0; p < 4; ++p) {
        auto zp = partition(p, p == 3 ? protocol::ErrorCode::kOffsetOutOfRange : protocol::ErrorCode::kNone);
        if (p == 1) {  // read_committed style answer: aborted transactions listed
          auto& a = zp.aborted_transactions->emplace_back();
          a.producer_id = 42;
          a.first_offset = 17;
        }
        auto mp = zp;
        if (p < 2) {
          // Two segments' worth of records: two regions.
          const int64_t off = 1000 * (t * 4 + p);
          zp.records = protocol::Records::from_regions({f.region(off, 500 + p), f.region(off + 60000, 3000 * (t + 1))});
          Bytes bytes = f.bytes(off, 500 + p);
          Bytes second = f.bytes(off + 60000, 3000 * (t + 1));
          bytes.insert(bytes.end(), second.begin(), second.end());
          mp.records = protocol::Records(std::move(bytes));
        }
        zt.partitions.push_back(std::move(zp));
        mt.partitions.push_back(std::move(mp));
      }
    }
    protocol::RequestHeader request;
    request.api_key = protocol::FetchResponse::kApiKey;
    request.api_version = v;
    request.correlation_id = 1234;

    ByteWriter w;
    protocol::encode_response_header(w, 1234, protocol::response_header_flexible(1, v));
    in_memory.encode(w, v);
    const Bytes expect = w.take();

    net::Response resp = encode_response(request, zero_copy, 64);
    EXPECT_EQ(resp.splices.size(), 12u);
    EXPECT_EQ(resp.size(), expect.size());
    EXPECT_LT(resp.bytes.size(), 1000u) << "record bytes were copied";
    Bytes flat;
    ASSERT_TRUE(resp.flatten(flat));
    ASSERT_EQ(flat.size(), expect.size());
    EXPECT_TRUE(flat == expect);
    // And it decodes back to the in-memory answer's records (the other
    // fields depend on the version; all of them exist at the newest).
    ByteReader r(flat);
    int32_t correlation_id = 0;
    ASSERT_TRUE(protocol::decode_response_header(r, protocol::response_header_flexible(1, v), correlation_id));
    EXPECT_EQ(correlation_id, 1234);
    protocol::FetchResponse decoded;
    ASSERT_TRUE(decoded.decode(r, v));
    EXPECT_EQ(r.remaining(), 0u);
    ASSERT_EQ(decoded.responses.size(), in_memory.responses.size());
    for (size_t t = 0; t < decoded.responses.size(); ++t) {
      ASSERT_EQ(decoded.responses[t].partitions.size(), 4u);
      for (size_t p = 0; p < 4; ++p)
        EXPECT_EQ(decoded.responses[t].partitions[p].records, in_memory.responses[t].partitions[p].records);
    }
    if (v == protocol::FetchResponse::kMaxVersion) {
      EXPECT_TRUE(decoded == in_memory);
    }
  }
}

TEST(FetchZeroCopy, InMemoryRecordsAreCopiedWithoutSplices) {
  protocol::FetchResponse resp;
  auto& t = resp.responses.emplace_back();
  t.topic = "t";
  auto p = partition(0, protocol::ErrorCode::kNone);
  p.records = protocol::Records(Bytes(100, 7));
  t.partitions.push_back(p);
  t.partitions.push_back(partition(1, protocol::ErrorCode::kNone));
  ByteWriter w;
  protocol::encode_response_header(w, 9, false);
  resp.encode(w, 11);
  protocol::RequestHeader request;
  request.api_key = 1;
  request.api_version = 11;
  request.correlation_id = 9;
  auto out = encode_response(request, resp, 16);
  EXPECT_TRUE(out.splices.empty());
  EXPECT_EQ(out.bytes, w.buffer());
}

}  // namespace
}  // namespace spool::broker
