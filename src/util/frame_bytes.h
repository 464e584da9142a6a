// FrameBytes: a byte vector whose sized construction and resize() leave the
// new bytes uninitialized. For buffers that a read overwrites at once (a
// request frame read from the socket), where zero-filling a megabyte first
// cost 4-8% of the broker's CPU on the produce path (perf, issue 7).
// Otherwise exactly std::vector<uint8_t>; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace spool {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  // Default-insertion: default-initialize (no zeroing for trivial types).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using FrameBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

}  // namespace spool
