// Encoder and validating decoder of the embedded metadata file
// (embedded_format.h, docs/embedded-metadata-format.md).
#include "cluster/embedded_format.h"

#include <cstring>

#include "util/crc32c.h"

namespace spool::cluster::embedded {
namespace {

void put_u16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v));
}
void put_u32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>(v >> s));
}
void put_u64(std::string& out, uint64_t v) {
  for (int s = 56; s >= 0; s -= 8) out.push_back(static_cast<char>(v >> s));
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  size_t left() const { return b_.size() - pos_; }
  size_t pos() const { return pos_; }
  bool u16(uint16_t& v) { return uint(2, v); }
  bool u32(uint32_t& v) { return uint(4, v); }
  bool u64(uint64_t& v) { return uint(8, v); }
  bool bytes(size_t n, std::string& out) {
    if (left() < n) return false;
    out.assign(b_.data() + pos_, n);
    pos_ += n;
    return true;
  }

 private:
  template <typename T>
  bool uint(size_t n, T& v) {
    if (left() < n) return false;
    v = 0;
    for (size_t i = 0; i < n; ++i) v = static_cast<T>((v << 8) | static_cast<uint8_t>(b_[pos_ + i]));
    pos_ += n;
    return true;
  }
  std::string_view b_;
  size_t pos_ = 0;
};

}  // namespace

std::string encode(const Snapshot& snap) {
  std::string out;
  out.append(kMagic, sizeof kMagic);
  put_u16(out, kVersion);
  put_u16(out, 0);
  put_u64(out, static_cast<uint64_t>(snap.last_zxid));
  put_u32(out, static_cast<uint32_t>(snap.nodes.size()));
  for (const auto& n : snap.nodes) {
    put_u32(out, static_cast<uint32_t>(n.path.size()));
    out += n.path;
    put_u32(out, static_cast<uint32_t>(n.data.size()));
    out += n.data;
    put_u64(out, static_cast<uint64_t>(n.stat.czxid));
    put_u64(out, static_cast<uint64_t>(n.stat.mzxid));
    put_u32(out, static_cast<uint32_t>(n.stat.version));
    put_u32(out, static_cast<uint32_t>(n.stat.cversion));
  }
  put_u32(out, crc32c(reinterpret_cast<const uint8_t*>(out.data()), out.size()));
  return out;
}

Result<Snapshot> decode(std::string_view bytes) {
  auto bad = [](const std::string& why) { return Status::error(why); };
  if (bytes.size() < kHeaderBytes + kTrailerBytes)
    return bad("truncated: " + std::to_string(bytes.size()) + " bytes, a header and checksum need " +
               std::to_string(kHeaderBytes + kTrailerBytes));
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return bad("not a Spool metadata file (bad magic)");
  size_t body = bytes.size() - kTrailerBytes;
  Reader trailer(bytes.substr(body));
  uint32_t want = 0;
  trailer.u32(want);
  uint32_t got = crc32c(reinterpret_cast<const uint8_t*>(bytes.data()), body);
  if (got != want) return bad("checksum mismatch (file says " + std::to_string(want) + ", content is " + std::to_string(got) + "): corrupt or truncated");
  Reader r(bytes.substr(0, body));
  std::string magic;
  r.bytes(4, magic);
  uint16_t version = 0, flags = 0;
  uint64_t zxid = 0;
  uint32_t count = 0;
  r.u16(version);
  r.u16(flags);
  r.u64(zxid);
  r.u32(count);
  if (version != kVersion) return bad("unsupported version " + std::to_string(version));
  if (flags != 0) return bad("unknown flags " + std::to_string(flags));
  if (static_cast<int64_t>(zxid) < 0) return bad("negative last zxid");
  if (count > r.left() / kNodeFixedBytes) return bad("node count " + std::to_string(count) + " exceeds the file");
  Snapshot snap;
  snap.last_zxid = static_cast<int64_t>(zxid);
  snap.nodes.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    MemoryTree::SavedNode n;
    uint32_t plen = 0, dlen = 0, ver = 0, cver = 0;
    uint64_t czxid = 0, mzxid = 0;
    std::string where = "node " + std::to_string(i) + " at byte " + std::to_string(r.pos());
    if (!r.u32(plen) || plen == 0 || plen > kMaxPathBytes || !r.bytes(plen, n.path))
      return bad(where + ": bad path length " + std::to_string(plen));
    if (!r.u32(dlen) || dlen > kMaxDataBytes || !r.bytes(dlen, n.data))
      return bad(where + " (" + n.path + "): bad data length " + std::to_string(dlen));
    if (!r.u64(czxid) || !r.u64(mzxid) || !r.u32(ver) || !r.u32(cver))
      return bad(where + " (" + n.path + "): truncated stat");
    n.stat.czxid = static_cast<int64_t>(czxid);
    n.stat.mzxid = static_cast<int64_t>(mzxid);
    n.stat.version = static_cast<int32_t>(ver);
    n.stat.cversion = static_cast<int32_t>(cver);
    if (n.stat.czxid < 0 || n.stat.mzxid < n.stat.czxid || n.stat.version < 0 || n.stat.cversion < 0)
      return bad(where + " (" + n.path + "): impossible stat");
    snap.nodes.push_back(std::move(n));
  }
  if (r.left() != 0) return bad(std::to_string(r.left()) + " unexpected bytes after the last node");
  return snap;
}

}  // namespace spool::cluster::embedded
