// ProgressLog: "what: 42% (420/1000 units)" lines for long work, at most one
// per `every`, written through a sink (the broker's log for recovery,
// stderr for CLI commands whose stdout is their output).
//
// Nothing is written before `every` has passed since construction, so fast
// work stays quiet; finish() writes the 100% line only if an earlier line
// was written. Not thread-safe: callers that advance from several threads
// hold their own lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace spool::util {

class ProgressLog {
 public:
  using Sink = std::function<void(const std::string& line)>;
  ProgressLog(std::string what, std::string units, int64_t total, Sink sink,
              std::chrono::milliseconds every = std::chrono::seconds(3));

  void advance(int64_t n) { set(done_ + n); }
  void set(int64_t done);
  void finish();
  int64_t done() const { return done_; }

  // The line for `done` of `total` (exposed for tests).
  static std::string line(const std::string& what, const std::string& units, int64_t done, int64_t total);

 private:
  std::string what_;
  std::string units_;
  int64_t total_;
  Sink sink_;
  std::chrono::milliseconds every_;
  std::chrono::steady_clock::time_point last_;
  int64_t done_ = 0;
  bool wrote_ = false;
};

}  // namespace spool::util
