#include "bench/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "bench/stats.h"

namespace spool::bench {

std::string human_number(double v) {
  char buf[32];
  double a = std::fabs(v);
  if (a >= 1e9) std::snprintf(buf, sizeof buf, "%.3g G", v / 1e9);
  else if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.3g M", v / 1e6);
  else if (a >= 1e4) std::snprintf(buf, sizeof buf, "%.3g k", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

Progress::Progress(int total_steps, bool quiet)
    : total_(total_steps), tty_(isatty(STDERR_FILENO) == 1), quiet_(quiet) {}

void Progress::clear_live_locked() {
  if (live_shown_) {
    std::fprintf(stderr, "\r\033[K");
    live_shown_ = false;
  }
}

void Progress::begin(const std::string& label) {
  std::lock_guard<std::mutex> lock(mu_);
  ++step_;
  current_ = label;
  if (quiet_ || !tty_) return;
  clear_live_locked();
  std::fprintf(stderr, "[%d/%d] %s ...", step_, total_, label.c_str());
  live_shown_ = true;
  std::fflush(stderr);
}

void Progress::done(const std::string& label, const std::string& outcome) {
  std::lock_guard<std::mutex> lock(mu_);
  if (quiet_) return;
  clear_live_locked();
  std::fprintf(stderr, "[%d/%d] %s: %s\n", step_, total_, label.c_str(), outcome.c_str());
  std::fflush(stderr);
}

void Progress::note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (quiet_) return;
  clear_live_locked();
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::live(const std::string& text) {
  if (!tty_ || quiet_) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto now = std::chrono::steady_clock::now();
  if (now - last_live_ < std::chrono::milliseconds(250)) return;
  last_live_ = now;
  std::fprintf(stderr, "\r\033[K[%d/%d] %s: %s", step_, total_, current_.c_str(), text.c_str());
  live_shown_ = true;
  std::fflush(stderr);
}

}  // namespace spool::bench
