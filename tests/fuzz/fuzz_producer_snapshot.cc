// Fuzzes the producer-state snapshot reader (storage/producer_snapshot.h),
// which recovery runs on every `<offset>.snapshot` file of a partition:
// files a crash may have torn or a disk corrupted. Random bytes rarely
// carry the right magic and CRC, so the first input byte chooses whether to
// patch them in (bit 0: magic and version, bit 1: CRC) before decoding the
// rest; the fuzzer then also reaches the entry decoder. The decoder must
// refuse or accept without crashing. An accepted file must be exactly what
// the encoder writes for the decoded entries (the format has one encoding),
// and loading the entries into producer state and asking it the questions
// recovery and the fetch path ask must not crash either.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "storage/producer_snapshot.h"
#include "storage/producer_state.h"
#include "util/crc32c.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spool;
  using namespace spool::storage;
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  Bytes file(data + 1, data + size);
  constexpr size_t kCrcPos = 6, kBodyPos = 10;  // magic(4) version(2) | crc(4) | body
  if ((flags & 1) && file.size() >= kCrcPos) {
    std::memcpy(file.data(), "SPPS\x00\x01", kCrcPos);
  }
  if ((flags & 2) && file.size() >= kBodyPos) {
    uint32_t crc = crc32c(file.data() + kBodyPos, file.size() - kBodyPos);
    for (int i = 3; i >= 0; --i, crc >>= 8) file[kCrcPos + static_cast<size_t>(i)] = static_cast<uint8_t>(crc);
  }
  int64_t offset = -1;
  auto entries = decode_producer_snapshot(ByteSpan(file), offset);
  if (!entries) return 0;
  if (encode_producer_snapshot(offset, *entries) != file) __builtin_trap();

  ProducerStateManager state;
  state.load(*entries, offset);
  (void)state.first_unstable_offset();
  (void)state.ongoing_txn_count();
  for (const auto& e : *entries) {
    (void)state.entry(e.producer_id);
  }
  (void)state.evict_unretained(offset / 2);
  (void)state.remove_expired(INT64_MAX / 2, 1);
  return 0;
}
