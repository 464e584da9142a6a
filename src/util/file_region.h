// FileRegion: a byte range of an open file, to be sent without copying it
// through user space (sendfile) or read into memory when that is not possible.
//
// Ownership: `owner` keeps whatever owns `fd` alive (for storage: the log
// segment), so the descriptor stays open, and the inode readable, even after
// the file is unlinked (retention, a cleaner swap, topic deletion) while the
// region waits in a connection's send queue. The range is fixed when the
// region is made; the file may only grow meanwhile (segments are append-only).
// A region whose file was truncated below its end since (follower truncation,
// cluster mode only) cannot be sent: the sender notices the short file and
// fails instead of sending other bytes. Immutable; safe to share across
// threads.
#pragma once

#include <cstdint>
#include <memory>

namespace spool {

struct FileRegion {
  std::shared_ptr<const void> owner;
  int fd = -1;
  int64_t offset = 0;
  int64_t length = 0;
};

}  // namespace spool
