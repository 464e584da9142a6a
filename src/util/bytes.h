// Big-endian byte reading and writing with bounds checks.
//
// ByteReader never reads past its span: any short read sets a sticky failure
// flag, returns a zero value, and every later read fails too, so a decoder can
// read a whole structure and check ok() once at the end. It does not own the
// memory it reads. ByteWriter appends to a growable buffer it owns; one made
// with collect_splices() also records file regions to insert between its
// bytes (zero-copy Fetch answers: the regions go out with sendfile), which
// take_splices() hands over with their positions; other writers never get
// any (protocol::Records copies the file bytes in instead).
// Neither is thread-safe; use one per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/file_region.h"

namespace spool {

using Bytes = std::vector<uint8_t>;
using ByteSpan = std::span<const uint8_t>;

inline ByteSpan as_span(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class ByteReader {
 public:
  ByteReader() = default;
  explicit ByteReader(ByteSpan data) : data_(data) {}
  ByteReader(const uint8_t* p, size_t n) : data_(p, n) {}

  bool ok() const { return ok_; }
  void fail() { ok_ = false; pos_ = data_.size(); }
  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  ByteSpan data() const { return data_; }

  int8_t i8() { return static_cast<int8_t>(u8()); }
  uint8_t u8() {
    if (!need(1)) return 0;
    return data_[pos_++];
  }
  int16_t i16() { return static_cast<int16_t>(be<uint16_t>()); }
  uint16_t u16() { return be<uint16_t>(); }
  int32_t i32() { return static_cast<int32_t>(be<uint32_t>()); }
  uint32_t u32() { return be<uint32_t>(); }
  int64_t i64() { return static_cast<int64_t>(be<uint64_t>()); }
  uint64_t u64() { return be<uint64_t>(); }
  double f64() {
    uint64_t v = u64();
    double d;
    std::memcpy(&d, &v, sizeof d);
    return d;
  }

  // Returns n bytes as a view into the underlying buffer (empty on failure).
  ByteSpan take(size_t n) {
    if (!need(n)) return {};
    ByteSpan s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  void skip(size_t n) { take(n); }

  // Unsigned LEB128 varint up to 32 / 64 bits (protocol lengths, tags).
  uint32_t uvarint32() {
    uint64_t v = uvarint_impl(5);
    if (v > UINT32_MAX) { fail(); return 0; }
    return static_cast<uint32_t>(v);
  }
  uint64_t uvarint64() { return uvarint_impl(10); }
  // Zigzag-encoded signed varints (record fields).
  int32_t varint32() {
    uint32_t u = uvarint32();
    return static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  int64_t varint64() {
    uint64_t u = uvarint64();
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }

 private:
  bool need(size_t n) {
    if (!ok_ || data_.size() - pos_ < n) { fail(); return false; }
    return true;
  }
  template <typename T>
  T be() {
    if (!need(sizeof(T))) return 0;
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>((v << 8) | data_[pos_ + i]);
    pos_ += sizeof(T);
    return v;
  }
  uint64_t uvarint_impl(int max_bytes) {
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (!need(1)) return 0;
      uint8_t b = data_[pos_++];
      v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) return v;
    }
    fail();  // too long
    return 0;
  }

  ByteSpan data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

class ByteWriter {
 public:
  // A region inserted before buffer()[at].
  struct Splice {
    size_t at = 0;
    FileRegion region;
  };
  enum CollectSplices { collect_splices };

  ByteWriter() = default;
  explicit ByteWriter(size_t reserve) { buf_.reserve(reserve); }
  explicit ByteWriter(Bytes initial) : buf_(std::move(initial)) {}
  ByteWriter(CollectSplices, Bytes initial) : buf_(std::move(initial)), collects_splices_(true) {}

  bool collects_splices() const { return collects_splices_; }
  // Only when collects_splices(): the region goes in at the current end.
  void splice(FileRegion r) { splices_.push_back(Splice{buf_.size(), std::move(r)}); }
  std::vector<Splice> take_splices() { return std::move(splices_); }

  Bytes& buffer() { return buf_; }
  const Bytes& buffer() const { return buf_; }
  Bytes take() { return std::move(buf_); }
  size_t size() const { return buf_.size(); }

  void i8(int8_t v) { buf_.push_back(static_cast<uint8_t>(v)); }
  void u8(uint8_t v) { buf_.push_back(v); }
  void i16(int16_t v) { be(static_cast<uint16_t>(v)); }
  void u16(uint16_t v) { be(v); }
  void i32(int32_t v) { be(static_cast<uint32_t>(v)); }
  void u32(uint32_t v) { be(v); }
  void i64(int64_t v) { be(static_cast<uint64_t>(v)); }
  void u64(uint64_t v) { be(v); }
  void f64(double d) {
    uint64_t v;
    std::memcpy(&v, &d, sizeof v);
    u64(v);
  }
  void bytes(ByteSpan s) { buf_.insert(buf_.end(), s.begin(), s.end()); }
  void bytes(std::string_view s) { bytes(as_span(s)); }

  void uvarint(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    buf_.push_back(static_cast<uint8_t>(v));
  }
  void varint32(int32_t v) {
    uvarint(static_cast<uint32_t>((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31)));
  }
  void varint64(int64_t v) {
    uvarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }

  // Overwrite a big-endian int32 at an earlier position (length prefixes).
  void patch_i32(size_t pos, int32_t v) {
    auto u = static_cast<uint32_t>(v);
    for (int i = 3; i >= 0; --i) { buf_[pos + i] = static_cast<uint8_t>(u); u >>= 8; }
  }

 private:
  template <typename T>
  void be(T v) {
    uint8_t tmp[sizeof(T)];
    for (int i = sizeof(T) - 1; i >= 0; --i) { tmp[i] = static_cast<uint8_t>(v); v = static_cast<T>(v >> 8); }
    buf_.insert(buf_.end(), tmp, tmp + sizeof(T));
  }
  Bytes buf_;
  bool collects_splices_ = false;
  std::vector<Splice> splices_;
};

// Size in bytes of the unsigned varint encoding of v.
inline size_t uvarint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) { v >>= 7; ++n; }
  return n;
}
inline size_t varint32_size(int32_t v) {
  return uvarint_size(static_cast<uint32_t>((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31)));
}
inline size_t varint64_size(int64_t v) {
  return uvarint_size((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

}  // namespace spool
