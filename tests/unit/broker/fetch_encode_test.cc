// encode_fetch_response: a Fetch answer with record sets as file regions is,
// once the regions are filled in, byte for byte the generated encoding of the
// same answer with the records in memory — for every served version.
#include "broker/fetch_encode.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "protocol/header.h"

namespace spool::broker {
namespace {

class TempFile {
 public:
  explicit TempFile(size_t size) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "spool-fetch-encode-XXXXXX").string();
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
  Bytes bytes(int64_t off, int64_t len) const {
    return Bytes(data_.begin() + off, data_.begin() + off + len);
  }

 private:
  int fd_ = -1;
  std::string path_;
  Bytes data_;
};

using PartitionData = protocol::FetchResponse::PartitionData;

PartitionData partition(int32_t index, int16_t error) {
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

TEST(FetchEncode, HolesFilledEqualTheGeneratedEncodingForEveryVersion) {
  TempFile f(200000);
  for (int16_t v = 4; v <= protocol::FetchResponse::kMaxVersion; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    FetchRecordSets sets;
    protocol::FetchResponse zero_copy;  // with markers
    protocol::FetchResponse in_memory;  // the same with the bytes
    zero_copy.throttle_time_ms = 3;
    zero_copy.session_id = 77;
    for (int t = 0; t < 3; ++t) {
      auto& zt = zero_copy.responses.emplace_back();
      zt.topic = "topic-" + std::to_string(t);
      for (int32_t p = 0; p < 4; ++p) {
        auto zp = partition(p, p == 3 ? 1 : 0);
        auto mp = zp;
        if (p == 1) {  // read_committed style answer: aborted transactions listed
          auto& a = zp.aborted_transactions->emplace_back();
          a.producer_id = 42;
          a.first_offset = 17;
          mp.aborted_transactions = zp.aborted_transactions;
        }
        if (p < 2) {
          // Two segments' worth of records: two regions.
          const int64_t off = 1000 * (t * 4 + p);
          std::vector<FileRegion> regions = {f.region(off, 500 + p), f.region(off + 60000, 3000 * (t + 1))};
          Bytes bytes = f.bytes(off, 500 + p);
          Bytes second = f.bytes(off + 60000, 3000 * (t + 1));
          bytes.insert(bytes.end(), second.begin(), second.end());
          zp.records = sets.add(std::move(regions));
          mp.records = std::move(bytes);
        }
        zt.partitions.push_back(std::move(zp));
      }
    }
    in_memory = zero_copy;
    for (size_t t = 0; t < in_memory.responses.size(); ++t)
      for (int p = 0; p < 2; ++p) {
        auto regions = sets.find(*zero_copy.responses[t].partitions[p].records);
        ASSERT_NE(regions, nullptr);
        Bytes b;
        for (const auto& r : *regions) {
          Bytes part = f.bytes(r.offset, r.length);
          b.insert(b.end(), part.begin(), part.end());
        }
        in_memory.responses[t].partitions[p].records = std::move(b);
      }

    ByteWriter w;
    protocol::encode_response_header(w, 1234, protocol::response_header_flexible(1, v));
    in_memory.encode(w, v);
    const Bytes expect = w.take();

    net::Response resp = encode_fetch_response(1234, v, zero_copy, sets);
    EXPECT_EQ(resp.splices.size(), 12u);
    EXPECT_EQ(resp.size(), expect.size());
    Bytes flat;
    ASSERT_TRUE(resp.flatten(flat));
    ASSERT_EQ(flat.size(), expect.size());
    EXPECT_TRUE(flat == expect);
    // And it decodes back to the in-memory answer's records (other fields
    // depend on the version).
    ByteReader r(flat);
    int32_t correlation_id = 0;
    ASSERT_TRUE(protocol::decode_response_header(r, false, correlation_id));
    EXPECT_EQ(correlation_id, 1234);
    protocol::FetchResponse decoded;
    ASSERT_TRUE(decoded.decode(r, v));
    ASSERT_EQ(decoded.responses.size(), in_memory.responses.size());
    for (size_t t = 0; t < decoded.responses.size(); ++t) {
      ASSERT_EQ(decoded.responses[t].partitions.size(), 4u);
      for (size_t p = 0; p < 4; ++p)
        EXPECT_EQ(decoded.responses[t].partitions[p].records, in_memory.responses[t].partitions[p].records);
    }
  }
}

TEST(FetchEncode, WithoutMarkersItIsThePlainEncoding) {
  protocol::FetchResponse resp;
  resp.error_code = 0;
  auto& t = resp.responses.emplace_back();
  t.topic = "t";
  auto p = partition(0, 0);
  p.records = Bytes(100, 7);  // real bytes, not a marker: copied as they are
  t.partitions.push_back(p);
  t.partitions.push_back(partition(1, 0));
  ByteWriter w;
  protocol::encode_response_header(w, 9, false);
  resp.encode(w, 11);
  const Bytes expect = w.take();
  FetchRecordSets none;
  auto out = encode_fetch_response(9, 11, resp, none);
  EXPECT_TRUE(out.splices.empty());
  EXPECT_EQ(out.bytes, expect);
}

TEST(FetchEncode, MarkersAreRecognisedOnlyWhenTheyAreOurs) {
  FetchRecordSets sets;
  Bytes m = sets.add({});
  EXPECT_NE(sets.find(m), nullptr);
  Bytes other = m;
  other[0] = 'X';
  EXPECT_EQ(sets.find(other), nullptr);
  Bytes out_of_range = m;
  out_of_range[7] = 9;
  EXPECT_EQ(sets.find(out_of_range), nullptr);
  EXPECT_EQ(sets.find(Bytes(61, 0)), nullptr);
}

}  // namespace
}  // namespace spool::broker
