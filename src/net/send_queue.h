// SendQueue: the answers of one connection waiting to be written, in order,
// and the non-blocking writer that drains them.
//
// Each answer is its 4-byte size prefix followed by the pieces of a Response:
// memory runs and file regions. Consecutive memory runs — across answers, so
// pipelined answers that are ready together leave in one call — go out with
// one sendmsg (gathered, up to IOV_MAX pieces); a file region goes out with
// sendfile(2) straight from the page cache, or, with sendfile off (tests, a
// transport that needs the bytes, such as TLS later), is read into a reusable
// scratch buffer and sent from there. Both paths put the same bytes on the
// wire.
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
#include <string>
#include <vector>

#include "net/response.h"
#include "util/bytes.h"

namespace spool::net {

class SendQueue {
 public:
  enum class Flush { kDrained, kWouldBlock, kError };

  explicit SendQueue(bool use_sendfile = true) : use_sendfile_(use_sendfile) {}

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
  Flush write_region(int socket_fd);
  Flush copy_region(int socket_fd, const FileRegion& region, uint64_t left, bool more);
  void advance(uint64_t n);
  bool more_after_current_piece() const;

  bool use_sendfile_;
  std::deque<Message> queue_;  // deque: pieces point into their own Message
  size_t piece_ = 0;           // first unwritten piece of queue_.front()
  uint64_t piece_off_ = 0;     // bytes of it already written
  uint64_t completed_ = 0;
  std::string error_;

  // Copy path: file bytes [scratch_from_, scratch_from_ + scratch_len_) of
  // the current region (offsets relative to the region), valid while
  // scratch_valid_.
  Bytes scratch_;
  bool scratch_valid_ = false;
  uint64_t scratch_from_ = 0;
  uint64_t scratch_len_ = 0;
};

}  // namespace spool::net
