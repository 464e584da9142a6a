// Primitive Kafka wire encodings shared by the generated message code.
//
// Contract: writers append to a ByteWriter and never fail (a string too long
// for its int16 length is truncated so the frame stays well-formed). Readers
// use ByteReader's sticky failure flag: a malformed or truncated value calls
// r.fail() and yields an empty value, so callers check r.ok() once. Array
// counts are checked against the bytes left before anything is allocated, so
// a hostile length cannot trigger a huge allocation. Stateless, thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/records.h"
#include "util/bytes.h"

namespace spool::protocol {

using Uuid = std::array<uint8_t, 16>;

namespace wire {

// --- strings: int16 length (-1 null) or compact uvarint N+1 (0 null) ---
void write_string(ByteWriter& w, std::string_view s, bool flexible);
// `nullable` = the field is nullable in this version; a null value in a
// non-nullable version is written as the empty string.
void write_nullable_string(ByteWriter& w, const std::optional<std::string>& s, bool flexible,
                           bool nullable);
// Fails the reader on a null in a non-nullable read.
std::string read_string(ByteReader& r, bool flexible);
std::optional<std::string> read_nullable_string(ByteReader& r, bool flexible, bool nullable);

// --- bytes / records: int32 length (-1 null) or compact uvarint N+1 ---
void write_bytes(ByteWriter& w, ByteSpan b, bool flexible);
void write_nullable_bytes(ByteWriter& w, const std::optional<Bytes>& b, bool flexible,
                          bool nullable);
Bytes read_bytes(ByteReader& r, bool flexible);
std::optional<Bytes> read_nullable_bytes(ByteReader& r, bool flexible, bool nullable);

// --- records: the same lengths as bytes, zero-copy (protocol/records.h) ---
// A null value in a non-nullable version is written as empty. The regions of
// a Records value become splices when w collects them (ByteWriter).
void write_records(ByteWriter& w, const std::optional<Records>& records, bool flexible,
                   bool nullable);
// A view into r's buffer (no copy). The buffer must be mutable memory that
// outlives the result: request frames are (see protocol/records.h).
std::optional<Records> read_records(ByteReader& r, bool flexible, bool nullable);

// --- arrays: int32 count (-1 null) or compact uvarint N+1 ---
void write_array_len(ByteWriter& w, size_t n, bool flexible);
void write_null_array(ByteWriter& w, bool flexible);
// Returns the element count, or -1 for a null array (only accepted when
// `nullable`). Fails the reader when count * min_elem_size exceeds what is
// left, which bounds every later allocation by the frame size.
int64_t read_array_len(ByteReader& r, bool flexible, bool nullable, size_t min_elem_size);

// --- uuid: 16 raw bytes ---
inline void write_uuid(ByteWriter& w, const Uuid& u) { w.bytes(ByteSpan(u.data(), u.size())); }
Uuid read_uuid(ByteReader& r);

// --- tagged fields ---
// Appends one tagged field: tag, size, payload.
void write_tagged(ByteWriter& w, uint32_t tag, const ByteWriter& payload);

}  // namespace wire
}  // namespace spool::protocol
