// Fuzzes the produce-path batch validation (header, CRC, decompression,
// record parsing) with arbitrary bytes. Since random bytes rarely carry a
// right CRC, the first byte chooses whether to fix the CRC up first so the
// fuzzer also reaches the record decoders and codecs.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "record/batch_header.h"
#include "record/produce_validation.h"
#include "util/crc32c.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  bool fix_crc = data[0] & 1;
  std::vector<uint8_t> buf(data + 1, data + size);
  if (fix_crc && buf.size() >= spool::record::kHeaderSize) {
    uint32_t crc = spool::crc32c(buf.data() + spool::record::kAttributesPos,
                                 buf.size() - spool::record::kAttributesPos);
    for (int i = 0; i < 4; ++i) buf[spool::record::kCrcPos + i] = static_cast<uint8_t>(crc >> (24 - 8 * i));
    // batch_length = bytes after the length field, so the whole buffer is one batch.
    uint32_t len = static_cast<uint32_t>(buf.size() - spool::record::kLogOverhead);
    for (int i = 0; i < 4; ++i) buf[spool::record::kLengthPos + i] = static_cast<uint8_t>(len >> (24 - 8 * i));
    crc = spool::crc32c(buf.data() + spool::record::kAttributesPos, buf.size() - spool::record::kAttributesPos);
    for (int i = 0; i < 4; ++i) buf[spool::record::kCrcPos + i] = static_cast<uint8_t>(crc >> (24 - 8 * i));
  }
  auto res = spool::record::validate_produce_records(std::span<uint8_t>(buf.data(), buf.size()), 1 << 20);
  (void)res;
  return 0;
}
