#include "coordinator/txn/txn_metadata.h"

#include <array>
#include <limits>
#include <map>

namespace spool::coordinator {
namespace {

constexpr std::array<const char*, 8> kStateNames = {"Empty",          "Ongoing",       "PrepareCommit", "PrepareAbort",
                                                    "CompleteCommit", "CompleteAbort", "Dead",          "PrepareEpochFence"};

void put_string(ByteWriter& w, std::string_view s) {
  // Transactional ids and topic names are bounded far below this by the
  // protocol (int16 lengths), so the clamp is only a guard.
  const size_t n = std::min<size_t>(s.size(), std::numeric_limits<int16_t>::max());
  w.i16(static_cast<int16_t>(n));
  w.bytes(s.substr(0, n));
}

struct Reader {
  ByteReader r;
  const char* bad = nullptr;

  void fail(const char* what) {
    if (!bad) bad = what;
    r.fail();
  }
  std::string string(const char* what) {
    const int16_t n = r.i16();
    if (!r.ok() || n < 0) {
      fail(what);
      return {};
    }
    ByteSpan s = r.take(static_cast<size_t>(n));
    if (!r.ok()) {
      fail(what);
      return {};
    }
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
  }
  template <typename T>
  T num(T v, const char* what) {
    if (!r.ok()) fail(what);
    return v;
  }
  Status finish(const char* kind) const {
    if (bad) return Status::error(std::string(kind) + ": truncated or malformed field " + bad);
    if (r.remaining() != 0) return Status::error(std::string(kind) + ": trailing bytes");
    return Status::ok();
  }
};

}  // namespace

const char* txn_state_name(TxnState s) {
  const auto i = static_cast<size_t>(s);
  return i < kStateNames.size() ? kStateNames[i] : "Unknown";
}

std::optional<TxnState> txn_state_from_name(std::string_view name) {
  for (size_t i = 0; i < kStateNames.size(); ++i) {
    if (name == kStateNames[i]) return static_cast<TxnState>(i);
  }
  return std::nullopt;
}

Bytes encode_txn_key(const std::string& transactional_id) {
  ByteWriter w;
  w.i16(kTxnKeyVersion);
  put_string(w, transactional_id);
  return w.take();
}

Bytes encode_txn_value(const TxnMetadata& md) {
  ByteWriter w;
  w.i16(kTxnValueVersion);
  w.i64(md.producer_id);
  w.i64(md.last_producer_id);
  w.i16(md.producer_epoch);
  w.i16(md.last_producer_epoch);
  w.i32(md.txn_timeout_ms);
  w.i8(static_cast<int8_t>(md.state));
  // Partitions grouped by topic, as Kafka's TransactionLog does.
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : md.partitions) by_topic[tp.topic].push_back(tp.partition);
  w.i32(static_cast<int32_t>(by_topic.size()));
  for (const auto& [topic, parts] : by_topic) {
    put_string(w, topic);
    w.i32(static_cast<int32_t>(parts.size()));
    for (int32_t p : parts) w.i32(p);
  }
  w.i64(md.txn_last_update_timestamp);
  w.i64(md.txn_start_timestamp);
  return w.take();
}

Result<std::string> decode_txn_key(ByteSpan key) {
  Reader d{ByteReader(key.data(), key.size())};
  const int16_t version = d.num(d.r.i16(), "key version");
  if (d.r.ok() && version != kTxnKeyVersion)
    return Status::error("transaction log key: unknown version " + std::to_string(version));
  std::string id = d.string("transactional id");
  if (Status s = d.finish("transaction log key"); !s) return s;
  return id;
}

Result<TxnMetadata> decode_txn_value(const std::string& transactional_id, ByteSpan value) {
  Reader d{ByteReader(value.data(), value.size())};
  const int16_t version = d.num(d.r.i16(), "value version");
  if (d.r.ok() && version != kTxnValueVersion)
    return Status::error("transaction log value: unknown version " + std::to_string(version));
  TxnMetadata md;
  md.transactional_id = transactional_id;
  md.producer_id = d.num(d.r.i64(), "producer id");
  md.last_producer_id = d.num(d.r.i64(), "last producer id");
  md.producer_epoch = d.num(d.r.i16(), "producer epoch");
  md.last_producer_epoch = d.num(d.r.i16(), "last producer epoch");
  md.txn_timeout_ms = d.num(d.r.i32(), "transaction timeout");
  const int8_t state = d.num(d.r.i8(), "state");
  if (d.r.ok() && (state < 0 || state > static_cast<int8_t>(TxnState::kPrepareEpochFence))) d.fail("state");
  md.state = static_cast<TxnState>(state);
  const int32_t topics = d.num(d.r.i32(), "topic count");
  if (d.r.ok() && (topics < 0 || static_cast<size_t>(topics) > d.r.remaining())) d.fail("topic count");
  for (int32_t t = 0; d.r.ok() && t < topics; ++t) {
    std::string topic = d.string("topic");
    const int32_t n = d.num(d.r.i32(), "partition count");
    if (d.r.ok() && (n < 0 || static_cast<size_t>(n) > d.r.remaining() / 4)) d.fail("partition count");
    for (int32_t i = 0; d.r.ok() && i < n; ++i) {
      const int32_t p = d.num(d.r.i32(), "partition");
      if (d.r.ok() && p < 0) d.fail("partition");
      md.partitions.insert(TxnPartition{topic, p});
    }
  }
  md.txn_last_update_timestamp = d.num(d.r.i64(), "last update timestamp");
  md.txn_start_timestamp = d.num(d.r.i64(), "start timestamp");
  if (Status s = d.finish("transaction log value"); !s) return s;
  return md;
}

}  // namespace spool::coordinator
