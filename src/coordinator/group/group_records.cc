#include "coordinator/group/group_records.h"

#include <limits>

namespace spool::coordinator {
namespace {

void put_string(ByteWriter& w, std::string_view s) {
  // Longer strings cannot be represented; callers bound metadata sizes well
  // below this, so truncation here is only a last guard against corruption.
  const size_t n = std::min<size_t>(s.size(), std::numeric_limits<int16_t>::max());
  w.i16(static_cast<int16_t>(n));
  w.bytes(s.substr(0, n));
}
void put_nullable(ByteWriter& w, const std::optional<std::string>& s) {
  if (!s) {
    w.i16(-1);
    return;
  }
  put_string(w, *s);
}
void put_bytes(ByteWriter& w, const Bytes& b) {
  w.i32(static_cast<int32_t>(b.size()));
  w.bytes(ByteSpan(b));
}

// Reads fields off a ByteReader, remembering the first malformed one so the
// decoder can name it.
struct Decoder {
  ByteReader r;
  const char* bad = nullptr;

  void fail(const char* what) {
    if (!bad) bad = what;
    r.fail();
  }
  std::optional<std::string> nullable(const char* what) {
    const int16_t n = r.i16();
    if (!r.ok()) { fail(what); return std::nullopt; }
    if (n == -1) return std::nullopt;
    if (n < 0) { fail(what); return std::nullopt; }
    ByteSpan s = r.take(static_cast<size_t>(n));
    if (!r.ok()) { fail(what); return std::nullopt; }
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
  }
  std::string string(const char* what) {
    auto s = nullable(what);
    if (!s) { fail(what); return {}; }
    return std::move(*s);
  }
  Bytes bytes(const char* what) {
    const int32_t n = r.i32();
    if (!r.ok() || n < -1) { fail(what); return {}; }
    if (n == -1) return {};  // null bytes read as empty
    ByteSpan s = r.take(static_cast<size_t>(n));
    if (!r.ok()) { fail(what); return {}; }
    return Bytes(s.begin(), s.end());
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

Bytes encode_key(const OffsetRecordKey& k) {
  ByteWriter w;
  w.i16(kOffsetKeyVersion);
  put_string(w, k.group);
  put_string(w, k.topic);
  w.i32(k.partition);
  return w.take();
}

Bytes encode_key(const GroupRecordKey& k) {
  ByteWriter w;
  w.i16(kGroupKeyVersion);
  put_string(w, k.group);
  return w.take();
}

Bytes encode_value(const OffsetRecordValue& v) {
  ByteWriter w;
  // A commit with its own retention (OffsetCommit v2-v4) needs v1, the only
  // version carrying an expire timestamp; Kafka makes the same choice.
  if (v.expire_timestamp >= 0) {
    w.i16(1);
    w.i64(v.offset);
    put_string(w, v.metadata);
    w.i64(v.commit_timestamp);
    w.i64(v.expire_timestamp);
    return w.take();
  }
  w.i16(kOffsetValueVersion);
  w.i64(v.offset);
  w.i32(v.leader_epoch);
  put_string(w, v.metadata);
  w.i64(v.commit_timestamp);
  return w.take();
}

Bytes encode_value(const GroupRecordValue& v) {
  ByteWriter w;
  w.i16(kGroupValueVersion);
  put_string(w, v.protocol_type);
  w.i32(v.generation);
  put_nullable(w, v.protocol);
  put_nullable(w, v.leader);
  w.i64(v.current_state_timestamp);
  w.i32(static_cast<int32_t>(v.members.size()));
  for (const auto& m : v.members) {
    put_string(w, m.member_id);
    put_nullable(w, m.group_instance_id);
    put_string(w, m.client_id);
    put_string(w, m.client_host);
    w.i32(m.rebalance_timeout_ms);
    w.i32(m.session_timeout_ms);
    put_bytes(w, m.subscription);
    put_bytes(w, m.assignment);
  }
  return w.take();
}

Result<RecordKey> decode_key(ByteSpan data) {
  Decoder d{ByteReader(data)};
  const int16_t version = d.num(d.r.i16(), "key version");
  if (d.bad) return d.finish("record key");
  if (version == 0 || version == 1) {
    OffsetRecordKey k;
    k.group = d.string("group");
    k.topic = d.string("topic");
    k.partition = d.num(d.r.i32(), "partition");
    if (Status s = d.finish("offset key"); !s) return s;
    return RecordKey(std::move(k));
  }
  if (version == 2) {
    GroupRecordKey k;
    k.group = d.string("group");
    if (Status s = d.finish("group key"); !s) return s;
    return RecordKey(std::move(k));
  }
  return Status::error("record key: unknown version " + std::to_string(version));
}

Result<OffsetRecordValue> decode_offset_value(ByteSpan data) {
  Decoder d{ByteReader(data)};
  const int16_t version = d.num(d.r.i16(), "value version");
  if (d.bad) return d.finish("offset value");
  if (version < 0 || version > 3) return Status::error("offset value: unknown version " + std::to_string(version));
  OffsetRecordValue v;
  v.offset = d.num(d.r.i64(), "offset");
  if (version >= 3) v.leader_epoch = d.num(d.r.i32(), "leader_epoch");
  v.metadata = d.string("metadata");
  v.commit_timestamp = d.num(d.r.i64(), "commit_timestamp");
  if (version == 1) v.expire_timestamp = d.num(d.r.i64(), "expire_timestamp");
  if (Status s = d.finish("offset value"); !s) return s;
  return v;
}

Result<GroupRecordValue> decode_group_value(ByteSpan data) {
  Decoder d{ByteReader(data)};
  const int16_t version = d.num(d.r.i16(), "value version");
  if (d.bad) return d.finish("group value");
  if (version < 0 || version > 3) return Status::error("group value: unknown version " + std::to_string(version));
  GroupRecordValue v;
  v.protocol_type = d.string("protocol_type");
  v.generation = d.num(d.r.i32(), "generation");
  v.protocol = d.nullable("protocol");
  v.leader = d.nullable("leader");
  if (version >= 2) v.current_state_timestamp = d.num(d.r.i64(), "current_state_timestamp");
  const int32_t count = d.num(d.r.i32(), "members");
  // Each member takes at least 18 bytes; a count beyond that is corrupt and
  // must not drive a huge reservation.
  if (!d.bad && (count < 0 || static_cast<size_t>(count) > d.r.remaining() / 18)) d.fail("members");
  for (int32_t i = 0; i < count && !d.bad; ++i) {
    MemberRecordValue m;
    m.member_id = d.string("member_id");
    if (version >= 3) m.group_instance_id = d.nullable("group_instance_id");
    m.client_id = d.string("client_id");
    m.client_host = d.string("client_host");
    m.rebalance_timeout_ms = version >= 1 ? d.num(d.r.i32(), "rebalance_timeout") : 0;
    m.session_timeout_ms = d.num(d.r.i32(), "session_timeout");
    if (version == 0) m.rebalance_timeout_ms = m.session_timeout_ms;
    m.subscription = d.bytes("subscription");
    m.assignment = d.bytes("assignment");
    v.members.push_back(std::move(m));
  }
  if (Status s = d.finish("group value"); !s) return s;
  return v;
}

}  // namespace spool::coordinator
