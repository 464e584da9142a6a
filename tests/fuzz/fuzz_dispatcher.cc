// Stateful fuzzing of the broker's request path: each input is a sequence
// of requests that one client sends to a fresh single-node broker (the
// services of broker/run.cc wired in-process by fuzz_broker.h, on a scratch
// log dir emptied before every input), through the Dispatcher: the handler
// table lookup, version and listener checks, every handler, the
// coordinators, the replica manager and the logs. Later requests see what
// earlier ones did (topics created, records produced, groups joined,
// transactions begun), which no single-message fuzzer reaches.
//
// Input: frames as on the wire, each a 4-byte big-endian size then the
// frame (request header + body); a size beyond what is left takes the
// rest, so every input is a sequence. At most 64 frames are sent. The seed
// corpus is real client sessions (capture_traffic.py). Answers are encoded
// and dropped. The check is that nothing crashes, trips a sanitizer or
// hangs, including the shutdown after the last frame. The process has 512
// file descriptors (see LLVMFuzzerInitialize).
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "fuzz_broker.h"
#include "fuzz_scratch_dir.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);  // refused requests are logged
  // A partition keeps its segment open: with 512 descriptors a CreateTopics
  // of up to 100000 partitions fails after a few hundred, as it would on a
  // broker with a low ulimit, and its undo runs; an input stays short.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur > 512) {
    files.rlim_cur = 512;
    (void)::setrlimit(RLIMIT_NOFILE, &files);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& scratch = spool::fuzz::scratch_dir("spool-fuzz-dispatcher");
  scratch.clear();
  auto broker = spool::fuzz::FuzzBroker::open(scratch.path());
  if (!broker) __builtin_trap();  // an empty dir always opens
  constexpr uint64_t kConn = 1;
  size_t pos = 0;
  for (int frames = 0; frames < 64 && pos + 4 < size; ++frames) {
    const size_t want = (size_t(data[pos]) << 24) | (size_t(data[pos + 1]) << 16) | (size_t(data[pos + 2]) << 8) |
                        data[pos + 3];
    pos += 4;
    const size_t n = want < size - pos ? want : size - pos;
    if (n > 0) (*broker)->handle(kConn, data + pos, n);  // the net layer never hands over an empty frame
    pos += n;
  }
  (*broker)->disconnect(kConn);
  return 0;
}
