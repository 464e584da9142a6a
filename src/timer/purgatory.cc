// The key-independent half of Purgatory (see purgatory.h).
#include "timer/purgatory.h"

namespace spool::timer {

namespace {

SystemTimerOptions timer_options(const PurgatoryOptions& o) {
  SystemTimerOptions t;
  t.name = o.name;
  t.tick_ms = o.tick_ms;
  t.wheel_size = o.wheel_size;
  t.clock = o.clock;
  return t;
}

}  // namespace

PurgatoryTimer::PurgatoryTimer(const PurgatoryOptions& options)
    : timer_(timer_options(options)), purge_interval_(options.purge_interval) {}

void PurgatoryTimer::add_to_timer(const std::shared_ptr<DelayedOperation>& op) {
  timer_.add(op);
  // Completed between the try and the add: take it out of the wheel again.
  if (op->is_completed()) op->cancel();
  // shutdown() drained the timer concurrently: the op would never fire.
  if (shut_down_.load()) op->run();
}

bool PurgatoryTimer::purge_due() {
  const int64_t delayed = timer_.size();
  int64_t estimated = estimated_total_.load();
  // The CAS elects one thread per pass.
  return estimated - delayed > purge_interval_ && estimated_total_.compare_exchange_strong(estimated, delayed);
}

std::vector<std::shared_ptr<TimerTask>> PurgatoryTimer::stop_timer() {
  timer_.stop();
  return timer_.drain();
}

}  // namespace spool::timer
