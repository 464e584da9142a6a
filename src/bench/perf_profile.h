// "Where the time goes" for the report: `perf record -g` attached to the
// broker process while one extra run of a workload goes on, summarized as
// the top symbols by self time (`perf report --stdio`).
// Ownership: a PerfRecording owns its perf child and stops it (SIGINT) in
// stop() or the destructor. Single thread. Failure: Status (perf missing,
// not permitted, no samples); the runner records it as a note.
#pragma once

#include <sys/types.h>

#include <string>

#include "util/status.h"

namespace spool::bench {

class PerfRecording {
 public:
  // Starts `perf record -g -p pid -o data_path` and gives it a moment to attach.
  static Result<PerfRecording> start(pid_t pid, const std::string& data_path);
  PerfRecording(PerfRecording&& o) noexcept : perf_pid_(o.perf_pid_), data_path_(std::move(o.data_path_)) {
    o.perf_pid_ = -1;
  }
  PerfRecording& operator=(PerfRecording&&) = delete;
  ~PerfRecording();

  // Stops recording and returns the Markdown summary (top `top_n` symbols).
  Result<std::string> stop_and_summarize(int top_n);

 private:
  PerfRecording(pid_t perf_pid, std::string data_path) : perf_pid_(perf_pid), data_path_(std::move(data_path)) {}
  Status stop();

  pid_t perf_pid_ = -1;
  std::string data_path_;
};

}  // namespace spool::bench
