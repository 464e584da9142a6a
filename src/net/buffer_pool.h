// Response buffer pooling: answers are encoded into buffers taken from a
// small per-thread free list and handed back once written, so a busy
// connection does not allocate (and fault in) a fresh buffer per answer.
//
// Threading: the lists are thread_local, so no locking; a buffer taken on
// one thread and recycled on another simply moves between lists. Bounded:
// at most kPoolBuffers buffers of at most kPoolMaxCapacity bytes per thread
// are kept; anything else is freed.
#pragma once

#include <cstddef>

#include "util/bytes.h"

namespace spool::net {

inline constexpr size_t kPoolBuffers = 32;
inline constexpr size_t kPoolMaxCapacity = 1 << 20;

// An empty buffer with at least `reserve` bytes of capacity.
Bytes acquire_buffer(size_t reserve);
// Gives a buffer back (its contents are discarded).
void recycle_buffer(Bytes&& buffer);

}  // namespace spool::net
