#include "protocol/wire.h"

#include <algorithm>

namespace spool::protocol::wire {

namespace {
// A non-flexible string length is an int16; longer values cannot be framed.
constexpr size_t kMaxClassicString = 0x7fff;
}  // namespace

void write_string(ByteWriter& w, std::string_view s, bool flexible) {
  if (flexible) {
    w.uvarint(static_cast<uint64_t>(s.size()) + 1);
  } else {
    s = s.substr(0, std::min(s.size(), kMaxClassicString));
    w.i16(static_cast<int16_t>(s.size()));
  }
  w.bytes(s);
}

void write_nullable_string(ByteWriter& w, const std::optional<std::string>& s, bool flexible,
                           bool nullable) {
  if (s) {
    write_string(w, *s, flexible);
  } else if (!nullable) {
    write_string(w, {}, flexible);
  } else if (flexible) {
    w.uvarint(0);
  } else {
    w.i16(-1);
  }
}

namespace {
// Reads a string/bytes length; -1 means null. Fails on impossible lengths.
int64_t read_len(ByteReader& r, bool flexible, bool wide) {
  int64_t n;
  if (flexible) {
    n = static_cast<int64_t>(r.uvarint32()) - 1;
  } else {
    n = wide ? r.i32() : r.i16();
  }
  if (!r.ok()) return -1;
  if (n < -1 || (n >= 0 && static_cast<uint64_t>(n) > r.remaining())) {
    r.fail();
    return -1;
  }
  return n;
}
}  // namespace

std::string read_string(ByteReader& r, bool flexible) {
  auto s = read_nullable_string(r, flexible, false);
  return s ? std::move(*s) : std::string();
}

std::optional<std::string> read_nullable_string(ByteReader& r, bool flexible, bool nullable) {
  int64_t n = read_len(r, flexible, false);
  if (!r.ok()) return std::nullopt;
  if (n < 0) {
    if (!nullable) r.fail();
    return std::nullopt;
  }
  ByteSpan s = r.take(static_cast<size_t>(n));
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}

void write_bytes(ByteWriter& w, ByteSpan b, bool flexible) {
  if (flexible) {
    w.uvarint(static_cast<uint64_t>(b.size()) + 1);
  } else {
    w.i32(static_cast<int32_t>(b.size()));
  }
  w.bytes(b);
}

void write_nullable_bytes(ByteWriter& w, const std::optional<Bytes>& b, bool flexible,
                          bool nullable) {
  if (b) {
    write_bytes(w, *b, flexible);
  } else if (!nullable) {
    write_bytes(w, {}, flexible);
  } else if (flexible) {
    w.uvarint(0);
  } else {
    w.i32(-1);
  }
}

Bytes read_bytes(ByteReader& r, bool flexible) {
  auto b = read_nullable_bytes(r, flexible, false);
  return b ? std::move(*b) : Bytes();
}

std::optional<Bytes> read_nullable_bytes(ByteReader& r, bool flexible, bool nullable) {
  int64_t n = read_len(r, flexible, true);
  if (!r.ok()) return std::nullopt;
  if (n < 0) {
    if (!nullable) r.fail();
    return std::nullopt;
  }
  ByteSpan s = r.take(static_cast<size_t>(n));
  return Bytes(s.begin(), s.end());
}

void write_records(ByteWriter& w, const std::optional<Records>& records, bool flexible,
                   bool nullable) {
  if (!records) {
    write_nullable_bytes(w, std::nullopt, flexible, nullable);
    return;
  }
  const size_t n = records->size();
  if (flexible) {
    w.uvarint(static_cast<uint64_t>(n) + 1);
  } else {
    w.i32(static_cast<int32_t>(n));
  }
  records->write_to(w);
}

std::optional<Records> read_records(ByteReader& r, bool flexible, bool nullable) {
  const int64_t n = read_len(r, flexible, true);
  if (!r.ok()) return std::nullopt;
  if (n < 0) {
    if (!nullable) r.fail();
    return std::nullopt;
  }
  const ByteSpan s = r.take(static_cast<size_t>(n));
  // Mutable by contract (see wire.h): the broker rewrites batch headers in place.
  return Records::view(std::span<uint8_t>(const_cast<uint8_t*>(s.data()), s.size()));
}

void write_array_len(ByteWriter& w, size_t n, bool flexible) {
  if (flexible) {
    w.uvarint(static_cast<uint64_t>(n) + 1);
  } else {
    w.i32(static_cast<int32_t>(n));
  }
}

void write_null_array(ByteWriter& w, bool flexible) {
  if (flexible) {
    w.uvarint(0);
  } else {
    w.i32(-1);
  }
}

int64_t read_array_len(ByteReader& r, bool flexible, bool nullable, size_t min_elem_size) {
  int64_t n = flexible ? static_cast<int64_t>(r.uvarint32()) - 1 : r.i32();
  if (!r.ok()) return -1;
  if (n < 0) {
    if (n < -1 || !nullable) r.fail();
    return -1;
  }
  if (static_cast<uint64_t>(n) * std::max<size_t>(min_elem_size, 1) > r.remaining()) {
    // Even an empty struct element needs at least its tagged-field byte (or
    // is pointless), so one byte per element is a safe lower bound.
    r.fail();
    return -1;
  }
  return n;
}

Uuid read_uuid(ByteReader& r) {
  Uuid u{};
  ByteSpan s = r.take(u.size());
  if (r.ok()) std::copy(s.begin(), s.end(), u.begin());
  return u;
}

void write_tagged(ByteWriter& w, uint32_t tag, const ByteWriter& payload) {
  w.uvarint(tag);
  w.uvarint(payload.size());
  w.bytes(payload.buffer());
}

}  // namespace spool::protocol::wire
