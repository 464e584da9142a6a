#include "net/send_queue.h"

#include "net/buffer_pool.h"
#include "util/clock.h"

#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace spool::net {

namespace {

// Enough for many small pipelined answers per call; IOV_MAX caps it anyway.
constexpr size_t kMaxIov = std::min<size_t>(IOV_MAX, 256);
// Copy path chunk: large enough to keep syscalls few, small enough to stay
// in cache and not to hold much memory per connection.
constexpr size_t kScratchSize = 256 * 1024;
// One TLS record's worth of plaintext: small answers leave together in one.
constexpr size_t kTlsStageSize = 16 * 1024;
// sendfile moves at most ~2 GiB per call; keep each call well below that.
constexpr uint64_t kMaxSendfileChunk = uint64_t{1} << 30;

// Reads exactly n bytes at pos unless the file ends first; returns the count
// or -1 (errno set).
ssize_t pread_some_full(int fd, uint8_t* data, size_t n, int64_t pos) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, data + got, n - got, static_cast<off_t>(pos + static_cast<int64_t>(got)));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

bool would_block(int e) { return e == EAGAIN || e == EWOULDBLOCK; }

}  // namespace

bool Response::flatten(Bytes& out) const {
  out.clear();
  out.reserve(size());
  size_t pos = 0;
  for (const auto& s : splices) {
    size_t at = std::min(s.at, bytes.size());
    out.insert(out.end(), bytes.begin() + static_cast<ptrdiff_t>(pos), bytes.begin() + static_cast<ptrdiff_t>(at));
    pos = std::max(pos, at);
    size_t base = out.size();
    out.resize(base + static_cast<size_t>(s.region.length));
    ssize_t got = pread_some_full(s.region.fd, out.data() + base, static_cast<size_t>(s.region.length),
                                  s.region.offset);
    if (got != s.region.length) return false;
  }
  out.insert(out.end(), bytes.begin() + static_cast<ptrdiff_t>(pos), bytes.end());
  return true;
}

void SendQueue::push(Response response) {
  Message& m = queue_.emplace_back();
  m.response = std::move(response);
  const uint64_t size = m.response.size();
  m.prefix = {static_cast<uint8_t>(size >> 24), static_cast<uint8_t>(size >> 16), static_cast<uint8_t>(size >> 8),
              static_cast<uint8_t>(size)};
  const Bytes& b = m.response.bytes;
  m.pieces.reserve(2 + 2 * m.response.splices.size());
  m.pieces.push_back(Piece{m.prefix.data(), nullptr, 4});
  size_t pos = 0;
  for (const auto& s : m.response.splices) {
    size_t at = std::min(s.at, b.size());
    if (at > pos) m.pieces.push_back(Piece{b.data() + pos, nullptr, at - pos});
    pos = std::max(pos, at);
    if (s.region.length > 0) m.pieces.push_back(Piece{nullptr, &s.region, static_cast<uint64_t>(s.region.length)});
  }
  if (b.size() > pos) m.pieces.push_back(Piece{b.data() + pos, nullptr, b.size() - pos});
}

SendQueue::Flush SendQueue::flush(int socket_fd) {
  while (!queue_.empty()) {
    const Piece& head = queue_.front().pieces[piece_];
    Flush f = head.region               ? write_region(socket_fd)
              : user_space_tls()        ? write_memory_tls()
                                        : write_memory(socket_fd);
    if (f != Flush::kDrained) return f;
  }
  return Flush::kDrained;
}

SendQueue::Flush SendQueue::write_memory(int socket_fd) {
  iovec iov[kMaxIov];
  size_t n = 0;
  bool region_follows = false;
  uint64_t off = piece_off_;
  for (auto m = queue_.begin(); m != queue_.end() && n < kMaxIov && !region_follows; ++m) {
    for (size_t p = (m == queue_.begin() ? piece_ : 0); p < m->pieces.size(); ++p) {
      const Piece& pc = m->pieces[p];
      if (pc.region) {
        region_follows = true;
        break;
      }
      iov[n].iov_base = const_cast<uint8_t*>(pc.mem + off);
      iov[n].iov_len = static_cast<size_t>(pc.len - off);
      off = 0;
      if (++n == kMaxIov) break;
    }
  }
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = n;
  // A region follows: hold this header back so it leaves with the first
  // record bytes instead of as a tiny segment of its own (TCP_NODELAY is on).
  const int flags = MSG_NOSIGNAL | (region_follows ? MSG_MORE : 0);
  for (;;) {
    ssize_t w = ::sendmsg(socket_fd, &msg, flags);
    if (w >= 0) {
      advance(static_cast<uint64_t>(w));
      return Flush::kDrained;  // the caller loops over what is left
    }
    if (errno == EINTR) continue;
    if (would_block(errno)) return Flush::kWouldBlock;
    error_ = std::string("write failed: ") + std::strerror(errno);
    return Flush::kError;
  }
}

bool SendQueue::more_after_current_piece() const {
  return piece_ + 1 < queue_.front().pieces.size() || queue_.size() > 1;
}

SendQueue::Flush SendQueue::write_region(int socket_fd) {
  const Piece& pc = queue_.front().pieces[piece_];
  const FileRegion& r = *pc.region;
  const uint64_t left = pc.len - piece_off_;
  if (!use_sendfile_ || user_space_tls()) return copy_region(socket_fd, r, left, more_after_current_piece());
  for (;;) {
    off_t file_off = static_cast<off_t>(r.offset + static_cast<int64_t>(piece_off_));
    ssize_t w = ::sendfile(socket_fd, r.fd, &file_off, static_cast<size_t>(std::min(left, kMaxSendfileChunk)));
    if (w > 0) {
      advance(static_cast<uint64_t>(w));
      return Flush::kDrained;
    }
    if (w == 0) {
      error_ = "file region shrank while queued (file truncated); cannot send the promised bytes";
      return Flush::kError;
    }
    if (errno == EINTR) continue;
    if (would_block(errno)) return Flush::kWouldBlock;
    if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) {
      // The file cannot be spliced (an odd file system): copy instead, for good.
      use_sendfile_ = false;
      return copy_region(socket_fd, r, left, more_after_current_piece());
    }
    error_ = std::string("sendfile failed: ") + std::strerror(errno);
    return Flush::kError;
  }
}

SendQueue::Flush SendQueue::copy_region(int socket_fd, const FileRegion& r, uint64_t left, bool more) {
  if (!scratch_valid_ || piece_off_ < scratch_from_ || piece_off_ >= scratch_from_ + scratch_len_) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(left, kScratchSize));
    if (scratch_.size() < want) scratch_.resize(want);
    ssize_t got = pread_some_full(r.fd, scratch_.data(), want, r.offset + static_cast<int64_t>(piece_off_));
    if (got < 0) {
      error_ = std::string("reading file region failed: ") + std::strerror(errno);
      return Flush::kError;
    }
    if (static_cast<size_t>(got) < want) {
      error_ = "file region shrank while queued (file truncated); cannot send the promised bytes";
      return Flush::kError;
    }
    scratch_valid_ = true;
    scratch_from_ = piece_off_;
    scratch_len_ = want;
  }
  const uint64_t in = piece_off_ - scratch_from_;
  const size_t n = static_cast<size_t>(scratch_len_ - in);
  const bool more_after = more || n < left;
  if (user_space_tls()) return write_tls(scratch_.data() + in, n, false);
  for (;;) {
    ssize_t w = ::send(socket_fd, scratch_.data() + in, n, MSG_NOSIGNAL | (more_after ? MSG_MORE : 0));
    if (w >= 0) {
      advance(static_cast<uint64_t>(w));
      return Flush::kDrained;
    }
    if (errno == EINTR) continue;
    if (would_block(errno)) return Flush::kWouldBlock;
    error_ = std::string("write failed: ") + std::strerror(errno);
    return Flush::kError;
  }
}

SendQueue::Flush SendQueue::write_memory_tls() {
  if (stage_off_ == stage_len_) {
    stage_.resize(kTlsStageSize);
    stage_off_ = stage_len_ = 0;
    uint64_t off = piece_off_;
    bool full = false;
    for (auto m = queue_.begin(); m != queue_.end() && !full; ++m) {
      for (size_t p = (m == queue_.begin() ? piece_ : 0); p < m->pieces.size(); ++p) {
        const Piece& pc = m->pieces[p];
        if (pc.region) {
          full = true;
          break;
        }
        const size_t take = static_cast<size_t>(std::min<uint64_t>(pc.len - off, kTlsStageSize - stage_len_));
        std::memcpy(stage_.data() + stage_len_, pc.mem + off, take);
        stage_len_ += take;
        off = 0;
        if (stage_len_ == kTlsStageSize) {
          full = true;
          break;
        }
      }
    }
  }
  return write_tls(stage_.data() + stage_off_, stage_len_ - stage_off_, true);
}

SendQueue::Flush SendQueue::write_tls(const uint8_t* data, size_t n, bool staged) {
  const TlsStream::Result r = tls_->write(data, n);
  switch (r.io) {
    case TlsStream::Io::kDone:
      if (staged) {
        stage_off_ += r.n;
        if (stage_off_ == stage_len_) stage_off_ = stage_len_ = 0;
      }
      advance(r.n);
      return Flush::kDrained;
    case TlsStream::Io::kWantWrite:
      return Flush::kWouldBlock;
    case TlsStream::Io::kWantRead:
      // Only a renegotiation makes a write wait for the peer, and it is off.
      error_ = "TLS write waits for the peer (renegotiation is not served)";
      return Flush::kError;
    case TlsStream::Io::kClosed:
      error_ = "TLS write failed: the peer closed the session";
      return Flush::kError;
    case TlsStream::Io::kError:
      break;
  }
  error_ = tls_->error();
  return Flush::kError;
}

void SendQueue::advance(uint64_t n) {
  while (n > 0 && !queue_.empty()) {
    Message& m = queue_.front();
    const Piece& pc = m.pieces[piece_];
    const uint64_t left = pc.len - piece_off_;
    if (n < left) {
      piece_off_ += n;
      return;
    }
    n -= left;
    piece_off_ = 0;
    if (pc.region) scratch_valid_ = false;
    if (++piece_ == m.pieces.size()) {
      if (on_sent_) {
        m.response.timing.sent_ns = steady_clock_ns();
        on_sent_(m.response.timing);
      }
      recycle_buffer(std::move(m.response.bytes));
      queue_.pop_front();
      piece_ = 0;
      ++completed_;
    }
  }
}

}  // namespace spool::net
