#include "protocol/records.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace spool::protocol {

namespace {

int64_t regions_size(const std::vector<FileRegion>& regions) {
  int64_t n = 0;
  for (const auto& r : regions) n += r.length;
  return n;
}

// Reads a region to the end of out; false (and zero padding) if the file is short.
bool read_region(const FileRegion& region, Bytes& out) {
  const size_t start = out.size();
  out.resize(start + static_cast<size_t>(region.length));
  int64_t done = 0;
  while (done < region.length) {
    const ssize_t n = ::pread(region.fd, out.data() + start + done, static_cast<size_t>(region.length - done),
                              static_cast<off_t>(region.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(start + done), out.end(), uint8_t{0});
      return false;
    }
    done += n;
  }
  return true;
}

}  // namespace

size_t Records::size() const {
  if (const auto* b = std::get_if<Bytes>(&v_)) return b->size();
  if (const auto* s = std::get_if<std::span<uint8_t>>(&v_)) return s->size();
  return static_cast<size_t>(regions_size(std::get<std::vector<FileRegion>>(v_)));
}

std::span<uint8_t> Records::bytes() {
  if (auto* b = std::get_if<Bytes>(&v_)) return {b->data(), b->size()};
  if (auto* s = std::get_if<std::span<uint8_t>>(&v_)) return *s;
  return {};
}

ByteSpan Records::bytes() const {
  if (const auto* b = std::get_if<Bytes>(&v_)) return {b->data(), b->size()};
  if (const auto* s = std::get_if<std::span<uint8_t>>(&v_)) return {s->data(), s->size()};
  return {};
}

bool Records::write_to(ByteWriter& w) const {
  const auto* regions = this->regions();
  if (regions == nullptr) {
    w.bytes(bytes());
    return true;
  }
  bool ok = true;
  for (const auto& r : *regions) {
    if (w.collects_splices()) {
      w.splice(r);
    } else {
      ok = read_region(r, w.buffer()) && ok;
    }
  }
  return ok;
}

bool Records::operator==(const Records& other) const {
  const auto* a = regions();
  const auto* b = other.regions();
  if (a == nullptr && b == nullptr) {
    const ByteSpan x = bytes(), y = other.bytes();
    return std::equal(x.begin(), x.end(), y.begin(), y.end());
  }
  if (a == nullptr || b == nullptr || a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    const auto& p = (*a)[i];
    const auto& q = (*b)[i];
    if (p.fd != q.fd || p.offset != q.offset || p.length != q.length) return false;
  }
  return true;
}

}  // namespace spool::protocol
