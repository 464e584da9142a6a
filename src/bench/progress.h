// Progress output of `spool bench` on stderr: one line per workload run
// ("[12/40] produce/100B/acks=1/p1/x1 spool run 2/3: 1.71 M msg/s") and, when
// stderr is a terminal, a live `\r` counter during long runs (plain stderr
// gets no live counter so logs stay readable).
// Thread-safe: live() may be called from workload threads; all writes hold
// one mutex. Writing never fails the run.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace spool::bench {

class Progress {
 public:
  explicit Progress(int total_steps, bool quiet = false);

  // Announces the step about to run (tty only: shown until its result).
  void begin(const std::string& label);
  // One finished step: its label and what it measured (or why it failed).
  void done(const std::string& label, const std::string& outcome);
  // Free-form line (notes such as "peer: latency skipped").
  void note(const std::string& line);
  // Live counter inside a step, throttled to a few updates a second.
  void live(const std::string& text);

  int total() const { return total_; }
  int step() const { return step_; }

 private:
  void clear_live_locked();

  std::mutex mu_;
  int total_;
  int step_ = 0;
  bool tty_;
  bool quiet_;
  bool live_shown_ = false;
  std::string current_;
  std::chrono::steady_clock::time_point last_live_{};
};

}  // namespace spool::bench
