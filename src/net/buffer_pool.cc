#include "net/buffer_pool.h"

#include <vector>

namespace spool::net {

namespace {
thread_local std::vector<Bytes> pool;
}  // namespace

Bytes acquire_buffer(size_t reserve) {
  if (!pool.empty()) {
    Bytes b = std::move(pool.back());
    pool.pop_back();
    b.clear();
    if (b.capacity() < reserve) b.reserve(reserve);
    return b;
  }
  Bytes b;
  b.reserve(reserve);
  return b;
}

void recycle_buffer(Bytes&& buffer) {
  if (buffer.capacity() == 0 || buffer.capacity() > kPoolMaxCapacity || pool.size() >= kPoolBuffers) {
    Bytes().swap(buffer);
    return;
  }
  buffer.clear();
  pool.push_back(std::move(buffer));
}

}  // namespace spool::net
