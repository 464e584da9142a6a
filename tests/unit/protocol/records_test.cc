// The generator's `records`, `errorCode` and commonStructs support, through
// the test-only RecordsTestRequest (messages/records_test_request.json) and
// the wire helpers: decoded records are bounded views into the frame,
// compact (flexible) lengths, null records, and encoding from file regions
// (as splices, or read into memory when the writer does not collect them).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "golden.h"
#include "protocol/records.h"
#include "protocol/wire.h"
#include "protocol_test/records_test_request.h"

namespace spool::protocol {
namespace {

using testing::check_golden;
using testing::hex;
using testing::to_hex;

class TempFile {
 public:
  explicit TempFile(const Bytes& data) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "spool-records-XXXXXX").string();
    fd_ = ::mkstemp(tmpl.data());
    path_ = tmpl;
    EXPECT_EQ(::write(fd_, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  }
  ~TempFile() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  FileRegion region(int64_t off, int64_t len) const { return FileRegion{nullptr, fd_, off, len}; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Decodes hand-written hex at `version` (the bytes outlive the reader).
bool decodes(std::string_view text, int16_t version, RecordsTestRequest& m) {
  const Bytes in = hex(text);
  ByteReader r(in);
  return m.decode(r, version);
}

RecordsTestRequest sample() {
  RecordsTestRequest m;
  m.error_code = ErrorCode::kNotLeaderOrFollower;
  m.primary.index = 1;
  m.primary.records = Records(Bytes{0xaa, 0xbb});
  m.plain = Records(Bytes{0xcc});
  return m;
}

TEST(RecordsField, TypesAndDefaults) {
  RecordsTestRequest m;
  static_assert(std::is_same_v<decltype(m.error_code), ErrorCode>);
  static_assert(std::is_same_v<decltype(m.primary), RecordsTestRequest::Slot>);
  static_assert(std::is_same_v<decltype(m.others)::value_type, RecordsTestRequest::Slot>);
  static_assert(std::is_same_v<decltype(m.plain), std::optional<Records>>);
  EXPECT_EQ(m.error_code, ErrorCode::kNone);
  EXPECT_EQ(m.hint, static_cast<ErrorCode>(-1));
  EXPECT_FALSE(m.primary.records.has_value());
}

TEST(RecordsField, ClassicInt32Lengths) {
  check_golden(sample(), 0, "0006 | 00000001 00000002 aabb | 00000001 cc");
}

TEST(RecordsField, NullRecords) {
  RecordsTestRequest m = sample();
  m.primary.records = std::nullopt;  // nullable: -1 / compact 0
  m.plain = std::nullopt;            // not nullable: written as empty
  ByteWriter w0;
  m.encode(w0, 0);
  EXPECT_EQ(to_hex(w0.buffer()), "0006" "00000001" "ffffffff" "00000000");
  ByteWriter w1;
  m.encode(w1, 1);
  EXPECT_EQ(to_hex(w1.buffer()), "0006" "00000001" "00" "00" "01" "00");
  // A null where the version does not allow one is refused.
  RecordsTestRequest d;
  EXPECT_FALSE(decodes("0006 00000001 ffffffff ffffffff", 0, d));
  EXPECT_FALSE(decodes("0006 00000001 00 00 00 00", 1, d));
}

TEST(RecordsField, FlexibleCompactLengthThenTaggedFields) {
  RecordsTestRequest m = sample();
  m.primary.note = "n";
  m.hint = ErrorCode::kNone;
  auto& other = m.others.emplace_back();
  other.index = 2;
  other.records = Records(Bytes(200, 0x11));  // 201 = uvarint c9 01
  check_golden(m, 2,
               "0006 | 00000001 03 aabb | 01 00 02 02 6e |"
               "02 | 00000002 c901 " + std::string(400, '1') + " 00 |"
               "02 cc | 01 01 02 0000");
}

TEST(RecordsField, DecodedRecordsAreAViewIntoTheFrame) {
  Bytes frame = hex("0006 00000001 00000002 aabb 00000001 cc");
  RecordsTestRequest m;
  ByteReader r(frame);
  ASSERT_TRUE(m.decode(r, 0));
  ASSERT_TRUE(m.primary.records.has_value());
  std::span<uint8_t> view = m.primary.records->bytes();
  ASSERT_EQ(view.size(), 2u);
  EXPECT_EQ(view.data(), frame.data() + 10) << "records must not be copied";
  view[0] = 0x55;  // offsets are assigned in place this way
  EXPECT_EQ(frame[10], 0x55);
  EXPECT_EQ(m.plain->bytes().data(), frame.data() + 16);
}

TEST(RecordsField, LengthsBeyondTheFrameOrBelowMinusOneAreRefused) {
  for (const char* in : {"0006 00000001 00000003 aabb 00000001 cc",  // longer than the frame
                         "0006 00000001 7fffffff aabb",               // hostile length
                         "0006 00000001 fffffffe",                    // -2
                         "0006 00000001 00000002 aabb 00000002 cc"}) {
    SCOPED_TRACE(in);
    RecordsTestRequest m;
    EXPECT_FALSE(decodes(in, 0, m));
  }
  // Compact: N+1 beyond what is left.
  RecordsTestRequest m;
  EXPECT_FALSE(decodes("0006 00000001 09 aabb", 1, m));  // 8 bytes announced, 2 left
  EXPECT_FALSE(decodes("0006 00000001 ffffffff0f", 1, m));
}

TEST(RecordsField, WrongTaggedFieldLengthIsRefused) {
  RecordsTestRequest m;
  // hint (tag 1) declared 3 bytes for an int16.
  EXPECT_FALSE(decodes("0006 00000001 01 00 02 cc 01 01 03 000000", 1, m));
  EXPECT_FALSE(decodes("0006 00000001 01 00 02 cc 01 01 01 00", 1, m));
  ASSERT_TRUE(decodes("0006 00000001 01 00 02 cc 01 01 02 0007", 1, m));
  EXPECT_EQ(m.hint, ErrorCode::kRequestTimedOut);
}

TEST(RecordsField, FileRegionsBecomeSplicesOrAreReadIntoMemory) {
  Bytes data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<uint8_t>(i * 7));
  TempFile f(data);
  for (int16_t v = 0; v <= RecordsTestRequest::kMaxVersion; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    RecordsTestRequest from_file = sample();
    from_file.primary.records = Records::from_regions({f.region(10, 100), f.region(200, 90)});
    RecordsTestRequest in_memory = sample();
    Bytes joined(data.begin() + 10, data.begin() + 110);
    joined.insert(joined.end(), data.begin() + 200, data.begin() + 290);
    in_memory.primary.records = Records(joined);
    EXPECT_EQ(from_file.primary.records->size(), 190u);
    ByteWriter expect;
    in_memory.encode(expect, v);

    // Zero copy: the bytes around the records, and two splices where they go.
    ByteWriter w(ByteWriter::collect_splices, Bytes());
    from_file.encode(w, v);
    auto splices = w.take_splices();
    ASSERT_EQ(splices.size(), 2u);
    EXPECT_EQ(splices[0].at, splices[1].at);
    EXPECT_EQ(w.size() + 190, expect.size());
    Bytes filled = w.buffer();
    filled.insert(filled.begin() + static_cast<std::ptrdiff_t>(splices[0].at), joined.begin(), joined.end());
    EXPECT_EQ(to_hex(filled), to_hex(expect.buffer()));

    // A writer that does not collect splices gets the file's bytes.
    ByteWriter plain;
    from_file.encode(plain, v);
    EXPECT_EQ(to_hex(plain.buffer()), to_hex(expect.buffer()));
  }
}

TEST(RecordsField, EqualityComparesBytesOrRegions) {
  Bytes a{1, 2, 3};
  EXPECT_EQ(Records(a), Records::view(std::span<uint8_t>(a.data(), a.size())));
  EXPECT_NE(Records(a), Records(Bytes{1, 2}));
  const FileRegion r{nullptr, 3, 0, 5};
  EXPECT_EQ(Records::from_regions({r}), Records::from_regions({FileRegion{nullptr, 3, 0, 5}}));
  EXPECT_NE(Records::from_regions({r}), Records::from_regions({FileRegion{nullptr, 3, 1, 5}}));
  EXPECT_NE(Records::from_regions({}), Records());
  EXPECT_TRUE(Records().empty());
}

}  // namespace
}  // namespace spool::protocol
