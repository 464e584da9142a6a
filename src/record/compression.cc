#include "record/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>

#include "record/error_codes.h"

namespace spool::record {
namespace {

constexpr uint8_t kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeaderSize = 16;  // magic + version + compatible version
constexpr size_t kXerialBlockSize = 32 * 1024;
constexpr size_t kInitialOutput = 4096;

Status corrupt(Compression c, const std::string& what) {
  return Status::error(std::string(compression_name(c)) + ": " + what, kCorruptMessage);
}

Status too_big(Compression c, size_t max_output) {
  return corrupt(c, "decompressed size exceeds the limit of " + std::to_string(max_output) +
                        " bytes");
}

// Growable output window for the streaming decoders. The buffer may reach
// max_output + 1 bytes: filling that last byte is how we learn the data is
// larger than allowed without needing the decoder to tell us up front.
class Sink {
 public:
  Sink(Bytes& out, size_t max_output, size_t hint)
      : out_(out), limit_(std::min(max_output, SIZE_MAX / 4) + 1) {
    out_.clear();
    out_.resize(std::min(limit_, std::max(kInitialOutput, hint)));
  }
  uint8_t* cursor() { return out_.data() + used_; }
  size_t room() const { return out_.size() - used_; }
  void advance(size_t n) { used_ += n; }
  size_t used() const { return used_; }
  bool over_limit() const { return used_ >= limit_; }
  // Makes room for more output; false once the limit is reached.
  bool grow() {
    if (room() > 0) return true;
    if (out_.size() >= limit_) return false;
    out_.resize(std::min(limit_, std::max(kInitialOutput, out_.size() * 2)));
    return true;
  }
  void finish() { out_.resize(used_); }

 private:
  Bytes& out_;
  size_t limit_;
  size_t used_ = 0;
};

// ---- gzip ------------------------------------------------------------------

Status gzip_decompress(ByteSpan in, size_t max_output, Bytes& out) {
  const auto c = Compression::kGzip;
  if (in.size() > UINT_MAX) return corrupt(c, "input too large");
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return corrupt(c, "inflateInit failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  Sink sink(out, max_output, in.size() * 4);
  for (;;) {
    if (!sink.grow()) return too_big(c, max_output);
    zs.next_out = sink.cursor();
    zs.avail_out = static_cast<uInt>(std::min<size_t>(sink.room(), UINT_MAX));
    const uInt before = zs.avail_out;
    int ret = inflate(&zs, Z_NO_FLUSH);
    sink.advance(before - zs.avail_out);
    if (sink.over_limit()) return too_big(c, max_output);
    if (ret == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      // Java's GZIPInputStream reads concatenated members; so do we.
      if (inflateReset(&zs) != Z_OK) return corrupt(c, "inflateReset failed");
      continue;
    }
    if (ret == Z_BUF_ERROR) {
      if (zs.avail_in == 0) return corrupt(c, "truncated stream");
      continue;  // out of output space: grow on the next turn
    }
    if (ret != Z_OK) return corrupt(c, zs.msg ? zs.msg : "inflate failed");
    if (zs.avail_in == 0 && zs.avail_out > 0) return corrupt(c, "truncated stream");
  }
  sink.finish();
  return Status::ok();
}

Result<Bytes> gzip_compress(ByteSpan in, int level) {
  const auto c = Compression::kGzip;
  if (level < -1 || level > 9) return corrupt(c, "level must be -1..9");
  if (in.size() > UINT_MAX / 2) return corrupt(c, "input too large");
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return corrupt(c, "deflateInit failed");
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, deflateEnd);
  Bytes out(deflateBound(&zs, static_cast<uLong>(in.size())) + 32);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) return corrupt(c, "deflate failed");
  out.resize(zs.total_out);
  return out;
}

// ---- snappy ----------------------------------------------------------------

// Appends one raw snappy block to `out`, keeping the total within max_output.
Status snappy_block(ByteSpan block, size_t max_output, Bytes& out) {
  const auto c = Compression::kSnappy;
  const char* src = reinterpret_cast<const char*>(block.data());
  size_t ulen = 0;
  if (!snappy::GetUncompressedLength(src, block.size(), &ulen)) {
    return corrupt(c, "bad block length header");
  }
  if (ulen > max_output || out.size() > max_output - ulen) return too_big(c, max_output);
  // The length header is attacker-chosen; before trusting a large one enough
  // to allocate it, make sure the block really decodes to that size.
  if (ulen > 64 * 1024 && ulen / 8 > block.size() &&
      !snappy::IsValidCompressedBuffer(src, block.size())) {
    return corrupt(c, "invalid block");
  }
  const size_t at = out.size();
  out.resize(at + ulen);
  if (!snappy::RawUncompress(src, block.size(), reinterpret_cast<char*>(out.data() + at))) {
    return corrupt(c, "invalid block");
  }
  return Status::ok();
}

bool is_xerial(ByteSpan in) {
  return in.size() >= kXerialHeaderSize && std::memcmp(in.data(), kXerialMagic, 8) == 0;
}

Status snappy_decompress(ByteSpan in, size_t max_output, Bytes& out) {
  out.clear();
  if (!is_xerial(in)) return snappy_block(in, max_output, out);
  ByteReader r(in.subspan(kXerialHeaderSize));
  while (r.remaining() > 0) {
    const int32_t len = r.i32();
    if (!r.ok()) return corrupt(Compression::kSnappy, "truncated xerial chunk length");
    if (len < 0 || static_cast<size_t>(len) > r.remaining()) {
      return corrupt(Compression::kSnappy, "xerial chunk length " + std::to_string(len) +
                                               " runs past the input");
    }
    if (len == 0) continue;
    Status s = snappy_block(r.take(static_cast<size_t>(len)), max_output, out);
    if (!s) return s;
  }
  return Status::ok();
}

Result<Bytes> snappy_compress(ByteSpan in) {
  ByteWriter w(kXerialHeaderSize + snappy::MaxCompressedLength(in.size()) +
               4 * (in.size() / kXerialBlockSize + 1));
  w.bytes(ByteSpan(kXerialMagic, 8));
  w.i32(1);  // version
  w.i32(1);  // minimum compatible version
  std::string block;
  for (size_t pos = 0; pos < in.size(); pos += kXerialBlockSize) {
    const size_t n = std::min(kXerialBlockSize, in.size() - pos);
    block.clear();
    snappy::Compress(reinterpret_cast<const char*>(in.data() + pos), n, &block);
    w.i32(static_cast<int32_t>(block.size()));
    w.bytes(std::string_view(block));
  }
  return w.take();
}

// ---- lz4 -------------------------------------------------------------------

Status lz4_decompress(ByteSpan in, size_t max_output, Bytes& out) {
  const auto c = Compression::kLz4;
  if (in.empty()) return corrupt(c, "empty input");
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return corrupt(c, "cannot create context");
  }
  std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx*)> guard(raw, LZ4F_freeDecompressionContext);
  Sink sink(out, max_output, in.size() * 4);
  size_t pos = 0;
  size_t hint = 1;
  for (;;) {
    if (!sink.grow()) return too_big(c, max_output);
    size_t src_size = in.size() - pos;
    size_t dst_size = sink.room();
    hint = LZ4F_decompress(raw, sink.cursor(), &dst_size, in.data() + pos, &src_size, nullptr);
    if (LZ4F_isError(hint)) return corrupt(c, LZ4F_getErrorName(hint));
    pos += src_size;
    sink.advance(dst_size);
    if (sink.over_limit()) return too_big(c, max_output);
    if (pos == in.size()) {
      if (hint == 0) break;  // frame complete, input exhausted
      // More output may still be buffered only if we filled the window.
      if (sink.room() > 0) return corrupt(c, "truncated frame");
    } else if (src_size == 0 && dst_size == 0 && sink.room() > 0) {
      return corrupt(c, "decoder made no progress");
    }
    // hint == 0 with input left: another frame follows; the context resets itself.
  }
  sink.finish();
  return Status::ok();
}

Result<Bytes> lz4_compress(ByteSpan in, int level) {
  const auto c = Compression::kLz4;
  if (level < -1 || level > 12) return corrupt(c, "level must be -1..12");
  LZ4F_preferences_t prefs;
  std::memset(&prefs, 0, sizeof prefs);
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
  prefs.compressionLevel = level < 0 ? 0 : level;
  Bytes out(LZ4F_compressFrameBound(in.size(), &prefs));
  size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) return corrupt(c, LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

// ---- zstd ------------------------------------------------------------------

int window_log_limit(size_t max_output) {
  // The window buffer is allocated from the frame header before any output
  // exists, so bound it by what we are willing to produce. 2^23 is the floor
  // because streaming producers (Java's zstd-jni) use windows up to 2^21+.
  int log = 23;
  while (log < 27 && (size_t{1} << log) < max_output) ++log;
  return log;
}

Status zstd_decompress(ByteSpan in, size_t max_output, Bytes& out) {
  const auto c = Compression::kZstd;
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> d(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!d) return corrupt(c, "cannot create context");
  ZSTD_DCtx_setParameter(d.get(), ZSTD_d_windowLogMax, window_log_limit(max_output));
  Sink sink(out, max_output, in.size() * 4);
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  for (;;) {
    if (!sink.grow()) return too_big(c, max_output);
    ZSTD_outBuffer dst{sink.cursor(), sink.room(), 0};
    const size_t in_before = src.pos;
    size_t ret = ZSTD_decompressStream(d.get(), &dst, &src);
    if (ZSTD_isError(ret)) return corrupt(c, ZSTD_getErrorName(ret));
    sink.advance(dst.pos);
    if (sink.over_limit()) return too_big(c, max_output);
    if (src.pos == src.size) {
      if (ret == 0) break;  // last frame complete
      if (dst.pos < dst.size) return corrupt(c, "truncated frame");
    } else if (src.pos == in_before && dst.pos == 0 && dst.size > 0) {
      return corrupt(c, "decoder made no progress");
    }
  }
  sink.finish();
  return Status::ok();
}

Result<Bytes> zstd_compress(ByteSpan in, int level) {
  const auto c = Compression::kZstd;
  if (level < -1 || level > ZSTD_maxCLevel()) return corrupt(c, "level out of range");
  Bytes out(ZSTD_compressBound(in.size()));
  size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level <= 0 ? 3 : level);
  if (ZSTD_isError(n)) return corrupt(c, ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

}  // namespace

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::kNone: return "none";
    case Compression::kGzip: return "gzip";
    case Compression::kSnappy: return "snappy";
    case Compression::kLz4: return "lz4";
    case Compression::kZstd: return "zstd";
  }
  return "unknown";
}

Status decompress_into(Compression c, ByteSpan in, size_t max_output, Bytes& out) {
  switch (c) {
    case Compression::kNone:
      if (in.size() > max_output) return too_big(c, max_output);
      out.assign(in.begin(), in.end());
      return Status::ok();
    case Compression::kGzip: return gzip_decompress(in, max_output, out);
    case Compression::kSnappy: return snappy_decompress(in, max_output, out);
    case Compression::kLz4: return lz4_decompress(in, max_output, out);
    case Compression::kZstd: return zstd_decompress(in, max_output, out);
  }
  return Status::error("unknown compression codec " + std::to_string(static_cast<int>(c)),
                       kCorruptMessage);
}

Result<Bytes> decompress(Compression c, ByteSpan in, size_t max_output) {
  Bytes out;
  Status s = decompress_into(c, in, max_output, out);
  if (!s) return s;
  return out;
}

Result<Bytes> compress(Compression c, ByteSpan in, int level) {
  switch (c) {
    case Compression::kNone: return Bytes(in.begin(), in.end());
    case Compression::kGzip: return gzip_compress(in, level);
    case Compression::kSnappy: return snappy_compress(in);
    case Compression::kLz4: return lz4_compress(in, level);
    case Compression::kZstd: return zstd_compress(in, level);
  }
  return Status::error("unknown compression codec " + std::to_string(static_cast<int>(c)),
                       kCorruptMessage);
}

}  // namespace spool::record
