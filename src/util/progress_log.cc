#include "util/progress_log.h"

#include <algorithm>

namespace spool::util {

ProgressLog::ProgressLog(std::string what, std::string units, int64_t total, Sink sink,
                         std::chrono::milliseconds every)
    : what_(std::move(what)),
      units_(std::move(units)),
      total_(std::max<int64_t>(total, 0)),
      sink_(std::move(sink)),
      every_(every),
      last_(std::chrono::steady_clock::now()) {}

std::string ProgressLog::line(const std::string& what, const std::string& units, int64_t done, int64_t total) {
  const int64_t pct = total > 0 ? std::clamp<int64_t>(done * 100 / total, 0, 100) : 100;
  return what + ": " + std::to_string(pct) + "% (" + std::to_string(done) + "/" + std::to_string(total) + " " +
         units + ")";
}

void ProgressLog::set(int64_t done) {
  done_ = done;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < every_ || !sink_) return;
  last_ = now;
  wrote_ = true;
  sink_(line(what_, units_, done_, total_));
}

void ProgressLog::finish() {
  if (wrote_ && sink_) sink_(line(what_, units_, total_, total_));
}

}  // namespace spool::util
