// Fuzzes the __transaction_state record codecs (coordinator/txn/
// txn_metadata.h), which the transaction coordinator runs on every record
// of the topic when it loads a partition. The input is tried as a key and
// as a value. Each decoder must accept or refuse it without crashing; what
// it accepts is re-encoded and must decode to the same value (the
// coordinator writes loaded state back as it read it).
#include <cstddef>
#include <cstdint>
#include <string>

#include "coordinator/txn/txn_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spool;
  using namespace spool::coordinator;
  const ByteSpan in(data, size);
  if (auto id = decode_txn_key(in)) {
    const Bytes out = encode_txn_key(*id);
    auto again = decode_txn_key(ByteSpan(out));
    if (!again || *again != *id) __builtin_trap();
  }
  const std::string id = "fuzz-txn";
  if (auto md = decode_txn_value(id, in)) {
    const Bytes out = encode_txn_value(*md);
    auto again = decode_txn_value(id, ByteSpan(out));
    if (!again || !(*again == *md)) __builtin_trap();
  }
  return 0;
}
