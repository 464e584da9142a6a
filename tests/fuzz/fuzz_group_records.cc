// Fuzzes the __consumer_offsets record codecs (coordinator/group/
// group_records.h), which the group coordinator runs on every record of the
// topic when it loads a partition: bytes a broker of another version, a
// tool or a torn disk may have left. The input is tried as a record key, as
// an offset commit value and as a group metadata value. Each decoder must
// accept or refuse it without crashing; what it accepts is re-encoded (in
// the version we write) and must decode to the same value, so nothing a
// loaded record says is lost when the coordinator writes it back. One
// allowed difference: an offset value's negative expire timestamp means
// "none" and is written as -1.
#include <cstddef>
#include <cstdint>
#include <variant>

#include "coordinator/group/group_records.h"

namespace {

using namespace spool;
using namespace spool::coordinator;

void check_key(ByteSpan in) {
  auto key = decode_key(in);
  if (!key) return;
  const Bytes out = std::visit([](const auto& k) { return encode_key(k); }, *key);
  auto again = decode_key(ByteSpan(out));
  if (!again || !(*again == *key)) __builtin_trap();
}

void check_offset_value(ByteSpan in) {
  auto v = decode_offset_value(in);
  if (!v) return;
  if (v->expire_timestamp < 0) v->expire_timestamp = -1;
  const Bytes out = encode_value(*v);
  auto again = decode_offset_value(ByteSpan(out));
  if (!again || !(*again == *v)) __builtin_trap();
}

void check_group_value(ByteSpan in) {
  auto v = decode_group_value(in);
  if (!v) return;
  const Bytes out = encode_value(*v);
  auto again = decode_group_value(ByteSpan(out));
  if (!again || !(*again == *v)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ByteSpan in(data, size);
  check_key(in);
  check_offset_value(in);
  check_group_value(in);
  return 0;
}
