// DelayedFetch: a fetch that found less than min_bytes, waiting until enough
// data is readable or max_wait_ms passes (Kafka's DelayedFetch).
//
// It is watched under the TopicPartition of every partition it reads;
// whoever moves a partition's high watermark (an append without durable
// writes, a group-committed fsync with them) calls check_and_complete on the
// replica manager's fetch purgatory with that key. ReplicaManager::
// fetch_messages supplies the two halves that know about the request: `ready` says whether the condition now holds
// (enough bytes, or something changed that must be reported at once, such as
// an error), `respond` reads and answers. respond runs exactly once, on
// completion or on expiry ("answer with what exists").
// Threading: ready() runs under the operation's lock on the thread that
// checks; respond() on whichever thread completed it. Both must not block.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "timer/delayed_operation.h"

namespace spool::broker {

class DelayedFetch : public timer::DelayedOperation {
 public:
  DelayedFetch(int64_t max_wait_ms, std::function<bool()> ready, std::function<void()> respond)
      : DelayedOperation(max_wait_ms), ready_(std::move(ready)), respond_(std::move(respond)) {}

 protected:
  bool try_complete() override { return ready_() ? force_complete() : false; }
  void on_complete() override { respond_(); }

 private:
  std::function<bool()> ready_;
  std::function<void()> respond_;
};

}  // namespace spool::broker
