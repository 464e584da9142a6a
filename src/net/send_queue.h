// SendQueue: the answers of one connection waiting to be written, in order,
// and the non-blocking writer that drains them.
//
// Each answer is its 4-byte size prefix followed by the pieces of a Response:
// memory runs and file regions. Consecutive memory runs — across answers, so
// pipelined answers that are ready together leave in one call — go out with
// one sendmsg (gathered, up to IOV_MAX pieces); a file region goes out with
// sendfile(2) straight from the page cache, or, with sendfile off (tests, a
// transport that needs the bytes), is read into a reusable scratch buffer and
// sent from there. Both paths put the same bytes on the wire.
//
// On a TLS connection (use_tls) whose kernel does not encrypt (no kTLS),
// memory runs are gathered into one staging buffer of up to a TLS record and
// written through the TlsStream, and file regions always take the copy path;
// a write the socket did not take is retried with the same bytes, as OpenSSL
// requires. With kTLS the plain paths above serve TLS too, sendfile included.
//
// Threading: not thread-safe; the owning connection's reactor thread only.
// Failure: flush() reports kError with a reason for a socket error and for a
// region whose file is now shorter than the region (truncated meanwhile): the
// connection must then be closed, as the size prefix already promised those
// bytes. Nothing is ever sent in place of missing file bytes.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "net/response.h"
#include "net/tls_stream.h"
#include "util/bytes.h"

namespace spool::net {

class SendQueue {
 public:
  enum class Flush { kDrained, kWouldBlock, kError };

  explicit SendQueue(bool use_sendfile = true) : use_sendfile_(use_sendfile) {}

  // Writes go through `tls` (after its handshake, before the first push);
  // null = plain socket writes.
  void use_tls(TlsStream* tls) { tls_ = tls; }

  // Queues one answer (caller checked size() fits the int32 size prefix).
  void push(Response response);
  bool empty() const { return queue_.empty(); }
  size_t queued() const { return queue_.size(); }

  // Writes until everything is out or the socket (non-blocking) is full.
  Flush flush(int socket_fd);
  // Answers completely written since the last call.
  uint64_t take_completed() {
    uint64_t n = completed_;
    completed_ = 0;
    return n;
  }
  const std::string& error() const { return error_; }
  // Called inside flush() with each answer's timing once its last byte was
  // written, sent_ns stamped (one clock read per answer). Optional.
  void on_sent(std::function<void(const ResponseTiming&)> fn) { on_sent_ = std::move(fn); }

 private:
  struct Piece {
    const uint8_t* mem = nullptr;     // memory run, or
    const FileRegion* region = nullptr;  // file region
    uint64_t len = 0;
  };
  struct Message {
    std::array<uint8_t, 4> prefix{};
    Response response;
    std::vector<Piece> pieces;
  };

  Flush write_memory(int socket_fd);
  Flush write_memory_tls();
  Flush write_tls(const uint8_t* data, size_t n, bool staged);  // staged: data is in stage_
  bool user_space_tls() const { return tls_ != nullptr && !tls_->kernel_send(); }
  Flush write_region(int socket_fd);
  Flush copy_region(int socket_fd, const FileRegion& region, uint64_t left, bool more);
  void advance(uint64_t n);
  bool more_after_current_piece() const;

  bool use_sendfile_;
  TlsStream* tls_ = nullptr;
  // TLS staging: bytes [stage_off_, stage_len_) of stage_ are the next
  // unwritten bytes of the queue (memory pieces only).
  Bytes stage_;
  size_t stage_off_ = 0;
  size_t stage_len_ = 0;
  std::deque<Message> queue_;  // deque: pieces point into their own Message
  size_t piece_ = 0;           // first unwritten piece of queue_.front()
  uint64_t piece_off_ = 0;     // bytes of it already written
  uint64_t completed_ = 0;
  std::string error_;
  std::function<void(const ResponseTiming&)> on_sent_;

  // Copy path: file bytes [scratch_from_, scratch_from_ + scratch_len_) of
  // the current region (offsets relative to the region), valid while
  // scratch_valid_.
  Bytes scratch_;
  bool scratch_valid_ = false;
  uint64_t scratch_from_ = 0;
  uint64_t scratch_len_ = 0;
};

}  // namespace spool::net
